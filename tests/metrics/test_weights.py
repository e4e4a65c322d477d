"""Aggregate ROSCOE score (AS) against seed 000 Table 2, and the weight-sensitivity analysis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.metrics.weights import (
    CHARTQAX_WEIGHTS,
    ROSCOE_METRICS,
    WeightSet,
    aggregate_score,
    normalised_scores,
    rank_by_aggregate,
    sensitivity_weight_sets,
    weight_sensitivity,
)

TABLE2 = json.loads((Path(__file__).parent / "cases" / "roscoe_table2.json").read_text())


@pytest.mark.parametrize("model", sorted(TABLE2["rows"]))
def test_as_reproduces_table2(model: str) -> None:
    row = dict(zip(TABLE2["columns"], TABLE2["rows"][model], strict=True))
    expected = row.pop("AS")
    # the table prints PS/PC already as 1 - 1/PPL: use them as they are
    assert aggregate_score(row, perplexity="as_is").value == pytest.approx(expected, abs=1e-3)
    # the same AS from raw ROSCOE values (1/PPL) with ChartQA-X's 1 - x transform
    raw = {**row, "PS": 1 - row["PS"], "PC": 1 - row["PC"]}
    assert aggregate_score(raw).value == pytest.approx(expected, abs=1e-3)


def test_table2_would_not_match_with_raw_perplexity() -> None:
    # guards the transform: with 1/PPL-scale PS/PC used as-is, AS drops by ~0.095
    row = dict(zip(TABLE2["columns"], TABLE2["rows"]["GPT-4o"], strict=True))
    expected = row.pop("AS")
    raw = {**row, "PS": 1 - row["PS"], "PC": 1 - row["PC"]}
    assert aggregate_score(raw, perplexity="as_is").value == pytest.approx(
        expected - 0.0941, abs=1e-3
    )


def test_weights_sum_to_one_and_match_spec() -> None:
    assert CHARTQAX_WEIGHTS.weights == {
        "FS": 0.20, "FT": 0.15, "IS": 0.15, "IC": 0.15, "SRC": 0.10,
        "SFC": 0.10, "PS": 0.05, "PC": 0.05, "GS": 0.05,
    }  # fmt: skip
    for weight_set in sensitivity_weight_sets(seed=3):
        assert sum(weight_set.weights.values()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="sum to"):
        WeightSet(name="bad", weights=dict.fromkeys(ROSCOE_METRICS, 0.2))


def test_missing_nli_scores_make_as_not_computed_unless_renormalised() -> None:
    scores: dict[str, float | None] = dict.fromkeys(ROSCOE_METRICS, 1.0)
    scores.update(SRC=None, SFC=None, PS=0.0, PC=0.0)  # 1 - 0 = 1 after the transform
    result = aggregate_score(scores)
    assert result.value is None
    assert result.note is not None and "SRC, SFC" in result.note
    renorm = aggregate_score(scores, missing="renormalise")
    assert renorm.value == pytest.approx(1.0)  # every available score is 1
    assert renorm.note is not None and "renormalised" in renorm.note
    assert "SRC" not in renorm.used


def test_normalised_scores_only_touch_perplexity() -> None:
    raw = dict.fromkeys(ROSCOE_METRICS, 0.02)
    shown = normalised_scores(raw)
    assert shown["PS"] == shown["PC"] == pytest.approx(0.98)
    assert shown["FS"] == 0.02


def test_unknown_code_is_named() -> None:
    with pytest.raises(ValueError, match="XX"):
        aggregate_score({"XX": 1.0})


def test_sensitivity_hand_computed() -> None:
    zero = dict.fromkeys(ROSCOE_METRICS, 0.0)
    faithful = {**zero, "FS": 1.0}
    fluent = {**zero, "PS": 1.0, "PC": 1.0, "GS": 1.0}
    sets = [s for s in sensitivity_weight_sets() if "random" not in s.name]
    result = weight_sensitivity(
        [[faithful, fluent], [faithful, faithful]], sets, perplexity="as_is"
    )
    # sample 0: original .20 vs .15 -> 0; uniform .11 vs .33 -> 1; fluency .08 vs .45 -> 1;
    # faithfulness .30 vs .10 -> 0; informativeness .10 vs .10 tie -> 0; perturbed .18 vs .16
    assert [row[0] for row in result.selections] == [0, 1, 1, 0, 0, 0]
    assert result.names == (
        "original",
        "uniform",
        "fluency",
        "faithfulness",
        "informativeness",
        "perturbed",
    )
    assert result.agreement[0][1] == 0.5
    assert result.agreement[0][3] == 1.0
    assert result.agreement[1][1] == 1.0
    assert result.all_agree == 0.5
    assert len(result.agreement) == 6


def test_random_sets_are_seeded() -> None:
    a = sensitivity_weight_sets(seed=1)
    b = sensitivity_weight_sets(seed=1)
    c = sensitivity_weight_sets(seed=2)
    assert len(a) == 8
    assert a[2].weights == b[2].weights
    assert a[3].weights != c[3].weights


def test_rank_by_aggregate_orders_best_first_missing_last() -> None:
    base = dict.fromkeys(ROSCOE_METRICS, 0.5)
    better = {**base, "FS": 0.9}
    missing = {**base, "SRC": None}
    tie = dict(base)
    assert rank_by_aggregate([base, missing, better, tie]) == [2, 0, 3, 1]
