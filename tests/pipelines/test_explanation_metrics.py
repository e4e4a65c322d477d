"""`evaluate(metrics=["roscoe", "ngram"])`: explanation scores stored per result and summarised
in the layout of ChartQA-X Tables 5 and 6."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from chartproof.datasets import load_samples
from chartproof.metrics.roscoe import RoscoeItem, RoscoeScores
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate
from chartproof.reports import report
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest


class FakeRoscoe:
    """Known scores: FS = 0.8 for every explanation, perplexity 1/PPL = 0.25, no NLI."""

    def __init__(self) -> None:
        self.items: list[RoscoeItem] = []

    def score(self, items: Sequence[RoscoeItem]) -> list[RoscoeScores]:
        self.items.extend(items)
        return [
            RoscoeScores(faithfulness_step=0.8, perplexity_chain=0.25, n_steps=1, n_source=1)
            for _ in items
        ]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("expl")
    generate("chartqax", 3, root, per_chart=2, workers=1, premises=False)
    return root


def test_roscoe_and_ngram_in_summary_and_report(data: Path, tmp_path: Path) -> None:
    samples = {s.id: s for s in load_samples(data).samples}

    def answer(request: ModelRequest) -> str:
        s = samples[str(request.metadata["sample_id"])]
        return f"The answer is: {s.answer.text()}. Explanation: {s.explanation}"

    fake = FakeRoscoe()
    rec = evaluate(
        data,
        out=tmp_path / "run",
        backend=ScriptedBackend(answer),
        metrics=["roscoe", "ngram"],
        roscoe_scorer=fake,
        cache=False,
    )
    by = {m["metric"]: m for m in rec.summary["metrics"]}
    assert by["roscoe_fs"]["value"] == pytest.approx(0.8)
    # table scale: PC shown as 1 - 1/PPL
    assert by["roscoe_pc"]["value"] == pytest.approx(0.75)
    # no NLI model: SRC, SFC and the aggregate are not computed, never a made-up number
    assert by["roscoe_src"]["value"] is None and by["roscoe_as"]["value"] is None
    # the renormalised stand-in weighs FS (0.20) and PC (0.05) only: (0.2 * 0.8 + 0.05 * 0.75) / 0.25
    assert by["roscoe_as_renormalised"]["value"] == pytest.approx((0.2 * 0.8 + 0.05 * 0.75) / 0.25)
    assert len(fake.items) == len(samples)
    assert {it.answer for it in fake.items} == {s.answer.text() for s in samples.values()}
    corpus = rec.summary["ngram"]["corpus"]
    # explanations identical to the references
    assert corpus["bleu4"] == pytest.approx(1.0) and corpus["rouge_l"] == pytest.approx(1.0)
    html = report(tmp_path / "run").read_text()
    assert "layout of ChartQA-X Table 5" in html and "layout of ChartQA-X Table 6" in html


def test_unknown_metric_is_refused(data: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown metrics"):
        evaluate(
            data, out=tmp_path / "r", backend=ScriptedBackend(lambda r: "x"), metrics=["bleurt"]
        )
