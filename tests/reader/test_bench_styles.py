"""bench_styles' pure parts: the library configurations it writes for a table (values in
the table's order, orientation, titles, a pie's printed texts) and its scoring (cells within
5 %, questions the gold table answers); drawing in Chromium only where Chromium, Playwright
and the libraries' npm cache are all present."""

from __future__ import annotations

import importlib.util
import io
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from chartproof.reader import view_of_table
from chartproof.types import ChartSpec, DataTable, Encoding, Style

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_styles.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_styles", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_styles"] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def _chart(kind: str, csv: str, *, series: str | None = None, **style: object) -> ChartSpec:
    table = DataTable.from_csv(csv)
    names = table.names
    y = (names[1],) if series or kind in ("pie", "scatter") else tuple(names[1:])
    return ChartSpec(
        id="t",
        chart_type=kind,
        table=table,
        encoding=Encoding(x=names[0], y=y, series=series),
        style=Style(title="T", x_title="Country", y_title="Share (%)", **style),  # type: ignore[arg-type]
    )


GROUPED = "Country,Men,Women\nFrance,12.5,14\nItaly,9,7.25\nSpain,20,18\n"


def test_grouped_horizontal_bars_in_each_library(bench: ModuleType) -> None:
    spec = _chart("grouped_bar", GROUPED, orientation="horizontal")
    vl = bench.vega_lite_spec(spec)
    assert vl["data"]["values"][:4] == [
        {"c": "France", "v": 12.5, "s": "Men"},
        {"c": "Italy", "v": 9.0, "s": "Men"},
        {"c": "Spain", "v": 20.0, "s": "Men"},
        {"c": "France", "v": 14.0, "s": "Women"},
    ]
    assert vl["encoding"]["y"]["field"] == "c" and vl["encoding"]["yOffset"]["field"] == "s"
    assert vl["encoding"]["x"]["title"] == "Share (%)" and vl["mark"] == "bar"
    assert (vl["width"], vl["height"], vl["title"]) == (640, 480, "T")

    ec = bench.echarts_option(spec)
    assert ec["yAxis"]["type"] == "category" and ec["yAxis"]["data"] == ["France", "Italy", "Spain"]
    assert ec["xAxis"]["type"] == "value" and ec["xAxis"]["name"] == "Share (%)"
    assert [(s["name"], s["data"]) for s in ec["series"]] == [
        ("Men", [12.5, 9.0, 20.0]),
        ("Women", [14.0, 7.25, 18.0]),
    ]
    assert "legend" in ec

    cj = bench.chartjs_config(spec)
    assert cj["type"] == "bar" and cj["options"]["indexAxis"] == "y"
    assert cj["data"]["labels"] == ["France", "Italy", "Spain"]
    assert [d["data"] for d in cj["data"]["datasets"]] == [[12.5, 9.0, 20.0], [14.0, 7.25, 18.0]]
    assert cj["options"]["scales"]["x"]["title"]["text"] == "Share (%)"
    assert cj["options"]["plugins"]["legend"]["display"] is True


def test_one_line_without_markers_and_a_vertical_bar(bench: ModuleType) -> None:
    line = _chart("line", "Year,Sales\n2020,3\n2021,4.5\n2022,6\n", markers=False)
    assert bench.vega_lite_spec(line)["mark"] == {"type": "line", "point": False}
    assert "color" not in bench.vega_lite_spec(line)["encoding"]
    ec = bench.echarts_option(line)
    assert ec["series"] == [{"type": "line", "name": "Sales", "data": [3.0, 4.5, 6.0], "showSymbol": False}]  # fmt: skip
    assert "legend" not in ec
    cj = bench.chartjs_config(line)
    assert cj["data"]["datasets"][0]["pointRadius"] == 0
    assert cj["options"]["plugins"]["legend"]["display"] is False
    bar = line.model_copy(update={"chart_type": "vbar"})
    assert bench.vega_lite_spec(bar)["encoding"]["x"]["field"] == "c"
    assert "indexAxis" not in bench.chartjs_config(bar)["options"]


def test_pie_texts_follow_the_value_format_and_the_legend(bench: ModuleType) -> None:
    csv = "Category,Share\nRail,55.5\nRoad,30\nAir,14.5\n"
    with_legend = _chart("pie", csv, value_labels=True, value_format="{:.1f}%")
    assert bench._pie_labels(with_legend) == ["55.5%", "30.0%", "14.5%"]
    no_legend = with_legend.model_copy(
        update={"style": with_legend.style.model_copy(update={"legend": False})}
    )
    assert bench._pie_labels(no_legend) == ["Rail: 55.5%", "Road: 30.0%", "Air: 14.5%"]
    assert bench.chartjs_config(no_legend)["labels_text"] == bench._pie_labels(no_legend)
    data = bench.echarts_option(no_legend)["series"][0]["data"]
    assert data[1] == {"name": "Road", "value": 30.0, "label": {"formatter": "Road: 30.0%"}}
    vl = bench.vega_lite_spec(with_legend)
    assert [r["t"] for r in vl["data"]["values"]] == ["55.5%", "30.0%", "14.5%"]


def test_grouped_scatter_keeps_its_groups(bench: ModuleType) -> None:
    csv = "GDP,Life,Region\n1,70,North\n2,72,South\n3,75,North\n"
    spec = _chart("scatter", csv, series="Region")
    assert bench._points(spec) == [("North", [(1.0, 70.0), (3.0, 75.0)]), ("South", [(2.0, 72.0)])]
    assert [s["name"] for s in bench.echarts_option(spec)["series"]] == ["North", "South"]
    assert bench.vega_lite_spec(spec)["encoding"]["color"]["field"] == "s"
    datasets = bench.chartjs_config(spec)["data"]["datasets"]
    assert datasets[0]["data"] == [{"x": 1.0, "y": 70.0}, {"x": 3.0, "y": 75.0}]


def test_tables_are_seeded_and_of_each_type(bench: ModuleType) -> None:
    first = list(bench.tables(list(bench.TYPES), 2, 0))
    assert [k for k, _ in first] == [k for k in bench.TYPES for _ in range(2)]
    assert [s.model_dump() for _, s in first] == [
        s.model_dump() for _, s in bench.tables(list(bench.TYPES), 2, 0)
    ]
    kinds = {k: s.chart_type for k, s in first}
    assert kinds == {
        "bar": "vbar", "hbar": "hbar", "grouped_bar": "grouped_bar", "line": "line",
        "lines": "line", "scatter": "scatter", "pie": "pie",
    }  # fmt: skip
    assert all(len(s.encoding.y) > 1 for k, s in first if k == "lines")


def test_scoring_counts_cells_within_5_percent_and_answerable_questions(
    bench: ModuleType,
) -> None:
    spec = _chart("grouped_bar", GROUPED)
    gold = view_of_table(spec.table, spec.chart_type, x_title=spec.style.x_title)
    perfect = bench.score(spec, spec.table, gold, 4)
    assert perfect["cells"] == [6, 6]
    right, asked = perfect["qa"]
    assert asked > 0 and right == asked
    # 12.5 read as 13 (4 % off: right), 18 read as 19.5 (8 % off: wrong)
    off = DataTable.from_csv("Country,Men,Women\nFrance,13,14\nItaly,9,7.25\nSpain,20,19.5\n")
    assert bench.score(spec, off, None, 4)["cells"] == [5, 6]
    nothing = bench.score(spec, None, None, 4)
    assert nothing == {"cells": [0, 6], "qa": [0.0, asked]}


def test_scatter_points_are_matched_one_to_one_within_5_percent_of_each_range(
    bench: ModuleType,
) -> None:
    gold = [(0.0, 0.0), (10.0, 100.0), (5.0, 50.0)]  # ranges: x 10, y 100
    # (0.4, 3): 4 % and 3 % off; (10, 100) exact; (5, 60): y 10 % off; (9.8, 99) would also
    # fit (10, 100) but that gold point is taken, and it is 48 % from (5, 50)
    read = DataTable.from_csv("x,y\n0.4,3\n10,100\n5,60\n9.8,99\n")
    assert bench.point_recovery(read, gold) == (2, 3)
    assert bench.point_recovery(read, gold, tol=0.1) == (3, 3)
    # a reading as lines: x labels as text, one column per series
    wide = DataTable.from_csv("Year,A,B\n0,0,50\n10,100,\n")
    assert bench.point_recovery(wide, gold) == (2, 3)
    assert bench.point_recovery(None, gold) == (0, 3)
    [(_, spec)] = bench.tables(["scatter"], 1, 0)
    n = len(spec.table.rows)
    assert bench.score(spec, spec.table, None, 2)["cells"] == [n, n]


def test_summary_per_library_and_type(bench: ModuleType) -> None:
    rows = [
        {"library": "echarts", "type": "bar", "found": True, "read_as": "vbar",
         "cells": [3, 4], "qa": [1.0, 2.0], "cpu_s": 0.5},
        {"library": "echarts", "type": "bar", "found": False, "read_as": "none",
         "cells": [0, 5], "qa": [0.0, 3.0], "cpu_s": 0.3},
        {"library": "echarts", "type": "pie", "error_draw": "Error: x"},
    ]  # fmt: skip
    s = bench.summarise(rows)
    assert s["echarts/bar"] == {
        "n": 2, "found": 1, "cells": [3, 9], "qa": [1.0, 5.0],
        "read_as": {"vbar": 1, "none": 1}, "median_cpu_s": 0.4,
    }  # fmt: skip
    assert "echarts/pie" not in s and s["echarts/all"]["n"] == 2


@pytest.mark.slow
def test_each_library_draws_at_the_matplotlib_size(bench: ModuleType) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian chromium not installed")
    pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    missing = [p for lib in bench.LIBRARIES.values() for p in lib.packages
               if bench._installed(bench.CACHE, p) != p.rsplit("@", 1)[1]]  # fmt: skip
    if missing:
        pytest.skip(f"{missing} not in {bench.CACHE} (bench_styles.py installs them with npm)")
    from PIL import Image

    spec = _chart("grouped_bar", GROUPED)
    browser = bench.Browser(bench.install(list(bench.LIBRARIES), bench.CACHE), chromium)
    try:
        for name in bench.LIBRARIES:
            image = Image.open(io.BytesIO(browser.draw(name, spec))).convert("L")
            assert image.size == (640, 480), name
            # drawn: marks and text on the white page (a blank page has none)
            assert sum(image.histogram()[:240]) > 5000, name
    finally:
        browser.close()
