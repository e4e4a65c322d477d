"""The chartr suite: ChartR-style charts from 26 templates (chart type × look × data shape)
over the 20 topical domains, with realistic labels, units and plausible data."""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from chartproof.charts.suites import _data as data
from chartproof.charts.suites._base import MONTHS, Ctx, Suite, Template, register_suite
from chartproof.charts.suites._common import fmt, grouped_rows, look, pick_category, pick_groups
from chartproof.types import ChartSpec

__all__ = ["CHARTR", "TEMPLATES", "boxes", "lines", "multi_bars", "pie", "scatter", "single_bars"]

Order = Literal["listed", "desc", "asc"]


def single_bars(
    ctx: Ctx,
    *,
    horizontal: bool,
    count: tuple[int, int],
    order: Order = "listed",
    labels: bool = False,
    rotation: float = 0.0,
    years: bool = False,
    signed: bool = False,
) -> ChartSpec:
    """One measure per category (or per year), as vertical or horizontal bars."""
    rng = ctx.rng
    if years:
        m = ctx.domain.yearly
        cats = ctx.years(rng.randint(*count))
        values = data.trend(rng, len(cats), m.low, m.high, m.decimals, m.trend)
        dim_title = "Year"
        title = f"{m.name}, {cats[0]}–{cats[-1]}"
    else:
        dim, cats = pick_category(ctx, *count)
        while signed and not ctx.domain.change.describes(dim.title):
            dim, cats = pick_category(ctx, *count)
        m = ctx.domain.change if signed else ctx.measure(dim.title)
        if m.extensive and dim.sizes:
            sizes = [dim.size_of(c) or 1.0 for c in cats]
            values = data.sized(rng, sizes, m.low, m.high, m.decimals)
        elif m.follows_income and dim.income:
            incomes = [dim.income_of(c) or 1.0 for c in cats]
            values = data.sized(rng, incomes, m.low, m.high, m.decimals)
        else:
            values = data.distinct(rng, len(cats), m.low, m.high, m.decimals)
        while signed and (min(values) >= 0 or max(values) <= 0):
            values = data.distinct(rng, len(cats), m.low, m.high, m.decimals)
        if dim.ordinal:
            order = "listed"  # age groups stay in age order
        dim_title = dim.title
        title = f"{m.name} by {dim.title.lower()}, {ctx.years(1)[0]}"
    rows = [[c, v] for c, v in zip(cats, values, strict=True)]
    if order != "listed":
        rows.sort(key=lambda r: r[1], reverse=order == "desc")  # type: ignore[arg-type,return-value]
    style = look(ctx, title=title, x_title=dim_title, y_title=m.title)
    style.update(
        value_labels=labels, value_format=fmt(m.decimals, m.unit, values), tick_rotation=rotation
    )
    style["gridlines"] = "none" if labels else ("x" if horizontal else "y")
    return ctx.spec(
        "hbar" if horizontal else "vbar",
        [(dim_title, "time" if years else "category", None), (m.name, "number", m.unit)],
        rows,  # type: ignore[arg-type]
        dim_title,
        (m.name,),
        **style,
    )


def multi_bars(
    ctx: Ctx,
    *,
    kind: Literal["grouped_bar", "stacked_bar"],
    series: tuple[int, int],
    orientation: Literal["vertical", "horizontal"] = "vertical",
    labels: bool = False,
    percent: bool = False,
    legend_loc: str = "upper right",
) -> ChartSpec:
    """Several series per category: grouped side by side or stacked (optionally to 100 %)."""
    rng = ctx.rng
    dim, cats = pick_category(ctx, 3, 6 if kind == "grouped_bar" else 7)
    group_title, groups = pick_groups(ctx, *series)
    stack = ctx.domain.stack_measure()
    if stack is not None and not (stack.describes(dim.title) and stack.by_groups):
        stack = None
    if kind == "stacked_bar" and stack is None:
        percent = True  # nothing in this domain adds up across its groups but shares do
    if percent:
        share = ctx.domain.share
        groups = ctx.pick(share.labels, *series)
        rows_v = [data.shares(rng, len(groups), 0, 5.0) for _ in cats]
        columns = [[r[j] for r in rows_v] for j in range(len(groups))]
        unit, decimals = "%", 0
        title = f"{share.name} by {dim.title.lower()}"
        y_title = "Share (%)"
    else:
        m = (
            stack
            if kind == "stacked_bar" and stack is not None
            else ctx.measure(dim.title, by_groups=True)
        )
        # printed values over side-by-side bars get at most one decimal, and so do the data
        decimals = min(m.decimals, 1) if labels else m.decimals
        high = m.high if kind == "grouped_bar" else m.low + (m.high - m.low) / len(groups)
        # series differ by up to ±15 % of the range; bases leave room for that
        room = 0.15 * (high - m.low)
        base = data.distinct(rng, len(cats), m.low + room, high - room, decimals)
        columns = data.untie_rows(
            [data.jitter(rng, base, 0.15, decimals, m.low, high) for _ in groups], decimals
        )
        unit = m.unit
        title = f"{m.name} by {dim.title.lower()} and {group_title.lower()}"
        y_title = m.title
    flat = [v for col in columns for v in col]
    style = look(ctx, title=title, x_title=dim.title, y_title=y_title, orientation=orientation)
    style.update(
        value_labels=labels,
        value_format=fmt(decimals, unit, flat),
        legend_loc=legend_loc,
        gridlines="none" if labels else ("x" if orientation == "horizontal" else "y"),
    )
    return ctx.spec(
        kind,
        [(dim.title, "category", None), *((g, "number", unit) for g in groups)],
        grouped_rows(cats, columns),
        dim.title,
        tuple(groups),
        **style,
    )


def lines(
    ctx: Ctx,
    *,
    kind: Literal["line", "area"] = "line",
    monthly: bool = False,
    series: tuple[int, int] = (1, 1),
    count: tuple[int, int] = (8, 12),
    labels: bool = False,
    markers: bool = True,
    legend_loc: str = "upper left",
) -> ChartSpec:
    """Values over time: a seasonal year, or one or several trends over the years."""
    rng = ctx.rng
    m = ctx.domain.monthly if monthly else ctx.domain.yearly
    times = list(MONTHS) if monthly else ctx.years(rng.randint(*count))
    k = rng.randint(*series)
    if kind == "area" and not monthly and not m.additive:
        k = 1  # stacking this measure across entities would add up nonsense
    entities = ctx.domain.entities
    names = [m.name] if k == 1 else ctx.pick(entities.labels, k, k, ordinal=entities.ordinal)
    stacked = kind == "area" and k > 1
    sizes = [entities.size_of(n) for n in names] if k > 1 and m.extensive else []
    top = max((s for s in sizes if s is not None), default=None)
    columns = []
    for i, _ in enumerate(names):
        # each entity gets its own level within the measure's range (a share of it when
        # stacked; in proportion to its size for counts over countries of different sizes)
        width = (m.high - m.low) * (1 / k if stacked else rng.uniform(0.45, 0.8))
        lo = m.low if stacked else rng.uniform(m.low, m.high - width)
        size = sizes[i] if sizes else None
        if size is not None and top is not None and not stacked:
            width = (m.high - m.low) * size / top * rng.uniform(0.5, 0.7)
            lo = m.low + (m.high - m.low) * size / top * rng.uniform(0.2, 0.3)
        if monthly:
            columns.append(data.seasonal(rng, lo, lo + width, m.decimals, m.peak))
        else:
            direction = m.trend if rng.random() < 0.75 else -m.trend
            columns.append(data.trend(rng, len(times), lo, lo + width, m.decimals, direction))
    when = ctx.years(1)[0] if monthly else f"{times[0]}–{times[-1]}"
    title = f"{m.name} by month, {when}" if monthly else f"{m.name}, {when}"
    if k > 1:
        title = f"{m.name} by {ctx.domain.entities.title.lower()}, {when}"
    time_title = "Month" if monthly else "Year"
    style = look(ctx, title=title, x_title=time_title, y_title=m.title)
    flat = [v for col in columns for v in col]
    style.update(
        value_labels=labels,
        value_format=fmt(m.decimals, m.unit, flat),
        markers=markers,
        legend_loc=legend_loc,
        gridlines="y",
    )
    return ctx.spec(
        kind,
        [(time_title, "time", None), *((n, "number", m.unit) for n in names)],
        grouped_rows(times, columns),
        time_title,
        tuple(names),
        **style,
    )


def pie(ctx: Ctx, *, legend: bool) -> ChartSpec:
    """Parts of a whole in percent (summing to exactly 100)."""
    share = ctx.domain.share
    parts = ctx.pick(share.labels, 3, 7)
    decimals = ctx.rng.choice((0, 0, 1))
    values = data.shares(ctx.rng, len(parts), decimals, 4.0)
    style = look(ctx, title=f"{share.name}, {ctx.years(1)[0]}", width=7.0, height=5.0)
    style.update(
        legend=legend,
        legend_loc="outside right",
        value_labels=True,
        value_format=f"{{:.{decimals}f}}%",
    )
    return ctx.spec(
        "pie",
        [("Category", "category", None), ("Share", "number", "%")],
        [[p, v] for p, v in zip(parts, values, strict=True)],
        "Category",
        ("Share",),
        **style,
    )


def scatter(ctx: Ctx, *, grouped: bool) -> ChartSpec:
    """Two correlated measures of a set of entities, optionally coloured by group."""
    rng = ctx.rng
    pair = ctx.domain.pair
    n = rng.randint(15, 40)
    xs, ys = data.correlated(
        rng,
        n,
        (pair.x.low, pair.x.high, pair.x.decimals),
        (pair.y.low, pair.y.high, pair.y.decimals),
        pair.sign,
        rng.uniform(0.55, 0.95),
    )
    style = look(
        ctx,
        title=f"{pair.y.name} vs. {pair.x.name.lower()}",
        x_title=pair.x.title,
        y_title=pair.y.title,
        gridlines="both",
    )
    columns: list[tuple[str, Any, str | None]] = [
        (pair.x.name, "number", pair.x.unit),
        (pair.y.name, "number", pair.y.unit),
    ]
    if not grouped:
        return ctx.spec(
            "scatter",
            columns,
            [[a, b] for a, b in zip(xs, ys, strict=True)],
            pair.x.name,
            (pair.y.name,),
            **style,
        )
    if pair.groups is None:
        # no grouping of these entities fits (schools are not "Recycled" or "Landfilled")
        return ctx.spec(
            "scatter",
            columns,
            [[a, b] for a, b in zip(xs, ys, strict=True)],
            pair.x.name,
            (pair.y.name,),
            **style,
        )
    groups = ctx.pick(pair.groups.labels, 2, 4)
    g_title = pair.groups.title
    tags = [groups[i % len(groups)] for i in range(n)]
    rng.shuffle(tags)
    style["legend_loc"] = "outside right"
    return ctx.spec(
        "scatter",
        [*columns, (g_title, "category", None)],
        [[a, b, t] for a, b, t in zip(xs, ys, tags, strict=True)],
        pair.x.name,
        (pair.y.name,),
        series=g_title,
        **style,
    )


def boxes(ctx: Ctx, *, horizontal: bool) -> ChartSpec:
    """The spread of a measure per category, as five-number summaries."""
    m = ctx.domain.spread
    dim, cats = pick_category(ctx, 3, 7)
    while not m.describes(dim.title):
        dim, cats = pick_category(ctx, 3, 7)
    stats = [data.five_numbers(ctx.rng, m.low, m.high, m.decimals) for _ in cats]
    names = ("Minimum", "Lower quartile", "Median", "Upper quartile", "Maximum")
    style = look(
        ctx,
        title=f"{m.name} by {dim.title.lower()}",
        x_title=dim.title,
        y_title=m.title,
        orientation="horizontal" if horizontal else "vertical",
        gridlines="x" if horizontal else "y",
    )
    return ctx.spec(
        "box",
        [(dim.title, "category", None), *((n, "number", m.unit) for n in names)],
        [[c, *s] for c, s in zip(cats, stats, strict=True)],
        dim.title,
        names,
        **style,
    )


TEMPLATES: dict[str, Template] = {
    "bar_basic": partial(single_bars, horizontal=False, count=(4, 8)),
    "bar_labels": partial(single_bars, horizontal=False, count=(4, 7), labels=True),
    "bar_sorted": partial(single_bars, horizontal=False, count=(4, 8), order="desc", labels=True),
    "bar_years": partial(single_bars, horizontal=False, count=(5, 10), years=True),
    "bar_rotated": partial(single_bars, horizontal=False, count=(8, 12), rotation=35.0),
    "bar_change": partial(single_bars, horizontal=False, count=(4, 8), signed=True, labels=True),
    "hbar_sorted": partial(single_bars, horizontal=True, count=(5, 10), order="desc", labels=True),
    "hbar_basic": partial(single_bars, horizontal=True, count=(4, 9)),
    "hbar_ascending": partial(single_bars, horizontal=True, count=(4, 8), order="asc"),
    "grouped_2": partial(multi_bars, kind="grouped_bar", series=(2, 2)),
    "grouped_3": partial(multi_bars, kind="grouped_bar", series=(3, 3), legend_loc="outside right"),
    "grouped_labels": partial(multi_bars, kind="grouped_bar", series=(2, 3), labels=True),
    "grouped_h": partial(
        multi_bars,
        kind="grouped_bar",
        series=(2, 3),
        orientation="horizontal",
        legend_loc="outside right",
    ),
    "stacked": partial(multi_bars, kind="stacked_bar", series=(2, 4), legend_loc="outside right"),
    "stacked_labels": partial(
        multi_bars, kind="stacked_bar", series=(2, 3), labels=True, legend_loc="outside bottom"
    ),
    "stacked_100": partial(
        multi_bars,
        kind="stacked_bar",
        series=(3, 5),
        orientation="horizontal",
        percent=True,
        labels=True,
        legend_loc="outside bottom",
    ),
    "line_monthly": partial(lines, monthly=True),
    "line_trend": partial(lines, count=(10, 15), markers=False),
    "line_labels": partial(lines, count=(5, 8), labels=True),
    "lines_multi": partial(lines, series=(3, 5), legend_loc="outside right"),
    "lines_monthly": partial(
        lines, monthly=True, series=(2, 3), legend_loc="outside bottom", markers=False
    ),
    "area_single": partial(lines, kind="area", count=(8, 14)),
    "area_stacked": partial(lines, kind="area", series=(2, 4), legend_loc="outside right"),
    "pie_legend": partial(pie, legend=True),
    "pie_labels": partial(pie, legend=False),
    "scatter_corr": partial(scatter, grouped=False),
    "scatter_groups": partial(scatter, grouped=True),
    "box_vertical": partial(boxes, horizontal=False),
    "box_horizontal": partial(boxes, horizontal=True),
}
"""Template name → template."""

CHARTR = Suite(
    "chartr",
    "ChartR-style charts: 29 templates over 20 topical domains, one reasoning chain each",
    TEMPLATES,
    chains_per_chart=1,
)
"""The chartr suite: as in ChartR, every chart carries one chain of 4 to 10 dependent
sub-questions and its composite question (`chartproof.questions.programs.chains`)."""
register_suite(CHARTR)
