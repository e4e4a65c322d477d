"""A new metric and a new report section are one decorated definition each: added here, in
the test file alone, they reach the results, the summary, the report and its labels."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.metrics.registry import Metric, metric_label, scorer, unregister
from chartproof.pipelines.evaluate import evaluate
from chartproof.reports import report
from chartproof.reports.html import Html, el
from chartproof.reports.sections import report_section, unregister_section
from chartproof.runs import load_run
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample


@pytest.fixture
def answer_words() -> Iterator[None]:
    @scorer(
        kind="sample",
        protocols=("direct",),
        metrics=[Metric("answer_words", "words in the answer", direction="lower")],
    )
    def answer_words(prediction: str, gold: Answer) -> dict[str, float | None]:
        return {"answer_words": float(len(prediction.split()))}

    @scorer(
        kind="sample",
        protocols=("direct",),
        metrics=[Metric("right_and_short", headline={"direct": 0.5})],
    )
    def right_and_short(
        prediction: str, gold: Answer, *, sample: Sample, scores: Mapping[str, float | None]
    ) -> dict[str, float | None]:
        # sees the sample and the scores of the scorers registered before it
        short = len(prediction.split()) <= len(sample.answer.text().split())
        return {"right_and_short": float(scores["accuracy"] == 1.0 and short)}

    @report_section("word_count", order=45, when=lambda s: "metrics" in s)
    def word_count(summary: Mapping[str, Any]) -> Html:
        mean = next(m["value"] for m in summary["metrics"] if m["metric"] == "answer_words")
        return el("h2", f"Answer words: {mean:.2f} on average")

    yield
    unregister("answer_words")
    unregister("right_and_short")
    unregister_section("word_count")


def _data(root: Path) -> None:
    (root / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8), (200, 0, 0)).save(root / "images" / "c.png")
    samples = [
        Sample(
            id=f"s{i}",
            image=ImageRef(path="images/c.png"),
            question=f"Which country is {i}?",
            answer=Answer.of_text("New Zealand"),
        )
        for i in range(3)
    ]
    save_samples(samples, root)


def test_a_metric_and_a_section_added_in_one_file(tmp_path: Path, answer_words: None) -> None:
    _data(tmp_path / "data")
    replies = {"s0": "New Zealand", "s1": "Australia", "s2": "the New Zealand flag"}

    def answer(request: ModelRequest) -> str:
        return f"The answer is: {replies[str(request.metadata['sample_id'])]}."

    record = evaluate(
        tmp_path / "data", out=tmp_path / "run", backend=ScriptedBackend(answer), cache=False
    )
    metrics = {m["metric"]: m for m in record.summary["metrics"]}
    # (2 + 1 + 4) / 3 words; the accuracy family is unchanged beside it
    assert metrics["answer_words"]["value"] == pytest.approx(7 / 3)
    assert metrics["accuracy"]["value"] == pytest.approx(1 / 3)
    assert metrics["right_and_short"]["value"] == pytest.approx(1 / 3)
    # headline metrics first (the new one slotted in at 0.5), the others by name
    assert [m["metric"] for m in record.summary["metrics"]] == [
        "accuracy",
        "right_and_short",
        "relaxed_accuracy",
        "exact_match",
        "anls",
        "answer_words",
    ]
    # and it is broken down by group label like every metric
    (by_pert,) = [
        s for s in record.summary["breakdowns"]["perturbation"] if s["metric"] == "answer_words"
    ]
    assert by_pert["group"] == {"perturbation": "original"} and by_pert["n"] == 3
    _, results = load_run(tmp_path / "run")
    assert [r.scores["answer_words"] for r in results] == [2.0, 1.0, 4.0]
    assert metric_label("answer_words") == "words in the answer"
    html = report(tmp_path / "run").read_text(encoding="utf-8")
    assert "Answer words: 2.33 on average" in html
    assert "words in the answer" in html


def test_unregistered_metric_is_gone(tmp_path: Path) -> None:
    assert metric_label("answer_words") == "answer words"


def test_a_name_cannot_be_registered_twice() -> None:
    with pytest.raises(ValueError, match="accuracy"):

        @scorer(kind="sample", metrics=[Metric("accuracy")])
        def again(prediction: str, gold: Answer) -> dict[str, float | None]:
            return {}
