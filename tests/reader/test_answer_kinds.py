"""Answers in the question's type (yes/no, one of the options, a label), pinned by the
hand-worked case table cases/answer_kinds.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.reader import solve, view_of_table
from chartproof.reader._kinds import (
    asked,
    choice_index,
    claim_questions,
    nearest_option,
    options_in_text,
    question_kind,
)
from chartproof.types import DataTable

CASES: dict[str, Any] = json.loads(
    (Path(__file__).parent / "cases" / "answer_kinds.json").read_text(encoding="utf-8")
)
KINDS = {
    "countries": "grouped_bar",
    "bars": "vbar",
    "curves": "line",
    "brands": "hbar",
    "groups": "vbar",
    "dominance": "line",
}


@pytest.mark.parametrize(("question", "kind"), CASES["question_kind"])
def test_question_kind(question: str, kind: str) -> None:
    assert question_kind(question) == kind


@pytest.mark.parametrize(("text", "stem", "options"), CASES["options_in_text"])
def test_options_in_text(text: str, stem: str, options: list[str]) -> None:
    got_stem, got = options_in_text(text)
    assert got == options
    if options:
        assert got_stem == stem


@pytest.mark.parametrize(("answer", "choices", "index"), CASES["choice_index"])
def test_choice_index(answer: str, choices: list[str], index: int | None) -> None:
    assert choice_index(answer, choices) == index


@pytest.mark.parametrize("case", CASES["solve"], ids=lambda c: c["question"][:48])
def test_solve_in_the_question_type(case: dict[str, Any]) -> None:
    table = DataTable.from_csv(CASES["tables"][case["table"]])
    view = view_of_table(table, KINDS[case["table"]])  # type: ignore[arg-type]
    got = solve(case["question"], view, choices=case.get("choices"), guess=case.get("guess", True))
    assert got.answer == case["answer"], got.explanation
    assert got.lead == case.get("lead", "")
    if got.answer == "unknown":
        assert got.explanation  # never unknown without the reason
    if case.get("choices"):
        assert got.answer in case["choices"]


@pytest.mark.parametrize(("question", "core", "form", "lead", "claim"), CASES["asked"])
def test_asked_sets_format_instructions_apart(
    question: str, core: str, form: str, lead: str, claim: bool
) -> None:
    got = asked(question)
    assert (got.core, got.form, got.lead, got.claim) == (core, form, lead, claim)


@pytest.mark.parametrize(("statement", "questions"), CASES["claim_questions"])
def test_claim_questions(statement: str, questions: list[str]) -> None:
    assert claim_questions(statement) == questions


@pytest.mark.parametrize(("answer", "choices", "index", "how"), CASES["nearest_option"])
def test_nearest_option(answer: str, choices: list[str], index: int | None, how: str) -> None:
    assert nearest_option(answer, choices) == (index, how)
