"""The nine shipped chart kinds (vertical, horizontal, grouped and stacked bars, line, area,
pie, scatter, box), in the order questions and premises list them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chartproof.charts.kinds import ChartKind, register_chart_kind
from chartproof.types import ChartSpec

__all__: list[str] = []


# drawing code pulls in matplotlib, so each kind imports its builder only when drawn
def _bars(spec: ChartSpec) -> Sequence[Any]:
    from chartproof.charts._bars import bar_ops

    return bar_ops(spec)


def _line(spec: ChartSpec) -> Sequence[Any]:
    from chartproof.charts._lines import line_ops

    return line_ops(spec)


def _area(spec: ChartSpec) -> Sequence[Any]:
    from chartproof.charts._lines import area_ops

    return area_ops(spec)


def _pie(spec: ChartSpec) -> Sequence[Any]:
    from chartproof.charts._pie import pie_ops

    return pie_ops(spec)


def _scatter(spec: ChartSpec) -> Sequence[Any]:
    from chartproof.charts._scatter_box import scatter_ops

    return scatter_ops(spec)


def _box(spec: ChartSpec) -> Sequence[Any]:
    from chartproof.charts._scatter_box import box_ops

    return box_ops(spec)


_BAR = "the {color}bar for {x}"

for _kind in (
    ChartKind(
        "vbar", "vertical bar chart", _bars, "bar", "bar", _BAR,
        single_series=True, orientation="vertical", redrawable=True,
        script_call=r"\.bar\(", script_rank=6, report_rank=1,
    ),
    ChartKind(
        "hbar", "horizontal bar chart", _bars, "bar", "bar", _BAR,
        single_series=True, orientation="horizontal", redrawable=True,
        script_call=r"\.barh\(", script_rank=5, report_rank=0,
    ),
    ChartKind(
        "grouped_bar", "grouped bar chart", _bars, "bar", "bar",
        "the {color}{series} bar at {x}", redrawable=True, report_rank=2,
    ),
    ChartKind(
        "stacked_bar", "stacked bar chart", _bars, "bar", "segment",
        "the {color}{series} segment of the {x} bar", stacks=True, redrawable=True, report_rank=3,
    ),
    ChartKind(
        "line", "line chart", _line, "line", "point", "the {color}{series} line at {x}",
        mark_phrase_one="the {color}line at {x}", zero_based=False, gaps=True,
        redrawable=True, script_call=r"\.plot\(", script_rank=7, report_rank=5,
    ),
    ChartKind(
        "area", "area chart", _area, "line", "point", "the {color}{series} line at {x}",
        mark_phrase_one="the {color}line at {x}", stacks=True, zero_based=False,
        redrawable=True, script_call=r"\.(?:stackplot|fill_between)\(", script_rank=3,
        report_rank=6,
    ),
    ChartKind(
        "pie", "pie chart", _pie, "pie", "wedge", "the {color}wedge for {x}",
        axes=False, color_keys="x", single_series=True, whole=True, redrawable=True,
        script_call=r"\.pie\(", script_rank=1, report_rank=4,
    ),
    ChartKind(
        "scatter", "scatter plot", _scatter, "scatter", "point", "the {color}points of {series}",
        data="points", zero_based=False, gaps=True, long_format=True,
        script_call=r"\.scatter\(", script_rank=4, report_rank=7,
    ),
    ChartKind(
        "box", "box plot", _box, "box", "box", "the box for {x}",
        data="boxes", zero_based=False, script_call=r"\.(?:boxplot|bxp)\(", script_rank=2,
        report_rank=8,
    ),
):  # fmt: skip
    register_chart_kind(_kind)
