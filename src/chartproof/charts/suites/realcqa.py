"""The realcqa suite: scientific-paper plots in the spirit of RealCQA: scatter and box plots,
log axes, dense ticks, up to eight series and symbol-heavy mathtext labels."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from chartproof.charts.colors import PALETTES
from chartproof.charts.suites import _data as data
from chartproof.charts.suites._base import Ctx, Suite, Template, register_suite
from chartproof.charts.suites._common import fmt, grouped_rows
from chartproof.types import ChartSpec

__all__ = ["FIELDS", "REALCQA"]


@dataclass(frozen=True)
class Field:
    """A scientific field: what its plots put on their axes."""

    name: str
    """Field name, recorded as the chart's domain."""
    x: tuple[str, str, float, float]
    """Independent variable: mathtext symbol label, unit, low, high."""
    y: tuple[str, str, float, float]
    """Response: label, unit, low, high (positive, so log axes work)."""
    parameter: tuple[str, tuple[str, ...]]
    """Symbol of the parameter that tells series apart, and its values."""
    conditions: tuple[str, ...]
    """Group labels for box plots and grouped bars."""
    rising: bool = True
    """Whether the response grows with the independent variable."""


FIELDS: tuple[Field, ...] = (
    Field("physics", ("$T$", "K", 20, 400), ("$\\rho$", "$\\mu\\Omega$ cm", 0.8, 95),
          ("$B$", ("0 T", "0.5 T", "1 T", "2 T", "5 T", "9 T", "14 T", "20 T")),
          ("$x=0.05$", "$x=0.10$", "$x=0.15$", "$x=0.20$", "$x=0.25$", "$x=0.30$")),
    Field("machine learning", ("Epoch", "", 1, 40), ("Loss $\\mathcal{L}$", "", 0.02, 3.2),
          ("$\\eta$", ("$10^{-1}$", "$3\\times10^{-2}$", "$10^{-2}$", "$3\\times10^{-3}$", "$10^{-3}$", "$3\\times10^{-4}$", "$10^{-4}$", "$10^{-5}$")),
          ("ResNet-18", "ResNet-50", "ViT-S", "ViT-B", "MLP-Mixer", "ConvNeXt-T"), rising=False),
    Field("chemistry", ("$c$", "mmol/L", 0.1, 50), ("$A_{280}$", "a.u.", 0.01, 2.4),
          ("$\\lambda$", ("250 nm", "280 nm", "310 nm", "340 nm", "370 nm", "400 nm", "430 nm", "460 nm")),
          ("pH 4", "pH 5", "pH 6", "pH 7", "pH 8", "pH 9")),
    Field("biology", ("$t$", "h", 0.5, 48), ("$\\mathrm{OD}_{600}$", "", 0.02, 2.8),
          ("Strain", ("WT", "$\\Delta lacZ$", "$\\Delta araC$", "$\\Delta rpoS$", "$recA^{-}$", "$ompF^{+}$", "$\\Delta fliC$", "$\\Delta crp$")),
          ("Control", "Dose A", "Dose B", "Dose C", "Dose D", "Vehicle")),
    Field("neuroscience", ("$I_{stim}$", "pA", 10, 400), ("$f$", "Hz", 0.5, 85),
          ("Area", ("V1", "V2", "V4", "MT", "LIP", "PFC", "S1", "M1")),
          ("L2/3", "L4", "L5", "L6", "$\\mathrm{PV}^{+}$", "$\\mathrm{SST}^{+}$")),
    Field("materials", ("$\\varepsilon$", "%", 0.1, 18), ("$\\sigma$", "MPa", 4, 980),
          ("$T_{a}$", ("300 °C", "400 °C", "500 °C", "600 °C", "700 °C", "800 °C", "900 °C", "1000 °C")),
          ("Al 6061", "Ti-6Al-4V", "316L", "Inconel 718", "Cu", "Mg AZ31")),
)  # fmt: skip
"""The fields realcqa draws from."""

_GREEK = ("\\alpha", "\\beta", "\\gamma", "\\delta", "\\kappa", "\\lambda", "\\mu", "\\tau")


def _sci_look(ctx: Ctx, **override: Any) -> dict[str, Any]:
    """Paper-like: small font, gridlines, colour-blind-safe or tab10 palette, denser ticks."""
    width, height = ctx.rng.choice(((6.4, 4.8), (7.0, 5.0), (8.0, 5.5), (6.0, 4.5)))
    style: dict[str, Any] = {
        "width": width,
        "height": height,
        "dpi": 100,
        "font_size": ctx.rng.choice((8.0, 8.0, 9.0)),
        "palette": PALETTES[ctx.rng.choice(("tab10", "okabe_ito", "dark"))],
        "gridlines": "both",
    }
    style.update(override)
    return style


def _axis_title(label: str, unit: str) -> str:
    return f"{label} ({unit})" if unit else label


def _field(ctx: Ctx) -> Field:
    return ctx.rng.choice(FIELDS)


def _grid_labels(low: float, high: float, n: int) -> list[str]:
    """n evenly spaced x positions as labels, with as few digits as keep them distinct."""
    for digits in range(0, 4):
        labels = [f"{low + (high - low) * i / (n - 1):.{digits}f}" for i in range(n)]
        if len(set(labels)) == n:
            return labels
    return [str(i + 1) for i in range(n)]


def _sig(v: float, digits: int = 3) -> float:
    """Round to significant digits, the way papers report numbers."""
    if v == 0:
        return 0.0
    return round(v, digits - 1 - math.floor(math.log10(abs(v))))


def scatter_series(ctx: Ctx) -> ChartSpec:
    """Several linear relations with different slopes, one per parameter value."""
    rng, f = ctx.rng, _field(ctx)
    (_xl, xu, x0, x1), (_yl, yu, y0, y1) = f.x, f.y
    k = rng.randint(2, 4)
    symbol = rng.choice(_GREEK)
    names = [f"${symbol}={v}$" for v in sorted(rng.sample((0.1, 0.2, 0.5, 1, 2, 5), k))]
    rows: list[list[Any]] = []
    for j, name in enumerate(names):
        slope = (y1 - y0) / (x1 - x0) * (0.25 + 0.2 * j)
        for _ in range(rng.randint(8, 16)):
            x = rng.uniform(x0, x1)
            y = y0 + slope * (x - x0) * rng.uniform(0.9, 1.1) + (y1 - y0) * 0.03
            rows.append([_sig(x), _sig(min(max(y, y0), y1)), name])
    return ctx.spec(
        "scatter",
        [("x", "number", xu or None), ("y", "number", yu or None), ("Series", "category", None)],
        rows,
        "x",
        ("y",),
        series="Series",
        domain=f.name,
        **_sci_look(
            ctx,
            x_title=_axis_title(f.x[0], xu),
            y_title=_axis_title(f.y[0], yu),
            legend_loc=rng.choice(("upper left", "outside right")),
        ),
    )


def scatter_loglog(ctx: Ctx) -> ChartSpec:
    """A power law over several decades on log-log axes."""
    rng = ctx.rng
    n = rng.randint(20, 60)
    exponent = rng.choice((-1.5, -1.0, 0.5, 1.5, 2.0))
    a = 10 ** rng.uniform(-1, 1)
    xs = sorted({_sig(10 ** rng.uniform(0, 4)) for _ in range(n)})
    ys = [_sig(a * x**exponent * 10 ** rng.gauss(0, 0.08)) for x in xs]
    label = rng.choice((("$N$", "$t$ (s)"), ("$k$", "$P(k)$"), ("$L$ (nm)", "$\\tau$ (ms)")))
    return ctx.spec(
        "scatter",
        [("x", "number", None), ("y", "number", None)],
        [[x, y] for x, y in zip(xs, ys, strict=True)],
        "x",
        ("y",),
        domain="physics",
        **_sci_look(
            ctx,
            x_scale="log",
            y_scale="log",
            x_title=label[0],
            y_title=label[1],
            title=f"Scaling with exponent ${exponent:g}$",
        ),
    )


def lines_many(ctx: Ctx, *, log: bool) -> ChartSpec:
    """Up to eight curves over a dense x axis, one per parameter value; optionally log-y decay."""
    rng, f = ctx.rng, _field(ctx)
    symbol, values = f.parameter
    k = rng.randint(4, 8) if not log else rng.randint(2, 5)
    names = [f"{symbol} = {v}" if symbol.startswith("$") else v for v in values[:k]]
    steps = rng.randint(12, 24)
    (_, xu, x0, x1) = f.x
    xs = _grid_labels(x0, x1, steps)
    (_, yu, y0, y1) = f.y
    columns = []
    for j in range(k):
        if log:
            rate = rng.uniform(0.12, 0.45) * (1 + 0.3 * j)
            col = [_sig(y1 * math.exp(-rate * i) + y0 * 0.01) for i in range(steps)]
        else:
            top = y0 + (y1 - y0) * (0.35 + 0.6 * (j + 1) / k)
            shape = [1 - math.exp(-(i + 1) / (steps / 4)) for i in range(steps)]
            if not f.rising:
                shape = [1 - v for v in shape]
            col = [
                _sig(y0 + (top - y0) * (0.05 + 0.95 * v) * rng.uniform(0.97, 1.03)) for v in shape
            ]
        columns.append(col)
    x_title = _axis_title(f.x[0], xu)
    flat = [v for c in columns for v in c]
    return ctx.spec(
        "line",
        [("step", "time", None), *((n, "number", yu or None) for n in names)],
        grouped_rows(xs, columns),
        "step",
        tuple(names),
        domain=f.name,
        **_sci_look(
            ctx,
            y_scale="log" if log else "linear",
            x_title=x_title,
            y_title=_axis_title(f.y[0], yu),
            legend_loc="outside right",
            markers=log,
            value_format=fmt(3, None, flat),
        ),
    )


def box_conditions(ctx: Ctx) -> ChartSpec:
    """Distributions per experimental condition."""
    rng, f = ctx.rng, _field(ctx)
    conds = ctx.pick(f.conditions, 3, 6)
    (_, yu, y0, y1) = f.y
    stats = [data.five_numbers(rng, y0, y1, 2 if y1 < 10 else 1) for _ in conds]
    names = ("min", "$Q_1$", "median", "$Q_3$", "max")
    return ctx.spec(
        "box",
        [("Condition", "category", None), *((n, "number", yu or None) for n in names)],
        [[c, *s] for c, s in zip(conds, stats, strict=True)],
        "Condition",
        names,
        domain=f.name,
        **_sci_look(
            ctx,
            y_title=_axis_title(f.y[0], yu),
            orientation=rng.choice(("vertical", "horizontal")),
            gridlines="y",
        ),
    )


def grouped_scores(ctx: Ctx) -> ChartSpec:
    """Scores of methods (series) across benchmarks (categories), printed to three decimals."""
    rng = ctx.rng
    methods = ["Baseline", "Ours ($\\ell_1$)", "Ours ($\\ell_2$)", "Ours + $\\mathcal{R}$"][
        : rng.randint(2, 4)
    ]
    sets = ctx.pick(("CIFAR-10", "CIFAR-100", "SVHN", "STL-10", "ImageNet", "MNIST"), 3, 5)
    base = [rng.uniform(0.55, 0.92) for _ in sets]
    columns = [
        [round(min(b + 0.015 * j + rng.uniform(-0.01, 0.01), 0.999), 3) for b in base]
        for j in range(len(methods))
    ]
    return ctx.spec(
        "grouped_bar",
        [("Dataset", "category", None), *((m, "number", None) for m in methods)],
        grouped_rows(sets, columns),
        "Dataset",
        tuple(methods),
        domain="machine learning",
        **_sci_look(
            ctx,
            y_title="Top-1 accuracy",
            legend_loc="outside bottom",
            gridlines="y",
            value_labels=rng.random() < 0.5,
            value_format="{:.3f}",
        ),
    )


def bar_log(ctx: Ctx) -> ChartSpec:
    """Counts spanning several orders of magnitude on a log value axis."""
    rng = ctx.rng
    labels = [f"$D_{{{i}}}$" for i in range(1, rng.randint(4, 8) + 1)]
    counts = data.distinct(rng, len(labels), 3, 2e5, 0, wide=True)
    return ctx.spec(
        "vbar",
        [("Detector", "category", None), ("Counts", "number", None)],
        [[lab, c] for lab, c in zip(labels, counts, strict=True)],
        "Detector",
        ("Counts",),
        domain="physics",
        **_sci_look(
            ctx,
            y_scale="log",
            x_title="Detector",
            y_title="Counts per $10^{3}$ s",
            gridlines="y",
            value_labels=rng.random() < 0.5,
            value_format="{:,.0f}",
        ),
    )


def scatter_dense(ctx: Ctx) -> ChartSpec:
    """Many points with a noisy relation, small font and dense ticks."""
    rng, f = ctx.rng, _field(ctx)
    (xl, xu, x0, x1), (yl, yu, y0, y1) = f.x, f.y
    xs, ys = data.correlated(
        rng, rng.randint(60, 110), (x0, x1, 2), (y0, y1, 2), rng.choice((1, -1)), 0.8
    )
    return ctx.spec(
        "scatter",
        [("x", "number", xu or None), ("y", "number", yu or None)],
        [[x, y] for x, y in zip(xs, ys, strict=True)],
        "x",
        ("y",),
        domain=f.name,
        **_sci_look(
            ctx,
            font_size=7.0,
            width=7.0,
            height=5.5,
            x_title=_axis_title(xl, xu),
            y_title=_axis_title(yl, yu),
        ),
    )


def _lines(log: bool) -> Template:
    def make(ctx: Ctx) -> ChartSpec:
        return lines_many(ctx, log=log)

    return make


TEMPLATES: dict[str, Template] = {
    "scatter_series": scatter_series,
    "scatter_loglog": scatter_loglog,
    "scatter_dense": scatter_dense,
    "lines_many": _lines(False),
    "lines_semilog": _lines(True),
    "box_conditions": box_conditions,
    "grouped_scores": grouped_scores,
    "bar_log": bar_log,
}
"""Template name → template."""

REALCQA = Suite(
    "realcqa", "Scientific plots: scatter, box, log axes, many series, math labels", TEMPLATES
)
"""The realcqa suite."""
register_suite(REALCQA)
