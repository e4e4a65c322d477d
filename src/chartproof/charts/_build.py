"""Spec → drawing plan: each chart kind's `draw` (`chartproof.charts.kinds`) gives its calls."""

from __future__ import annotations

from chartproof.charts._layout import pinned_rc
from chartproof.charts._page import rc_for
from chartproof.charts._plan import Op, Plan
from chartproof.charts.kinds import chart_kind
from chartproof.types import ChartSpec

__all__ = ["build_plan"]


def build_plan(spec: ChartSpec) -> Plan:
    """The drawing plan of a spec (assumed valid: see `validate_spec`)."""
    style = spec.style
    rc = rc_for(style)
    # text is measured under the same rcParams it will be drawn with (hinting changes widths)
    with pinned_rc(rc):
        ops = tuple(_checked(chart_kind(spec.chart_type).draw(spec), spec))
    return Plan(
        spec_id=spec.id,
        chart_type=spec.chart_type,
        rc=rc,
        figsize=(style.width, style.height),
        dpi=style.dpi,
        ops=ops,
    )


def _checked(ops: object, spec: ChartSpec) -> list[Op]:
    """The draw function's calls, refused unless every one is an `Op`."""
    if not isinstance(ops, (list, tuple)) or not all(isinstance(o, Op) for o in ops):
        raise TypeError(f"chart kind {spec.chart_type!r}: draw() must return a list of Op")
    return list(ops)
