"""Both VPP sequence definitions against the RealCQA-V2 authors' evaluator, run side by side
on the same premises when the case table was made (`cases/premises_vpp_definitions.json`
records what their `run_vpp_eval.py` printed): chained_true (true premises per question)
and all_premises (distractors included)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.premises import PremiseOutcome, premise_step_scores, vpp_figures
from chartproof.types import Answer, ImageRef, PremiseStepRecord, Sample

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "premises_vpp_definitions.json").read_text(encoding="utf-8")
)["cases"]


def _sequences(case: dict[str, Any]) -> list[list[PremiseOutcome]]:
    return [
        [PremiseOutcome(kind=kind, correct=truth == said, truth=truth) for kind, truth, said in q]
        for q in case["questions"]
    ]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
@pytest.mark.parametrize("definition", ["chained_true", "all_premises"])
def test_vpp_definition_equals_the_authors_evaluator(case: dict[str, Any], definition: str) -> None:
    got = vpp_figures(_sequences(case))[definition]
    want = case["reference"][definition]
    for key in ("acc_vpp", "dcp", "premise_accuracy", "sequences"):
        assert got[key] == pytest.approx(want[key], abs=1e-12), key
    assert got["definition"]


def test_per_question_acc_vpp_under_both_definitions() -> None:
    (question,) = CASES[0]["questions"]  # the only error is on a false premise
    steps = [
        PremiseStepRecord(
            id=f"p{i}",
            kind=kind,
            statement="s",
            truth=truth,
            prediction=said,
            correct=truth == said,
        )
        for i, (kind, truth, said) in enumerate(question)
    ]
    sample = Sample(id="s", image=ImageRef(path="x.png"), question="q", answer=Answer.number(1))
    got = premise_step_scores(sample, steps, {})
    assert got == {"premise_accuracy": 0.75, "acc_vpp": 0.0, "acc_vpp_chained": 1.0}
    no_true = [st.model_copy(update={"truth": False}) for st in steps]
    assert premise_step_scores(sample, no_true, {})["acc_vpp_chained"] is None
