"""The one question parser (`questions.matching.parse`): a table of questions on three small
charts and the first reading each gets (program, arguments, and how it was found), worked
out by hand from the templates, the resolver and the programs' cues."""

from __future__ import annotations

import pytest
from question_factory import category_spec

from chartproof.questions import ChartView
from chartproof.questions.cues import Cue, reads, walk
from chartproof.questions.matching import parse
from chartproof.questions.mentions import mentions
from chartproof.questions.program import list_programs, program_for

CHARTS = {
    "bars": category_spec("vbar", series={"Sales": (12.0, 15.0, 9.0, 20.0, 17.0)}),
    "two": category_spec(
        "grouped_bar",
        x=("North", "South", "East"),
        x_kind="category",
        series={"Sales": (10.0, 20.0, 30.0), "Costs": (5.0, 25.0, 12.0)},
    ),
    "pie": category_spec(
        "pie", x=("Apple", "Banana", "Cherry"), x_kind="category", series={"Share": (50, 30, 20)}
    ),
}

CASES: list[tuple[str, str, str | None, dict[str, object], str]] = [
    # chart, question, first program (None: no reading), its arguments, how found
    ("bars", "Which Year has the highest Sales?", "argmax_x", {"series": "Sales"}, "template"),
    ("bars", "  which year  HAS the highest sales ", "argmax_x", {"series": "Sales"}, "template"),
    # a slip in a label: the template fits loosely, "Sale" resolves to Sales (0.89 alike)
    ("bars", "Which Year has the highest Sale?", "argmax_x", {"series": "Sales"}, "paraphrase"),
    ("bars", "In which year did sales peak?", "argmax_x", {"series": "Sales"}, "cue"),
    (
        "bars",
        "What was the difference between 2019 and 2021?",
        "diff_two",
        {"series": "Sales", "x": "2019", "x2": "2021"},
        "cue",
    ),
    (
        "bars",
        "How many years had sales above 10?",
        "count_above",
        {"series": "Sales", "threshold": 10.0},
        "cue",
    ),
    ("bars", "What is the value of the third bar?", "value_at_position", {"k": 3}, "cue"),
    # counted from the right of five bars: the 4th from the left
    ("bars", "Which year is second from the right?", "label_at_position", {"k": 4}, "cue"),
    ("two", "Tell me the colour used for Costs", "color_of_series", {"series": "Costs"}, "cue"),
    ("two", "On average, how much did Costs come to?", "average", {"series": "Costs"}, "cue"),
    ("two", "Which region had the highest Sales?", "argmax_x", {"series": "Sales"}, "cue"),
    (
        "two",
        "What was the gap between Sales and Costs in South?",
        "diff_series_at_x",
        {"series": "Sales", "series2": "Costs", "x": "South"},
        "cue",
    ),
    ("pie", "What share of the pie is Banana?", "pie_value", {"x": "Banana"}, "cue"),
    ("bars", "Who portrayed Jon Snow?", None, {}, ""),
]


@pytest.mark.parametrize(("chart", "question", "program", "args", "how"), CASES)
def test_first_reading(
    chart: str, question: str, program: str | None, args: dict[str, object], how: str
) -> None:
    found = parse(question, ChartView.from_spec(CHARTS[chart]))
    if program is None:
        assert found == []
        return
    assert found, question
    first = found[0]
    assert (first.program.name, first.args) == (program, args)
    assert first.how.split(":")[0] == how


def test_stages_come_in_order_and_can_be_chosen() -> None:
    view = ChartView.from_spec(CHARTS["bars"])
    q = "Which Year has the highest Sales?"
    hows = [p.how.split(":")[0] for p in parse(q, view)]
    assert hows == sorted(hows, key=["template", "paraphrase", "cue"].index)
    assert {"template", "paraphrase", "cue"} <= set(hows)
    assert {p.how for p in parse(q, view, stages=("cue",))} == {
        "cue: label of the extreme",
        "cue: extreme value",
    }
    assert parse(q, view, stages=("template",), families=("trend",)) == []
    with pytest.raises(ValueError, match="unknown parse stage 'templat'; known: template"):
        parse(q, view, stages=("templat",))  # type: ignore[arg-type]


def test_a_final_cue_ends_the_walk() -> None:
    """A colour question gets colour readings only; "the third bar" only its position."""
    view = ChartView.from_spec(CHARTS["two"])
    found = parse("Tell me the colour used for Costs", view, stages=("cue",))
    assert [p.program.name for p in found] == ["color_of_series"]
    bars = ChartView.from_spec(CHARTS["bars"])
    found = parse("What is the value of the third bar, the highest?", bars, stages=("cue",))
    assert [p.program.name for p in found] == ["value_at_position"]


def test_walk_orders_by_rank_and_skips_unfilled_slots() -> None:
    m = mentions("What was the highest value?", ChartView.from_spec(CHARTS["bars"]))
    cues = [
        ("late", Cue(20, "late", lambda m: True, lambda m: ({"series": m.series},))),
        ("early", Cue(10, "early", lambda m: True, lambda m: ({"x": None},))),
        ("held", Cue(15, "held", lambda m: True, lambda m: ({},), final=False)),
    ]
    assert walk(m, cues) == [("held", {}, "held"), ("late", {"series": "Sales"}, "late")]
    assert walk(m, cues, offer=lambda name: name != "held") == [
        ("late", {"series": "Sales"}, "late")
    ]
    final = [*cues[:2], ("held", Cue(15, "held", lambda m: True, lambda m: ({},), final=True))]
    assert walk(m, final) == [("held", {}, "held")]
    # a final cue ends the walk even where its program is not offered (does not apply)
    assert walk(m, final, offer=lambda name: name != "held") == []


def test_every_cue_fills_its_programs_slots() -> None:
    """A cue's readings name exactly the slots of the program or of one of its variants
    (checked on every chart above with a question that sets off every signal)."""
    question = (
        "How many colours; which 2nd highest lowest total average median ratio difference "
        "between 2019 and 2021 North South Sales Costs above 12 increase greater than?"
    )
    for spec in CHARTS.values():
        m = mentions(question, ChartView.from_spec(spec))
        for prog in list_programs():
            for cue in prog.cues:
                for args in cue.fill(m):
                    narrowed = program_for(prog.name, args)
                    assert set(args) == set(narrowed.slots), (prog.name, cue.why)


def test_a_cue_can_read_its_own_pattern() -> None:
    """`reads` wraps a reader of the question as written ("three" stays a word there)."""
    view = ChartView.from_spec(CHARTS["bars"])

    def missing(text: str, v: ChartView) -> dict[str, str] | None:
        return {"x": v.x_labels[-1]} if text.startswith("Which is missing") else None

    cues = [("missing", reads(missing, 5, "missing value"))]
    m = mentions("Which is missing: three percent?", view)
    assert m.question == "Which is missing: 3 percent?"
    assert walk(m, cues) == [("missing", {"x": "2022"}, "missing value")]
    assert walk(mentions("Which was highest?", view), cues) == []


def test_cues_of_a_program_run_elsewhere() -> None:
    """`cue_readings(extra=...)` walks cues of a program not registered here in rank order:
    the named-value cue (after the registered `closest_value`'s own, same rank) comes before
    the extremes."""
    from chartproof.questions.cues import NAMED_VALUE
    from chartproof.questions.matching import cue_readings

    view = ChartView.from_spec(CHARTS["two"])
    found = cue_readings(
        "Which region had the highest value, about 25?", view, extra=[("near", NAMED_VALUE)]
    )
    assert found[:2] == [
        ("closest_value", {"value": 25.0}, "label with a value"),
        ("near", {"value": 25.0}, "label with a value"),
    ]
    assert [name for name, _, _ in found[2:]] == ["argmax_x", "max_value"]


def test_a_list_of_numbers_parses_back_by_template_and_by_cue() -> None:
    """A `numbers` slot matches a list as written and resolves to the list as the programs
    write it; `missing_value`'s own-pattern cue reads other wordings, and a reading of
    `closest_value`'s cue that names a label asks its variant."""
    from chartproof.questions.matching import match_question

    view = ChartView.from_spec(CHARTS["two"])
    found = match_question("Which value is missing from the list 46, 43 and 41?", view)
    assert found is not None
    assert (found.program.name, found.args) == ("missing_value", {"values": "46, 43, 41"})
    assert match_question("Which value is missing from the list 46?", view) is None
    first = parse("46,43, 41.5 which data is missed?", view)[0]
    assert (first.program.name, first.args) == ("missing_value", {"values": "46, 43, 41.5"})
    assert first.how == "cue: a value missing from a list"
    near = parse("Which series had about 21 in South?", view, stages=("cue",))[0]
    assert (near.program.name, near.args) == ("closest_series_at", {"value": 21.0, "x": "South"})


def test_plain_extreme_words_are_a_named_subset() -> None:
    """The computed cues' extreme words are a subset of the general lists: "best" or "main"
    names no extreme value there, so "the main response" is no question of the maximum."""
    from chartproof.questions.wording import MAX, MAX_PLAIN, MIN, MIN_PLAIN

    assert set(MAX_PLAIN) < set(MAX)
    assert set(MIN_PLAIN) < set(MIN)
    assert {"best", "main", "max"} <= set(MAX) - set(MAX_PLAIN)
