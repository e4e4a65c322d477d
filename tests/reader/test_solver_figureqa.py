"""FigureQA's yes/no questions (`questions/programs/figureqa.py`) on hand-made charts, answers
computed by hand: ranks by value (a series: its mean), smoothness, highest and lowest values
and areas, crossings, one curve above another; each reaches its program through the template
or the program's cue, and explains what was compared."""

from __future__ import annotations

import pytest

from chartproof.questions import ChartView
from chartproof.reader import solve, view_of_table
from chartproof.types import DataTable

# means A 3.7, B 4, C 2.4; roughness A 0.33, B 10, C 2; max A 6.5; min B 1;
# areas A 14.5, B 14, C 10
LINES = DataTable.from_csv(
    "Year,A,B,C\n2000,1.5,6,2\n2001,2.5,1,3\n2002,3.5,6,2\n2003,4.5,1,3\n2004,6.5,6,2\n"
)
APART = DataTable.from_csv("Year,X,Y\n2000,1,4\n2001,2,5\n2002,3,6\n")
BARS = DataTable.from_csv("Name,Share\nP,10\nQ,30\nR,20\n")

V: dict[str, ChartView] = {
    "lines": view_of_table(LINES, "line"),
    "apart": view_of_table(APART, "line"),
    "bars": view_of_table(BARS, "vbar"),
}

CASES = [
    ("lines", "Is B the maximum?", "Yes", "figure_maximum", "the maximum is B (4)"),
    ("lines", "Is A the maximum?", "No", "figure_maximum", "A is 3.7"),
    ("lines", "Is C the minimum?", "Yes", "figure_minimum", ""),
    ("lines", "Is A the low median?", "Yes", "figure_low_median", ""),
    ("lines", "Is A the high median?", "Yes", "figure_high_median", ""),
    ("lines", "Is A the smoothest?", "Yes", "figure_smoothest", "mean change of slope"),
    ("lines", "Is C the roughest?", "No", "figure_roughest", "the roughest curve is B (10)"),
    ("lines", "Does A have the highest value?", "Yes", "figure_max_value", "A reaches 6.5"),
    ("lines", "Does B have the lowest value?", "Yes", "figure_min_value", ""),
    ("lines", "Does A have the maximum area under the curve?", "Yes", "figure_max_area", "14.5"),
    ("lines", "Does C have the minimum area under the curve?", "Yes", "figure_min_area", "10"),
    ("lines", "Does A intersect B?", "Yes", "figure_intersect", "changes sign"),
    ("lines", "Do A and C intersect after 2002?", "No", "figure_intersect_after",
     "keeps one sign after 2002 over 3 shared points"),
    ("lines", "Is A greater than C?", "No", "figure_curve_greater", "at 3 of the 5 points"),
    ("apart", "Is Y greater than X?", "Yes", "figure_curve_greater", "Y lies above X"),
    ("apart", "Is X less than Y?", "Yes", "figure_curve_less", "at 3 of the 3 points"),
    ("bars", "Is Q the maximum?", "Yes", "figure_maximum_label", "the maximum is Q (30)"),
    ("bars", "Is R the low median?", "Yes", "figure_low_median_label", ""),
    ("bars", "Is P the high median?", "No", "figure_high_median_label", ""),
    # FigureQA's own wording, read by the cues: names matched fuzzily, "each other"
    ("lines", "Does A intersect B each other?", "Yes", "figure_intersect", ""),
    ("lines", "Does line A intersect the C curve?", "Yes", "figure_intersect", ""),
]  # fmt: skip


@pytest.mark.parametrize(("chart", "question", "answer", "program", "said"), CASES)
def test_figureqa_questions(
    chart: str, question: str, answer: str, program: str, said: str
) -> None:
    got = solve(question, V[chart])
    assert (got.answer, got.program, got.truth) == (answer, program, answer == "Yes"), (
        got.explanation
    )
    assert said in got.explanation
