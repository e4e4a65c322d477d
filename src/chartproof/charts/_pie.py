"""Pie charts: wedges clockwise from twelve o'clock in table order, named by a legend or by
labels beside the wedges, values printed inside.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from chartproof.charts._layout import wrap_to_width
from chartproof.charts._legend import LegendItems, bottom_legend_columns, legend_ops, legend_size
from chartproof.charts._marks import categories, color_of, column_values, label_color, value_text
from chartproof.charts._page import EDGE_PT, TITLEPAD_PT, VALUE_LABEL_SCALE, Page
from chartproof.charts._plan import MarkInfo, Op, Tag, TextInfo, Var, op
from chartproof.types import ChartSpec

__all__ = ["pie_ops", "wedge_angles", "wedge_bounds"]

START_ANGLE = 90.0
LABEL_RADIUS = 1.08
VALUE_RADIUS = 0.68


def wedge_angles(values: list[float]) -> list[tuple[float, float]]:
    """(start, end) angles in degrees of each wedge, as matplotlib's clockwise pie draws them."""
    total = sum(values)
    angles = []
    theta = START_ANGLE / 360.0
    for v in values:
        nxt = theta - v / total
        angles.append((360.0 * nxt, 360.0 * theta))
        theta = nxt
    return angles


def wedge_bounds(start: float, end: float) -> tuple[float, float, float, float]:
    """Data-space bounding box (x0, y0, x1, y1) of a unit-radius wedge from `start` to `end`
    degrees (counter-clockwise): its centre, both arc ends and every axis the arc crosses."""
    pts = [(0.0, 0.0)]
    for a in (start, end):
        pts.append((math.cos(math.radians(a)), math.sin(math.radians(a))))
    k = math.ceil(start / 90.0)
    while k * 90.0 < end:
        pts.append((math.cos(math.radians(k * 90.0)), math.sin(math.radians(k * 90.0))))
        k += 1
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def pie_ops(spec: ChartSpec) -> list[Op]:
    """Calls drawing a pie chart."""
    style = spec.style
    page = Page.of(style)
    em = page.px(page.font)
    edge = page.px(EDGE_PT)
    cats = categories(spec)
    col = spec.encoding.y[0]
    values = column_values(spec, col)
    colors = [color_of(spec, i) for i in range(len(cats))]
    with_legend = style.legend

    left = right = bottom = top = edge
    title = style.title
    if title:
        title = wrap_to_width(title, page.font * 1.2, page.dpi, page.width - 2 * edge)
        top += page.text(title, 1.2)[1] + page.px(TITLEPAD_PT)
    legend = LegendItems(Var("wedges"), tuple(cats), tuple(colors)) if with_legend else None
    if legend is not None and style.legend_loc == "outside right":
        right += legend_size(page, legend.labels, 1)[0] + em * 0.5
    elif legend is not None and style.legend_loc == "outside bottom":
        ncols = bottom_legend_columns(page, legend.labels)
        bottom += legend_size(page, legend.labels, ncols)[1] + em * 0.5
    avail_w = page.width - left - right
    avail_h = page.height - top - bottom
    if with_legend:
        radius = min(avail_w, avail_h) / 2 / 1.04
    else:
        label_w = max(page.text(c)[0] for c in cats) + em * 0.3
        label_h = max(page.text(c)[1] for c in cats)
        radius = min(
            (avail_w / 2 - label_w) / (LABEL_RADIUS + 0.02),
            (avail_h / 2 - label_h / 2) / (LABEL_RADIUS + 0.02),
        )
    radius = max(radius, 10.0)
    rect = tuple(
        round(v, 4)
        for v in (
            left / page.width,
            bottom / page.height,
            avail_w / page.width,
            avail_h / page.height,
        )
    )
    half_w = round(avail_w / 2 / radius, 4)
    half_h = round(avail_h / 2 / radius, 4)

    angles = wedge_angles(values)
    mids = [math.radians((a + b) / 2) for a, b in angles]
    infos = tuple(
        MarkInfo(
            "wedge",
            i,
            col,
            cats[i],
            values[i],
            colors[i],
            x=0.85 * math.cos(mids[i]),
            y=0.85 * math.sin(mids[i]),
            radius_pt=0.5,  # the white wedge edge
            corners=wedge_bounds(*angles[i]),
        )
        for i in range(len(cats))
    )
    ops: list[Op] = [
        op("fig", "add_axes", rect, bind="ax"),
        op(
            "ax",
            "pie",
            values,
            colors=colors,
            startangle=START_ANGLE,
            counterclock=False,
            labeldistance=None,
            wedgeprops={"edgecolor": "#ffffff", "linewidth": 1.0},
            bind="wedges",
            item=0,
            tag=Tag("wedges", marks=infos),
        ),
        op("ax", "set_xlim", -half_w, half_w),
        op("ax", "set_ylim", -half_h, half_h),
    ]
    if not with_legend:
        for i, name in enumerate(cats):
            c, s = math.cos(mids[i]), math.sin(mids[i])
            ops.append(
                op(
                    "ax",
                    "text",
                    round(LABEL_RADIUS * c, 6),
                    round(LABEL_RADIUS * s, 6),
                    name,
                    ha="left" if c >= 0 else "right",
                    va="center",
                    tag=Tag("category_labels", texts=(TextInfo(name, row=i),)),
                )
            )
    if style.value_labels:
        ops.extend(_value_label_ops(spec, cats, values, colors, mids))
    if title:
        ops.append(op("ax", "set_title", title, y=1.0, pad=TITLEPAD_PT, tag=Tag("title")))
    if legend is not None:
        ops.extend(legend_ops(page, style, legend, (left, right, top, bottom)))
    return ops


def _value_label_ops(
    spec: ChartSpec,
    cats: Sequence[str],
    values: Sequence[float],
    colors: Sequence[str],
    mids: Sequence[float],
) -> list[Op]:
    """The value label of each wedge, at its middle angle (`mids`, radians)."""
    col = spec.encoding.y[0]
    size = round(spec.style.font_size * VALUE_LABEL_SCALE, 2)
    ops: list[Op] = []
    for i, v in enumerate(values):
        text = value_text(spec, v)
        info = TextInfo(text, row=i, column=col, series=cats[i], value=v)
        ops.append(
            op(
                "ax",
                "text",
                round(VALUE_RADIUS * math.cos(mids[i]), 6),
                round(VALUE_RADIUS * math.sin(mids[i]), 6),
                text,
                ha="center",
                va="center",
                fontsize=size,
                color=label_color(colors[i]),
                tag=Tag("value_labels", texts=(info,)),
            )
        )
    return ops
