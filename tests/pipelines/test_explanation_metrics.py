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
    # named wherever it appears: not the paper's nine-score AS
    assert by["roscoe_as_renormalised"]["note"] == (
        "AS over 2 of 9 scores (not computed: FT, IS, IC, SRC, SFC, PS, GS): not the paper's AS"
    )
    assert len(fake.items) == len(samples)
    # the paper's source context: the prompt's instruction, then the question (no answer)
    assert {it.answer for it in fake.items} == {None}
    assert {it.question for it in fake.items} == {s.question for s in samples.values()}
    (instruction,) = {it.instruction for it in fake.items}
    assert instruction and instruction.startswith("Look at the chart and answer the question.")
    assert "Question:" not in instruction and "{question}" not in instruction
    corpus = rec.summary["ngram"]["corpus"]
    # explanations identical to the references
    assert corpus["bleu4"] == pytest.approx(1.0) and corpus["rouge_l"] == pytest.approx(1.0)
    html = report(tmp_path / "run").read_text()
    assert "layout of ChartQA-X Table 5" in html and "layout of ChartQA-X Table 6" in html
    assert "AS over 2 of 9 scores" in html


def test_roscoe_source_with_the_answer_is_an_option(data: Path) -> None:
    from chartproof.metrics.explanations import roscoe_stage
    from chartproof.types import SampleResult

    samples = {s.id: s for s in load_samples(data).samples}
    sid, sample = next(iter(samples.items()))
    result = SampleResult(
        sample_id=sid, protocol="direct", model="m", prediction="12", explanation="Because."
    )
    fake = FakeRoscoe()
    roscoe_stage(scorer=fake, instruction="Explain.", source="answer")([result], samples)
    roscoe_stage(scorer=fake, instruction="Explain.")([result], samples)
    answer_mode, paper = fake.items
    assert (answer_mode.answer, answer_mode.instruction) == ("12", None)
    assert (paper.answer, paper.instruction, paper.question) == (None, "Explain.", sample.question)


def test_unknown_metric_is_refused(data: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown metrics"):
        evaluate(
            data, out=tmp_path / "r", backend=ScriptedBackend(lambda r: "x"), metrics=["bleurt"]
        )


class TemplateBackend(ScriptedBackend):
    """A scripted model that declares it explains with the references' own generator."""

    @property
    def explanation_generator(self) -> str:
        from chartproof.questions.explain import GENERATOR

        return GENERATOR


def test_self_template_is_flagged_and_left_out_of_rankings(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from chartproof.questions.explain import GENERATOR

    monkeypatch.setattr(shutil, "which", lambda _name: None)  # no METEOR jar: 3 runs in ~1 s

    samples = {s.id: s for s in load_samples(data).samples}
    assert all(s.source.get("explanation_generator") == GENERATOR for s in samples.values())

    def copy(request: ModelRequest) -> str:
        s = samples[str(request.metadata["sample_id"])]
        return f"The answer is: {s.answer.text()}. Explanation: {s.explanation}"

    def plain(request: ModelRequest) -> str:
        s = samples[str(request.metadata["sample_id"])]
        return f"The answer is: {s.answer.text()}. Explanation: I read the chart."

    own = evaluate(
        data, out=tmp_path / "own", backend=TemplateBackend(copy), metrics=["ngram"], cache=False
    )
    assert own.summary["ngram"]["self_template"] == {
        "generator": GENERATOR,
        "shared": len(samples),
        "of": len(samples),
    }
    # the flag comes from the declaration, not from the text: a model that happens to write
    # the same sentences is scored as it is
    same = evaluate(
        data, out=tmp_path / "same", backend=ScriptedBackend(copy), metrics=["ngram"], cache=False
    )
    assert "self_template" not in same.summary["ngram"]
    other = evaluate(
        data, out=tmp_path / "other", backend=ScriptedBackend(plain), metrics=["ngram"], cache=False
    )
    page = report(tmp_path / "own").read_text()
    assert "Not a measure of explanation quality" in page and GENERATOR in page
    both = report(tmp_path / "own", tmp_path / "other", out=tmp_path / "both.html").read_text()
    ranking = both[both.index("Explanations ranked by CIDEr-D") :]
    ranking = ranking[: ranking.index("</table>")]
    rows = ranking.split("<tr>")[2:]
    assert rows[0].startswith("<td>1</td>") and "other" not in rows[-1]
    assert rows[-1].startswith("<td>not ranked</td>")
    assert other.summary["ngram"]["corpus"]["cider_d"] < own.summary["ngram"]["corpus"]["cider_d"]


def test_the_reader_declares_its_template(tmp_path: Path) -> None:
    pytest.importorskip("cv2")
    from chartproof.models.base import explanation_generator
    from chartproof.models.cache import with_cache
    from chartproof.questions.explain import GENERATOR
    from chartproof.reader.backend import ReaderBackend, ReaderSettings

    reader = ReaderBackend(ReaderSettings(table="gold"))
    assert explanation_generator(reader) == GENERATOR
    wrapped, store = with_cache(reader, tmp_path / "cache.sqlite")
    assert explanation_generator(wrapped) == GENERATOR
    if store is not None:
        store.close()
    assert explanation_generator(ScriptedBackend(lambda r: "x")) is None
