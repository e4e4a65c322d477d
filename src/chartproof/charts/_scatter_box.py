"""Scatter plots (numeric x, one series per value column or per `Encoding.series` group) and
box plots drawn from five-number summaries (min, q1, median, q3, max) per category.
"""

from __future__ import annotations

import math
from typing import Any

from chartproof.charts._frame import CategoryAxis, NumberAxis, cartesian_ops
from chartproof.charts._legend import LegendItems
from chartproof.charts._marks import categories, color_of, column_values, label_color, value_text
from chartproof.charts._page import VALUE_LABEL_SCALE
from chartproof.charts._plan import MarkInfo, MarkKind, Op, Tag, TextInfo, Var, op
from chartproof.types import ChartSpec

__all__ = ["box_ops", "scatter_groups", "scatter_ops"]

POINT_AREA = 36.0  # marker area in points², matplotlib's default
_EDGE = "#333333"


def scatter_groups(spec: ChartSpec) -> list[tuple[str, str, list[int]]]:
    """(series name, value column, row indices) of each plotted series, in legend order."""
    enc = spec.encoding
    if enc.series is None:
        rows = list(range(spec.table.n_rows))
        return [(col, col, rows) for col in enc.y]
    groups = spec.table.labels(enc.series)
    return [
        (name, enc.y[0], [i for i, g in enumerate(groups) if g == name])
        for name in spec.series_names()
    ]


def scatter_ops(spec: ChartSpec) -> list[Op]:
    """Calls drawing a scatter plot."""
    style = spec.style
    xs_all = column_values(spec, spec.encoding.x)
    groups = scatter_groups(spec)
    ys_all = {col: column_values(spec, col) for col in spec.encoding.y}
    px = [xs_all[i] for _, _, rows in groups for i in rows if not math.isnan(xs_all[i])]
    py = [ys_all[c][i] for _, c, rows in groups for i in rows if not math.isnan(ys_all[c][i])]
    x_axis = NumberAxis(lo=min(px), hi=max(px), scale=style.x_scale, title=style.x_title)
    y_axis = NumberAxis(
        lo=min(py),
        hi=max(py),
        scale=style.y_scale,
        title=style.y_title,
        reserve_labels=(value_text(spec, max(py)),) if style.value_labels else (),
    )
    legend = None
    if len(groups) > 1:
        legend = LegendItems(
            tuple(Var(f"points{j}") for j in range(len(groups))),
            tuple(g[0] for g in groups),
            tuple(color_of(spec, j) for j in range(len(groups))),
        )
    radius = math.sqrt(POINT_AREA) / 2

    def draw() -> list[Op]:
        ops: list[Op] = []
        for j, (name, col, rows) in enumerate(groups):
            color = color_of(spec, j)
            keep = [i for i in rows if not (math.isnan(xs_all[i]) or math.isnan(ys_all[col][i]))]
            xs = [xs_all[i] for i in keep]
            ys = [ys_all[col][i] for i in keep]
            infos = tuple(
                MarkInfo("point", i, col, name, y, color, x=x, y=y, radius_pt=radius)
                for i, x, y in zip(keep, xs, ys, strict=True)
            )
            ops.append(
                op(
                    "ax",
                    "scatter",
                    xs,
                    ys,
                    s=POINT_AREA,
                    color=color,
                    label=name,
                    zorder=2,
                    bind=f"points{j}",
                    tag=Tag("points", marks=infos),
                )
            )
            if style.value_labels:
                for i, x, y in zip(keep, xs, ys, strict=True):
                    text = value_text(spec, y)
                    info = TextInfo(text, row=i, column=col, series=name, value=y)
                    ops.append(
                        op(
                            "ax",
                            "annotate",
                            text,
                            (x, y),
                            xytext=(0.0, 5.0),
                            textcoords="offset points",
                            ha="center",
                            va="bottom",
                            fontsize=round(style.font_size * VALUE_LABEL_SCALE, 2),
                            tag=Tag("value_labels", texts=(info,)),
                        )
                    )
        return ops

    return cartesian_ops(spec, x_axis, y_axis, draw, legend, full_frame=True)


def box_ops(spec: ChartSpec) -> list[Op]:
    """Calls drawing one box per category from its five-number summary."""
    style = spec.style
    horizontal = style.orientation == "horizontal"
    cats = categories(spec)
    mins, q1s, meds, q3s, maxs = (column_values(spec, c) for c in spec.encoding.y)
    value_axis = NumberAxis(lo=min(mins), hi=max(maxs), scale=style.y_scale, title=style.y_title)
    category_axis = CategoryAxis(cats, 0.5, style.x_title, style.tick_rotation, thin=False)
    color = color_of(spec, 0)
    # the median line must stand out against the box fill
    median = _EDGE if label_color(color) == "#000000" else "#ffffff"
    median_col = spec.encoding.y[2]
    half = 0.25

    def draw() -> list[Op]:
        stats = [
            {"whislo": mins[i], "q1": q1s[i], "med": meds[i], "q3": q3s[i], "whishi": maxs[i]}
            for i in range(len(cats))
        ]
        lo_col, _, med_col, _, hi_col = spec.encoding.y
        cap = half / 2  # bxp draws caps half as wide as the boxes

        def part(
            kind: MarkKind,
            i: int,
            col: str | None,
            value: float,
            colour: str,
            lo: float,
            hi: float,
            width: float,
            at: float,
            stroke: float,
        ) -> MarkInfo:
            # the rectangle spans `width` across the category axis and lo..hi along values
            corners = (i - width, lo, i + width, hi)
            x, y = float(i), at
            if horizontal:
                corners = (lo, i - width, hi, i + width)
                x, y = at, float(i)
            return MarkInfo(
                kind, i, col, None, value, colour, x=x, y=y, radius_pt=stroke / 2, corners=corners
            )

        infos = tuple(
            info
            for i in range(len(cats))
            for info in (
                part("box", i, None, meds[i], color, q1s[i], q3s[i], half, meds[i], 1.0),
                part("median", i, med_col, meds[i], median, meds[i], meds[i], half, meds[i], 1.5),
                part("whisker", i, lo_col, mins[i], _EDGE, mins[i], q1s[i], cap, mins[i], 1.0),
                part("whisker", i, hi_col, maxs[i], _EDGE, q3s[i], maxs[i], cap, maxs[i], 1.0),
            )
        )
        ops = [
            op(
                "ax",
                "bxp",
                stats,
                positions=list(range(len(cats))),
                widths=2 * half,
                orientation="horizontal" if horizontal else "vertical",
                patch_artist=True,
                showfliers=False,
                manage_ticks=False,
                boxprops={"facecolor": color, "edgecolor": _EDGE, "linewidth": 1.0},
                medianprops={"color": median, "linewidth": 1.5},
                whiskerprops={"color": _EDGE, "linewidth": 1.0},
                capprops={"color": _EDGE, "linewidth": 1.0},
                bind="boxes",
                tag=Tag("boxes", marks=infos),
            )
        ]
        if style.value_labels:
            size = round(style.font_size * VALUE_LABEL_SCALE, 2)
            for i, med in enumerate(meds):
                text = value_text(spec, med)
                info = TextInfo(text, row=i, column=median_col, value=med)
                where: dict[str, Any]
                if horizontal:
                    where = {"xytext": (0.0, 2.0), "ha": "center", "va": "bottom"}
                    xy = (med, i - half)
                else:
                    where = {"xytext": (3.0, 0.0), "ha": "left", "va": "center"}
                    xy = (i + half, med)
                ops.append(
                    op(
                        "ax",
                        "annotate",
                        text,
                        xy,
                        textcoords="offset points",
                        fontsize=size,
                        tag=Tag("value_labels", texts=(info,)),
                        **where,
                    )
                )
        return ops

    return cartesian_ops(
        spec,
        value_axis if horizontal else category_axis,
        category_axis if horizontal else value_axis,
        draw,
        None,
        full_frame=True,
    )
