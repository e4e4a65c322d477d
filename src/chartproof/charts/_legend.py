"""Legends: their measured size, how many columns fit below a chart, and the call placing
them inside the axes or outside (right of or below the plot)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from chartproof.charts._page import EDGE_PT, Page
from chartproof.charts._plan import Op, Tag, TextInfo, Var, op
from chartproof.types import Style

__all__ = ["LegendItems", "bottom_legend_columns", "legend_ops", "legend_size"]


@dataclass(frozen=True)
class LegendItems:
    """Legend entries: the artists to show and their series names."""

    handles: tuple[Var, ...] | Var
    """Bound artists (or containers) whose look the legend copies, or one bound list."""
    labels: tuple[str, ...]
    """Entry texts."""
    colors: tuple[str, ...]
    """Swatch colours."""


def legend_size(page: Page, labels: tuple[str, ...], ncols: int) -> tuple[float, float]:
    em = page.px(page.font)
    widths = [page.text(s)[0] for s in labels]
    heights = [page.text(s)[1] for s in labels]
    rows = math.ceil(len(labels) / ncols)
    col_w = max(widths) + 2.8 * em  # handle (2.0 em) + handle-text pad (0.8 em)
    w = ncols * col_w + (ncols - 1) * 2.0 * em + 0.8 * em + 4
    h = rows * max(max(heights), 0.7 * em) + (rows - 1) * 0.5 * em + 0.8 * em + 4
    return w, h


def bottom_legend_columns(page: Page, labels: tuple[str, ...]) -> int:
    """As many legend columns as fit across the figure."""
    ncols = len(labels)
    while ncols > 1 and legend_size(page, labels, ncols)[0] > page.width - 2 * page.px(EDGE_PT):
        ncols -= 1
    return ncols


def legend_ops(
    page: Page,
    style: Style,
    legend: LegendItems,
    margins: tuple[float, float, float, float],
) -> list[Op]:
    """The legend call for a style's legend position (outside ones go on the figure)."""
    left, right, top, bottom = margins
    edge = page.px(EDGE_PT)
    infos = tuple(
        TextInfo(lab, series=lab, color=c)
        for lab, c in zip(legend.labels, legend.colors, strict=True)
    )
    tag = Tag("legend", texts=infos)
    handles: list[Var] | Var = (
        list(legend.handles) if isinstance(legend.handles, tuple) else legend.handles
    )
    labels = list(legend.labels)
    loc = style.legend_loc
    if loc == "outside right":
        x = round((page.width - right + page.px(4)) / page.width, 4)
        y = round((bottom + (page.height - top - bottom) / 2) / page.height, 4)
        return [
            op(
                "fig",
                "legend",
                handles,
                labels,
                loc="center left",
                bbox_to_anchor=(x, y),
                bind="leg",
                tag=tag,
            )
        ]
    if loc == "outside bottom":
        ncols = bottom_legend_columns(page, legend.labels)
        x = round((left + (page.width - left - right) / 2) / page.width, 4)
        y = round(edge / page.height, 4)
        return [
            op(
                "fig",
                "legend",
                handles,
                labels,
                loc="lower center",
                bbox_to_anchor=(x, y),
                ncols=ncols,
                bind="leg",
                tag=tag,
            )
        ]
    return [op("ax", "legend", handles, labels, loc=loc, bind="leg", tag=tag)]
