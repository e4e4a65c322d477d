"""ChartR's ARM on mixed suites (case table `cases/robustness_arm.json`, hand-computed):
M_original over exactly the originals that have perturbed variants, the headline at one
level per perturbation, ARM per perturbation and per level beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.registry import RunInput
from chartproof.metrics.robustness import robustness
from chartproof.types import Answer, ImageRef, Sample, SampleResult

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "robustness_arm.json").read_text(encoding="utf-8")
)["cases"]


def _result(row: dict[str, Any]) -> SampleResult:
    return SampleResult(
        sample_id=row["id"],
        protocol="direct",
        model="m",
        groups=row["groups"],
        scores=row["scores"],
    )


def _sample(sample_id: str, parent: str) -> Sample:
    return Sample(
        id=sample_id,
        image=ImageRef(path="images/x.png"),
        question="q?",
        answer=Answer(value=1.0, kind="number"),
        parent_id=parent,
    )


def _check(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        for key, value in want.items():
            assert key in got, f"{where}.{key} missing"
            _check(got[key], value, f"{where}.{key}")
    elif isinstance(want, float):
        assert got == pytest.approx(want, abs=5e-7), where
    else:
        assert got == want, where


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_arm_on_mixed_suites(case: dict[str, Any]) -> None:
    results = [_result(r) for r in case["results"]]
    samples = [_sample(k, v) for k, v in case.get("parents", {}).items()]
    got = robustness(
        RunInput(
            protocol="direct",
            results=results,
            answered=results,
            samples=samples,
            metrics=case["metrics"],
        )
    )
    if case["expected"] is None:
        assert got is None
        return
    _check(got, case["expected"], case["name"])
