"""ChartR's exact match for chain steps against the 5 % tolerance (case table
`cases/chains_matching.json`, hand-computed): each step's two verdicts, and ISA/CSA/FAA/CFA
under both rules from the records the chain protocol writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.answers import matches
from chartproof.metrics.chains import chain_final, chain_step_scores, step_right
from chartproof.types import Answer, ChainStepRecord, ImageRef, Sample

CASES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "cases" / "chains_matching.json").read_text(encoding="utf-8")
)


def _answer(raw: dict[str, Any]) -> Answer:
    if raw["kind"] == "list":
        raw = {**raw, "value": tuple(raw["value"])}
    return Answer(**raw)


@pytest.mark.parametrize("case", CASES["steps"], ids=[c["prediction"] for c in CASES["steps"]])
def test_step_verdicts(case: dict[str, Any]) -> None:
    gold = _answer(case["gold"])
    assert step_right(case["prediction"], gold, "exact") is case["exact"]
    assert step_right(case["prediction"], gold, "tolerance") is case["tolerance"]


def test_unknown_rule_is_named() -> None:
    with pytest.raises(ValueError, match="step matching 'fuzzy'"):
        step_right("1", Answer(kind="number", value=1.0), "fuzzy")


@pytest.mark.parametrize("case", CASES["chains"], ids=[c["name"] for c in CASES["chains"]])
def test_chain_figures_under_both_rules(case: dict[str, Any]) -> None:
    records = []
    for st in case["steps"]:
        gold = _answer(st["gold"])
        records.append(
            ChainStepRecord(
                id=st["id"],
                task_type="VE",
                depends_on=tuple(st["depends_on"]),
                question="q",
                gold=gold.text(),
                prediction=st["prediction"],
                correct=step_right(st["prediction"], gold, "exact"),
                correct_with_tolerance=step_right(st["prediction"], gold, "tolerance"),
            )
        )
    final_gold = _answer(case["final"]["gold"])
    pred = case["final"]["prediction"]
    sample = Sample(id="s", image=ImageRef(path="x.png"), question="q", answer=final_gold)
    scores: dict[str, float | None] = {"accuracy": float(matches(pred, final_gold))}
    scores.update(chain_final(pred, final_gold))
    got = chain_step_scores(sample, records, scores)
    assert got == pytest.approx(case["expected"], abs=5e-7)


def test_records_from_before_the_exact_rule_score_as_before() -> None:
    # old runs stored one verdict (the tolerant one) in `correct`: both figures read it
    old = ChainStepRecord(id=0, task_type="VE", question="q", gold="9.4", correct=True)
    sample = Sample(id="s", image=ImageRef(path="x.png"), question="q", answer=Answer.number(1))
    got = chain_step_scores(sample, [old], {"accuracy": 1.0})
    assert got["isa"] == got["isa_tol"] == 1.0
