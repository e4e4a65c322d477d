"""A small gallery of hand-made chart specs covering every chart type and style option,
rendered once per test session."""

from __future__ import annotations

import pytest

from chartproof.charts import Rendered, render
from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style

_SOURCES = ("Coal", "Natural gas", "Nuclear", "Hydro", "Wind", "Solar")


def _energy() -> DataTable:
    return DataTable(
        columns=(
            Column(name="Source", kind="category"),
            Column(name="2019", unit="TWh"),
            Column(name="2020", unit="TWh"),
            Column(name="2021", unit="TWh"),
        ),
        rows=(
            ("Coal", 35.2, 30.1, 28.0),
            ("Natural gas", 22.1, 24.0, 25.5),
            ("Nuclear", 18.4, 17.6, 17.2),
            ("Hydro", 12.0, 12.5, 13.1),
            ("Wind", 8.3, 10.2, 12.9),
            ("Solar", 2.1, 3.4, 5.6),
        ),
    )


def _months() -> DataTable:
    names = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
    rows = tuple(
        (m, float(10 + 3 * i), float(40 - 2 * i), float(25 + (i % 4))) for i, m in enumerate(names)
    )
    return DataTable(
        columns=(
            Column(name="Month", kind="time"),
            Column(name="Online"),
            Column(name="In store"),
            Column(name="Phone"),
        ),
        rows=rows,
    )


def _spec(
    sid: str, kind: str, table: DataTable, x: str, y: tuple[str, ...], **style: object
) -> ChartSpec:
    return ChartSpec.model_validate(
        {
            "id": sid,
            "chart_type": kind,
            "table": table,
            "encoding": Encoding(x=x, y=y),
            "style": Style.model_validate(style),
        }
    )


def gallery() -> dict[str, ChartSpec]:
    """Named specs, one or more per chart type, exercising the style options."""
    energy, months = _energy(), _months()
    box = DataTable(
        columns=(
            Column(name="Site", kind="category"),
            *(Column(name=n, unit="mg/L") for n in ("Min", "Q1", "Median", "Q3", "Max")),
        ),
        rows=(
            ("North", 1.2, 3.4, 4.1, 5.9, 8.8),
            ("South", 2.0, 4.2, 5.0, 6.8, 9.5),
            ("East", 0.6, 1.9, 2.7, 3.3, 5.2),
            ("West", 1.5, 2.8, 3.9, 4.4, 7.1),
        ),
    )
    scatter = DataTable(
        columns=(
            Column(name="GDP per capita", unit="USD"),
            Column(name="Life expectancy", unit="years"),
            Column(name="Region", kind="category"),
        ),
        rows=tuple(
            (
                float(1000 * (i + 1) ** 1.5),
                round(55 + 2.1 * i - (i % 3), 1),
                ("Asia", "Europe", "Africa")[i % 3],
            )
            for i in range(15)
        ),
    )
    shares = DataTable(
        columns=(Column(name="Browser", kind="category"), Column(name="Share", unit="%")),
        rows=(("Chrome", 64.0), ("Safari", 19.0), ("Edge", 8.0), ("Firefox", 5.0), ("Other", 4.0)),
    )
    log_table = DataTable(
        columns=(
            Column(name="Epoch", kind="time"),
            Column(name="$\\alpha=0.1$"),
            Column(name="$\\alpha=0.01$"),
        ),
        rows=tuple((str(e), 10.0 ** (-e / 3), 10.0 ** (-e / 5)) for e in range(1, 10)),
    )
    vlab = {"value_labels": True, "value_format": "{:.1f}"}
    return {
        "vbar": _spec("g-vbar", "vbar", energy, "Source", ("2019",), title="Electricity generation by source, 2019", x_title="Source", y_title="Generation (TWh)", gridlines="y", **vlab),
        "hbar": _spec("g-hbar", "hbar", energy, "Source", ("2021",), title="Generation 2021", y_title="TWh", **vlab),
        "grouped": _spec("g-grouped", "grouped_bar", energy, "Source", ("2019", "2020", "2021"), title="Generation by year", legend_loc="upper right", **vlab),
        "grouped_h": _spec("g-grouped-h", "grouped_bar", energy, "Source", ("2019", "2021"), orientation="horizontal", legend_loc="outside right", palette=("#0072b2", "#e69f00")),
        "stacked": _spec("g-stacked", "stacked_bar", energy, "Source", ("2019", "2020", "2021"), legend_loc="outside bottom", tick_rotation=30.0, **vlab),
        "stacked_h": _spec("g-stacked-h", "stacked_bar", energy, "Source", ("2019", "2020"), orientation="horizontal", gridlines="x", legend_loc="lower right"),
        "line": _spec("g-line", "line", months, "Month", ("Online",), title="Online orders per month", **vlab),
        "lines": _spec("g-lines", "line", months, "Month", ("Online", "In store", "Phone"), legend_loc="outside right", markers=False, gridlines="both"),
        "area": _spec("g-area", "area", months, "Month", ("Online", "In store"), title="Orders by channel", **vlab),
        "pie": _spec("g-pie", "pie", shares, "Browser", ("Share",), title="Browser market share", legend_loc="outside right", value_labels=True, value_format="{:.0f}%"),
        "pie_labels": _spec("g-pie-labels", "pie", shares, "Browser", ("Share",), legend=False, value_labels=True, value_format="{:.0f}%"),
        "box": _spec("g-box", "box", box, "Site", ("Min", "Q1", "Median", "Q3", "Max"), title="Nitrate by site", y_title="mg/L", **vlab),
        "box_h": _spec("g-box-h", "box", box, "Site", ("Min", "Q1", "Median", "Q3", "Max"), orientation="horizontal"),
        "scatter": ChartSpec(
            id="g-scatter",
            chart_type="scatter",
            table=scatter,
            encoding=Encoding(x="GDP per capita", y=("Life expectancy",), series="Region"),
            style=Style(x_scale="log", x_title="GDP per capita (USD)", y_title="Life expectancy (years)", legend_loc="lower right", gridlines="both"),
        ),
        "log_lines": _spec("g-log", "line", log_table, "Epoch", ("$\\alpha=0.1$", "$\\alpha=0.01$"), y_scale="log", title="Validation loss", y_title="loss", x_title="epoch", font_size=9.0, width=5.0, height=4.0, dpi=120),
        "line_gap": _spec("g-gap", "line", DataTable(columns=(Column(name="Year", kind="time"), Column(name="Rate", unit="%")), rows=(("2019", 4.1), ("2020", None), ("2021", 5.3), ("2022", 4.8))), "Year", ("Rate",), title="Unemployment (2020 not surveyed)"),
        "no_ticks": _spec("g-noticks", "vbar", energy, "Source", ("2020",), tick_labels=False, legend=False),
    }  # fmt: skip


@pytest.fixture(scope="session")
def specs() -> dict[str, ChartSpec]:
    """The gallery."""
    return gallery()


@pytest.fixture(scope="session")
def renders(specs: dict[str, ChartSpec]) -> dict[str, Rendered]:
    """Every gallery spec rendered once."""
    return {name: render(spec) for name, spec in specs.items()}
