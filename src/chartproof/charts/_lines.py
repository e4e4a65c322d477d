"""Line charts (one or several series) and area charts over category or time positions.

Area charts stack their series: band k spans from the sum of series 1..k-1 to the sum of
series 1..k, so with one series it is a plain filled line.
"""

from __future__ import annotations

import math
from typing import Any

from chartproof.charts._frame import CategoryAxis, NumberAxis, cartesian_ops
from chartproof.charts._legend import LegendItems
from chartproof.charts._marks import categories, color_of, column_values, label_color, value_text
from chartproof.charts._page import VALUE_LABEL_SCALE
from chartproof.charts._plan import MarkInfo, Op, Tag, TextInfo, Var, op
from chartproof.types import ChartSpec

__all__ = ["area_ops", "line_ops"]

LINE_WIDTH = 2.0
MARKER_SIZE = 5.0
_LABEL_OFFSET_PT = 4.0


def _value_label(
    spec: ChartSpec,
    text: str,
    x: float,
    y: float,
    info: TextInfo,
    color: str | None = None,
    ha: str = "center",
) -> Op:
    """A value label just above a vertex (or centred on it when `color` is given)."""
    kwargs: dict[str, Any]
    if color is None:
        kwargs = {
            "xytext": (0.0, _LABEL_OFFSET_PT),
            "textcoords": "offset points",
            "ha": "center",
            "va": "bottom",
        }
    else:
        shift = {"left": 3.0, "right": -3.0}.get(ha, 0.0)
        kwargs = {
            "xytext": (shift, 0.0),
            "textcoords": "offset points",
            "ha": ha,
            "va": "center",
            "color": color,
        }
    return op(
        "ax",
        "annotate",
        text,
        (x, y),
        fontsize=round(spec.style.font_size * VALUE_LABEL_SCALE, 2),
        tag=Tag("value_labels", texts=(info,)),
        **kwargs,
    )


def line_ops(spec: ChartSpec) -> list[Op]:
    """Calls drawing a line chart: one line per value column."""
    style = spec.style
    cats = categories(spec)
    cols = spec.encoding.y
    values = [column_values(spec, c) for c in cols]
    finite = [v for vs in values for v in vs if not math.isnan(v)]
    hi, lo = max(finite), min(finite)
    value_axis = NumberAxis(
        lo=lo,
        hi=hi,
        scale=style.y_scale,
        title=style.y_title,
        reserve_labels=(value_text(spec, hi),),
    )
    category_axis = CategoryAxis(cats, 0.5, style.x_title, style.tick_rotation)
    legend = None
    if len(cols) > 1:
        legend = LegendItems(
            tuple(Var(f"line{j}") for j in range(len(cols))),
            tuple(cols),
            tuple(color_of(spec, j) for j in range(len(cols))),
        )

    def draw() -> list[Op]:
        ops: list[Op] = []
        radius = MARKER_SIZE / 2 if style.markers else LINE_WIDTH / 2
        xs = [float(i) for i in range(len(cats))]
        for j, col in enumerate(cols):
            color = color_of(spec, j)
            infos = tuple(
                MarkInfo("vertex", i, col, col, v, color, x=float(i), y=v, radius_pt=radius)
                for i, v in enumerate(values[j])
                if not math.isnan(v)
            )
            ops.append(
                op(
                    "ax",
                    "plot",
                    xs,
                    values[j],
                    color=color,
                    linewidth=LINE_WIDTH,
                    marker="o" if style.markers else "",
                    markersize=MARKER_SIZE,
                    label=col,
                    bind=f"line{j}",
                    item=0,
                    tag=Tag("line", marks=infos),
                )
            )
        if style.value_labels:
            for j, col in enumerate(cols):
                for i, v in enumerate(values[j]):
                    if math.isnan(v):
                        continue
                    text = value_text(spec, v)
                    info = TextInfo(text, row=i, column=col, series=col, value=v)
                    ops.append(_value_label(spec, text, float(i), v, info))
        return ops

    return cartesian_ops(spec, category_axis, value_axis, draw, legend, full_frame=False)


def area_ops(spec: ChartSpec) -> list[Op]:
    """Calls drawing a stacked area chart (see the module docstring)."""
    style = spec.style
    cats = categories(spec)
    cols = spec.encoding.y
    n = len(cats)
    values = [column_values(spec, c) for c in cols]
    bottoms: list[list[float]] = []
    running = [0.0] * n
    for vs in values:
        bottoms.append(list(running))
        running = [a + b for a, b in zip(running, vs, strict=True)]
    value_axis = NumberAxis(
        lo=0.0, hi=max(running), scale=style.y_scale, title=style.y_title, zero=True
    )
    category_axis = CategoryAxis(cats, 0.0, style.x_title, style.tick_rotation)
    legend = None
    if len(cols) > 1:
        legend = LegendItems(
            Var("areas"), tuple(cols), tuple(color_of(spec, j) for j in range(len(cols)))
        )

    def draw() -> list[Op]:
        xs = [float(i) for i in range(n)]
        colors = [color_of(spec, j) for j in range(len(cols))]
        infos = tuple(
            MarkInfo(
                "area",
                i,
                col,
                col,
                values[j][i],
                colors[j],
                x=float(i),
                y=bottoms[j][i] + values[j][i],
                base=bottoms[j][i],
            )
            for j, col in enumerate(cols)
            for i in range(n)
        )
        ops = [
            op(
                "ax",
                "stackplot",
                xs,
                values,
                colors=colors,
                labels=list(cols),
                linewidth=0.0,
                bind="areas",
                tag=Tag("area", marks=infos),
            )
        ]
        if style.value_labels:
            for j, col in enumerate(cols):
                for i in range(n):
                    v = values[j][i]
                    text = value_text(spec, v)
                    info = TextInfo(text, row=i, column=col, series=col, value=v)
                    mid = bottoms[j][i] + v / 2
                    # labels at the plot's left and right edges lean inwards
                    ha = "left" if i == 0 else ("right" if i == n - 1 else "center")
                    ops.append(
                        _value_label(spec, text, float(i), mid, info, label_color(colors[j]), ha)
                    )
        return ops

    return cartesian_ops(spec, category_axis, value_axis, draw, legend, full_frame=False)
