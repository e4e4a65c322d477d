"""The chartqax suite: ChartQA-X's four chart types (horizontal bar, vertical bar, line, pie)
in the looks of Statista (one blue, printed values, light grid) and Pew (muted, labelled)."""

from __future__ import annotations

from functools import partial

from chartproof.charts.colors import PALETTES
from chartproof.charts.suites._base import Suite, Template, register_suite
from chartproof.charts.suites._common import restyled
from chartproof.charts.suites.chartr import lines, pie, single_bars

__all__ = ["CHARTQAX"]

_STATISTA = {
    "palette": PALETTES["okabe_ito"],
    "value_labels": True,
    "width": 7.0,
    "height": 5.0,
    "font_size": 10.0,
}
_PEW = {"palette": PALETTES["muted"], "value_labels": True, "gridlines": "none", "font_size": 10.0}

TEMPLATES: dict[str, Template] = {
    "vbar_statista": restyled(
        partial(single_bars, horizontal=False, count=(4, 8)), gridlines="y", **_STATISTA
    ),
    "vbar_years": restyled(
        partial(single_bars, horizontal=False, count=(6, 10), years=True),
        gridlines="y",
        **_STATISTA,
    ),
    "hbar_statista": restyled(
        partial(single_bars, horizontal=True, count=(5, 10), order="desc"),
        gridlines="x",
        **_STATISTA,
    ),
    "hbar_pew": restyled(partial(single_bars, horizontal=True, count=(4, 8), order="desc"), **_PEW),
    "line_statista": restyled(partial(lines, count=(6, 11)), gridlines="y", **_STATISTA),
    "line_pew": restyled(partial(lines, monthly=True), **_PEW),
    "pie_statista": restyled(partial(pie, legend=True), **{**_STATISTA, "width": 7.0}),
    "pie_pew": restyled(partial(pie, legend=False), **_PEW),
}
"""Template name → template."""

CHARTQAX = Suite("chartqax", "ChartQA-X's four chart types in Statista and Pew looks", TEMPLATES)
"""The chartqax suite."""
register_suite(CHARTQAX)
