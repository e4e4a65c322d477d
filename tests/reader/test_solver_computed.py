"""The "computed" question programs (`questions/programs/computed.py`) on small hand-made
tables, answers computed by hand: each program run directly, every paraphrase answered by the
reader (question -> program and arguments -> run), the free-form wordings their cues read, and
drawn questions that stay unambiguous."""

from __future__ import annotations

import random

import pytest

from chartproof.questions import ChartView, execute, get_program, list_programs
from chartproof.questions.cues import PATTERNS
from chartproof.questions.matching import cue_readings
from chartproof.reader import solve, view_of_table
from chartproof.types import DataTable

VIEWS = DataTable.from_csv(
    "Year,Unfavorable,Favorable\n2005,35,43\n2010,36,49\n2015,54,38\n2018,24,88\n"
)
STACK = DataTable.from_csv(
    "Group,Often,Sometimes\nHispanics,15,18\nBlacks,41,24\nWhites,14,26\nAll adults,18,25\n"
)
PIE = DataTable.from_csv("Channel,Share\nAgents,39\nDirect,35\nBanks,22\nBrokers,4\n")


def _views() -> dict[str, ChartView]:
    return {
        "views": view_of_table(
            VIEWS, "line", colors={"Unfavorable": "orange", "Favorable": "green"}
        ),
        "stack": view_of_table(
            STACK, "stacked_bar", colors={"Often": "dark blue", "Sometimes": "light blue"}
        ),
        "pie": view_of_table(
            PIE,
            "pie",
            colors={"Agents": "blue", "Direct": "dark blue", "Banks": "gray", "Brokers": "red"},
        ),
    }


V = _views()

# (chart, program, arguments, answer, words the explanation says), computed by hand.
PROGRAM_CASES = [
    ("views", "count_equal", {"series": "Favorable", "value": 38}, "1", "1 of the 4 values"),
    # any number of series: 36 is Unfavorable's 2010 value and no Favorable one; 18 is
    # Often's All adults value and Sometimes' Hispanics value
    ("views", "count_equal", {"series": "Unfavorable and Favorable", "value": 36}, "1",
     "1 of the 8 values of Unfavorable and Favorable equal 36"),
    ("stack", "count_equal", {"series": "Often and Sometimes", "value": 18}, "2",
     "2 of the 8 values"),
    ("stack", "count_equal", {"series": "Sometimes", "value": 18}, "1", "1 of the 4 values"),
    ("views", "count_equal_all", {"value": 36}, "1", "1 of the 8 values equal 36"),
    ("stack", "count_equal_all", {"value": 18}, "2", "2 of the 8 values"),
    ("views", "missing_value", {"values": "35, 54, 24"}, "36", "leaves out 36"),
    ("views", "gap_of_maxima", {"series": "Favorable", "series2": "Unfavorable"}, "34", "88"),
    ("views", "gap_of_minima", {"series": "Favorable", "series2": "Unfavorable"}, "14", "24"),
    # totals 78, 85, 92, 112
    ("views", "count_totals_above", {"threshold": 90}, "2", "2 totals lie above 90"),
    ("views", "count_totals_below", {"threshold": 80}, "1", "1 totals lie below 80"),
    # totals 33, 65, 40, 43: 40 is not above 40
    ("stack", "count_totals_above", {"threshold": 40}, "2", "Adding the 2 series"),
    ("views", "total_excluding", {"series": "Favorable", "x": "2018"}, "130", "other than 2018"),
    ("views", "total_excluding", {"series": "Favorable", "x": "2018 and 2005"}, "87",
     "the 2 labels other than 2018 and 2005"),  # 49 + 38
    ("views", "total_excluding", {"series": "Unfavorable", "x": "2018, 2005 and 2015"}, "36",
     "the 1 label other than 2018, 2005 and 2015"),
    ("stack", "total_excluding", {"series": "Sometimes", "x": "Blacks, Whites and Hispanics"},
     "25", "other than Blacks, Whites and Hispanics"),  # All adults alone
    ("views", "series_of_max", {}, "Favorable", "88, shown by Favorable at 2018"),
    ("views", "series_of_min", {}, "Unfavorable", "24, shown by Unfavorable at 2018"),
    ("views", "closest_value", {"value": 50}, "2010", "closest to 50 is 49"),
    ("views", "closest_value_in", {"series": "Unfavorable", "value": 50}, "2015", "is 54"),
    ("views", "closest_series_at", {"x": "2015", "value": 40}, "Favorable", "is 38"),
    ("stack", "count_labels", {}, "4", "4 Group labels (Hispanics, Blacks"),
    ("pie", "color_of_value_is", {"value": 22, "color": "gray"}, "Yes", "(Banks) is drawn in gray"),
    ("pie", "color_of_value_is", {"value": 39, "color": "gray"}, "No", "(Agents) is drawn in blue"),
    ("views", "value_is", {"series": "Favorable", "x": "2015", "value": 38}, "Yes",
     "38 is within 5 % (at least 0.5) of 38"),
    ("views", "value_is", {"series": "Unfavorable", "x": "2010", "value": 38}, "No",
     "36 is not within 5 %"),  # 2 off, more than 5 % of 38 (1.9)
    ("pie", "value_is", {"series": "Share", "x": "Brokers", "value": 4.4}, "Yes",
     "4 is within 5 % (at least 0.5) of 4.4"),  # 0.4 off: within 0.5
    ("views", "series_color_is", {"series": "Favorable", "color": "green"}, "Yes",
     "Favorable is drawn in green"),
    ("views", "series_color_is", {"series": "Unfavorable", "color": "green"}, "No",
     "Unfavorable is drawn in orange"),
    ("pie", "wedge_color_is", {"x": "Banks", "color": "gray"}, "Yes", "Banks is drawn in gray"),
    ("pie", "wedge_color_is", {"x": "Agents", "color": "red"}, "No", "Agents is drawn in blue"),
]  # fmt: skip

# (chart, program, arguments): no answer the chart can give.
NO_ANSWER = [
    ("views", "missing_value", {"values": "35, 99"}),  # no series holds both
    ("stack", "missing_value", {"values": "15, 41"}),  # leaves two values out
    ("views", "closest_value", {"value": 500}),  # nothing within 10 %
    ("pie", "color_of_value_is", {"value": 50, "color": "gray"}),  # no mark shows 50
    ("views", "total_excluding", {"series": "Favorable", "x": "2020"}),  # no such label
    ("views", "total_excluding", {"series": "Favorable", "x": "2018 and 2020"}),
    ("views", "total_excluding", {"series": "Favorable", "x": "2005, 2010, 2015 and 2018"}),
    ("views", "count_equal", {"series": "Favorable and Costs", "value": 38}),  # no Costs
    ("views", "value_is", {"series": "Favorable", "x": "2020", "value": 38}),  # no such label
]


@pytest.mark.parametrize(("chart", "program", "args", "answer", "said"), PROGRAM_CASES)
def test_program_answers(chart: str, program: str, args: dict, answer: str, said: str) -> None:
    from chartproof.questions import explain

    result = execute(program, args, V[chart])
    assert result is not None
    assert result.answer.text() == answer
    assert said in explain(result.ops)


@pytest.mark.parametrize(("chart", "program", "args"), NO_ANSWER)
def test_no_answer(chart: str, program: str, args: dict) -> None:
    assert execute(program, args, V[chart]) is None


@pytest.mark.parametrize(("chart", "program", "args", "answer", "said"), PROGRAM_CASES)
def test_every_paraphrase_is_answered_through_the_program(
    chart: str, program: str, args: dict, answer: str, said: str
) -> None:
    result = execute(program, args, V[chart])
    assert result is not None
    for i in range(len(get_program(program).templates)):
        question = result.question(i)
        got = solve(question, V[chart])
        assert got.answer == answer, (question, got.explanation)


# (chart, free-form question, program, arguments) the program's cue reads.
CUE_CASES = [
    ("stack", "How many navy blue bars have 15 value?", "count_equal",
     {"series": "Often", "value": 15.0}),
    ("views", "What's the occurrences of bar with value 36?", "count_equal_all", {"value": 36.0}),
    ("views", "35, 54, 24 which data is missed?", "missing_value", {"values": "35, 54, 24"}),
    ("views", "Deduct the most unfavorable view from the most favorable view?", "gap_of_maxima",
     {"series": "Unfavorable", "series2": "Favorable"}),  # in order of mention
    ("stack", "How many groups have net rates over 40%?", "count_totals_above",
     {"threshold": 40.0}),
    ("stack", "What is the total of Often excluding Blacks?", "total_excluding",
     {"series": "Often", "x": "Blacks"}),
    ("stack", "What is the sum of Sometimes, excluding Blacks and Whites?", "total_excluding",
     {"series": "Sometimes", "x": "Blacks and Whites"}),
    ("stack", "What is the total of Often except Blacks, Whites and All adults?",
     "total_excluding", {"series": "Often", "x": "Blacks, Whites and All adults"}),
    ("stack", "How many bars of Often and Sometimes have 18 value?", "count_equal",
     {"series": "Often and Sometimes", "value": 18.0}),
    ("views", "Which answer response has the lowest value on this graph?", "series_of_min", {}),
    ("stack", "How many groups are represented in the chart?", "count_labels", {}),
    ("pie", "Is the color of the segment with 22% value gray?", "color_of_value_is",
     {"value": 22.0, "color": "gray"}),
    ("views", "Is the value of Unfavorable in 2010 equal to 36?", "value_is",
     {"series": "Unfavorable", "x": "2010", "value": 36.0}),
    ("views", "Was Favorable 49 in 2010?", "value_is",
     {"series": "Favorable", "x": "2010", "value": 49.0}),
    ("pie", "Is the value of Banks 22%?", "value_is",
     {"series": "Share", "x": "Banks", "value": 22.0}),
    ("views", "Is the color of Favorable graph green?", "series_color_is",
     {"series": "Favorable", "color": "green"}),
    ("stack", "Is the colour of the Often bars blue?", "series_color_is",
     {"series": "Often", "color": "blue"}),
    ("pie", "Is the color of Banks grey?", "wedge_color_is", {"x": "Banks", "color": "grey"}),
]  # fmt: skip


@pytest.mark.parametrize(("chart", "question", "program", "args"), CUE_CASES)
def test_cues_read_free_form_wording(chart: str, question: str, program: str, args: dict) -> None:
    found = [(n, a) for n, a, _ in cue_readings(question, V[chart], ranks=PATTERNS)]
    assert (program, args) in found


def test_cues_stay_quiet_on_other_questions() -> None:
    for chart, question in [
        ("views", "What is the value of Favorable in 2015?"),
        ("views", "How many years have Favorable above 40?"),  # a count past a threshold
        ("stack", "How many people with 18 and over are there in Blacks?"),  # 18 is no value
    ]:
        assert cue_readings(question, V[chart], ranks=PATTERNS) == [], question


def test_closest_ties_answer_the_first_shown_and_say_so() -> None:
    view = view_of_table(DataTable.from_csv("Group,Share\nA,3\nB,30\nC,3\n"), "vbar")
    result = execute("closest_value", {"value": 3}, view)
    assert result is not None and result.answer.text() == "A"
    assert "as is C" in result.final.note


@pytest.mark.parametrize("program", [p.name for p in list_programs(families=("computed",))])
def test_drawn_questions_are_answered_alike_by_the_reader(program: str) -> None:
    prog = get_program(program)
    asked = 0
    for chart, view in V.items():
        if not prog.applies(view):
            continue
        rng = random.Random(f"{program}|{chart}")
        for _ in range(6):
            args = prog.sample(view, rng)
            result = execute(prog, args, view) if args is not None else None
            if result is None:
                continue
            asked += 1
            got = solve(result.question(rng.randrange(3)), view)
            assert got.answer == result.answer.text(), (result.question(0), got.explanation)
    assert asked, f"{program}: no question drawn on the test charts"


@pytest.mark.parametrize(
    ("args", "program"),
    [
        ({"value": 50.0}, "closest_value"),
        ({"value": 50.0, "series": "Favorable"}, "closest_value_in"),
        ({"value": 50.0, "x": "2015"}, "closest_series_at"),
        ({"value": 50.0, "colour": "red"}, "closest_value"),  # no variant fits: the program
    ],
)
def test_an_intent_runs_the_variant_its_arguments_fill(args: dict, program: str) -> None:
    from chartproof.questions.program import program_for

    assert program_for("closest_value", args).name == program


def test_declared_programs_pickle() -> None:
    """Programs may travel to worker processes: declared classes are module attributes."""
    import pickle

    for prog in list_programs(families=("computed", "figureqa")):
        assert type(pickle.loads(pickle.dumps(prog))) is type(prog), prog.name


@pytest.mark.parametrize(
    "question",
    [
        "Is Favorable greater than Unfavorable in 2015?",  # "in 2015" ends no claimed value
        "Is Favorable in 2010 two times Unfavorable in 2005?",
        "Is the color of Favorable green?",
    ],
)
def test_a_claimed_value_leaves_other_claims_to_their_checks(question: str) -> None:
    found = [n for n, _, _ in cue_readings(question, V["views"], ranks=PATTERNS)]
    assert "value_is" not in found
