"""Counterfactual-family metrics against hand-computed cases (tests/metrics/cases/families.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.families import (
    FamilyOutcome,
    edit_breakage,
    family_scores,
    outcomes_from_samples,
)
from chartproof.types import Answer, ImageRef, Sample, Transform

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "families.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_family_scores(case: dict[str, Any]) -> None:
    outcomes = [FamilyOutcome(**o) for o in case["outcomes"]]
    scores = family_scores(
        outcomes, reconstruction_is_variant=case.get("reconstruction_is_variant", False)
    )
    got = {s.metric: s.value for s in scores}
    assert got.keys() == case["expected"].keys()
    for name, want in case["expected"].items():
        if want is None:
            assert got[name] is None, name
        else:
            assert got[name] == pytest.approx(want), name
    broke = [
        {"edit": s.group["edit"], "task_type": s.group["task_type"], "value": s.value, "n": s.n}
        for s in edit_breakage(outcomes)
    ]
    assert broke == case["breakage"]


def _sample(sid: str, **kw: Any) -> Sample:
    return Sample(
        id=sid,
        image=ImageRef(path=f"{sid}.png"),
        question="q?",
        answer=Answer.number(1.0),
        task_type="VE",
        **kw,
    )


def test_outcomes_from_samples_reads_roles_from_transforms() -> None:
    cf = Transform(kind="counterfactual", name="reorder", seed=3)
    rec = Transform(kind="reconstruction", name="code")
    samples = [
        _sample("c1/q0", family_id="c1"),
        _sample("c1~cf3/q0", family_id="c1", parent_id="c1/q0", transforms=(cf,)),
        _sample("c1~code/q0", family_id="c1", parent_id="c1/q0", transforms=(rec,)),
        _sample("other", family_id=None),
    ]
    got = outcomes_from_samples(samples, {"c1/q0": True, "c1~cf3/q0": False})
    assert [(o.role, o.edit, o.question, o.correct) for o in got] == [
        ("original", None, "c1/q0", True),
        ("counterfactual", "reorder", "c1/q0", False),
        ("reconstruction", None, "c1/q0", None),
    ]
