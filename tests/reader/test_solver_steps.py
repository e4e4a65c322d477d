"""The reader on chain steps that build on earlier answers: labels and colours found in
earlier steps are written into the question; steps that only combine earlier answers (the
k-th of an ordering, sums and filters of reads) are answered from those answers."""

from __future__ import annotations

import pytest

from chartproof.questions import ChartView
from chartproof.reader import solve, view_of_table
from chartproof.types import DataTable

COUNTRIES = DataTable.from_csv(
    "Country,2019,2020\nFrance,12,15\nGermany,30,28\nItaly,18,21\nSpain,9,11\n"
)


@pytest.fixture
def countries() -> ChartView:
    return view_of_table(COUNTRIES, "grouped_bar", colors={"2019": "blue", "2020": "orange"})


@pytest.mark.parametrize(
    ("question", "earlier", "steps", "answer"),
    [
        (  # a label from an earlier step, numbered by its step in the chain
            "What is the value of 2020 in the country from step 3?",
            [("What is the label of the second bar from the left?", "Germany")],
            [3],
            "28",
        ),
        (  # a series found by its colour
            "What is the value of the series drawn in the colour from step 1 in the country "
            "from step 2?",
            [("What colour is used for 2019?", "orange"), ("Which label?", "Italy")],
            [1, 2],
            "21",
        ),
        (  # the model's own (wrong) earlier answer is what the step uses
            "What is the value of 2019 in the country from step 1?",
            [("What is the label of the first bar from the left?", "Spain")],
            [1],
            "9",
        ),
        (
            "Which country comes second in the order of the answer to step 4?",
            [("Order the Country values by 2019, from highest to lowest.", "Germany, Italy")],
            [4],
            "Italy",
        ),
        (
            "What is the sum of the values from steps 1, 2 and 3?",
            [("What is the value of 2019 in France?", "12"), ("... in Italy?", "18"),
             ("... in Spain?", "9")],
            [1, 2, 3],
            "39",
        ),
        (
            "What is the sum of the values from steps 1 and 2 at the Country values of the "
            "answer to step 3?",
            [("What is the value of 2019 in France?", "12"),
             ("What is the value of 2019 in Italy?", "18"), ("Which?", "Italy")],
            [1, 2, 3],
            "18",
        ),
        (
            "Of the Country values read in steps 1, 2 and 3, which have 2019 above 10?",
            [("What is the value of 2019 in France?", "12"),
             ("What is the value of 2019 in Italy?", "18"),
             ("What is the value of 2019 in Spain?", "9")],
            [1, 2, 3],
            "France, Italy",
        ),
        (  # arithmetic on steps that are not the first ones
            "What is the answer to step 5 minus the answer to step 7?",
            [("What is A?", "30"), ("What is B?", "12")],
            [5, 7],
            "18",
        ),
        (  # the result each candidate has, named with its step (best_of)
            "Which series has the largest result: Berlin (step 3), Amsterdam (step 6) or "
            "Vienna (step 9)?",
            [("What is the answer to step 2 minus the answer to step 1?", "-137"),
             ("What is the answer to step 5 minus the answer to step 4?", "-88"),
             ("What is the answer to step 8 minus the answer to step 7?", "-141")],
            [3, 6, 9],
            "Amsterdam",
        ),
        (
            "Which Country has the smallest result: France (step 1), Germany (step 2) or "
            "Italy (step 3)?",
            [("What is the median of France?", "4.5"), ("What is the median of Germany?", "3"),
             ("What is the median of Italy?", "3.25")],
            [1, 2, 3],
            "Germany",
        ),
        (  # names that earlier steps found: the model's own answers to steps 1 and 2
            "Which series has the largest result: the series from step 1 (step 3) or the "
            "series from step 2 (step 4)?",
            [("Which series is drawn in blue?", "2019"),
             ("Which series is drawn in orange?", "2020"),
             ("What is the total of the series from step 1?", "69"),
             ("What is the total of the series from step 2?", "75")],
            [1, 2, 3, 4],
            "2020",
        ),
        (  # ... and as the model gave them, right or wrong
            "Which series has the largest result: the series from step 1 (step 3) or the "
            "series from step 2 (step 4)?",
            [("Which series is drawn in blue?", "Exports"),
             ("Which series is drawn in orange?", "Imports"),
             ("What is the total of the series from step 1?", "80"),
             ("What is the total of the series from step 2?", "75")],
            [1, 2, 3, 4],
            "Exports",
        ),
    ],
)  # fmt: skip
def test_steps_that_build_on_earlier_answers(
    countries: ChartView,
    question: str,
    earlier: list[tuple[str, str]],
    steps: list[int],
    answer: str,
) -> None:
    assert solve(question, countries, earlier, steps).answer == answer


@pytest.mark.parametrize(
    ("question", "answer", "program"),
    [
        ("What is the third largest value of 2019?", "12", "kth_value"),
        ("What is the second smallest value of 2019?", "12", "kth_value"),
        ("What is the third lowest value of 2020?", "21", "kth_value"),
        ("Order the Country values by 2020, from lowest to highest.",
         "Spain, France, Italy, Germany", "sort"),
        ("Order the Country values by 2019, from highest to lowest.",
         "Germany, Italy, France, Spain", "sort"),
    ],
)  # fmt: skip
def test_step_questions_the_operations_declare(
    countries: ChartView, question: str, answer: str, program: str
) -> None:
    got = solve(question, countries)
    assert (got.answer, got.program) == (answer, program), got.explanation


def test_box_statistic_step() -> None:
    boxes = DataTable.from_csv(
        "Group,min,q1,median,q3,max\nControl,1,3,5,7,9\nTreated,2,4,6,9,12\n"
    )
    got = solve("What is the upper quartile of Treated?", view_of_table(boxes, "box"))
    assert (got.answer, got.program) == ("9", "read_box"), got.explanation


READS = [
    ("What is the value of 2019 in France?", "12"),
    ("What is the value of 2019 in Italy?", "18"),
]


@pytest.mark.parametrize(
    ("question", "earlier", "answer", "program", "explanation"),
    [
        ("Which is larger, the answer to step 1 or the answer to step 2?", READS, "Italy",
         "larger", "Step 1 gave 12 and step 2 gave 18. 18 at Italy is larger than 12 at France, "
         "so the answer is Italy."),
        ("Is the answer to step 2 less than the answer to step 1?", READS, "No", "compare",
         "Step 1 gave 12 and step 2 gave 18. 18 is not less than 12, so the answer is no."),
        ("Is the answer to step 1 equal to the answer to step 2?", [("a", "4"), ("b", "4")],
         "Yes", "equal", "Step 1 gave 4 and step 2 gave 4. 4 equals 4, so the answer is yes."),
        ("What is the answer to step 2 divided by the answer to step 1?", READS, "1.5", "arith",
         "Step 1 gave 12 and step 2 gave 18. 18 divided by 12 is 1.5, so the answer is 1.5."),
        ("What is the average of the answer to step 1 and the answer to step 2?", READS, "15",
         "arith", "Step 1 gave 12 and step 2 gave 18. 12 averaged with 18 is 15, so the answer "
         "is 15."),
        ("Among the Country values of the answer to step 1, which has the highest 2020?",
         [("Which countries have 2019 above 10?", "France, Germany, Italy")], "Germany",
         "extreme", "Step 1 gave France, Germany, Italy. The "),
        ("Which country comes third in the order of the answer to step 1?",
         [("Order the Country values by 2019, from highest to lowest.",
           "Germany,Italy,France,Spain")], "France", "nth_of", "France comes third in that order"),
        # a label is no number to subtract; with no step 2 to compare, a yes/no guess says so
        ("What is the answer to step 1 minus the answer to step 2?", [("a", "France"), ("b", "3")],
         "unknown", None, "not numbers"),
        ("Is the answer to step 1 less than the answer to step 2?", [("a", "3")], "No", "guess",
         "does not include"),
    ],
)  # fmt: skip
def test_steps_combining_earlier_answers_run_their_operation(
    countries: ChartView,
    question: str,
    earlier: list[tuple[str, str]],
    answer: str,
    program: str | None,
    explanation: str,
) -> None:
    got = solve(question, countries, earlier, list(range(1, len(earlier) + 1)))
    assert (got.answer, got.program) == (answer, program), got.explanation
    assert explanation in got.explanation
