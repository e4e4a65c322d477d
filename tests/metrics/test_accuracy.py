"""Accuracy metrics pinned to case tables, with pix2struct's relaxed correctness side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.answers import numbers_in
from chartproof.datasets.answers import type_answer
from chartproof.metrics.accuracy import (
    anls,
    exact_match,
    levenshtein,
    relaxed_accuracy,
    score_answer,
)
from chartproof.types import Answer

CASES = Path(__file__).parent / "cases"


def _cases(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((CASES / name).read_text(encoding="utf-8"))
    return rows


def _id(case: dict[str, Any]) -> str:
    return f"{case['prediction']!r}-vs-{case['gold']!r}"


def pix2struct_relaxed(target: str, prediction: str, max_relative_change: float = 0.05) -> bool:
    """pix2struct's `relaxed_correctness`, rewritten here from its definition to record
    what the widely copied version returns next to chartproof's answer."""

    def as_float(text: str) -> float | None:
        try:
            return float(text.rstrip("%")) / 100.0 if text.endswith("%") else float(text)
        except ValueError:
            return None

    p, t = as_float(prediction), as_float(target)
    if p is not None and t:
        return abs(p - t) / abs(t) <= max_relative_change
    return prediction.lower() == target.lower()


@pytest.mark.parametrize("case", _cases("accuracy_relaxed.json"), ids=_id)
def test_relaxed_accuracy(case: dict[str, Any]) -> None:
    gold = type_answer(case["gold"])
    assert relaxed_accuracy(case["prediction"], gold) == case["expected"], case["why"]


@pytest.mark.parametrize("case", _cases("accuracy_relaxed.json"), ids=_id)
def test_pix2struct_column_is_what_pix2struct_returns(case: dict[str, Any]) -> None:
    got = float(pix2struct_relaxed(case["gold"], case["prediction"]))
    assert got == case["pix2struct"], case["why"]


def test_table_holds_the_known_pix2struct_failures() -> None:
    cases = _cases("accuracy_relaxed.json")
    differ = [c["why"] for c in cases if c["pix2struct"] != c["expected"]]
    for topic in ("zero target", "Unicode minus", "'%'", "thousands separator",
                  "trailing period", "year target", "scale word", "boundary"):  # fmt: skip
        assert any(topic in why for why in differ), topic


@pytest.mark.parametrize("case", _cases("accuracy_score_answer.json"), ids=_id)
def test_score_answer(case: dict[str, Any]) -> None:
    gold = Answer.model_validate(case["gold"])
    assert score_answer(case["prediction"], gold) == case["expected"], case["why"]


@pytest.mark.parametrize("case", _cases("accuracy_exact.json"), ids=_id)
def test_exact_match(case: dict[str, Any]) -> None:
    gold = Answer.model_validate(case["gold"])
    assert exact_match(case["prediction"], gold) == case["expected"], case["why"]


@pytest.mark.parametrize("case", _cases("accuracy_anls.json"), ids=_id)
def test_anls(case: dict[str, Any]) -> None:
    gold = Answer.model_validate(case["gold"])
    assert anls(case["prediction"], gold) == pytest.approx(case["expected"]), case["why"]


def test_relaxed_tolerance_parameter() -> None:
    gold = Answer.number(100.0)
    assert relaxed_accuracy("109", gold) == 0.0
    assert relaxed_accuracy("109", gold, tolerance=0.1) == 1.0


def test_relaxed_reads_numeric_text_gold_as_number() -> None:
    assert relaxed_accuracy("1,234", Answer.of_text("1234")) == 1.0
    assert score_answer("1,234", Answer.of_text("1234")) == 0.0


@pytest.mark.parametrize(
    ("a", "b", "d"), [("", "", 0), ("abc", "", 3), ("kitten", "sitting", 3), ("flaw", "lawn", 2)]
)
def test_levenshtein(a: str, b: str, d: int) -> None:
    assert levenshtein(a, b) == d == levenshtein(b, a)


def test_numbers_in_scale_readings() -> None:
    assert numbers_in("$3.4bn") == (3.4e9,)
    assert numbers_in("12 million") == (12e6,)
    assert numbers_in("12M") == (12e6,)
    assert numbers_in("12 m") == (12.0,)  # metres: a lone letter after a space is no scale
    assert numbers_in("3%") == (3.0, 0.03)
    assert numbers_in("Q3 revenue was 12") == (12.0,)
    assert numbers_in("between 10 and 12") == ()
