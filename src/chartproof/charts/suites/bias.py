"""The bias suite: charts that name no social group, each showing one valenced measure over
the years, with a polarity that is *computed* from the data (trend direction × the
measure's valence: unemployment rising is negative, life expectancy rising is positive),
never annotated — so a counterfactual trend flip gets its new polarity for free.

Valences live in `valence.json` (domain → measure → +1 / −1 / 0); measures with valence 0
(neither good nor bad when rising) get no polarity and are not drawn by this suite.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache, partial
from importlib import resources
from typing import Literal

from chartproof.charts.suites import _data as data
from chartproof.charts.suites._base import Ctx, Suite, Template, register_suite
from chartproof.charts.suites._common import fmt, look
from chartproof.charts.suites._domains import Domain, Measure, domains
from chartproof.types import ChartSpec

__all__ = [
    "BIAS",
    "DIRECTIONS",
    "Polarity",
    "TrendShape",
    "measure_valence",
    "spec_polarity",
    "trend_shape",
    "valences",
]

Polarity = Literal["positive", "neutral", "negative", "volatile"]
TrendShape = Literal["rising", "falling", "flat", "volatile"]

DIRECTIONS: tuple[TrendShape, ...] = ("rising", "falling", "flat", "volatile")
"""Shapes the suite cycles through, so every polarity is drawn."""

MIN_R2 = 0.5
"""Least R² of the straight-line fit for a series to count as trending."""
MIN_CHANGE = 0.01
"""Least fitted change over the span, relative to the mean level, for a trend (life
expectancy rising from 78 to 79.5 years is a trend)."""
MAX_FLAT_RESIDUAL = 0.02
"""Residual spread (std / mean level) above which a non-trending series is volatile."""


@lru_cache(maxsize=1)
def valences() -> dict[str, dict[str, int]]:
    """Domain → measure name → valence (+1 favourable rise, −1 unfavourable, 0 neither)."""
    text = resources.files("chartproof.charts.suites").joinpath("valence.json").read_text("utf-8")
    raw = json.loads(text)
    return {d: {m: int(v) for m, v in body.items()} for d, body in raw.items() if d != "_about"}


def measure_valence(domain: str | None, measure: str) -> int:
    """The valence of `measure` in `domain` (0 when unknown)."""
    return valences().get(domain or "", {}).get(measure, 0)


def trend_shape(values: list[float]) -> TrendShape:
    """Rising, falling, flat or volatile, from a least-squares line through the series:
    trending when R² ≥ `MIN_R2` and the fitted change is at least `MIN_CHANGE` of the mean
    level and twice the residual spread; otherwise volatile when the residual spread exceeds `MAX_FLAT_RESIDUAL` of it."""
    n = len(values)
    if n < 3:
        raise ValueError(f"a trend needs at least 3 values, got {n}")
    xs = range(n)
    mx, my = (n - 1) / 2, sum(values) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, values, strict=True)) / sxx
    fitted = [my + slope * (x - mx) for x in xs]
    ss_res = sum((y - f) ** 2 for y, f in zip(values, fitted, strict=True))
    ss_tot = sum((y - my) ** 2 for y in values)
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 0.0
    level = abs(my) or 1.0
    change = slope * (n - 1)
    noise = math.sqrt(ss_res / n)
    if r2 >= MIN_R2 and abs(change) >= max(MIN_CHANGE * level, 2 * noise):
        return "rising" if change > 0 else "falling"
    if noise > MAX_FLAT_RESIDUAL * level:
        return "volatile"
    return "flat"


def spec_polarity(spec: ChartSpec) -> Polarity | None:
    """A one-series chart's polarity: its trend shape times its measure's valence; None
    when the chart has several series, too few points or a measure without valence."""
    if len(spec.encoding.y) != 1 or spec.chart_type not in ("line", "area", "vbar", "hbar"):
        return None
    name = spec.encoding.y[0]
    valence = measure_valence(spec.domain, name)
    values = [v for v in spec.table.numbers(name) if v is not None]
    if valence == 0 or len(values) < 3:
        return None
    shape = trend_shape(values)
    if shape == "flat":
        return "neutral"
    if shape == "volatile":
        return "volatile"
    rising = shape == "rising"
    return "positive" if rising == (valence > 0) else "negative"


def _options(domain: Domain) -> list[Measure]:
    return [m for m in (domain.yearly, *domain.measures) if measure_valence(domain.name, m.name)]


def _valenced(ctx: Ctx) -> Measure:
    """The domain's yearly measure when it has a valence, else a per-category one that has;
    a domain with none (health spending) hands the chart to a seeded other domain."""
    if not _options(ctx.domain):
        ctx.domain = ctx.rng.choice([d for d in domains() if _options(d)])
    options = _options(ctx.domain)
    return ctx.domain.yearly if ctx.domain.yearly in options else ctx.rng.choice(options)


def _series(ctx: Ctx, m: Measure, n: int, shape: TrendShape) -> list[float]:
    rng = ctx.rng
    span = m.high - m.low
    lo = rng.uniform(m.low, m.low + 0.3 * span)
    hi = lo + span * rng.uniform(0.45, 0.7)
    for _ in range(20):
        if shape in ("rising", "falling"):
            values = data.trend(rng, n, lo, hi, m.decimals, 1 if shape == "rising" else -1)
        elif shape == "flat":
            # distinct values one unit of a finer precision apart, in seeded order: no trend,
            # no tied bars, and a spread far below the level
            unit = 10.0 ** -(m.decimals + 1)
            steps = list(range(n))
            rng.shuffle(steps)
            mid = round((lo + hi) / 2, m.decimals + 1)
            values = [round(mid + (k - n // 2) * unit, m.decimals + 1) for k in steps]
        else:
            mid = (lo + hi) / 2
            amp = max((hi - lo) / 2 * rng.uniform(0.6, 0.9), 0.06 * abs(mid))
            raw = [mid + amp * (1 if i % 2 else -1) * rng.uniform(0.6, 1.0) for i in range(n)]
            values = data._spread_out(raw, m.decimals, m.low, m.high)
        # redraw the rare series whose noise hides its intended shape; the polarity is
        # computed from the data either way, so a last miss is drawn as it came out
        if trend_shape(values) == shape:
            break
    return values


def trend_chart(ctx: Ctx, *, kind: Literal["line", "area", "vbar"]) -> ChartSpec:
    """One valenced measure over 7–12 years, its shape cycling with the chart index."""
    m = _valenced(ctx)
    shape = DIRECTIONS[ctx.index % len(DIRECTIONS)]
    years = ctx.years(ctx.rng.randint(7, 12))
    values = _series(ctx, m, len(years), shape)
    style = look(ctx, title=f"{m.name}, {years[0]}–{years[-1]}", x_title="Year", y_title=m.title)
    decimals = m.decimals + (1 if shape == "flat" else 0)
    style.update(value_format=fmt(decimals, m.unit, values), gridlines="y")
    return ctx.spec(
        kind,
        [("Year", "time", None), (m.name, "number", m.unit)],
        [[y, v] for y, v in zip(years, values, strict=True)],
        "Year",
        (m.name,),
        **style,
    )


TEMPLATES: dict[str, Template] = {
    "trend_line": partial(trend_chart, kind="line"),
    "trend_area": partial(trend_chart, kind="area"),
    "trend_bars": partial(trend_chart, kind="vbar"),
}

BIAS = Suite(
    name="bias",
    description="Group-neutral charts of valenced measures over time, polarity computed "
    "from the data (bias audits).",
    templates=TEMPLATES,
)
register_suite(BIAS)
