"""A run over samples of benchmarks with published scorers: the official number sits
beside chartproof's in the summary, the terminal lines and the report, with the samples
where the two disagree listed (model outputs escaped), and ChartBench's Acc+ over pairs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.datasets.answers import type_answer
from chartproof.metrics.conventions import convention_lines
from chartproof.pipelines.evaluate import evaluate
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample

# id: (dataset, gold as released, model's answer, ChartBench pair)
ROWS = {
    "s0": ("chartqa", "2005", "2006", None),  # pix2struct: 0.05 % off, right; ours: a year, wrong
    "s1": ("chartqa", "52", "52%", None),  # pix2struct: 0.52, wrong; ours: 52 %, right
    "s2": ("chartqa", "Asia", "Asia", None),  # both right
    "s3": ("chartqa", "12", "12 <script>x</script>", None),  # ours only: 12 and words
    "s4": ("chartbench", "Yes", "Yes", "p1"),
    "s5": ("chartbench", "No", "No", "p1"),  # pair p1: both right
    "s6": ("chartbench", "Yes", "yes", "p2"),
    "s7": ("chartbench", "No", "Yes", "p2"),  # pair p2: one wrong
    "s8": ("opencqa", "rising", "rising", None),  # no convention: chartproof only
    "s9": ("chartqa", "5", "FAIL", None),  # a failed call: wrong under both
    "sa": ("opencqa", "flat", "FAIL", None),  # a failed call without a convention
}


def _dataset(root: Path) -> None:
    (root / "images").mkdir(parents=True, exist_ok=True)
    samples = []
    for i, (sid, (dataset, gold, _, pair)) in enumerate(ROWS.items()):
        Image.new("RGB", (8, 8), (i * 20, 0, 0)).save(root / "images" / f"{sid}.png")
        answer = Answer.boolean(gold == "Yes") if dataset == "chartbench" else type_answer(gold)
        samples.append(
            Sample(
                id=sid,
                image=ImageRef(path=f"images/{sid}.png"),
                question="q?",
                answer=answer,
                pair_id=pair,
                source={"dataset": dataset, "answer_raw": gold},
            )
        )
    save_samples(samples, root)


def _answer(request: ModelRequest) -> str:
    answer = ROWS[str(request.metadata["sample_id"])][2]
    if answer == "FAIL":
        raise RuntimeError("the model server is down")
    return answer


def test_conventions_beside_chartproof(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    record = evaluate(
        tmp_path / "data", out=tmp_path / "run", backend=ScriptedBackend(_answer), cache=False
    )
    summary = record.read_summary()
    section = summary.section("conventions")
    chartqa, bench = section["chartqa"], section["chartbench"]
    assert chartqa["n"] == 5 and bench["n"] == 4
    assert chartqa["official"] == pytest.approx(2 / 5)  # s0, s2
    assert chartqa["chartproof"] == pytest.approx(3 / 5)  # s1, s2, s3
    assert chartqa["disagree"] == 3 and chartqa["official_only"] == 1
    assert {d["sample_id"] for d in chartqa["disagreements"]} == {"s0", "s1", "s3"}
    assert bench["official"] == pytest.approx(3 / 4)
    assert bench["pairs"] == 2 and bench["acc_plus"] == pytest.approx(1 / 2)
    # the headline names the rule behind each number; opencqa's s8 and sa have no official
    # score, the failed chartqa s9 scores 0
    rows = {m.metric: m for m in summary.metrics}
    assert rows["official"].n == 9
    assert rows["official"].value == pytest.approx((2 + 3) / 9)
    assert rows["official"].note is not None and "chartqa" in rows["official"].note
    assert rows["accuracy"].note is not None and "chartproof" in rows["accuracy"].note
    lines = convention_lines(summary.model_dump(mode="json"))
    assert any("chartqa" in line and "40.00 %" in line for line in lines)
    assert any("Acc+ 50.00 % over 2 pairs" in line for line in lines)

    from chartproof.reports import report

    html = report(tmp_path / "run").read_text(encoding="utf-8")
    assert "Published scoring conventions" in html
    assert "<script>x</script>" not in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html


def test_unknown_convention_named_by_a_sample_stops_before_any_call(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(root / "images" / "c.png")
    sample = Sample(
        id="bad1",
        image=ImageRef(path="images/c.png"),
        question="q?",
        answer=type_answer("12"),
        source={"dataset": "mine", "convention": "chartqa-typo"},
    )
    save_samples([sample], root)
    backend = ScriptedBackend(lambda r: "12")
    with pytest.raises(
        ValueError, match="sample 'bad1': unknown scoring convention 'chartqa-typo'"
    ):
        evaluate(root, out=tmp_path / "run", backend=backend, cache=False)
    assert backend.calls == 0
