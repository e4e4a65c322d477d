"""The built-in reader (`builtin:reader`) on charts drawn by plotting libraries it was never
tuned on (issue 42's visual held-out check).

Draws the same seeded tables (the chartr suite's templates, `chartproof generate`'s tables)
with the project's own renderer (matplotlib) and with JavaScript plotting libraries in
headless Chromium (Debian's `chromium`, driven through Playwright): Vega-Lite, ECharts and
Chart.js, each with its default look plus the table's title, axis titles, a legend where
there are several series or wedges, and printed values where the table's chart has them
(pies). Chart types: bar (vertical), hbar, grouped_bar (vertical and horizontal), line (one
series), lines (several), scatter, pie; every image has the pixel size of the matplotlib one.

For each image it reads the chart from the PNG file as `builtin:reader` does and reports,
per library x chart type with n: charts found (no "no chart found" error), table cells
recovered (ChartQA's 5 %, `bench_reader.table_recovery`; none for scatter, whose points
have no labels), question accuracy (relaxed) on the generated questions the gold table
answers, the chart types read, and the median CPU seconds of a read. The libraries are
installed with npm into a cache folder outside the repository at run time (`--cache`,
pinned versions), never committed. This is a measurement, not a target: the exit status is
1 only on errors (a chart a library failed to draw), 2 when Chromium, Playwright or npm is
missing.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_styles.py --n 8 --json /tmp/styles.json
    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_styles.py --n 2 --libraries echarts \\
        --types line,scatter --save /tmp/styles    # also keep the drawn PNGs
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from chartproof.charts import render
from chartproof.charts.suites.chartr import CHARTR
from chartproof.metrics.accuracy import relaxed_accuracy
from chartproof.numeric import parse_number
from chartproof.questions import make_questions
from chartproof.reader import solve, view_of, view_of_table
from chartproof.reader.perception import get_engine
from chartproof.types import ChartSpec, DataTable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_reader import _read_file, table_recovery

CACHE = Path.home() / ".cache" / "chartproof" / "bench-styles"

TYPES: dict[str, tuple[str, ...]] = {
    "bar": ("bar_basic", "bar_years"),
    "hbar": ("hbar_basic", "hbar_ascending"),
    "grouped_bar": ("grouped_2", "grouped_3", "grouped_h"),
    "line": ("line_monthly", "line_trend"),
    "lines": ("lines_multi", "lines_monthly"),
    "scatter": ("scatter_corr", "scatter_groups"),
    "pie": ("pie_legend", "pie_labels"),
}
"""Bench chart type -> the chartr templates its tables come from, used in turn."""


# ---------------------------------------------------------------------- tables


def tables(types: list[str], n: int, seed: int) -> Iterator[tuple[str, ChartSpec]]:
    """(type, spec): `n` seeded charts of each type, from the chartr suite's templates in
    turn; chart i of the k-th type is chartr's chart 1000 k + i of `seed`."""
    for k, kind in enumerate(TYPES):
        if kind not in types:
            continue
        names = TYPES[kind]
        for i in range(n):
            template = CHARTR.templates[names[i % len(names)]]
            yield kind, template(CHARTR.context(seed, 1000 * k + i))


def _size(spec: ChartSpec) -> tuple[int, int]:
    """The matplotlib image's pixel size (inches x dpi), which every library draws at."""
    return round(spec.style.width * spec.style.dpi), round(spec.style.height * spec.style.dpi)


def _columns(spec: ChartSpec) -> tuple[list[str], list[tuple[str, list[float]]]]:
    """(category labels, [(series name, values)]) of a bar, line or pie chart."""
    t = spec.table
    cats = list(t.labels(spec.encoding.x))
    series = [(y, [float(r[t.index(y)]) for r in t.rows]) for y in spec.encoding.y]  # type: ignore[arg-type]
    return cats, series


def _points(spec: ChartSpec) -> list[tuple[str, list[tuple[float, float]]]]:
    """[(group, [(x, y)])] of a scatter chart: one group named after the y column unless
    the table has a grouping column."""
    t = spec.table
    x, y, by = t.index(spec.encoding.x), t.index(spec.encoding.y[0]), spec.encoding.series
    groups: dict[str, list[tuple[float, float]]] = {}
    for r in t.rows:
        name = str(r[t.index(by)]) if by is not None else spec.encoding.y[0]
        groups.setdefault(name, []).append((float(r[x]), float(r[y])))  # type: ignore[arg-type]
    return list(groups.items())


def _pie_labels(spec: ChartSpec) -> list[str]:
    """Each wedge's printed text, as the matplotlib pie prints it (value, with the label
    when there is no legend)."""
    cats, [(_, values)] = _columns(spec)
    text = [spec.style.value_format.format(v) for v in values]
    return text if spec.style.legend else [f"{c}: {v}" for c, v in zip(cats, text, strict=True)]


def _horizontal(spec: ChartSpec) -> bool:
    return spec.chart_type == "hbar" or (
        spec.chart_type == "grouped_bar" and spec.style.orientation == "horizontal"
    )


# ---------------------------------------------------------------------- library specs


def vega_lite_spec(spec: ChartSpec) -> dict[str, Any]:
    """The Vega-Lite specification of `spec`'s chart (fields c: category or x, v: value or
    y, s: series)."""
    w, h = _size(spec)
    out: dict[str, Any] = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": w,
        "height": h,
        "autosize": {"type": "fit", "contains": "padding"},
        "background": "white",
    }
    if spec.style.title:
        out["title"] = spec.style.title
    x_title, y_title = spec.style.x_title, spec.style.y_title
    if spec.chart_type == "scatter":
        groups = _points(spec)
        out["data"] = {"values": [{"c": x, "v": y, "s": g} for g, ps in groups for x, y in ps]}
        out["mark"] = "point"
        enc: dict[str, Any] = {
            "x": {"field": "c", "type": "quantitative", "title": x_title},
            "y": {"field": "v", "type": "quantitative", "title": y_title},
        }
        if len(groups) > 1:
            enc["color"] = {"field": "s", "type": "nominal", "title": spec.encoding.series}
        out["encoding"] = enc
        return out
    cats, series = _columns(spec)
    out["data"] = {
        "values": [
            {"c": c, "v": v, "s": name}
            for name, vs in series
            for c, v in zip(cats, vs, strict=True)
        ]
    }
    if spec.chart_type == "pie":
        arc = {"field": "v", "type": "quantitative", "stack": True}
        colour = {"field": "c", "type": "nominal", "sort": None, "title": None}
        labels = dict(zip(cats, _pie_labels(spec), strict=True))
        for row in out["data"]["values"]:
            row["t"] = labels[row["c"]]
        out["encoding"] = {
            "theta": arc,
            "color": colour,
            "order": {"field": "o", "type": "quantitative"},
        }
        for i, row in enumerate(out["data"]["values"]):
            row["o"] = i
        radius = min(w, h) * 0.35
        out["layer"] = [
            {"mark": {"type": "arc", "outerRadius": radius}},
            {
                "mark": {"type": "text", "radius": radius * (0.65 if spec.style.legend else 1.2)},
                "encoding": {"text": {"field": "t", "type": "nominal"}},
            },
        ]
        if not spec.style.legend:
            colour["legend"] = None
        return out
    cat = {"field": "c", "type": "ordinal", "sort": None, "title": x_title}
    val = {"field": "v", "type": "quantitative", "title": y_title}
    enc = {"x": cat, "y": val}
    if _horizontal(spec):
        enc = {"x": val, "y": cat}
    if len(series) > 1:
        enc["color"] = {"field": "s", "type": "nominal", "sort": None, "title": None}
        if spec.chart_type == "grouped_bar":
            enc["yOffset" if _horizontal(spec) else "xOffset"] = {"field": "s", "sort": None}
    if spec.chart_type == "line":
        out["mark"] = {"type": "line", "point": spec.style.markers}
    else:
        out["mark"] = "bar"
    out["encoding"] = enc
    return out


def echarts_option(spec: ChartSpec) -> dict[str, Any]:
    """The ECharts option of `spec`'s chart (animation off, white background)."""
    out: dict[str, Any] = {"animation": False, "backgroundColor": "#ffffff"}
    if spec.style.title:
        out["title"] = {"text": spec.style.title, "left": "center"}
    named = {"nameLocation": "middle", "nameGap": 32}
    x_axis = {**named, "name": spec.style.x_title or ""}
    y_axis = {**named, "name": spec.style.y_title or "", "nameGap": 48}
    if spec.chart_type == "scatter":
        groups = _points(spec)
        out["xAxis"] = {**x_axis, "type": "value"}
        out["yAxis"] = {**y_axis, "type": "value"}
        out["series"] = [{"type": "scatter", "name": g, "data": ps} for g, ps in groups]
        if len(groups) > 1:
            out["legend"] = {"top": "bottom"}
        return out
    cats, series = _columns(spec)
    if spec.chart_type == "pie":
        inside = spec.style.legend
        out["series"] = [
            {
                "type": "pie",
                "radius": "60%",
                "data": [
                    {"name": c, "value": v, "label": {"formatter": t}}
                    for c, v, t in zip(cats, series[0][1], _pie_labels(spec), strict=True)
                ],
                "label": {"position": "inside" if inside else "outside"},
            }
        ]
        if inside:
            out["legend"] = {"orient": "vertical", "right": 10, "top": "middle"}
        return out
    kind = "line" if spec.chart_type == "line" else "bar"
    out["series"] = [
        {"type": kind, "name": name, "data": vs}
        | ({"showSymbol": spec.style.markers} if kind == "line" else {})
        for name, vs in series
    ]
    # every category label drawn: ECharts leaves out labels it guesses would overlap
    cat_axis = {"type": "category", "data": cats, "axisLabel": {"interval": 0}}
    if _horizontal(spec):
        out["xAxis"] = {**y_axis, "type": "value"}
        out["yAxis"] = {**x_axis, **cat_axis, "nameGap": 60}
    else:
        out["xAxis"] = {**x_axis, **cat_axis}
        out["yAxis"] = {**y_axis, "type": "value"}
    if len(series) > 1:
        out["legend"] = {"top": "bottom"}
        out["grid"] = {"bottom": 70}
    return out


def chartjs_config(spec: ChartSpec) -> dict[str, Any]:
    """The Chart.js configuration of `spec`'s chart (not responsive, no animation); a pie's
    printed texts go in `labels_text` for the page to hand to chartjs-plugin-datalabels."""
    plugins: dict[str, Any] = {
        "title": {"display": bool(spec.style.title), "text": spec.style.title or ""}
    }
    options: dict[str, Any] = {
        "animation": False,
        "responsive": False,
        "devicePixelRatio": 1,
        "plugins": plugins,
    }

    def titled(text: str | None) -> dict[str, Any]:
        return {"title": {"display": bool(text), "text": text or ""}}

    if spec.chart_type == "scatter":
        groups = _points(spec)
        datasets = [{"label": g, "data": [{"x": x, "y": y} for x, y in ps]} for g, ps in groups]
        plugins["legend"] = {"display": len(groups) > 1}
        options["scales"] = {"x": titled(spec.style.x_title), "y": titled(spec.style.y_title)}
        return {"type": "scatter", "data": {"datasets": datasets}, "options": options}
    cats, series = _columns(spec)
    datasets = [{"label": name, "data": vs} for name, vs in series]
    if spec.chart_type == "pie":
        plugins["legend"] = {"display": spec.style.legend}
        return {
            "type": "pie",
            "data": {"labels": cats, "datasets": datasets},
            "options": options,
            "labels_text": _pie_labels(spec),
        }
    if spec.chart_type == "line":
        for d in datasets:
            d["pointRadius"] = 3 if spec.style.markers else 0
    plugins["legend"] = {"display": len(series) > 1}
    cat, val = titled(spec.style.x_title), titled(spec.style.y_title)
    cat["ticks"] = {"autoSkip": False}  # every category label (Chart.js skips crowded ones)
    if _horizontal(spec):
        options["indexAxis"] = "y"
        options["scales"] = {"x": val, "y": cat}
    else:
        options["scales"] = {"x": cat, "y": val}
    kind = "line" if spec.chart_type == "line" else "bar"
    return {"type": kind, "data": {"labels": cats, "datasets": datasets}, "options": options}


# ---------------------------------------------------------------------- libraries


@dataclass(frozen=True)
class Library:
    """A JavaScript plotting library: its npm packages (pinned), the scripts a page loads
    from them, the page's `draw(cfg)` and the configuration a chart is drawn from."""

    packages: tuple[str, ...]
    scripts: tuple[str, ...]
    draw: str
    config: Callable[[ChartSpec], dict[str, Any]]


LIBRARIES: dict[str, Library] = {
    "vega-lite": Library(
        ("vega@5.33.1", "vega-lite@5.23.0"),
        ("vega/build/vega.min.js", "vega-lite/build/vega-lite.min.js"),
        """window.draw = async (cfg) => {
          if (window._view) window._view.finalize();
          const el = document.getElementById('c');
          el.innerHTML = '';
          const parsed = vega.parse(vegaLite.compile(cfg).spec);
          window._view = new vega.View(parsed, {renderer: 'canvas', container: el});
          await window._view.runAsync();
        };""",
        vega_lite_spec,
    ),
    "echarts": Library(
        ("echarts@5.6.0",),
        ("echarts/dist/echarts.min.js",),
        """window.draw = async (cfg) => {
          if (window._chart) window._chart.dispose();
          const el = document.getElementById('c');
          el.style.width = cfg.width + 'px';
          el.style.height = cfg.height + 'px';
          window._chart = echarts.init(el, null, {renderer: 'canvas', devicePixelRatio: 1});
          window._chart.setOption(cfg.option);
        };""",
        lambda spec: {"option": echarts_option(spec)},
    ),
    "chartjs": Library(
        ("chart.js@4.6.2", "chartjs-plugin-datalabels@2.2.0"),
        (
            "chart.js/dist/chart.umd.js",
            "chartjs-plugin-datalabels/dist/chartjs-plugin-datalabels.min.js",
        ),
        """window.draw = async (cfg) => {
          if (window._chart) window._chart.destroy();
          const el = document.getElementById('c');
          el.innerHTML = '';
          const canvas = document.createElement('canvas');
          canvas.width = cfg.width;
          canvas.height = cfg.height;
          el.appendChild(canvas);
          const c = cfg.config;
          const texts = c.labels_text;
          delete c.labels_text;
          if (texts) {
            c.plugins = [ChartDataLabels];
            c.options.plugins.datalabels = {formatter: (v, ctx) => texts[ctx.dataIndex]};
          }
          window._chart = new Chart(canvas, c);
        };""",
        lambda spec: {"config": chartjs_config(spec)},
    ),
}
"""Library name -> how it draws; `matplotlib` (the project's renderer) is the baseline."""


def install(names: list[str], cache: Path) -> dict[str, list[Path]]:
    """The script files of each library, installed with npm into `cache` when missing
    (RuntimeError with npm's last line when npm is absent or fails)."""
    out = {n: [cache / "node_modules" / s for s in LIBRARIES[n].scripts] for n in names}
    missing = [
        p
        for n in names
        for p in LIBRARIES[n].packages
        if _installed(cache, p) != p.rsplit("@", 1)[1] or any(not s.is_file() for s in out[n])
    ]
    if missing:
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm not found: it installs the plotting libraries")
        cache.mkdir(parents=True, exist_ok=True)
        cmd = [npm, "install", "--prefix", str(cache), "--no-audit", "--no-fund", *missing]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
            raise RuntimeError(f"npm install {' '.join(missing)} failed: {' '.join(tail)}")
    return out


def _installed(cache: Path, package: str) -> str | None:
    """The version of `package` ("name@version") installed in `cache`, None when absent."""
    meta = cache / "node_modules" / package.rsplit("@", 1)[0] / "package.json"
    if not meta.is_file():
        return None
    return str(json.loads(meta.read_text(encoding="utf-8")).get("version"))


class Browser:
    """Headless Chromium with one page per library, its scripts loaded once."""

    def __init__(self, scripts: dict[str, list[Path]], executable: str) -> None:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(executable_path=executable)
        self.pages: dict[str, Any] = {}
        for name, files in scripts.items():
            page = self._browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_content(
                "<html><head><style>#c canvas{display:block} #c form{display:none}</style></head><body "
                "style='margin:0;background:#fff'><div id='c' style='display:inline-block'>"
                "</div></body></html>"
            )
            for f in files:
                page.add_script_tag(path=str(f))
            page.add_script_tag(content=LIBRARIES[name].draw)
            self.pages[name] = page

    def draw(self, library: str, spec: ChartSpec) -> bytes:
        """The PNG of `spec` drawn by `library`, at the matplotlib image's pixel size."""
        page = self.pages[library]
        w, h = _size(spec)
        page.evaluate("cfg => draw(cfg)", {**LIBRARIES[library].config(spec), "width": w, "height": h})  # fmt: skip
        png: bytes = page.locator("#c").screenshot(animations="disabled")
        return png

    def close(self) -> None:
        self._browser.close()
        self._pw.stop()


# ---------------------------------------------------------------------- scoring


def _xy(table: DataTable) -> list[tuple[float, float]]:
    """The (x, y) points of a table: the first column's numbers (or labels that parse as
    numbers) against each numeric column's value in the row."""
    out: list[tuple[float, float]] = []
    ys = [i for i, c in enumerate(table.columns) if i > 0 and c.kind == "number"]
    for row in table.rows:
        x = row[0] if isinstance(row[0], float) else parse_number(str(row[0]))
        for i in ys:
            y = row[i]
            if x is not None and isinstance(y, float):
                out.append((x, y))
    return out


def point_recovery(
    pred: DataTable | None, gold: list[tuple[float, float]], tol: float = 0.05
) -> tuple[int, int]:
    """(gold points matched, gold points) of a scatter chart, whose points have no labels to
    match cells by: read and gold points paired one to one (scipy's assignment, least
    summed distance in axis ranges), a pair counting when it lies within `tol` of the gold
    points' x range and of their y range."""
    from scipy.optimize import linear_sum_assignment

    want = np.array(gold, dtype=float).reshape(-1, 2)
    got = np.array(_xy(pred) if pred is not None else [], dtype=float).reshape(-1, 2)
    if len(want) == 0 or len(got) == 0:
        return 0, len(want)
    span = np.maximum(np.ptp(want, axis=0), 1e-12)
    off = np.abs(want[:, None, :] - got[None, :, :]) / span  # gold x read x axis
    rows, cols = linear_sum_assignment(off.sum(axis=2))
    return int((off[rows, cols].max(axis=1) <= tol).sum()), len(want)


def score(spec: ChartSpec, table: DataTable | None, view: Any, per_chart: int) -> dict[str, Any]:
    """One image's figures from what was read (`table` and its question `view`, None when
    no chart was found): cells right of the gold table's numeric cells (a scatter chart's
    points: `point_recovery`) and the generated questions answered right of those the gold
    table answers."""
    if spec.chart_type == "scatter":
        cells = point_recovery(table, [p for _, ps in _points(spec) for p in ps])
    else:
        cells = table_recovery(table, spec.table)
    gold = view_of_table(spec.table, spec.chart_type, x_title=spec.style.x_title)
    right = asked = 0.0
    for item in make_questions(spec, seed=0, per_chart=per_chart, with_premises=False):
        if relaxed_accuracy(solve(item.question, gold).answer, item.answer) < 1.0:
            continue
        asked += 1
        if view is not None:
            right += relaxed_accuracy(solve(item.question, view).answer, item.answer)
    return {"cells": list(cells), "qa": [right, asked]}


def read_and_score(png: bytes, spec: ChartSpec, per_chart: int) -> dict[str, Any]:
    """Read the PNG from a file as `builtin:reader` does and score it (`score`), with the
    chart type read (or "none" and the error) and the read's CPU and wall seconds."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chart.png"
        path.write_bytes(png)
        reading, wall, cpu = _read_file(path)
    found = not isinstance(reading, str)
    row = score(
        spec,
        reading.table if found else None,
        view_of(reading) if found else None,
        per_chart,
    )
    row |= {
        "found": found,
        "read_as": reading.chart_type if found else "none",
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
    }
    if not found:
        row["error"] = reading
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per "library/type" (and "library/all"): n, charts found, cells, questions, the chart
    types read and the median CPU seconds of a read."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if "error_draw" in r:
            continue
        groups[f"{r['library']}/{r['type']}"].append(r)
        groups[f"{r['library']}/all"].append(r)
    out = {}
    for key, rs in sorted(groups.items()):
        out[key] = {
            "n": len(rs),
            "found": sum(r["found"] for r in rs),
            "cells": [sum(r["cells"][0] for r in rs), sum(r["cells"][1] for r in rs)],
            "qa": [sum(r["qa"][0] for r in rs), sum(r["qa"][1] for r in rs)],
            "read_as": dict(Counter(r["read_as"] for r in rs).most_common()),
            "median_cpu_s": statistics.median(r["cpu_s"] for r in rs),
        }
    return out


# ---------------------------------------------------------------------- main


def _pct(a: float, b: float) -> str:
    return f"{100 * a / b:5.1f}% ({a:g}/{b:g})" if b else "n/a"


def _print(summary: dict[str, dict[str, Any]], libraries: list[str], types: list[str]) -> None:
    head = f"{'type':12s} {'library':10s} {'n':>3s} {'found':>6s}  {'cells (5 %)':24s} {'questions':24s} {'CPU s':>5s}  read as"  # fmt: skip
    print(head)
    for kind in [*types, "all"]:
        for lib in ["matplotlib", *libraries]:
            s = summary.get(f"{lib}/{kind}")
            if s is None:
                continue
            read_as = ", ".join(f"{k} {v}" for k, v in s["read_as"].items())
            print(
                f"{kind:12s} {lib:10s} {s['n']:3d} {s['found']:3d}/{s['n']:<2d}  "
                f"{_pct(*s['cells']):24s} {_pct(*s['qa']):24s} {s['median_cpu_s']:5.2f}  {read_as}"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=8, help="tables per chart type")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-chart", type=int, default=3, help="generated questions per chart")
    ap.add_argument("--libraries", default=",".join(LIBRARIES), help="comma-separated")
    ap.add_argument("--types", default=",".join(TYPES), help="comma-separated chart types")
    ap.add_argument("--cache", type=Path, default=CACHE, help="npm folder for the libraries")
    ap.add_argument("--save", type=Path, help="also write every drawn PNG into this folder")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    libraries, types = args.libraries.split(","), args.types.split(",")
    unknown = [x for x in libraries if x not in LIBRARIES] + [t for t in types if t not in TYPES]
    if unknown:
        ap.error(f"unknown libraries or types {unknown}: libraries {list(LIBRARIES)}, types {list(TYPES)}")  # fmt: skip
    chromium = shutil.which("chromium")
    if chromium is None:
        print("Debian's chromium not found on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    try:
        browser = Browser(install(libraries, args.cache), chromium)
    except (RuntimeError, ImportError) as e:
        print(f"cannot draw with the libraries: {e}", file=sys.stderr)
        return 2
    get_engine().read(np.full((64, 64, 3), 255, dtype=np.uint8))  # load the models first
    rows: list[dict[str, Any]] = []
    try:
        for kind, spec in tables(types, args.n, args.seed):
            for lib in ["matplotlib", *libraries]:
                row: dict[str, Any] = {"library": lib, "type": kind, "chart": spec.id}
                try:
                    png = render(spec).png if lib == "matplotlib" else browser.draw(lib, spec)
                except Exception as e:  # a library's JS error: reported, the run goes on
                    rows.append(row | {"error_draw": f"{type(e).__name__}: {e}"[:300]})
                    print(f"  {lib} could not draw {spec.id} ({kind}): {e}", file=sys.stderr)
                    continue
                if args.save:
                    args.save.mkdir(parents=True, exist_ok=True)
                    (args.save / f"{spec.id}-{kind}-{lib}.png").write_bytes(png)
                rows.append(row | read_and_score(png, spec, args.per_chart))
    finally:
        browser.close()
    summary = summarise(rows)
    print(f"== {args.n} tables per type (chartr templates, seed {args.seed}), read from PNG")
    _print(summary, libraries, types)
    errors = [r for r in rows if "error_draw" in r]
    if args.json:
        out = {"args": {k: str(v) for k, v in vars(args).items()}, "summary": summary, "rows": rows}
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
