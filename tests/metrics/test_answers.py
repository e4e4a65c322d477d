"""One answer comparison: scoring, preference pairs and the reply parser agree (case table)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.answers import matches, same_answer, split_items
from chartproof.metrics.accuracy import score_answer
from chartproof.types import Answer
from chartproof.variants.preference import distinct_answers

CASES = json.loads((Path(__file__).parent / "cases" / "answers_same.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['a']['value']}-vs-{c['b']['value']}")
def test_same_answer_cases(case: dict[str, Any]) -> None:
    a, b = Answer.model_validate(case["a"]), Answer.model_validate(case["b"])
    assert same_answer(a, b) is case["same"], case["why"]
    # preference pairs and scoring decide the same way
    assert distinct_answers(a, b) is not case["same"], case["why"]
    if not isinstance(a.value, tuple):
        assert score_answer(a.text(), b) == float(case["same"]), case["why"]
        assert matches(a.text(), b) is case["same"], case["why"]


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ("A, B, or C", ("A", "B", "C")),
        ("A, B and C", ("A", "B", "C")),
        ("[10, 12]", ("10", "12")),
        ("1,234; 5", ("1,234", "5")),
        ("- x\n- y", ("x", "y")),
        ("'a', \"b\"", ("a", "b")),
    ],
)
def test_split_items(text: str, items: tuple[str, ...]) -> None:
    assert split_items(text) == items
