"""A metric counted by another rule than the mean is one file: its aggregation registered here
gives the headline row, every breakdown cell and the grid from the cells' results, and a
metric with no per-sample value at all joins the headline of its protocol."""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.metrics.aggregations import AGGREGATIONS, aggregation
from chartproof.metrics.registry import Metric, RunInput, scorer, unregister
from chartproof.pipelines.evaluate import evaluate
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample, SampleResult, Score


@pytest.fixture
def median_words() -> Iterator[None]:
    @aggregation("median")
    def median(
        metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
    ) -> Score:
        values = [v for r in results if (v := r.scores.get(metric)) is not None]
        value = statistics.median(values) if values else None
        return Score(metric=metric, value=value, n=len(values), group=dict(group))

    @aggregation("answered_share", per_sample=False)
    def answered_share(
        metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
    ) -> Score:
        value = sum(r.error is None for r in results) / len(results) if results else None
        return Score(metric=metric, value=value, n=len(results), group=dict(group))

    @scorer(
        kind="sample",
        protocols=("direct",),
        metrics=[
            Metric("reply_words", aggregation="median"),
            Metric("answered_share", aggregation="answered_share"),
        ],
    )
    def reply_words(prediction: str, gold: Answer) -> dict[str, float | None]:
        return {"reply_words": float(len(prediction.split()))}

    yield
    unregister("reply_words")
    AGGREGATIONS.unregister("median")
    AGGREGATIONS.unregister("answered_share")


def _data(root: Path) -> None:
    (root / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8), (200, 0, 0)).save(root / "images" / "c.png")
    kinds = ["vbar", "vbar", "vbar", "pie"]
    samples = [
        Sample(
            id=f"s{i}",
            image=ImageRef(path="images/c.png"),
            question=f"Question {i}?",
            answer=Answer.of_text("yes"),
            groups={"chart_type": kind},
        )
        for i, kind in enumerate(kinds)
    ]
    save_samples(samples, root)


def test_an_aggregation_added_in_one_file(tmp_path: Path, median_words: None) -> None:
    _data(tmp_path / "data")
    replies = {"s0": "a", "s1": "a b c d e f g", "s2": "a b", "s3": "a b c d"}

    def answer(request: ModelRequest) -> str:
        return f"The answer is: {replies[str(request.metadata['sample_id'])]}."

    record = evaluate(
        tmp_path / "data", out=tmp_path / "run", backend=ScriptedBackend(answer), cache=False
    )
    rows = {m["metric"]: m for m in record.summary["metrics"]}
    # words 1, 7, 2, 4: the median 3.0, where the mean would be 3.5
    assert rows["reply_words"]["value"] == 3.0 and rows["reply_words"]["n"] == 4
    assert rows["accuracy"]["value"] == 0.0  # the mean, as before
    # a metric with no per-sample value: in the headline, in no breakdown
    assert rows["answered_share"]["value"] == 1.0
    cells = {
        s["group"]["chart_type"]: s["value"]
        for s in record.summary["breakdowns"]["chart_type"]
        if s["metric"] == "reply_words"
    }
    assert cells == {"vbar": 2.0, "pie": 4.0}  # median of 1, 7, 2; of 4
    assert not [
        s for s in record.summary["breakdowns"]["chart_type"] if s["metric"] == "answered_share"
    ]
    assert record.summary["scores"]["reply_words"] == 3.0


def test_an_unknown_aggregation_names_the_metric(tmp_path: Path) -> None:
    @scorer(kind="sample", protocols=("direct",), metrics=[Metric("odd", aggregation="mediam")])
    def odd(prediction: str, gold: Answer) -> dict[str, float | None]:
        return {"odd": 1.0}

    try:
        _data(tmp_path / "data")
        with pytest.raises(ValueError, match=r"metric 'odd': unknown aggregation 'mediam'"):
            evaluate(
                tmp_path / "data",
                out=tmp_path / "run",
                backend=ScriptedBackend(lambda r: "yes"),
                cache=False,
            )
    finally:
        unregister("odd")
