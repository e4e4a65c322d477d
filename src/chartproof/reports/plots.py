"""Report figures (robustness curves, per-group bars) drawn with matplotlib into PNG bytes.

Pure functions of plain numbers; matplotlib is imported on first use.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["bar_chart", "line_chart"]

_COLORS = ("#2458c6", "#d9480f", "#2b8a3e", "#9c36b5", "#c92a2a", "#0b7285", "#5c940d", "#862e9c")


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def line_chart(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str,
    x_label: str,
    y_label: str,
    y_range: tuple[float, float] | None = (0.0, 1.0),
) -> bytes:
    """One line per series through its (x, y) points, e.g. metric vs perturbation level.

    Series that share points (every perturbation starts at the original's value; two may
    score alike) stay visible: each has its own marker and dash pattern, and each is
    shifted sideways by a few hundredths of an x unit."""
    fig = _figure(6.0, 3.6)
    ax = fig.add_subplot()
    markers = ("o", "s", "^", "D", "v", "P", "X", "*")
    dashes = ("-", "--", "-.", ":")
    n = len(series)
    for i, (name, points) in enumerate(sorted(series.items())):
        pts = sorted(points)
        shift = (i - (n - 1) / 2) * 0.04 if n > 1 else 0.0
        ax.plot(
            [p[0] + shift for p in pts],
            [p[1] for p in pts],
            marker=markers[i % len(markers)],
            # past the colours, the dash pattern tells series of one colour apart
            linestyle=dashes[(i // len(_COLORS)) % len(dashes)],
            color=_COLORS[i % len(_COLORS)],
            label=name,
            alpha=0.9,
        )
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title)
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    if y_range is not None:
        ax.set_ylim(*y_range)
    ax.grid(True, alpha=0.3)
    if series:
        ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return _png(fig)


def bar_chart(
    values: Mapping[str, float],
    *,
    title: str,
    y_label: str,
    y_range: tuple[float, float] | None = (0.0, 1.0),
) -> bytes:
    """Vertical bars, one per label, with the value printed on each bar."""
    fig = _figure(max(4.0, 0.6 * len(values) + 2.0), 3.2)
    ax = fig.add_subplot()
    labels = list(values)
    heights = [values[k] for k in labels]
    bars = ax.bar(labels, heights, color=_COLORS[0])
    ax.bar_label(bars, labels=[f"{h:.2f}" for h in heights], fontsize=8, padding=2)
    ax.set_title(title)
    ax.set_ylabel(y_label)
    if y_range is not None:
        ax.set_ylim(y_range[0], y_range[1] * 1.08)
    ax.tick_params(axis="x", labelrotation=30 if len(labels) > 5 else 0)
    fig.tight_layout()
    return _png(fig)


def grouped_bars(
    values: Mapping[str, Mapping[str, float | None]],
    *,
    title: str,
    y_label: str,
    y_range: tuple[float, float] = (0.0, 1.0),
) -> bytes:
    """One group of bars per label (x), one bar per series (run) in each, with a legend;
    a missing value leaves a gap. The y range is fixed (0 to 1 by default) so runs and
    reports compare at a glance."""
    import numpy as np

    series = list(values)
    labels = list(dict.fromkeys(k for v in values.values() for k in v))
    width = 0.8 / max(1, len(series))
    fig = _figure(max(5.0, 0.22 * len(labels) * len(series) + 0.5 * len(labels) + 2.0), 3.6)
    ax = fig.add_subplot()
    x = np.arange(len(labels))
    for i, name in enumerate(series):
        heights = [values[name].get(k) for k in labels]
        shown = [np.nan if h is None else h for h in heights]
        offset = (i - (len(series) - 1) / 2) * width
        ax.bar(x + offset, shown, width, label=name, color=_COLORS[i % len(_COLORS)])
    ax.set_xticks(x, labels)
    ax.tick_params(axis="x", labelrotation=40 if len(labels) > 6 else 0, labelsize=8)
    ax.set_ylim(y_range[0], y_range[1])
    ax.set_ylabel(y_label)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return _png(fig)
