"""Question text → program and arguments: every rendered paraphrase maps back, on spec
views and on bare tables (the offline reader's case)."""

from __future__ import annotations

import random

import pytest
from question_factory import category_spec, random_spec

from chartproof.questions import ChartView, execute, make_questions
from chartproof.questions.matching import match_question, question_templates
from chartproof.types import ChartType

CHART_TYPES: tuple[ChartType, ...] = (
    "vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "scatter", "box",
)  # fmt: skip


def test_every_rendered_question_maps_back() -> None:
    rng = random.Random(9)
    checked = 0
    for i in range(45):
        spec = random_spec(rng, CHART_TYPES[i % len(CHART_TYPES)], spec_id=f"m{i}")
        view = ChartView.from_spec(spec)
        items = make_questions(spec, seed=i, per_chart=40, with_premises=False)
        items += make_questions(
            spec, seed=i, per_chart=10, families=("structure",), with_premises=False
        )
        for item in items:
            found = match_question(item.question, view)
            assert found is not None, item.question
            assert found.program.name == item.program, (item.question, found.program.name)
            assert found.args == item.args, item.question
            assert found.paraphrase == item.paraphrase
            checked += 1
    assert checked > 800


def test_loose_spelling_and_unknown_questions() -> None:
    spec = category_spec("line", series={"Sales": (1.0, 2.0, 4.0, 3.0, 5.0)})
    found = match_question("  what IS the value of   sales in 2020 ", spec)
    assert found is not None
    assert found.program.name == "value_at"
    assert found.args == {"series": "Sales", "x": "2020"}
    assert match_question("What is the value of Profit in 2020?", spec) is None
    assert match_question("Who portrayed Jon Snow?", spec) is None


def test_bare_table_round_trip() -> None:
    """A table recovered from pixels (no spec) answers like the spec it came from."""
    spec = category_spec("vbar", series={"Share": (30.0, 12.5, 41.0, 8.0, 9.5)})
    text = "How many Year values have Share above 10?"
    found = match_question(text, spec.table)
    assert found is not None and found.program.name == "count_above"
    result = execute(found.program, found.args, ChartView.from_table(spec.table))
    assert result is not None and result.answer.value == 3.0


def test_templates_are_exposed_as_data() -> None:
    templates = question_templates()
    assert len(templates) >= 75
    assert all(len(t) >= 3 for t in templates.values())
    assert "{series}" in templates["value_at"][0]


LABELS = ("Food and drink", "Food", "Rent", "A, B", "C", "2018", "2005")

# (text, the labels it lists or None): hand-written lists, labels holding "and" or a comma
LISTS = [
    ("Rent", ["Rent"]),
    ("rent and food", ["Rent", "Food"]),
    ("Food and drink and Rent", ["Food and drink", "Rent"]),
    ("Rent, Food and drink", ["Rent", "Food and drink"]),
    ("A, B and C", ["A, B", "C"]),
    ("2018, 2005, and Rent", ["2018", "2005", "Rent"]),
    ("Rent, Costs", None),  # Costs is no label
    ("Rentals", None),
    ("and Rent", None),
    ("Rent and", None),
    ("", None),
]


@pytest.mark.parametrize(("text", "labels"), LISTS)
def test_labels_written_reads_a_list_back(text: str, labels: list[str] | None) -> None:
    from chartproof.questions.labels import labels_listed, labels_written

    assert labels_written(text, LABELS) == labels
    if labels:
        assert labels_written(labels_listed(labels), LABELS) == labels


@pytest.mark.parametrize(
    ("question", "normed"),
    [
        ("Is Olive the maximum?", "is olive the maximum"),
        ("Is A? greater than  B?", "is a greater than b"),
        ("Is the colour of 'Don’t know' red?", "is the colour of dont know red"),
        ("Is $\\alpha$ 3.5 times 1.?", "is α 3.5 times 1"),
    ],
)
def test_norm_question_is_norm(question: str, normed: str) -> None:
    """The one normaliser the claim and FigureQA cues read questions with."""
    from chartproof.questions.labels import norm, norm_question

    assert norm_question(question) == norm(question) == normed
