"""Hand-built chart specs for the question tests: small, readable tables of every chart type."""

from __future__ import annotations

import random

from chartproof.types import ChartSpec, ChartType, Column, DataTable, Encoding, Style

__all__ = ["box_spec", "category_spec", "random_spec", "scatter_spec"]


def category_spec(
    chart_type: ChartType = "vbar",
    *,
    x: tuple[str, ...] = ("2018", "2019", "2020", "2021", "2022"),
    series: dict[str, tuple[float | None, ...]] | None = None,
    x_kind: str = "time",
    value_labels: bool = True,
    unit: str | None = None,
    style: dict[str, object] | None = None,
    spec_id: str = "c1",
) -> ChartSpec:
    """A chart with one label column and one numeric column per series."""
    series = series or {"Sales": (12.0, 15.0, 9.0, 20.0, 17.0)}
    cols = [Column(name="Year" if x_kind == "time" else "Category", kind=x_kind)]  # type: ignore[arg-type]
    cols += [Column(name=s, kind="number", unit=unit) for s in series]
    rows = tuple((lab, *(vals[i] for vals in series.values())) for i, lab in enumerate(x))
    st = {"value_labels": value_labels, "x_title": cols[0].name, "y_title": "Amount"}
    st.update(style or {})
    return ChartSpec(
        id=spec_id,
        chart_type=chart_type,
        table=DataTable(columns=tuple(cols), rows=rows),
        encoding=Encoding(x=cols[0].name, y=tuple(series)),
        style=Style(**st),  # type: ignore[arg-type]
    )


def box_spec(
    boxes: dict[str, tuple[float, float, float, float, float]] | None = None,
    *,
    value_labels: bool = True,
    spec_id: str = "b1",
) -> ChartSpec:
    """A box plot from five-number summaries."""
    boxes = boxes or {
        "Group A": (1.0, 3.0, 5.0, 7.0, 9.0),
        "Group B": (2.0, 4.0, 6.0, 9.0, 12.0),
        "Group C": (0.0, 2.0, 3.0, 4.0, 6.0),
    }
    stats = ("min", "q1", "median", "q3", "max")
    cols = (Column(name="Group", kind="category"), *(Column(name=s, kind="number") for s in stats))
    rows = tuple((k, *v) for k, v in boxes.items())
    return ChartSpec(
        id=spec_id,
        chart_type="box",
        table=DataTable(columns=cols, rows=rows),
        encoding=Encoding(x="Group", y=stats),
        style=Style(value_labels=value_labels, x_title="Group", y_title="Score"),
    )


def scatter_spec(
    groups: dict[str, list[tuple[float, float]]] | None = None, *, spec_id: str = "s1"
) -> ChartSpec:
    """A long-format scatter plot: one series per group."""
    groups = groups or {
        "Cohort 1": [(1.0, 2.0), (2.0, 4.1), (3.0, 5.9), (4.0, 8.2), (5.0, 9.9)],
        "Cohort 2": [(1.0, 9.0), (2.0, 7.2), (3.0, 4.8), (4.0, 3.1), (5.0, 1.0)],
    }
    cols = (
        Column(name="Dose", kind="number"),
        Column(name="Response", kind="number"),
        Column(name="Cohort", kind="category"),
    )
    rows = tuple((x, y, g) for g, pts in groups.items() for x, y in pts)
    return ChartSpec(
        id=spec_id,
        chart_type="scatter",
        table=DataTable(columns=cols, rows=rows),
        encoding=Encoding(x="Dose", y=("Response",), series="Cohort"),
        style=Style(x_title="Dose", y_title="Response"),
    )


_WORDS = ("North", "South", "East", "West", "Central", "Coast", "Valley", "Hills", "Lakes")
_SERIES = ("Exports", "Imports", "Output", "Demand", "Supply")


def random_spec(rng: random.Random, chart_type: ChartType, *, spec_id: str = "r") -> ChartSpec:
    """A random but well-formed spec of the given type (for property tests)."""
    if chart_type == "box":
        n = rng.randint(2, 6)
        boxes = {}
        for name in rng.sample(_WORDS, n):
            vals = sorted(round(rng.uniform(0, 100), rng.choice((0, 1))) for _ in range(5))
            boxes[name] = tuple(vals)
        return box_spec(boxes, value_labels=rng.random() < 0.5, spec_id=spec_id)  # type: ignore[arg-type]
    if chart_type == "scatter":
        groups = {}
        for name in rng.sample(_SERIES, rng.randint(1, 3)):
            slope = rng.uniform(-2, 2)
            noise = rng.uniform(0.1, 5)
            groups[name] = [
                (float(x), round(slope * x + rng.gauss(0, noise), 2))
                for x in range(rng.randint(4, 12))
            ]
        return scatter_spec(groups, spec_id=spec_id)
    n = rng.randint(2, 9)
    time = rng.random() < 0.5
    x = tuple(str(2010 + i) for i in range(n)) if time else tuple(rng.sample(_WORDS, n))
    k = 1 if chart_type in ("vbar", "hbar", "pie") else rng.randint(2, 4)
    digits = rng.choice((0, 1, 2))
    series = {
        s: tuple(
            None if rng.random() < 0.03 else round(rng.uniform(0, 100), digits) for _ in range(n)
        )
        for s in rng.sample(_SERIES, k)
    }
    return category_spec(
        chart_type,
        x=x,
        series=series,
        x_kind="time" if time else "category",
        value_labels=rng.random() < 0.6,
        spec_id=spec_id,
    )
