"""Spec → drawing plan: one builder per chart type, looked up in a registry.

A new chart type is one builder module plus one line in `BUILDERS`.
"""

from __future__ import annotations

from collections.abc import Callable

from chartproof.charts._bars import bar_ops
from chartproof.charts._layout import pinned_rc
from chartproof.charts._lines import area_ops, line_ops
from chartproof.charts._page import rc_for
from chartproof.charts._pie import pie_ops
from chartproof.charts._plan import Op, Plan
from chartproof.charts._scatter_box import box_ops, scatter_ops
from chartproof.types import ChartSpec

__all__ = ["BUILDERS", "build_plan"]

BUILDERS: dict[str, Callable[[ChartSpec], list[Op]]] = {
    "vbar": bar_ops,
    "hbar": bar_ops,
    "grouped_bar": bar_ops,
    "stacked_bar": bar_ops,
    "line": line_ops,
    "area": area_ops,
    "pie": pie_ops,
    "scatter": scatter_ops,
    "box": box_ops,
}
"""Chart type → function returning the calls that draw it."""


def build_plan(spec: ChartSpec) -> Plan:
    """The drawing plan of a spec (assumed valid: see `validate_spec`)."""
    style = spec.style
    rc = rc_for(style)
    # text is measured under the same rcParams it will be drawn with (hinting changes widths)
    with pinned_rc(rc):
        ops = tuple(BUILDERS[spec.chart_type](spec))
    return Plan(
        spec_id=spec.id,
        chart_type=spec.chart_type,
        rc=rc,
        figsize=(style.width, style.height),
        dpi=style.dpi,
        ops=ops,
    )
