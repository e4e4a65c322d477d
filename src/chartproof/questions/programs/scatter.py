"""Scatter plots: RealCQA 121-124 correlation bands, and the band of a series."""

from __future__ import annotations

import random

from chartproof.questions import ops
from chartproof.questions.ops.shape import CORRELATION_BANDS
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import SCATTERS, pick_series
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView

__all__ = ["CorrelationBand", "CorrelationKind"]


@register
class CorrelationBand(Program):
    """RealCQA 121-124: does a series have a low/high positive/negative correlation?"""

    name = "correlation_band"
    family = "scatter"
    task_type = "TI"
    question_type = "reasoning"
    chart_types = SCATTERS
    templates = (
        "Does {series} have {band} correlation?",
        "Is the correlation of {series} {band}?",
        "Do the points of {series} show a {band} correlation?",
    )
    slots = slot_kinds(series="series", band="band")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        if ss is None:
            return None
        return {"series": ss[0], "band": rng.choice(sorted(CORRELATION_BANDS))}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.corr_band(tr, str(args["series"]), str(args["band"]))


@register
class CorrelationKind(Program):
    """Which correlation band a series falls in."""

    name = "correlation_kind"
    family = "scatter"
    task_type = "TI"
    question_type = "reasoning"
    chart_types = SCATTERS
    templates = (
        "What kind of correlation does {series} show: high or low, positive or negative?",
        "How would you describe the correlation of {series} (high/low, positive/negative)?",
        "Is the correlation of {series} high positive, low positive, low negative or high "
        "negative?",
    )
    slots = slot_kinds(series="series")

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng)
        return None if ss is None else {"series": ss[0]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.corr_class(tr, str(args["series"]))
