"""VPP metrics (RealCQA-V2 §3.3) against hand-computed cases in cases/premises_vpp.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.premises import (
    DCP_ALL_RIGHT_NOTE,
    PremiseOutcome,
    balanced_accuracy,
    dcp,
    mcc,
    premise_metrics,
)

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "premises_vpp.json").read_text(encoding="utf-8")
)


def _sequences(case: dict[str, Any]) -> list[list[PremiseOutcome]]:
    return [[PremiseOutcome(kind=k, correct=c) for k, c in seq] for seq in case["sequences"]]


def _close(got: object, want: object, what: str) -> None:
    if want is None:
        assert got is None, what
    elif isinstance(want, float):
        assert got == pytest.approx(want), what
    else:
        assert got == want, what


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_premise_metrics(case: dict[str, Any]) -> None:
    got = premise_metrics(_sequences(case))
    for key, want in case["expected"].items():
        _close(got[key], want, key)
    by_kind = got["by_kind"]
    assert isinstance(by_kind, dict)
    assert list(by_kind) == list(case["by_kind"])
    for kind, values in case["by_kind"].items():
        for key, want in values.items():
            _close(by_kind[kind][key], want, f"{kind}.{key}")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_premise_scores_agree(case: dict[str, Any]) -> None:
    got = premise_metrics(_sequences(case))
    by_kind = got["by_kind"]
    assert isinstance(by_kind, dict)
    assert got["acc_vpp"] == case["expected"]["acc_vpp"]
    assert got["dcp"] == case["expected"]["dcp"]
    for kind, values in case["by_kind"].items():
        _close(by_kind[kind]["dcp"], values["dcp"], kind)


def test_dcp_says_why_it_is_zero_when_nothing_is_wrong() -> None:
    seqs = [[PremiseOutcome(kind="data", correct=True)]]
    got = premise_metrics(seqs)
    assert got["dcp"] == 0.0
    assert got["dcp_note"] == DCP_ALL_RIGHT_NOTE


def test_empty_sequence_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match="sequence 1 is empty"):
        dcp([[True], []])


BASELINE_CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "premises_baseline.json").read_text(encoding="utf-8")
)


def _labelled(case: dict[str, Any]) -> list[list[PremiseOutcome]]:
    return [
        [PremiseOutcome(kind="data", truth=t, correct=c) for t, c in seq]
        for seq in case["sequences"]
    ]


@pytest.mark.parametrize("case", BASELINE_CASES, ids=[c["name"] for c in BASELINE_CASES])
def test_premise_baseline_and_balanced_figures(case: dict[str, Any]) -> None:
    got = premise_metrics(_labelled(case))
    for key, want in case["expected"].items():
        _close(got[key], want, key)
    baseline = got["baseline"]
    assert isinstance(baseline, dict)
    for key, want in case["baseline"].items():
        _close(baseline[key], want, f"baseline.{key}")


@pytest.mark.parametrize("case", BASELINE_CASES, ids=[c["name"] for c in BASELINE_CASES])
def test_balanced_figures_match_scikit_learn(case: dict[str, Any]) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    flat = [p for seq in _labelled(case) for p in seq]
    truth = [p.truth for p in flat]
    verdict = [p.truth if p.correct else not p.truth for p in flat]
    assert balanced_accuracy([flat]) == pytest.approx(
        metrics.balanced_accuracy_score(truth, verdict)
    )
    assert mcc([flat]) == pytest.approx(metrics.matthews_corrcoef(truth, verdict))


def test_class_aware_figures_need_every_label() -> None:
    seqs = [[PremiseOutcome(kind="data", correct=True, truth=True)]]
    seqs.append([PremiseOutcome(kind="data", correct=False)])
    got = premise_metrics(seqs)
    assert got["accuracy"] == 0.5
    assert got["balanced_accuracy"] is None and got["mcc"] is None and got["baseline"] is None
