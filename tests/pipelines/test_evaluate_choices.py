"""Multiple choice end to end: options reach the backend in `metadata["choices"]`, replies
map back to options, chance and chance-corrected accuracy are reported, and option-order
variants turn a position-biased model's bias into measured numbers."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.pipelines.evaluate import evaluate
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample

OPTIONS = ("Germany", "France", "Italy", "Spain")


def _dataset(root: Path) -> None:
    (root / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(root / "images" / "c.png")
    samples = [
        Sample(
            id=f"q{i}",
            image=ImageRef(path="images/c.png"),
            question="Which country has the tallest bar?",
            answer=Answer.option(OPTIONS[i]),
            choices=OPTIONS,
            chart_type="vbar",
        )
        for i in range(4)  # gold at A, B, C, D once each
    ]
    samples.append(
        Sample(
            id="open",
            image=ImageRef(path="images/c.png"),
            question="How many bars?",
            answer=Answer.number(4.0),
        )
    )
    save_samples(samples, root)


def _metric(record: object, name: str) -> dict[str, object]:
    metrics = record.summary["metrics"]  # type: ignore[attr-defined]
    return next(m for m in metrics if m["metric"] == name)


def test_always_first_option(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    seen: list[list[str]] = []

    def always_a(request: ModelRequest) -> str:
        if request.metadata.get("choices") is None:
            return "The answer is: 4. Explanation: four bars."
        choices = request.metadata["choices"]
        assert isinstance(choices, list)
        seen.append([str(c) for c in choices])
        return "The answer is: (A). Explanation: the first bar."

    record = evaluate(
        tmp_path / "data", out=tmp_path / "run", backend=ScriptedBackend(always_a), cache=False
    )
    assert seen == [list(OPTIONS)] * 4  # display order, as the prompt lists them
    # 1 of 4 right on the multiple-choice samples: exactly chance, corrected to 0
    assert _metric(record, "choice_accuracy")["value"] == pytest.approx(0.25)
    assert _metric(record, "choice_accuracy")["n"] == 4
    assert _metric(record, "chance")["value"] == pytest.approx(0.25)
    assert _metric(record, "chance_corrected_accuracy")["value"] == pytest.approx(0.0)
    # the open question answered right: overall accuracy 2 of 5
    assert _metric(record, "accuracy")["value"] == pytest.approx(0.4)
    by_gold = {
        s["group"]["gold_position"]: s["value"]
        for s in record.summary["breakdowns"]["gold_position"]
        if s["metric"] == "accuracy"
    }
    assert by_gold == {"A": 1.0, "B": 0.0, "C": 0.0, "D": 0.0}


def test_rotations_expose_position_bias(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")

    def knows_italy_unless_first(request: ModelRequest) -> str:
        choices = request.metadata.get("choices")
        if not isinstance(choices, list):
            return "4"
        # right when the right answer is Italy, else always picks the first option
        if "Italy" in choices and request.metadata.get("sample_id", "").startswith("q2"):
            return f"Option {'ABCD'[choices.index('Italy')]}"
        return "A"

    # the mc prompt needs options on every sample: the open question is an error, raised
    # before a run folder is made
    with pytest.raises(ValueError, match="1 of 5 samples have none"):
        evaluate(
            tmp_path / "data",
            out=tmp_path / "run2",
            backend=ScriptedBackend(knows_italy_unless_first),
            cache=False,
            prompt="mc",
        )
    assert not (tmp_path / "run2").exists()
    record = evaluate(
        tmp_path / "data",
        out=tmp_path / "run3",
        backend=ScriptedBackend(knows_italy_unless_first),
        cache=False,
        rotate_choices=True,
        where={"chart_type": "vbar"},
        prompt="mc",
    )
    # 4 originals x 4 orders; q2 (Italy) right in all 4, others right only with gold at A
    assert record.counts["samples"] == 16
    assert _metric(record, "accuracy")["value"] == pytest.approx((4 + 3) / 16)
    robustness = record.summary["robustness"]
    assert "rotate_choices" in str(robustness)
