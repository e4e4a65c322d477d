"""Judges of premise statements: each premise template declares, beside its builder, the
function that decides a statement of it on a chart's table (slot text → truth and the reason),
so a premise written in any of the template's paraphrases is judged where it is defined."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from chartproof.numeric import parse_number
from chartproof.questions.labels import best_label, norm
from chartproof.questions.premises.templates import PREMISE_TEMPLATES
from chartproof.questions.view import ChartView

__all__ = [
    "Judge",
    "Ruling",
    "Slots",
    "close",
    "column",
    "judged",
    "listed",
    "number",
    "premise_judge",
    "series_named",
    "x_named",
]

Slots = Mapping[str, str]
Ruling = tuple[bool, str] | None
"""A judge's answer: (truth, reason), or None when the chart cannot decide it."""
Judge = Callable[[Slots, ChartView, float], Ruling]
"""(slot texts, chart, relative tolerance) → ruling."""

_JUDGES: dict[str, Judge] = {}


def judged(*templates: str) -> Callable[[Judge], Judge]:
    """Declare the decorated function the judge of these premise templates."""

    def register(fn: Judge) -> Judge:
        for name in templates:
            if name not in PREMISE_TEMPLATES:
                raise ValueError(f"no premise template {name!r} to judge")
            if name in _JUDGES:
                raise ValueError(f"premise template {name!r} already has a judge")
            _JUDGES[name] = fn
        return fn

    return register


def premise_judge(template: str) -> Judge | None:
    """The judge a premise template declared, or None when its statements are not judged."""
    return _JUDGES.get(template)


def close(a: float, b: float, rel: float, printed: str = "") -> bool:
    """Equal within the relative tolerance and the rounding of the printed number."""
    step = 0.0
    m = re.search(r"\.(\d+)", printed)
    if printed:
        step = 0.5 * 10.0 ** (-len(m.group(1))) if m else 0.5
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), step, 1e-9)


def number(text: str) -> float | None:
    """The number a slot writes ("1,234.", "12%")."""
    return parse_number(text.strip().rstrip("."))


def series_named(text: str, view: ChartView) -> str | None:
    """The series a slot names (the only one when the chart has one)."""
    found = best_label(text, view.series, 0.75)
    if found is None and len(view.series) == 1:
        return view.series[0]
    return found


def x_named(text: str, view: ChartView) -> str | None:
    """The x label a slot names."""
    return best_label(text, view.x_labels, 0.75)


def listed(text: str, known: Sequence[str] = ()) -> list[str]:
    """A written list split into items: at commas, and at " and " unless a known label
    contains it ("Bed and breakfast")."""
    labels = {norm(k) for k in known}
    out: list[str] = []
    for part in re.split(r",\s*", text.strip().rstrip(".")):
        part = re.sub(r"^and\s+", "", part.strip())
        if part and norm(part) not in labels and " and " in part:
            out.extend(p.strip() for p in part.split(" and ") if p.strip())
        elif part:
            out.append(part)
    return out


def column(view: ChartView, series: str) -> list[tuple[str, float]]:
    """A series' (x label, value) pairs where a value is shown."""
    vals = view.values.get(series, ())
    return [(x, v) for x, v in zip(view.x_labels, vals, strict=False) if v is not None]
