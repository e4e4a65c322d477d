"""The naive baseline of the rendering benchmark: the usual pyplot script, one chart at a time.

A new pyplot figure per chart with default settings, the chart's marks, labels and legend,
`plt.savefig` to PNG and `plt.close`; no geometry. `bench_render.py` times it against
chartproof's renderer on the same specs.
"""

from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from chartproof.types import ChartSpec

__all__ = ["naive_render"]


def _values(spec: ChartSpec, column: str) -> list[float]:
    return [math.nan if v is None else v for v in spec.table.numbers(column)]


def naive_render(spec: ChartSpec) -> bytes:
    """PNG bytes of the chart drawn the way a typical plotting script would."""
    style = spec.style
    fig = plt.figure(figsize=(style.width, style.height), dpi=style.dpi)
    cats = list(spec.table.labels(spec.encoding.x))
    cols = spec.encoding.y
    kind = spec.chart_type
    horizontal = kind == "hbar" or (
        kind in ("grouped_bar", "stacked_bar", "box") and style.orientation == "horizontal"
    )
    if kind in ("vbar", "hbar", "grouped_bar", "stacked_bar"):
        n, k = len(cats), len(cols)
        bottom = [0.0] * n
        for j, col in enumerate(cols):
            vals = _values(spec, col)
            if kind == "stacked_bar":
                pos = list(range(n))
                width = 0.8
            else:
                width = 0.8 / k
                pos = [i - 0.4 + width * (j + 0.5) for i in range(n)]
            if horizontal:
                bars = plt.barh(pos, vals, height=width, left=bottom, label=col)
            else:
                bars = plt.bar(pos, vals, width=width, bottom=bottom, label=col)
            if style.value_labels:
                plt.bar_label(bars, label_type="center" if kind == "stacked_bar" else "edge")
            if kind == "stacked_bar":
                bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
        if horizontal:
            plt.yticks(range(n), cats)
        else:
            plt.xticks(range(n), cats, rotation=style.tick_rotation)
    elif kind in ("line", "area"):
        series = [_values(spec, c) for c in cols]
        if kind == "line":
            for col, vals in zip(cols, series, strict=True):
                plt.plot(cats, vals, marker="o" if style.markers else None, label=col)
                if style.value_labels:
                    for c, v in zip(cats, vals, strict=True):
                        plt.annotate(style.value_format.format(v), (c, v), ha="center")
        else:
            plt.stackplot(cats, series, labels=cols)
        plt.xticks(rotation=style.tick_rotation)
    elif kind == "pie":
        autopct = "%1.1f%%" if style.value_labels else None
        if style.legend:
            plt.pie(_values(spec, cols[0]), autopct=autopct, startangle=90)
            plt.legend(cats, loc="center left", bbox_to_anchor=(1.0, 0.5))
        else:
            plt.pie(_values(spec, cols[0]), labels=cats, autopct=autopct, startangle=90)
    elif kind == "scatter":
        xs = _values(spec, spec.encoding.x)
        groups = spec.table.labels(spec.encoding.series) if spec.encoding.series else None
        for name in spec.series_names():
            col = cols[0] if groups is not None else name
            ys = _values(spec, col)
            rows = [i for i in range(len(xs)) if groups is None or groups[i] == name]
            plt.scatter([xs[i] for i in rows], [ys[i] for i in rows], label=name)
            if style.value_labels:
                for i in rows:
                    plt.annotate(style.value_format.format(ys[i]), (xs[i], ys[i]))
    elif kind == "box":
        stats = [
            {"whislo": a, "q1": b, "med": c, "q3": d, "whishi": e, "label": lab}
            for lab, a, b, c, d, e in zip(cats, *(_values(spec, c) for c in cols), strict=True)
        ]
        plt.gca().bxp(
            stats, showfliers=False, orientation="horizontal" if horizontal else "vertical"
        )
    if style.y_scale == "log":
        plt.xscale("log") if horizontal else plt.yscale("log")
    if style.x_scale == "log":
        plt.xscale("log")
    if style.title:
        plt.title(style.title)
    if style.x_title:
        plt.xlabel(style.x_title)
    if style.y_title:
        plt.ylabel(style.y_title)
    if style.legend and len(spec.series_names()) > 1 and kind not in ("pie", "box"):
        plt.legend()
    if style.gridlines != "none":
        plt.grid(axis=style.gridlines)
    buf = io.BytesIO()
    plt.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()
