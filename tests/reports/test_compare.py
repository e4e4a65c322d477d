"""Paired comparison of runs: hand-computed cases, McNemar against scipy and statsmodels,
the bootstrap's two resampling paths against each other, per-group deltas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chartproof.reports.compare import bootstrap_ci, compare, mcnemar_exact
from chartproof.types import SampleResult

CASES = json.loads((Path(__file__).parent / "cases" / "paired_comparison.json").read_text())


def _results(values: list[float | None], extra: int, model: str) -> list[SampleResult]:
    out = [
        SampleResult(
            sample_id=f"s{i}",
            protocol="direct",
            model=model,
            scores={} if v is None else {"accuracy": v},
            error="timeout" if v is None else None,
            groups={"chart_type": "bar" if i % 2 else "line"},
        )
        for i, v in enumerate(values)
    ]
    out += [
        SampleResult(
            sample_id=f"{model}-extra{i}", protocol="direct", model=model, scores={"accuracy": 1.0}
        )
        for i in range(extra)
    ]
    return out


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["name"])
def test_hand_computed_cases(case: dict[str, Any]) -> None:
    a = _results(case["a"], case.get("extra_a", 0), "A")
    b = _results(case["b"], case.get("extra_b", 0), "B")
    c = compare(a, b)
    assert (c.shared, c.only_a, c.only_b) == (case["shared"], case["only_a"], case["only_b"])
    (acc,) = c.metrics
    assert acc.binary and acc.n == case["shared"]
    assert acc.a == pytest.approx(case["a_mean"]) and acc.b == pytest.approx(case["b_mean"])
    assert (acc.a_only, acc.b_only) == (case["a_only"], case["b_only"])
    assert acc.p_value == pytest.approx(case["p"], rel=1e-12)
    assert len(c.a_right_b_wrong) == case["a_only"] and len(c.b_right_a_wrong) == case["b_only"]
    assert acc.ci_low <= acc.delta <= acc.ci_high


@pytest.mark.parametrize(("b", "c"), [(9, 3), (0, 6), (25, 14), (120, 95), (0, 0), (1, 0)])
def test_mcnemar_equals_scipy_and_statsmodels(b: int, c: int) -> None:
    from scipy.stats import binomtest

    p = mcnemar_exact(b, c)
    if b + c:
        assert p == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-12)
    mcnemar = pytest.importorskip("statsmodels.stats.contingency_tables").mcnemar
    assert p == pytest.approx(mcnemar([[10, b], [c, 10]], exact=True).pvalue, rel=1e-12)


def test_bootstrap_paths_agree() -> None:
    rng = np.random.default_rng(1)
    diffs = rng.choice([-1.0, 0.0, 1.0], size=400, p=[0.2, 0.6, 0.2]) + 0.0
    # the multinomial path (few distinct values) and the index path (jittered copy, many
    # distinct values) draw the same distribution: their intervals agree closely
    low, high = bootstrap_ci(diffs)
    jitter = diffs + rng.normal(0, 1e-9, size=diffs.size)
    low2, high2 = bootstrap_ci(jitter, resamples=4000)
    assert low == pytest.approx(low2, abs=0.01) and high == pytest.approx(high2, abs=0.01)
    # and both agree with the normal approximation of the mean's spread
    se = diffs.std(ddof=1) / np.sqrt(diffs.size)
    assert high - low == pytest.approx(2 * 1.96 * se, rel=0.08)


def test_group_deltas_are_per_label() -> None:
    a = _results([1, 1, 0, 0, 1, 1], 0, "A")
    b = _results([0, 1, 0, 1, 0, 1], 0, "B")
    c = compare(a, b)
    by = {(g.key, g.value): g for g in c.groups}
    # line: s0, s2, s4 -> A 1,0,1 ; B 0,0,0 ; bar: s1, s3, s5 -> A 1,0,1 ; B 1,1,1
    line, bar = by[("chart_type", "line")], by[("chart_type", "bar")]
    assert (line.a, line.b, line.a_only, line.b_only) == pytest.approx((2 / 3, 0.0, 2, 0))
    assert (bar.a, bar.b, bar.a_only, bar.b_only) == pytest.approx((2 / 3, 1.0, 0, 1))
    assert line.p_value == pytest.approx(0.5) and bar.p_value == pytest.approx(1.0)


def test_metrics_in_one_run_only_are_named_not_compared() -> None:
    a = [SampleResult(sample_id="s", protocol="direct", model="A", scores={"accuracy": 1.0})]
    b = [SampleResult(sample_id="s", protocol="direct", model="B",
                      scores={"accuracy": 1.0, "anls": 0.5})]  # fmt: skip
    c = compare(a, b)
    assert [d.metric for d in c.metrics] == ["accuracy"]
    assert c.notes == ("metrics in one run only (not compared): anls",)
