"""Claims about two quantities named in words ("Is A greater than B?", "Is A twice B?"), the
programs `quantity_greater`, `quantity_less`, `quantity_times` (`questions/programs/
claims.py`): each side is a number, a label or any question's subject, answered as a
question of its own and recorded as steps. Answers computed by hand on small tables."""

from __future__ import annotations

import pytest

from chartproof.questions import ChartView, execute, explain
from chartproof.questions.cues import PATTERNS
from chartproof.questions.matching import cue_readings
from chartproof.reader import solve, view_of_table
from chartproof.types import DataTable

V: dict[str, ChartView] = {
    # one series: a label names its bar
    "share": view_of_table(
        DataTable.from_csv("Country,Share\nCanada,40\nMexico,20\nPeru,19.5\nChile,18.9\nCuba,0\n"),
        "vbar",
    ),
    # two series stacked: a side without a series takes the other side's
    "trust": view_of_table(
        DataTable.from_csv("Group,Very well,Fairly well\nDoctors,30,44\nNurses,52,40\n"),
        "stacked_bar",
    ),
    # two series by colour: Approve 78, 67, 60, 49 (median 63.5), Disapprove at most 29
    "poll": view_of_table(
        DataTable.from_csv(
            "Issue,Approve,Disapprove\nTrade,78,12\nTaxes,67,29\nHealth,60,21\nRoads,49,25\n"
        ),
        "grouped_bar",
        colors={"Approve": "green", "Disapprove": "orange"},
    ),
}

# (chart, question, answer, program, words the explanation says), computed by hand.
CASES = [
    # 40 / 20 = 2: twice
    ("share", "Is the value of Canada twice Mexico?", "Yes", "quantity_times",
     ["labelled 40", "labelled 20", "is 2 times", "within 5 % of 2 times"]),
    # 40 / 19.5 = 2.0513: 0.0513 off 2, within 5 % of 2 (0.1)
    ("share", "Is Canada twice the value of Peru?", "Yes", "quantity_times",
     ["2.05128 times", "within 5 %"]),
    # 40 / 18.9 = 2.1164: 0.1164 off 2, more than 5 % of 2
    ("share", "Is Canada twice Chile?", "No", "quantity_times",
     ["Canada (40) is 2.1164 times chile (18.9), not within 5 %"]),
    ("share", "Is Mexico half of Canada?", "Yes", "quantity_times", ["is 0.5 times"]),
    ("share", "Is Canada three times Peru?", "No", "quantity_times", ["not within 5 % of 3 times"]),
    ("share", "Is Canada 2 times as large as Peru?", "Yes", "quantity_times", ["2.05128 times"]),
    ("share", "Is Canada 1.5 times Mexico?", "No", "quantity_times", ["is 2 times"]),
    ("share", "Is Peru less than Chile?", "No", "quantity_less",
     ["Peru (19.5) is not less than chile (18.9)"]),
    ("share", "Is Peru greater than 19?", "Yes", "quantity_greater",
     ["Peru (19.5) is greater than 19,"]),
    # the series of one side holds for the other: 44 against 40 (Nurses' Very well is 52)
    ("trust", "Is Doctors in Fairly well more than Nurses?", "Yes", "quantity_greater",
     ["Fairly well segment of the Nurses bar is labelled 40", "(44) is greater than"]),
    ("trust", "Is Doctors more than Nurses in Fairly well?", "Yes", "quantity_greater",
     ["(44) is greater than", "(40)"]),
    ("trust", "Is Doctors in Very well more than Nurses?", "No", "quantity_greater",
     ["(30) is not greater than", "(52)"]),
    # a number as written takes no series: 70 against Approve at Taxes, 67
    ("poll", "Is 70 greater than the value of Approve in Taxes?", "Yes", "quantity_greater",
     ["70 is greater than the value of approve in taxes (67)"]),
    # sides that are questions' subjects: the median of the green bars, the largest orange bar
    ("poll", "Is the median of the green bars greater than the largest orange bar?", "Yes",
     "quantity_greater", ["have the median 63.5", "Disapprove bar at Taxes at 29",
                          "(63.5) is greater than the largest orange bar (29)"]),
    ("poll", "Is the median of the green bars less than 38?", "No", "quantity_less",
     ["(63.5) is not less than 38"]),
    # a format instruction and a claim's wording reach the same program
    ("poll", "Is the median of the green bars less than 38? Answer 'Yes' or 'No'.", "No",
     "quantity_less", ["(63.5) is not less than 38"]),
    ("poll", "True or False: the median of the green bars is greater than 38.", "True",
     "quantity_greater", ["(63.5) is greater than 38"]),
]  # fmt: skip


@pytest.mark.parametrize(("chart", "question", "answer", "program", "said"), CASES)
def test_claims_about_two_quantities(
    chart: str, question: str, answer: str, program: str, said: list[str]
) -> None:
    got = solve(question, V[chart])
    assert (got.answer, got.program) == (answer, program), got.explanation
    for words in said:
        assert words in got.explanation, (words, got.explanation)


def test_the_sides_are_recorded_as_steps_before_the_comparison() -> None:
    got = solve("Is the median of the green bars greater than the largest orange bar?", V["poll"])
    ops = [op.op for op in got.ops]
    assert ops[-1] == "compare_quantities"
    final = got.ops[-1]
    a, b = (got.ops[i] for i in final.depends_on)
    assert (a.value, b.value) == (63.5, 29.0)
    # each side's own operations come before it, their references renumbered
    assert all(d < a.id for d in a.depends_on) and all(d < b.id for d in b.depends_on)
    assert a.id < b.id < final.id


# (chart, program, arguments, answer, words): run directly, the sides answered by the one
# parser (`questions.matching.answer_ops`), as drawn questions are.
PROGRAM_CASES = [
    # 12 + 29 + 21 + 25 = 87
    ("poll", "quantity_greater", {"a": "the highest value of Approve", "b": "the total of "
     "Disapprove"}, "No", "The highest value of Approve (78) is not greater than the total of "
     "Disapprove (87)"),
    ("poll", "quantity_less", {"a": "the value of Approve in Roads", "b": "50"}, "Yes",
     "(49) is less than 50"),
    ("share", "quantity_times", {"a": "Canada", "k": 2.0, "b": "Mexico"}, "Yes", "2 times"),
]  # fmt: skip


@pytest.mark.parametrize(("chart", "program", "args", "answer", "said"), PROGRAM_CASES)
def test_programs_run_on_the_parser(
    chart: str, program: str, args: dict, answer: str, said: str
) -> None:
    result = execute(program, args, V[chart])
    assert result is not None
    text = explain(result.ops)
    assert result.answer.text() == answer, text
    assert said in text, text


@pytest.mark.parametrize(
    ("chart", "program", "args"),
    [
        ("share", "quantity_times", {"a": "Canada", "k": 2.0, "b": "Cuba"}),  # Cuba is 0
        ("share", "quantity_greater", {"a": "Atlantis", "b": "Canada"}),  # no such label
        ("poll", "quantity_less", {"a": "the color of Approve", "b": "3"}),  # not a number
    ],
)
def test_no_answer(chart: str, program: str, args: dict) -> None:
    assert execute(program, args, V[chart]) is None


@pytest.mark.parametrize(
    ("question", "program", "args"),
    [
        ("Is Canada twice Mexico?", "quantity_times", {"a": "canada", "k": 2.0, "b": "mexico"}),
        ("Is Canada three times as much as Peru?", "quantity_times",
         {"a": "canada", "k": 3.0, "b": "peru"}),
        ("Is the value of Peru 1.5 times the value of Chile?", "quantity_times",
         {"a": "the value of peru", "k": 1.5, "b": "the value of chile"}),
        ("Is the Peru bar lower than the Chile bar?", "quantity_less",
         {"a": "the peru bar", "b": "the chile bar"}),
    ],
)  # fmt: skip
def test_cues_read_the_sides_and_the_ratio(question: str, program: str, args: dict) -> None:
    found = [(n, a) for n, a, _ in cue_readings(question, V["share"], ranks=PATTERNS)]
    assert (program, args) in found


def test_zero_times_is_no_claim() -> None:
    found = [n for n, _, _ in cue_readings("Is Canada zero times Peru?", V["share"])]
    assert "quantity_times" not in found


def test_the_caller_answers_the_sub_questions() -> None:
    """`execute(..., ask=)` answers the sides; the parser does when no one is given."""
    asked: list[str] = []

    def nobody(question: str, view: ChartView) -> None:
        asked.append(question)

    args = {"a": "Canada", "b": "3"}
    assert execute("quantity_greater", args, V["share"], ask=nobody) is None
    # the phrase is asked as "What is the Canada?", then "What is the value of Canada?"
    assert asked == ["What is the Canada?", "What is the value of Canada?"]
    result = execute("quantity_greater", args, V["share"])
    assert result is not None and result.answer.text() == "Yes"


def test_grafted_operations_keep_their_references() -> None:
    from chartproof.questions.trace import Tracer, ref

    sub = Tracer(V["share"])
    a = sub.add("read", "VE", "What is the value of Canada?", 40.0, "number")
    sub.add("arith", "NC", "What is twice it?", 80.0, "number", depends_on=(a,),
            args={"a": ref(a), "items": [ref(a), 2.0]})  # fmt: skip
    tr = Tracer(V["share"])
    tr.add("given", None, "What is 3?", 3.0, "number", exact=True)
    last = tr.graft(sub.ops)
    assert last is tr.ops[-1] and [op.id for op in tr.ops] == [0, 1, 2]
    assert last.depends_on == (1,)
    assert last.args == {"a": {"ref": 1}, "items": [{"ref": 1}, 2.0]}
    assert tr.graft(()) is None
