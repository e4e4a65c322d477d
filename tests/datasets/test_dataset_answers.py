"""Typing of raw gold answers."""

from __future__ import annotations

import pytest

from chartproof.datasets import type_answer
from chartproof.types import Answer


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("12", Answer.number(12.0)),
        (" 1,234.5 ", Answer.number(1234.5)),
        ("12%", Answer.number(12.0, unit="%")),
        ("-3.5", Answer.number(-3.5)),
        ("12.", Answer.number(12.0)),
        ("12%.", Answer.number(12.0, unit="%")),
        ("2019", Answer.number(2019.0)),
        ("Yes", Answer.boolean(True)),
        ("no.", Answer.boolean(False)),
        ("TRUE", Answer.boolean(True)),
        ("[10, 12]", Answer(kind="list", value=(10.0, 12.0))),
        ("['a', 'b']", Answer(kind="list", value=("a", "b"))),
        ("[1,234, 5]", Answer(kind="list", value=(1234.0, 5.0))),
        ("[]", Answer.of_text("[]")),
        ("[a, , b]", Answer.of_text("[a, , b]")),
        ("'82:15", Answer.of_text("'82:15")),
        ("Kit Harington", Answer.of_text("Kit Harington")),
        ("1.2.3", Answer.of_text("1.2.3")),
        ("Nope", Answer.of_text("Nope")),
    ],
)
def test_type_answer(raw: str, expected: Answer) -> None:
    assert type_answer(raw) == expected


def test_type_answer_tolerance() -> None:
    assert type_answer("5", tolerance=0.0).tolerance == 0.0
