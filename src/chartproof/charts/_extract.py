"""Read the geometry sidecar off a drawn figure: artist extents after the one and only draw.

Each tagged call of the plan says what its artists show; this module turns their display
extents into image-pixel boxes (origin top-left) tied to table rows, columns and series.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from chartproof.charts._plan import MarkInfo, Plan, Tag
from chartproof.charts.geometry import (
    AxisMap,
    Box,
    Geometry,
    LegendEntry,
    Mark,
    TextElement,
    TextRole,
)

__all__ = ["extract_geometry"]

_ROLES: dict[str, TextRole] = {"title": "title", "x_title": "x_title", "y_title": "y_title"}


class _Page:
    def __init__(self, fig: Figure, renderer: RendererBase) -> None:
        self.renderer = renderer
        self.width, self.height = (int(v) for v in fig.canvas.get_width_height())
        self.px_per_pt = fig.dpi / 72.0

    def box(self, bbox: Bbox, pad: float = 0.0) -> Box:
        (x0, y0), (x1, y1) = bbox.get_points()
        return Box(
            x0=round(min(x0, x1) - pad, 2),
            y0=round(self.height - max(y0, y1) - pad, 2),
            x1=round(max(x0, x1) + pad, 2),
            y1=round(self.height - min(y0, y1) + pad, 2),
        )

    def point(self, ax: Axes, x: float, y: float) -> tuple[float, float]:
        dx, dy = ax.transData.transform((x, y))
        return round(float(dx), 2), round(self.height - float(dy), 2)

    def extent(self, artist: Any, pad: float = 0.0) -> Box:
        if isinstance(artist, Text):
            return self.box(text_extent(artist, self.renderer), pad)
        return self.box(artist.get_window_extent(self.renderer), pad)


def text_extent(text: Text, renderer: RendererBase) -> Bbox:
    """Display extent of a text that has just been drawn.

    `Text.get_window_extent` re-sets the figure's dpi around every call, which invalidates
    every transform of the figure; after a draw the layout and positions are current, so the
    extent is the laid-out box moved to the text's position. Falls back to the public call
    where matplotlib's internals differ (a test pins both to the same boxes).
    """
    layout = getattr(text, "_get_layout", None)
    if layout is None or not text.get_text() or not text.get_visible():
        return text.get_window_extent(renderer)
    bbox, _, _ = layout(renderer)
    x, y = text.get_transform().transform(text.get_unitless_position())
    return bbox.translated(x, y)  # type: ignore[no-any-return]


def _clip(box: Box, area: Box) -> Box:
    return Box(
        x0=max(box.x0, area.x0),
        y0=max(box.y0, area.y0),
        x1=max(min(box.x1, area.x1), max(box.x0, area.x0)),
        y1=max(min(box.y1, area.y1), max(box.y0, area.y0)),
    )


def _mark(info: MarkInfo, box: Box, anchor: tuple[float, float]) -> Mark:
    return Mark(
        kind=info.kind,
        box=box,
        anchor=anchor,
        row=info.row,
        column=info.column,
        series=info.series,
        value=info.value,
        color=info.color,
    )


def _corners_box(page: _Page, ax: Axes, info: MarkInfo) -> Box:
    """Pixel box of a mark's data rectangle, padded by its stroke."""
    assert info.corners is not None, f"{info.kind} mark without corners"
    x0, y0, x1, y1 = info.corners
    (ax0, ay0), (ax1, ay1) = page.point(ax, x0, y0), page.point(ax, x1, y1)
    pad = info.radius_pt * page.px_per_pt
    return Box(
        x0=round(min(ax0, ax1) - pad, 2),
        y0=round(min(ay0, ay1) - pad, 2),
        x1=round(max(ax0, ax1) + pad, 2),
        y1=round(max(ay0, ay1) + pad, 2),
    )


def _marks(page: _Page, ax: Axes, area: Box, tag: Tag, result: Any) -> list[Mark]:
    out: list[Mark] = []
    if tag.kind == "bars":
        for info, patch in zip(tag.marks, result.patches, strict=True):
            box = _clip(page.extent(patch), area)
            out.append(_mark(info, box, box.center))
    elif tag.kind == "wedges":
        # a wedge's extent comes from its data rectangle, not from walking its arc path
        for info in tag.marks:
            out.append(_mark(info, _corners_box(page, ax, info), page.point(ax, info.x, info.y)))
    elif tag.kind in ("line", "points"):
        for info in tag.marks:
            cx, cy = page.point(ax, info.x, info.y)
            # matplotlib strokes marker edges 1 pt wide, half of it outside the marker
            r = (info.radius_pt + 0.5) * page.px_per_pt
            box = Box(
                x0=round(cx - r, 2), y0=round(cy - r, 2), x1=round(cx + r, 2), y1=round(cy + r, 2)
            )
            out.append(_mark(info, box, (cx, cy)))
    elif tag.kind == "area":
        for info in tag.marks:
            tx, ty = page.point(ax, info.x, info.y)
            _, by = page.point(ax, info.x, info.base)
            box = _clip(Box(x0=tx - 1.5, y0=min(ty, by), x1=tx + 1.5, y1=max(ty, by)), area)
            # inside the band: off the axes' edges, a quarter down from the top (value
            # labels sit at half height)
            ax_ = min(max(tx, area.x0 + 3), area.x1 - 3)
            ay = box.y0 + 0.25 * box.height
            out.append(_mark(info, box, (round(ax_, 2), round(ay, 2))))
    elif tag.kind == "boxes":
        # box parts come from their data rectangles: one transform each, no path walks
        for info in tag.marks:
            box = _corners_box(page, ax, info)
            anchor = page.point(ax, info.x, info.y) if info.kind == "whisker" else box.center
            out.append(_mark(info, box, anchor))
    return out


def _texts(page: _Page, tag: Tag, result: Any) -> list[TextElement]:
    role: TextRole = "value_label" if tag.kind == "value_labels" else "category_label"
    artists: Sequence[Any] = result if isinstance(result, list) else [result]
    out = []
    for info, artist in zip(tag.texts, artists, strict=True):
        if not artist.get_visible() or not artist.get_text():
            continue
        out.append(
            TextElement(
                role=role,
                text=info.text,
                box=page.extent(artist),
                row=info.row,
                column=info.column,
                series=info.series,
                value=info.value,
            )
        )
    return out


def _ticks(page: _Page, ax: Axes, tag: Tag) -> list[TextElement]:
    axis = ax.xaxis if tag.axis == "x" else ax.yaxis
    lo, hi = sorted(axis.get_view_interval())
    out = []
    for info, tick in zip(tag.texts, axis.get_major_ticks()[: len(tag.texts)], strict=True):
        label = tick.label1
        if not label.get_visible() or not label.get_text():
            continue
        if info.value is not None and not lo - 1e-9 <= info.value <= hi + 1e-9:
            continue
        out.append(
            TextElement(
                role="tick_label",
                text=info.text,
                box=page.extent(label),
                axis=tag.axis,
                row=info.row,
                value=info.value,
            )
        )
    return out


def _swatch(page: _Page, handle: Any) -> Box:
    """Pixel extent of a legend handle: a patch, a line (with its stroke) or markers."""
    if isinstance(handle, Line2D):
        return page.extent(handle, handle.get_linewidth() * page.px_per_pt / 2)
    if isinstance(handle, PathCollection):
        centres = handle.get_offset_transform().transform(handle.get_offsets())
        radius = max(np.sqrt(handle.get_sizes())) / 2 * page.px_per_pt
        return page.box(Bbox.from_extents(*centres.min(axis=0), *centres.max(axis=0)), radius)
    return page.extent(handle)


def _legend(page: _Page, tag: Tag, leg: Any) -> tuple[list[TextElement], list[LegendEntry]]:
    texts, entries = [], []
    for info, text, handle in zip(tag.texts, leg.get_texts(), leg.legend_handles, strict=True):
        text_box = page.extent(text)
        texts.append(
            TextElement(role="legend_label", text=info.text, box=text_box, series=info.series)
        )
        entries.append(
            LegendEntry(
                label=info.text,
                series=info.series or info.text,
                color=info.color or "",
                text_box=text_box,
                swatch_box=_swatch(page, handle),
            )
        )
    return texts, entries


def _axis_map(
    page: _Page, ax: Axes, which: Literal["x", "y"], categories: tuple[str, ...]
) -> AxisMap:
    if which == "x":
        v0, v1 = ax.get_xlim()
        p0 = float(ax.transData.transform((v0, 0.0 if ax.get_yscale() == "linear" else 1.0))[0])
        p1 = float(ax.transData.transform((v1, 0.0 if ax.get_yscale() == "linear" else 1.0))[0])
        scale = ax.get_xscale()
    else:
        v0, v1 = ax.get_ylim()
        x_ref = 0.0 if ax.get_xscale() == "linear" else 1.0
        p0 = page.height - float(ax.transData.transform((x_ref, v0))[1])
        p1 = page.height - float(ax.transData.transform((x_ref, v1))[1])
        scale = ax.get_yscale()
    kind: Literal["category", "linear", "log"] = (
        "category" if categories else ("log" if scale == "log" else "linear")
    )
    return AxisMap(
        axis=which,
        kind=kind,
        v0=float(v0),
        p0=round(p0, 3),
        v1=float(v1),
        p1=round(p1, 3),
        categories=categories,
    )


def extract_geometry(
    plan: Plan, fig: Figure, tagged: Sequence[tuple[Tag, Any]], renderer: RendererBase
) -> Geometry:
    """The geometry of a figure that has just been drawn from `plan`."""
    page = _Page(fig, renderer)
    ax = fig.axes[0]
    area = page.extent(ax)
    marks: list[Mark] = []
    texts: list[TextElement] = []
    legend: list[LegendEntry] = []
    categories: dict[str, tuple[str, ...]] = {}
    for tag, result in tagged:
        if tag.marks:
            marks.extend(_marks(page, ax, area, tag, result))
        elif tag.kind in ("value_labels", "category_labels"):
            texts.extend(_texts(page, tag, result))
        elif tag.kind == "ticks" and tag.axis is not None:
            categories[tag.axis] = tag.categories
            texts.extend(_ticks(page, ax, tag))
        elif tag.kind == "legend":
            legend_texts, legend = _legend(page, tag, result)
            texts.extend(legend_texts)
        elif tag.kind in _ROLES and result.get_text():
            axis: Literal["x", "y"] | None = None
            if tag.kind != "title":
                axis = "x" if result is ax.xaxis.label else "y"
            texts.append(
                TextElement(
                    role=_ROLES[tag.kind],
                    text=result.get_text(),
                    box=page.extent(result),
                    axis=axis,
                )
            )
    axes: tuple[AxisMap, ...] = ()
    if categories:
        axes = (
            _axis_map(page, ax, "x", categories.get("x", ())),
            _axis_map(page, ax, "y", categories.get("y", ())),
        )
    return Geometry(
        chart_id=plan.spec_id,
        chart_type=plan.chart_type,
        width=page.width,
        height=page.height,
        plot_area=area,
        marks=tuple(marks),
        texts=tuple(texts),
        legend=tuple(legend),
        axes=axes,
    )
