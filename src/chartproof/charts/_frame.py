"""The frame of every chart with x/y axes: margins, axes, ticks, titles and the legend.

Chart builders supply their marks; the frame lays everything out from measured text sizes
so nothing is clipped and the same spec always yields the same literal numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from chartproof.charts._layout import format_tick, log_ticks, nice_ticks, wrap_to_width
from chartproof.charts._legend import (
    LegendItems,
    bottom_legend_columns,
    legend_ops,
    legend_size,
)
from chartproof.charts._page import (
    EDGE_PT,
    LABELPAD_PT,
    TICK_PT,
    TITLEPAD_PT,
    VALUE_LABEL_PAD_PT,
    VALUE_LABEL_SCALE,
    Page,
)
from chartproof.charts._plan import Op, Tag, TextInfo, op
from chartproof.types import ChartSpec

__all__ = ["CategoryAxis", "NumberAxis", "cartesian_ops"]

_GRID_COLOR = "#d9d9d9"

Scale = Literal["linear", "log"]


@dataclass
class CategoryAxis:
    """Categories at positions 0, 1, ... (table rows)."""

    labels: tuple[str, ...]
    """Label of each position."""
    pad: float
    """Data units left blank beyond the first and last positions."""
    title: str | None
    """Axis title."""
    rotation: float = 0.0
    """Tick-label rotation in degrees."""
    thin: bool = True
    """Crowded labels: show every k-th (time axes) rather than rotate them (bar categories)."""
    length_px: float = 0.0
    """Length of the axis in pixels (set by the frame before the marks are drawn)."""

    def unit_px(self) -> float:
        """Pixels between neighbouring category positions."""
        return self.length_px / max(1.0, len(self.labels) - 1 + 2 * self.pad)


@dataclass
class NumberAxis:
    """A numeric axis covering [lo, hi] of the data."""

    lo: float
    """Smallest data value drawn on this axis."""
    hi: float
    """Largest data value drawn on this axis."""
    scale: Scale
    """Linear or log."""
    title: str | None
    """Axis title."""
    zero: bool = False
    """Bars: the axis must include zero and the data get no padding."""
    reserve_labels: tuple[str, ...] = ()
    """Value-label texts at the data extremes that need room inside the axes."""
    ticks: list[float] = field(default_factory=list)
    """Tick values (set by the frame)."""
    lim: tuple[float, float] = (0.0, 1.0)
    """View limits (set by the frame)."""
    length_px: float = 0.0
    """Length of the axis in pixels (set by the frame before the marks are drawn)."""

    def span_px(self, a: float, b: float) -> float:
        """Pixel distance between two data values on this axis."""
        u0, u1 = _t(self.scale, self.lim[0]), _t(self.scale, self.lim[1])
        return abs(_t(self.scale, b) - _t(self.scale, a)) / (u1 - u0) * self.length_px

    @property
    def floor(self) -> float:
        """Where bars start: zero on linear axes, the lower view limit on log axes."""
        return self.lim[0] if self.scale == "log" else 0.0


def _t(scale: Scale, v: float) -> float:
    return math.log10(v) if scale == "log" else v


def _inv(scale: Scale, u: float) -> float:
    return 10.0**u if scale == "log" else u


def _max_ticks_along(page: Page, length_px: float, vertical: bool) -> int:
    if vertical:
        return max(4, min(11, int(length_px / (page.px(page.font) * 4.0))))
    return max(4, min(11, int(length_px / (page.px(page.font) * 5.0))))


def _plan_number_ticks(page: Page, axis: NumberAxis, length_px: float, vertical: bool) -> None:
    """Choose ticks and limits of a numeric axis from the data range (before headroom)."""
    lo, hi = axis.lo, axis.hi
    if axis.scale == "log":
        axis.ticks = log_ticks(lo, hi, _max_ticks_along(page, length_px, vertical))
        if axis.zero:  # bars grow from the decade below the smallest value
            axis.lim = (axis.ticks[0], axis.ticks[-1])
            return
        # keep markers off the edges: 4 % of the log span beyond the data on each side
        pad = (math.log10(hi) - math.log10(lo)) * 0.04 or 0.1
        lim_lo, lim_hi = 10 ** (math.log10(lo) - pad), 10 ** (math.log10(hi) + pad)
        while sum(lim_lo <= t <= lim_hi for t in axis.ticks) < 2:
            below = max((t for t in axis.ticks if t < lim_lo), default=None)
            above = min((t for t in axis.ticks if t > lim_hi), default=None)
            if above is None or (
                below is not None and math.log10(lim_lo / below) <= math.log10(above / lim_hi)
            ):
                assert below is not None
                lim_lo = below
            else:
                lim_hi = above
        axis.lim = (float(f"{lim_lo:.6g}"), float(f"{lim_hi:.6g}"))
        axis.ticks = [t for t in axis.ticks if axis.lim[0] <= t <= axis.lim[1]]
        return
    if axis.zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    else:
        pad = (hi - lo) * 0.05 or abs(hi) * 0.05 or 1.0
        # non-negative data never get a negative axis
        lo, hi = (lo - pad if lo - pad >= 0 or lo < 0 else 0.0), hi + pad
    n = _max_ticks_along(page, length_px, vertical)
    while True:
        ticks = nice_ticks(lo, hi, n)
        if vertical or n <= 3:
            break
        step = ticks[1] - ticks[0]
        widest = max(page.text(format_tick(t, step))[0] for t in ticks)
        if len(ticks) * (widest + page.px(page.font)) <= length_px:
            break
        n -= 1
    axis.ticks = ticks
    axis.lim = (ticks[0], ticks[-1])


def _headroom(axis: NumberAxis, length_px: float, need_hi: float, need_lo: float) -> None:
    """Widen the limits so `need_*` pixels stay free beyond the data extremes."""
    u0, u1 = _t(axis.scale, axis.lim[0]), _t(axis.scale, axis.lim[1])
    if need_hi > 0 and axis.hi > axis.lim[0]:
        um = _t(axis.scale, axis.hi)
        if (u1 - um) / (u1 - u0) * length_px < need_hi and length_px > need_hi:
            u1 = (um * length_px - need_hi * u0) / (length_px - need_hi)
    if need_lo > 0 and axis.lo < 0 and axis.scale == "linear":
        um = axis.lo
        if (um - u0) / (u1 - u0) * length_px < need_lo and length_px > need_lo:
            u0 = (um * length_px - need_lo * u1) / (length_px - need_lo)
    lo, hi = _inv(axis.scale, u0), _inv(axis.scale, u1)
    axis.lim = (round(lo, 10), round(hi, 10))
    axis.ticks = [t for t in axis.ticks if lo - 1e-9 <= t <= hi + 1e-9]
    if axis.scale == "linear" and len(axis.ticks) >= 2:
        step = axis.ticks[1] - axis.ticks[0]
        d = max(0, -math.floor(math.log10(step))) + 2
        while axis.ticks[-1] + step <= hi + 1e-9:
            axis.ticks.append(round(axis.ticks[-1] + step, d))
        while axis.ticks[0] - step >= lo - 1e-9:
            axis.ticks.insert(0, round(axis.ticks[0] - step, d))


def _tick_labels(axis: CategoryAxis | NumberAxis) -> list[str]:
    if isinstance(axis, CategoryAxis):
        return list(axis.labels)
    step = axis.ticks[1] - axis.ticks[0] if len(axis.ticks) > 1 else 1.0
    return [format_tick(t, step, axis.scale == "log") for t in axis.ticks]


@dataclass
class _Margins:
    left: float
    right: float
    top: float
    bottom: float


def _auto_rotation(
    page: Page,
    x: CategoryAxis,
    y: CategoryAxis | NumberAxis,
    right: float,
    y_title: str | None,
) -> float:
    """The smallest of 0, 30, 45, 60, 90 degrees at which bar labels do not overlap."""
    depth = (
        max(page.text(s)[0] for s in _tick_labels(y))
        if isinstance(y, NumberAxis)
        else _category_extent(page, y, horizontal_axis=False)
    )
    width = page.width - right - page.px(EDGE_PT) - depth - page.px(TICK_PT)
    if y_title:
        width -= page.text(y_title)[1] + page.px(LABELPAD_PT)
    per = width / (len(x.labels) - 1 + 2 * x.pad)
    gap = page.px(page.font) * 0.5
    if max(page.text(s)[0] for s in x.labels) + gap <= per:
        return 0.0
    height = max(page.text(s)[1] for s in x.labels) + gap / 2
    for angle in (30.0, 45.0, 60.0):
        if height / math.sin(math.radians(angle)) <= per:
            return angle
    return 90.0


def _category_extent(page: Page, axis: CategoryAxis, horizontal_axis: bool) -> float:
    """Depth (pixels away from the axis line) the category tick labels need."""
    sizes = [page.text(s, rotation=axis.rotation) for s in axis.labels] or [(0.0, 0.0)]
    return max(s[1] if horizontal_axis else s[0] for s in sizes)


def _thin(page: Page, axis: CategoryAxis, length_px: float, horizontal_axis: bool) -> int:
    """Show every k-th category label so neighbouring labels do not overlap."""
    n = len(axis.labels)
    if n < 2 or not axis.thin:
        return 1
    per = length_px / (n - 1 + 2 * axis.pad)
    gap = page.px(page.font) * 0.5
    if horizontal_axis:
        a = math.radians(axis.rotation % 180)
        if abs(math.sin(a)) < 0.2:
            need = max(page.text(s)[0] for s in axis.labels) + gap
        else:
            need = (max(page.text(s)[1] for s in axis.labels) + gap / 2) / abs(math.sin(a))
    else:
        need = max(page.text(s)[1] for s in axis.labels) + gap / 2
    return max(1, math.ceil(need / per - 1e-9))


def cartesian_ops(
    spec: ChartSpec,
    x: CategoryAxis | NumberAxis,
    y: CategoryAxis | NumberAxis,
    draw: Callable[[], list[Op]],
    legend: LegendItems | None,
    *,
    full_frame: bool,
) -> list[Op]:
    """All calls of a chart with x/y axes: axes, scales, the marks, limits, ticks, titles.

    `draw` returns the mark calls; it runs once the axis limits are fixed, so marks may
    read them (bars on a log axis start at its lower limit).
    """
    style = spec.style
    page = Page.of(style)
    tick = page.px(TICK_PT)
    edge = page.px(EDGE_PT)
    cat_x = isinstance(x, CategoryAxis)  # categories along the bottom

    # numeric ticks from a rough axis length; headroom is added once the layout is known
    if isinstance(x, NumberAxis):
        _plan_number_ticks(page, x, page.width * 0.75, vertical=False)
    if isinstance(y, NumberAxis):
        _plan_number_ticks(page, y, page.height * 0.7, vertical=True)
    x_labels, y_labels = _tick_labels(x), _tick_labels(y)

    title = style.title
    if title:
        title = wrap_to_width(title, page.font * 1.2, page.dpi, page.width - 2 * edge)
    x_title = style.x_title if cat_x else style.y_title
    y_title = style.y_title if cat_x else style.x_title
    if isinstance(x, NumberAxis) and isinstance(y, NumberAxis):
        x_title, y_title = style.x_title, style.y_title

    m = _Margins(edge, edge, edge, edge)
    legend_op: list[Op] = []
    show_legend = legend is not None and style.legend and len(legend.labels) > 0
    inside_upper = 0.0
    if show_legend and legend is not None:
        inside_upper = _legend_room(page, spec, legend, y, m)

    if isinstance(x, CategoryAxis) and not x.thin and x.rotation == 0 and len(x.labels) > 1:
        x.rotation = _auto_rotation(page, x, y, m.right, y_title)

    # vertical layout first: x tick labels, x title, title
    if isinstance(x, CategoryAxis):
        x_depth = _category_extent(page, x, horizontal_axis=True)
    else:
        x_depth = max(page.text(s)[1] for s in x_labels)
    m.bottom += x_depth + tick
    if x_title:
        m.bottom += page.text(x_title)[1] + page.px(LABELPAD_PT)
    if title:
        m.top += page.text(title, 1.2)[1] + page.px(TITLEPAD_PT)
    else:
        m.top += page.text("0")[1] / 2  # the top tick label pokes above the axes
    m.bottom = min(m.bottom, page.height * 0.45)
    m.top = min(m.top, page.height * 0.3)
    ax_h = page.height - m.top - m.bottom

    # headroom for value labels (always, so turning labels off moves nothing) and legends
    value_pad = page.px(VALUE_LABEL_PAD_PT) + 2
    if isinstance(y, NumberAxis):
        lab_h = max((page.text(s, VALUE_LABEL_SCALE)[1] for s in y.reserve_labels), default=0.0)
        need = lab_h + value_pad if y.reserve_labels else 0.0
        _headroom(y, ax_h, max(need, inside_upper), need)
        y_labels = _tick_labels(y)

    # then horizontal layout: y tick labels, y title, overhanging x tick labels
    y_depth = _side_margins(page, m, (x, x_labels), (y, y_labels), y_title)
    ax_w = page.width - m.left - m.right
    if isinstance(x, NumberAxis):
        lab_w = max((page.text(s, VALUE_LABEL_SCALE)[0] for s in x.reserve_labels), default=0.0)
        need = lab_w + value_pad if x.reserve_labels else 0.0
        _headroom(x, ax_w, need, need)
        x_labels = _tick_labels(x)

    rect = tuple(
        round(v, 4)
        for v in (
            m.left / page.width,
            m.bottom / page.height,
            ax_w / page.width,
            ax_h / page.height,
        )
    )
    x.length_px, y.length_px = ax_w, ax_h
    ops: list[Op] = [op("fig", "add_axes", rect, bind="ax")]
    if isinstance(x, NumberAxis) and x.scale == "log":
        ops.append(op("ax", "set_xscale", "log"))
    if isinstance(y, NumberAxis) and y.scale == "log":
        ops.append(op("ax", "set_yscale", "log"))
    ops.extend(draw())

    ops.extend(_axis_ops(page, "x", x, ax_w, x_labels))
    ops.extend(_axis_ops(page, "y", y, ax_h, y_labels))

    ops.extend(_frame_style_ops(spec, full_frame=full_frame))
    # fixed title and axis-title positions spare matplotlib a tick-label layout pass per draw
    if title:
        ops.append(op("ax", "set_title", title, y=1.0, pad=TITLEPAD_PT, tag=Tag("title")))
    if x_title:
        ops.append(op("ax", "set_xlabel", x_title, tag=Tag("x_title")))
        below = (x_depth + tick + page.px(LABELPAD_PT)) / ax_h
        ops.append(op("ax.xaxis", "set_label_coords", 0.5, -round(below, 4)))
    if y_title:
        ops.append(op("ax", "set_ylabel", y_title, tag=Tag("y_title")))
        beside = (y_depth + tick + page.px(LABELPAD_PT)) / ax_w
        ops.append(op("ax.yaxis", "set_label_coords", -round(beside, 4), 0.5))

    if show_legend and legend is not None:
        legend_op = legend_ops(page, style, legend, (m.left, m.right, m.top, m.bottom))
    ops.extend(legend_op)
    return ops


def _legend_room(
    page: Page, spec: ChartSpec, legend: LegendItems, y: CategoryAxis | NumberAxis, m: _Margins
) -> float:
    """Make room in the margins `m` for a legend outside the axes (in place); the height an
    upper legend inside a number axis needs above the data (0 for any other legend)."""
    em = page.px(page.font)
    loc = spec.style.legend_loc
    if loc == "outside right":
        m.right += legend_size(page, legend.labels, 1)[0] + em * 0.5
    elif loc == "outside bottom":
        ncols = bottom_legend_columns(page, legend.labels)
        m.bottom += legend_size(page, legend.labels, ncols)[1] + em * 0.5
    elif loc.startswith("upper") and isinstance(y, NumberAxis):
        return legend_size(page, legend.labels, 1)[1] + em
    return 0.0


def _side_margins(
    page: Page,
    m: _Margins,
    x: tuple[CategoryAxis | NumberAxis, list[str]],
    y: tuple[CategoryAxis | NumberAxis, list[str]],
    y_title: str | None,
) -> float:
    """Widen the left and right margins `m` (in place) for the y tick labels and title and the
    x tick labels that overhang the axes' ends (each axis with its tick labels); the depth of
    the y tick labels."""
    (x_axis, x_labels), (y_axis, y_labels) = x, y
    em, tick, edge = page.px(page.font), page.px(TICK_PT), page.px(EDGE_PT)
    if isinstance(y_axis, CategoryAxis):
        y_depth = _category_extent(page, y_axis, horizontal_axis=False)
    else:
        y_depth = max(page.text(s)[0] for s in y_labels)
    m.left += y_depth + tick
    if y_title:
        m.left += page.text(y_title)[1] + page.px(LABELPAD_PT)
    if isinstance(x_axis, NumberAxis):
        m.right += page.text(x_labels[-1])[0] / 2 + em * 0.5
    elif x_axis.labels:
        per = (page.width - m.left - m.right) / max(1.0, len(x_axis.labels) - 1 + 2 * x_axis.pad)
        if x_axis.rotation == 0:
            m.right += max(0.0, page.text(x_axis.labels[-1])[0] / 2 - x_axis.pad * per)
            overhang = page.text(x_axis.labels[0])[0] / 2 - x_axis.pad * per
        else:
            # rotated labels hang left of their tick, anchored at their right end
            a = math.radians(x_axis.rotation)
            overhang = page.text(x_axis.labels[0])[0] * abs(math.cos(a)) - x_axis.pad * per
        m.left = max(m.left, overhang + edge)
    m.left = min(m.left, page.width * 0.45)
    m.right = min(m.right, page.width * 0.45)
    return y_depth


def _frame_style_ops(spec: ChartSpec, *, full_frame: bool) -> list[Op]:
    """The calls of the style's tick labels, gridlines and frame."""
    style = spec.style
    ops: list[Op] = []
    if not style.tick_labels:
        ops.append(
            op("ax", "tick_params", axis="both", which="both", labelbottom=False, labelleft=False)
        )
    if style.gridlines != "none":
        ops.append(op("ax", "grid", True, axis=style.gridlines, color=_GRID_COLOR, linewidth=0.8))
        ops.append(op("ax", "set_axisbelow", True))
    if not full_frame:
        ops.append(op("ax.spines.top", "set_visible", False))
        ops.append(op("ax.spines.right", "set_visible", False))
    return ops


def _axis_ops(
    page: Page,
    name: Literal["x", "y"],
    axis: CategoryAxis | NumberAxis,
    length: float,
    labels: list[str],
) -> list[Op]:
    horizontal = name == "x"
    if isinstance(axis, CategoryAxis):
        n = len(axis.labels)
        lo, hi = -axis.pad, n - 1 + axis.pad
        lim = (hi, lo) if not horizontal else (lo, hi)  # categories run top to bottom
        every = _thin(page, axis, length, horizontal)
        positions = list(range(0, n, every))
        texts = [axis.labels[i] for i in positions]
        infos = tuple(TextInfo(axis.labels[i], row=i, value=float(i)) for i in positions)
        extra: dict[str, Any] = {}
        if axis.rotation:
            extra = {"rotation": axis.rotation, "ha": "right", "rotation_mode": "anchor"}
        return [
            op("ax", f"set_{name}lim", *lim),
            op(
                "ax",
                f"set_{name}ticks",
                positions,
                texts,
                tag=Tag("ticks", texts=infos, axis=name, categories=axis.labels),
                **extra,
            ),
        ]
    ops = [op("ax", f"set_{name}lim", *axis.lim)]
    infos = tuple(TextInfo(s, value=t) for s, t in zip(labels, axis.ticks, strict=True))
    ops.append(
        op(
            "ax",
            f"set_{name}ticks",
            list(axis.ticks),
            labels,
            tag=Tag("ticks", texts=infos, axis=name),
        )
    )
    if axis.scale == "log":
        flag = "labelbottom" if horizontal else "labelleft"
        hide: dict[str, Any] = {flag: False}
        ops.append(op("ax", "tick_params", axis=name, which="minor", **hide))
    return ops
