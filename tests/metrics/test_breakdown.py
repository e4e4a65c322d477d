"""Breakdowns by group label, pinned to hand-computed case tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.breakdown import breakdown, breakdown_results, mean_score
from chartproof.types import SampleResult

CASES = json.loads(
    (Path(__file__).parent / "cases" / "accuracy_breakdown.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["why"][:40] for c in CASES])
def test_breakdown_cases(case: dict[str, Any]) -> None:
    scores = breakdown(
        "relaxed_accuracy",
        case["values"],
        case["labels"],
        by=case.get("by", ()),
        pairs=[tuple(p) for p in case.get("pairs", ())],
        missing=case.get("missing"),
    )
    assert len(scores) == len(case["expected"]), case["why"]
    for got, want in zip(scores, case["expected"], strict=True):
        assert got.metric == "relaxed_accuracy"
        assert got.group == want["group"]
        assert got.n == want["n"]
        assert got.note == want["note"]
        for field in ("value", "stderr"):
            expected = want[field]
            actual = getattr(got, field)
            if expected is None:
                assert actual is None, (case["why"], field)
            else:
                assert actual == pytest.approx(expected), (case["why"], field)


def test_lengths_must_agree() -> None:
    with pytest.raises(ValueError, match="3 values but 2 label sets"):
        breakdown("m", [1.0, 0.0, 1.0], [{}, {}])


def test_non_finite_value_is_an_error() -> None:
    with pytest.raises(ValueError, match="position 1 is nan"):
        mean_score("m", [1.0, float("nan")])


def test_breakdown_results_over_run_results() -> None:
    results = [
        SampleResult(
            sample_id=f"s{i}",
            protocol="direct",
            model="m",
            scores={"relaxed_accuracy": v, **({"anls": 0.5} if i == 0 else {})},
            groups={"chart_type": ct},
        )
        for i, (v, ct) in enumerate([(1.0, "pie"), (0.0, "pie"), (None, "line")])
    ]
    scores = breakdown_results(results, by=["chart_type"])
    summary = [(s.metric, s.group.get("chart_type"), s.value, s.n) for s in scores]
    assert summary == [
        ("anls", None, 0.5, 1),
        ("anls", "line", None, 0),
        ("anls", "pie", 0.5, 1),
        ("relaxed_accuracy", None, 0.5, 2),
        ("relaxed_accuracy", "line", None, 0),
        ("relaxed_accuracy", "pie", 0.5, 2),
    ]
    only = breakdown_results(results, ["relaxed_accuracy"])
    assert [s.metric for s in only] == ["relaxed_accuracy"]
