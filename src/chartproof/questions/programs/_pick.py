"""Seeded choices of program arguments: labels, series and thresholds a question can name
without ambiguity."""

from __future__ import annotations

import itertools
import math
import random

from chartproof.charts.kinds import KindSet, kinds_where
from chartproof.questions.view import ChartView

__all__ = [
    "BARS",
    "BOXES",
    "CATEGORY",
    "LINES",
    "MULTI",
    "ORDERED",
    "PIES",
    "SCATTERS",
    "STACKED_BARS",
    "charts",
    "pick_series",
    "pick_threshold",
    "pick_x",
    "threshold_between",
]


def charts(*names: str) -> KindSet:
    """Exactly the named chart types."""
    return kinds_where(lambda k: k.name in names)


BARS = kinds_where(lambda k: k.family == "bar")
"""Bar charts."""
LINES = kinds_where(lambda k: k.family == "line")
"""Line-like charts."""
ORDERED = BARS | LINES
"""Charts whose marks sit along an x axis."""
CATEGORY = kinds_where(lambda k: k.data == "category")
"""Charts with one value per (x label, series)."""
MULTI = CATEGORY - kinds_where(lambda k: k.single_series)
"""Charts that can show several series."""
PIES = kinds_where(lambda k: k.family == "pie")
"""Charts of wedges, one per x label."""
SCATTERS = kinds_where(lambda k: k.data == "points")
"""Charts of (x, y) points."""
BOXES = kinds_where(lambda k: k.data == "boxes")
"""Charts of five-number summaries."""
STACKED_BARS = BARS & kinds_where(lambda k: k.stacks)
"""Bar charts whose segments stack into one bar per x label."""


def pick_x(view: ChartView, rng: random.Random, k: int = 1) -> list[str] | None:
    """`k` distinct x labels, or None when labels repeat or are too few."""
    if not view.x_unique or view.n < k:
        return None
    return rng.sample(list(view.x_labels), k)


def pick_series(view: ChartView, rng: random.Random, k: int = 1) -> list[str] | None:
    """`k` distinct series names, or None when there are too few."""
    if len(view.series) < k or len(set(view.series)) != len(view.series):
        return None
    return rng.sample(list(view.series), k)


def threshold_between(view: ChartView, lo: float, hi: float) -> float | None:
    """A round number strictly between two values, clear of both for a reader."""
    if hi <= lo:
        return None
    margin = view.read_error(lo) + view.read_error(hi)
    a, b = lo + margin, hi - margin
    if b <= a:
        return None
    # the coarsest power-of-ten grid that has a point inside (a, b)
    step = 10.0 ** math.floor(math.log10(b - a)) if b - a > 0 else 1.0
    for _ in range(6):
        # the first grid point above a (ceil(a / step) alone can land on a itself, or
        # below it, when a / step is not exact in floating point)
        c = (math.floor(a / step + 1e-9) + 1) * step
        if a < c < b and view.distinct(c, lo) and view.distinct(c, hi):
            return float(round(c, 10))
        step /= 10
    return None


def pick_threshold(view: ChartView, series: str, rng: random.Random) -> float | None:
    """A round threshold that splits the values of `series` with a clear gap."""
    col = view.column(series)
    if col is None or len(set(col)) < 2:
        return None
    vals = sorted(set(col))
    gaps = list(itertools.pairwise(vals))
    rng.shuffle(gaps)
    for lo, hi in gaps:
        t = threshold_between(view, lo, hi)
        if t is not None:
            return t
    return None
