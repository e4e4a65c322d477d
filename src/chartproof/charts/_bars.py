"""Bar charts: single-series vertical and horizontal, grouped and stacked in both directions.

Categories sit at positions 0..n-1; horizontal charts list them top to bottom.
"""

from __future__ import annotations

from typing import Any

from chartproof.charts._frame import CategoryAxis, NumberAxis, cartesian_ops
from chartproof.charts._legend import LegendItems
from chartproof.charts._marks import categories, color_of, column_values, label_color, value_text
from chartproof.charts._page import VALUE_LABEL_PAD_PT, VALUE_LABEL_SCALE, Page
from chartproof.charts._plan import MarkInfo, Op, Tag, TextInfo, Var, op
from chartproof.types import ChartSpec

__all__ = ["bar_ops"]

_GROUP_WIDTH = 0.8
_SINGLE_WIDTH = 0.6
_MIN_LABEL_SCALE = 0.75


def bar_ops(spec: ChartSpec) -> list[Op]:
    """Calls drawing a vbar, hbar, grouped_bar or stacked_bar chart."""
    style = spec.style
    kind = spec.chart_type
    if kind == "vbar":
        horizontal = False
    elif kind == "hbar":
        horizontal = True
    else:
        horizontal = style.orientation == "horizontal"
    stacked = kind == "stacked_bar"
    cats = categories(spec)
    cols = spec.encoding.y
    n, k = len(cats), len(cols)
    values = [column_values(spec, c) for c in cols]

    if stacked:
        tops = [sum(values[j][i] for j in range(k)) for i in range(n)]
        lo, hi = min(min(tops), 0.0), max(tops)
    else:
        flat = [v for vs in values for v in vs]
        lo, hi = min(flat), max(flat)
    value_axis = NumberAxis(
        lo=lo,
        hi=hi,
        scale=style.y_scale,
        title=style.y_title,
        zero=True,
        reserve_labels=() if stacked else (value_text(spec, hi), value_text(spec, lo)),
    )
    category_axis = CategoryAxis(cats, 0.5, style.x_title, style.tick_rotation, thin=False)
    legend = None
    if k > 1:
        legend = LegendItems(
            tuple(Var(f"bars{j}") for j in range(k)),
            tuple(cols),
            tuple(color_of(spec, j) for j in range(k)),
        )

    def draw() -> list[Op]:
        return _bar_marks(spec, values, horizontal, stacked, value_axis, category_axis)

    return cartesian_ops(
        spec,
        value_axis if horizontal else category_axis,
        category_axis if horizontal else value_axis,
        draw,
        legend,
        full_frame=False,
    )


def _bar_marks(
    spec: ChartSpec,
    values: list[list[float]],
    horizontal: bool,
    stacked: bool,
    value_axis: NumberAxis,
    category_axis: CategoryAxis,
) -> list[Op]:
    style = spec.style
    floor = value_axis.floor
    cols = spec.encoding.y
    k, n = len(values), len(values[0])
    width = _SINGLE_WIDTH if k == 1 else (_GROUP_WIDTH if stacked else _GROUP_WIDTH / k)
    marks: list[Op] = []
    running = [floor] * n
    method = "barh" if horizontal else "bar"
    size_kw = "height" if horizontal else "width"
    base_kw = "left" if horizontal else "bottom"
    for j, col in enumerate(cols):
        color = color_of(spec, j)
        if stacked or k == 1:
            positions = [float(i) for i in range(n)]
        else:
            positions = [round(i - _GROUP_WIDTH / 2 + width * (j + 0.5), 6) for i in range(n)]
        if stacked:
            bases = list(running)
            lengths = [values[j][i] for i in range(n)]
            running = [b + h for b, h in zip(bases, lengths, strict=True)]
        else:
            bases = [floor] * n
            lengths = [v - floor for v in values[j]]
        infos = tuple(
            MarkInfo("bar", i, col, col, values[j][i], color, x=positions[i]) for i in range(n)
        )
        kwargs: dict[str, Any] = {size_kw: width}
        if floor != 0.0 or stacked:
            kwargs[base_kw] = bases
        marks.append(
            op(
                "ax",
                method,
                positions,
                lengths,
                color=color,
                label=col,
                bind=f"bars{j}",
                tag=Tag("bars", marks=infos),
                **kwargs,
            )
        )
        if style.value_labels:
            texts = [value_text(spec, values[j][i]) for i in range(n)]
            scale = VALUE_LABEL_SCALE
            page = Page.of(style)
            extra: dict[str, Any] = {}
            if stacked:
                extra = {"label_type": "center", "color": label_color(color)}
                # a label that does not fit inside its segment is left out
                for i, text in enumerate(texts):
                    w, h = page.text(text, scale)
                    room = value_axis.span_px(bases[i], bases[i] + lengths[i])
                    if room < (w + 4 if horizontal else h + 2):
                        texts[i] = ""
            else:
                extra = {"padding": VALUE_LABEL_PAD_PT}
                if not horizontal:
                    # labels above side-by-side bars shrink to their bar's width
                    room = width * category_axis.unit_px() - 4  # keep neighbours apart
                    widest = max(page.text(t, scale)[0] for t in texts)
                    if widest > room:
                        scale = max(_MIN_LABEL_SCALE, scale * room / widest)
            label_infos = tuple(
                TextInfo(texts[i], row=i, column=col, series=col, value=values[j][i])
                for i in range(n)
            )
            marks.append(
                op(
                    "ax",
                    "bar_label",
                    Var(f"bars{j}"),
                    labels=texts,
                    fontsize=round(style.font_size * scale, 2),
                    tag=Tag("value_labels", texts=label_infos),
                    **extra,
                )
            )

    return marks
