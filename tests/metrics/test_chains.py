"""ChartR chain metrics against hand-computed cases in cases/chains_chartr.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.breakdown import mean_score
from chartproof.metrics.chains import (
    ChainOutcome,
    chain_scores,
    error_analysis,
)
from chartproof.metrics.robustness import arm, arm_score
from chartproof.types import Answer, Step

CASES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "cases" / "chains_chartr.json").read_text(encoding="utf-8")
)
BY_NAME = {c["name"]: c for c in CASES["chains"]}


def _outcome(case: dict[str, Any]) -> ChainOutcome:
    o = dict(case["outcome"])
    o["correct"] = tuple(o["correct"])
    o["depends_on"] = tuple(tuple(d) for d in o["depends_on"])
    o["task_types"] = tuple(o["task_types"])
    if "final_depends_on" in o:
        o["final_depends_on"] = tuple(o["final_depends_on"])
    return ChainOutcome(**o)


@pytest.mark.parametrize("case", CASES["chains"], ids=[c["name"] for c in CASES["chains"]])
def test_chain_scores(case: dict[str, Any]) -> None:
    got = chain_scores(_outcome(case))
    assert got == pytest.approx(case["expected"])


def test_set_level_metrics_and_error_analysis() -> None:
    spec = CASES["set"]
    outcomes = [_outcome(BY_NAME[n]) for n in spec["chains"]]
    # what a run reports: the per-chain scores (the chain scorer) averaged (the summary)
    per = [chain_scores(o) for o in outcomes]
    got = {m: mean_score(m, [p[m] for p in per]).value for m in ("isa", "csa", "faa", "cfa")}
    assert got == pytest.approx(spec["expected"])
    analysis = error_analysis(outcomes)
    assert analysis["step_error_rate"] == pytest.approx(spec["step_error_rate"])
    assert analysis["first_error_ratio"] == pytest.approx(spec["first_error_ratio"])
    assert analysis["chains_with_error"] == spec["chains_with_error"]


@pytest.mark.parametrize("case", CASES["arm"], ids=[c["name"] for c in CASES["arm"]])
def test_arm(case: dict[str, Any]) -> None:
    got = arm(case["original"], case["variants"])
    if case["expected"] is None:
        assert got is None
        score = arm_score("isa", case["original"], case["variants"])
        assert score.value is None and score.note is not None and "undefined" in score.note
    else:
        assert got == pytest.approx(case["expected"])


def test_arm_needs_variants() -> None:
    with pytest.raises(ValueError, match="at least one variant"):
        arm(0.5, [])


def test_bad_dependencies_name_the_step() -> None:
    with pytest.raises(ValueError, match="step 1 depends on \\[1\\]"):
        ChainOutcome(
            correct=(True, True), depends_on=((), (1,)), task_types=("VE", "VC"), final_correct=True
        )


def test_from_steps_reads_dependencies_and_task_types() -> None:
    steps = [
        Step(id=0, question="a?", answer=Answer.number(1.0), task_type="VE"),
        Step(id=1, question="b?", depends_on=(0,), answer=Answer.number(2.0), task_type="NC"),
    ]
    outcome = ChainOutcome.from_steps(steps, [False, True], True)
    assert outcome.depends_on == ((), (0,))
    assert chain_scores(outcome)["csa"] == pytest.approx(0.0)
    assert chain_scores(outcome)["isa"] == pytest.approx(2 / 3)
