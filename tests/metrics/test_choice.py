"""Chance level and chance-corrected accuracy pinned to hand-computed cases (cases/choice.json)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.choice import chance_corrected, chance_level, choice_scores

CASES = json.loads((Path(__file__).parent / "cases" / "choice.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES["samples"], ids=lambda c: c["why"][:40])
def test_per_sample(case: dict[str, Any]) -> None:
    k = case["k"]
    options = [f"o{i}" for i in range(k)]
    assert chance_level(k) == pytest.approx(case["chance"])
    got = [choice_scores(float(c), options) for c in case["correct"]]
    assert [g["chance_corrected_accuracy"] for g in got] == pytest.approx(case["corrected"])
    assert all(g["chance"] == pytest.approx(case["chance"]) for g in got)
    mean = math.fsum(g["chance_corrected_accuracy"] or 0.0 for g in got) / len(got)
    assert mean == pytest.approx(case["mean_corrected"])


def test_mixed_number_of_options() -> None:
    m = CASES["mixed"]
    got = [
        choice_scores(float(c), [str(i) for i in range(k)])
        for k, c in zip(m["ks"], m["correct"], strict=True)
    ]
    n = len(got)
    assert math.fsum(g["choice_accuracy"] or 0.0 for g in got) / n == pytest.approx(
        m["mean_accuracy"]
    )
    assert math.fsum(g["chance"] or 0.0 for g in got) / n == pytest.approx(m["mean_chance"])
    assert math.fsum(g["chance_corrected_accuracy"] or 0.0 for g in got) / n == pytest.approx(
        m["mean_corrected"]
    )


def test_edges() -> None:
    assert choice_scores(1.0, []) == {}
    with pytest.raises(ValueError, match="two or more"):
        chance_level(1)
    with pytest.raises(ValueError):
        chance_corrected(0.5, 1.0)
    assert chance_corrected(0.25, 0.25) == 0.0
