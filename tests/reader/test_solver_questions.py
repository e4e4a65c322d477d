"""Free-form (ChartQA-style) questions, chain-step arithmetic, refusals and premise verdicts
on small hand-made tables with hand-computed answers."""

from __future__ import annotations

import pytest

from chartproof.questions import ChartView
from chartproof.reader import UNKNOWN, judge, reply, solve, view_of_table
from chartproof.types import DataTable

COUNTRIES = DataTable.from_csv(
    "Country,2019,2020\nFrance,12,15\nGermany,30,28\nItaly,18,21\nSpain,9,11\n"
)
REVENUE = DataTable.from_csv(
    "Year,Revenue in million U.S. dollars\n2016,410.5\n2017,455\n2018,502.25\n2019*,560\n2020,498\n"
)
POLL = DataTable.from_csv(
    "Response,Share of respondents\nApprove,38\nDisapprove,52\nDon't know,10\n"
)


@pytest.fixture
def countries() -> ChartView:
    return view_of_table(COUNTRIES, "grouped_bar", colors={"2019": "blue", "2020": "orange"})


@pytest.fixture
def revenue() -> ChartView:
    return view_of_table(REVENUE, "vbar")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's the value of Germany in 2019?", "30"),
        ("What was the value for Italy in 2020?", "21"),
        ("Which country has the highest value in 2020?", "Germany"),
        ("Which country has the lowest value in 2019?", "Spain"),
        ("What is the difference between France and Spain in 2020?", "4"),
        ("What is the average of 2019?", "17.25"),
        ("How many countries are above 16 in 2020?", "2"),
        ("What does the orange bar represent?", "2020"),
        ("What is the sum of France and Italy in 2019?", "30"),
    ],
)
def test_chartqa_style_questions(countries: ChartView, question: str, answer: str) -> None:
    got = solve(question, countries)
    assert got.answer == answer, got.explanation


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # "total" names the measure here: one bar's value, not the sum of all bars.
        ("What was the total revenue in 2018?", "502.25"),
        ("How much revenue did the company make in 2019?", "560"),
        ("In which year did revenue reach about 455 million dollars?", "2017"),
        ("What was the revenue in the most recent year?", "498"),
        ("What is the value of the second bar from the left?", "455"),
        ("Which year is represented by the rightmost bar?", "2020"),
        ("In which year was the revenue highest?", "2019*"),
    ],
)
def test_statista_style_questions(revenue: ChartView, question: str, answer: str) -> None:
    assert solve(question, revenue).answer == answer


def test_label_with_apostrophe_and_replacement_character() -> None:
    view = view_of_table(POLL, "pie")
    assert solve("What share answered Don\ufffdt know?", view).answer == "10"


def test_unmappable_question_says_unknown(countries: ChartView) -> None:
    got = solve("Who portrayed Jon Snow?", countries)
    assert got.answer == UNKNOWN and not got.known
    assert "does not match" in got.explanation
    text = reply(got, "answer_explanation")
    assert text.startswith("The answer is: unknown. Explanation: The question does not match")


def test_explanation_names_the_marks_and_values(countries: ChartView) -> None:
    got = solve("What is the difference in 2020 between Germany and France?", countries)
    assert got.answer == "13"
    assert got.program == "diff_two"
    assert "28" in got.explanation and "15" in got.explanation
    assert got.explanation.count(".") <= 4


@pytest.mark.parametrize(
    ("question", "earlier", "answer"),
    [
        (
            "What is the answer to step 1 plus the answer to step 2?",
            [("a", "12.5"), ("b", "7")],
            "19.5",
        ),
        (
            "What is the difference between the answer to step 1 and the answer to step 3?",
            [("a", "5.1"), ("b", "17.6")],
            "12.5",
        ),
        (
            "What is the ratio of the answer to step 2 to the answer to step 3?",
            [("a", "9"), ("b", "3")],
            "3",
        ),
        (
            "Is the answer to step 1 greater than the answer to step 2?",
            [("a", "4"), ("b", "9")],
            "No",
        ),
        (
            "What percentage of the answer to step 2 is the answer to step 1?",
            [("a", "5"), ("b", "20")],
            "25",
        ),
    ],
)
def test_chain_steps_combine_earlier_answers(
    countries: ChartView, question: str, earlier: list[tuple[str, str]], answer: str
) -> None:
    assert solve(question, countries, earlier).answer == answer


def test_chain_step_without_earlier_answers_is_unknown(countries: ChartView) -> None:
    assert (
        solve("What is the answer to step 1 plus the answer to step 2?", countries).answer
        == UNKNOWN
    )


@pytest.mark.parametrize(
    ("statement", "truth"),
    [
        ("The chart is a grouped bar chart.", True),
        ("The data are presented in a pie chart.", False),
        ("The value of 2019 at Germany is 30.", True),
        ("At Italy, 2020 equals 18.", False),
        ("The highest value of 2020 is 28.", True),
        ("Germany has the largest value of 2019.", True),
        ("The chart shows 2 data series.", True),
        ("17.6 minus 5.1 equals 22.7.", False),
        ("The sum of 12, 30, 18 and 9 is 69.", True),
        ("Averaging the 4 values 12, 30, 18, 9 gives 17.25.", True),
        ("Italy has a larger 2020 than France.", True),
    ],
)
def test_premise_verdicts(countries: ChartView, statement: str, truth: bool) -> None:
    got = judge(statement, countries)
    assert got.truth is truth, got.explanation
    assert reply(got, "truth") == ("True" if truth else "False")


def test_uncheckable_premise_is_unknown(countries: ChartView) -> None:
    got = judge("The chart was drawn by a careful analyst.", countries)
    assert got.truth is None
    assert reply(got, "truth").startswith("Unknown")
