"""Gold-table mode answers every question program exactly: for each program that applies to
a chart, every paraphrase of a sampled question maps back onto the program and its answer."""

from __future__ import annotations

import random
from itertools import islice

import pytest

from chartproof.charts.suites import generate_specs
from chartproof.questions import ChartView, chart_view, execute, list_programs
from chartproof.reader import UNKNOWN, solve, view_of_table
from chartproof.types import ChartSpec

from .conftest import SPECS

COLOUR_FAMILIES = {"color"}
"""Programs about colours: a bare table has none, so gold-table mode cannot answer them."""


def _specs() -> list[ChartSpec]:
    out = list(SPECS.values())
    # Suite charts add the types and shapes the hand-made ones lack (area, scatter, box).
    for suite in ("chartr", "realcqa"):
        out.extend(islice(generate_specs(suite, 8, 7), 8))
    return out


def _cases(full_view: bool) -> list[tuple[str, str, ChartView, str, str]]:
    cases = []
    for spec in _specs():
        view = (
            chart_view(spec)
            if full_view
            else view_of_table(spec.table, spec.chart_type, x_title=spec.style.x_title)
        )
        rng = random.Random(spec.id)
        for prog in list_programs():
            if not prog.applies(view):
                continue
            if not full_view and prog.family in COLOUR_FAMILIES:
                continue
            args = prog.sample(view, rng)
            if args is None:
                continue
            result = execute(prog, args, view)
            if result is None:
                continue
            for i in range(len(prog.templates)):
                case_id = f"{spec.id}:{prog.name}:{i}"
                cases.append((case_id, result.question(i), view, prog.name, result.answer.text()))
    return cases


def _check(question: str, view: ChartView, program: str, answer: str) -> None:
    from chartproof.questions.matching import match_question

    got = solve(question, view)
    assert got.answer != UNKNOWN, f"{program}: {question!r} -> {got.explanation}"
    if got.answer == answer:
        return
    # Two programs may share a paraphrase word for word: then either reading is right.
    found = match_question(question, view)
    assert found is not None and found.program.name != program, (
        f"{program}: {question!r}: got {got.answer!r}, expected {answer!r}"
    )
    other = execute(found.program, found.args, view)
    assert other is not None and got.answer == other.answer.text()


_FULL = _cases(full_view=True)
_TABLE = _cases(full_view=False)


_FIELDS = ("case_id", "question", "view", "program", "answer")


@pytest.mark.parametrize(_FIELDS, _TABLE, ids=[c[0] for c in _TABLE])
def test_gold_table_answers_every_program(
    case_id: str, question: str, view: ChartView, program: str, answer: str
) -> None:
    _check(question, view, program, answer)


@pytest.mark.parametrize(_FIELDS, _FULL, ids=[c[0] for c in _FULL])
def test_full_chart_view_answers_colour_programs_too(
    case_id: str, question: str, view: ChartView, program: str, answer: str
) -> None:
    _check(question, view, program, answer)


def test_every_program_is_exercised() -> None:
    seen = {c[3] for c in _FULL}
    chain_only = {p.name for p in list_programs() if p.chain}
    missing = {p.name for p in list_programs()} - seen - chain_only
    # Programs that no test chart can ask (e.g. they need ties or box plots with equal IQRs).
    assert len(missing) <= 6, sorted(missing)
