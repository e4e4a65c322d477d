"""Dense chart-parsing queries (RealCQA-V2 §4.1): chart type, axis titles, value range,
categorical axis, log scale, legend, number of series, legend names, x ticks.

Short-answer questions with no ChartR task type; `make_questions` asks them only when the
"structure" family is requested.
"""

from __future__ import annotations

import random
from typing import ClassVar

from chartproof.questions import ops
from chartproof.questions.program import ALL_CHARTS, Args, ArgValue, Program, register
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["StructureQuery"]


class StructureQuery(Program):
    """One structural fact of the chart."""

    family = "structure"
    task_type = None
    question_type = "structural"
    chart_types = ALL_CHARTS
    min_series = 0
    fact: ClassVar[str]

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        return {}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.chart_fact(tr, self.fact)


def _query(fact: str, templates: tuple[str, ...], doc: str) -> None:
    cls = type(
        f"Structure_{fact}",
        (StructureQuery,),
        {"name": f"structure_{fact}", "fact": fact, "templates": templates, "__doc__": doc},
    )
    register(cls)


_query(
    "chart_type",
    (
        "What is the type of chart?",
        "What kind of chart is shown?",
        "Which type of chart is this figure?",
    ),
    "SP0: the chart type.",
)
_query(
    "y_title",
    (
        "What is the label of the dependent axis in the chart?",
        "What is the title of the value axis?",
        "How is the dependent axis titled?",
    ),
    "SP1: the title of the dependent axis.",
)
_query(
    "x_title",
    (
        "What is the label of the independent axis in the chart?",
        "What is the title of the category axis?",
        "How is the independent axis titled?",
    ),
    "SP2: the title of the independent axis.",
)
_query(
    "y_range",
    (
        "What are the smallest and the largest plotted values?",
        "Between which two values do the plotted data range?",
        "What are the minimum and the maximum of the plotted values?",
    ),
    "SP3: the range of the plotted values.",
)
_query(
    "categorical",
    (
        "Is the independent axis categorical?",
        "Does the independent axis show categories rather than numbers?",
        "Are the ticks of the independent axis category labels?",
    ),
    "SP5: whether the independent axis is categorical.",
)
_query(
    "log_scale",
    (
        "Is the dependent axis logarithmic?",
        "Does the value axis use a log scale?",
        "Is the dependent axis drawn on a logarithmic scale?",
    ),
    "Whether the dependent axis is logarithmic.",
)
_query(
    "legend",
    (
        "Is there a legend in the chart?",
        "Does the chart include a legend?",
        "Is a legend drawn in this figure?",
    ),
    "SP8: whether a legend is present.",
)
_query(
    "n_series",
    (
        "How many data series are plotted?",
        "What is the number of data series in the chart?",
        "How many series does the chart show?",
    ),
    "SP8: the number of data series.",
)
_query(
    "legend_labels",
    (
        "What are the labels in the legend?",
        "Which names does the legend list?",
        "What is the legend label for each data series?",
    ),
    "SP9: the legend labels.",
)
_query(
    "x_ticks",
    (
        "What are the tick labels of the independent axis?",
        "Which labels appear along the independent axis?",
        "List the tick labels on the independent axis.",
    ),
    "SP5/SP6: the tick labels of the independent axis.",
)
