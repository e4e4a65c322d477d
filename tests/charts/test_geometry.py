"""The geometry sidecar agrees with the pixels: marks hold their series colour, text boxes
hold their ink and nothing of it spills out, axis maps put ticks and marks where they are."""

from __future__ import annotations

import io
from collections import Counter

import numpy as np
import pytest
from PIL import Image

from chartproof.charts import Geometry, Rendered, load_geometry, render_to_file
from chartproof.charts.colors import hex_to_rgb
from chartproof.charts.geometry import Box, TextElement
from chartproof.types import ChartSpec

GALLERY = (
    "vbar", "hbar", "grouped", "grouped_h", "stacked", "stacked_h", "line", "lines", "area",
    "pie", "pie_labels", "box", "box_h", "scatter", "log_lines", "line_gap", "no_ticks",
)  # fmt: skip


def _pixels(rendered: Rendered) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(rendered.png)).convert("RGB")).astype(int)


def _inner(box: Box, shrink: float) -> Box:
    return Box(x0=box.x0 + shrink, y0=box.y0 + shrink, x1=box.x1 - shrink, y1=box.y1 - shrink)


def _mode(img: np.ndarray, box: Box) -> tuple[int, int, int]:
    rows, cols = box.pixel_slice(img.shape[1], img.shape[0])
    patch = img[rows, cols].reshape(-1, 3)
    assert len(patch), f"empty box {box}"
    (color, _), *_ = Counter(map(tuple, patch)).most_common(1)
    return color  # type: ignore[no-any-return]


def _near(a: tuple[int, int, int], b: tuple[int, int, int], tol: int = 6) -> bool:
    return max(abs(p - q) for p, q in zip(a, b, strict=True)) <= tol


def _count_color(img: np.ndarray, box: Box, color: tuple[int, int, int]) -> int:
    rows, cols = box.pixel_slice(img.shape[1], img.shape[0])
    patch = img[rows, cols]
    return int((np.abs(patch - np.array(color)).max(axis=2) <= 6).sum())


@pytest.mark.parametrize("name", GALLERY)
def test_marks_show_their_series_colour(name: str, renders: dict[str, Rendered]) -> None:
    rendered = renders[name]
    img = _pixels(rendered)
    geo = rendered.geometry
    assert geo.marks, "no marks recorded"
    anchored = 0
    for mark in geo.marks:
        want = hex_to_rgb(mark.color)
        where = f"{mark.kind} row {mark.row} column {mark.column}"
        if mark.kind in ("bar", "box"):
            assert _near(_mode(img, _inner(mark.box, 2)), want), where
        elif mark.kind == "area":
            x, y = mark.anchor
            column = Box(x0=int(x), y0=mark.box.y0 + 2, x1=int(x) + 1, y1=mark.box.y1 - 2)
            if column.height > 4:
                assert _near(_mode(img, column), want), where
        elif mark.kind == "wedge":
            x, y = mark.anchor
            assert _near(_mode(img, Box(x0=x - 2, y0=y - 2, x1=x + 3, y1=y + 3)), want), where
        elif mark.kind in ("vertex", "point"):
            assert _count_color(img, mark.box, want) >= 3, where
            x, y = mark.anchor
            anchored += _near(tuple(img[int(y), int(x)]), want)  # type: ignore[arg-type]
        elif mark.kind in ("median", "whisker"):
            assert _count_color(img, mark.box, want) >= 3, where
    points = [m for m in geo.marks if m.kind in ("vertex", "point")]
    # where lines cross or points overlap a later series may cover a vertex
    assert anchored >= 0.8 * len(points)


def _background(img: np.ndarray, box: Box) -> np.ndarray:
    ring = _ring(img, box, 2, 4)
    (color, _), *_ = Counter(map(tuple, ring)).most_common(1)
    return np.array(color)


def _ring(img: np.ndarray, box: Box, d0: int, d1: int) -> np.ndarray:
    h, w = img.shape[:2]
    outer = _grow(box, d1).pixel_slice(w, h)
    inner = _grow(box, d0).pixel_slice(w, h)
    mask = np.zeros((h, w), bool)
    mask[outer] = True
    mask[inner] = False
    return img[mask]


def _grow(box: Box, d: float) -> Box:
    return Box(x0=box.x0 - d, y0=box.y0 - d, x1=box.x1 + d, y1=box.y1 + d)


def _check_text(img: np.ndarray, text: TextElement) -> None:
    bg = _background(img, text.box)
    rows, cols = text.box.pixel_slice(img.shape[1], img.shape[0])
    inside = np.abs(img[rows, cols] - bg).sum(axis=2) > 150
    where = f"{text.role} {text.text!r} at {text.box}"
    assert inside.sum() >= 4, f"no ink inside {where}"
    # the box is complete: a thin ring just outside it holds no ink of this text's colour
    # glyph cores are drawn in the text colour: the pixel farthest from the background
    patch = img[rows, cols].reshape(-1, 3)
    ink_color = patch[np.abs(patch - bg).sum(axis=1).argmax()]
    ring = _ring(img, text.box, 1, 2)
    spilled = (np.abs(ring - np.array(ink_color)).sum(axis=1) < 60).sum()
    assert spilled <= 0.05 * len(ring), f"ink outside {where}: {spilled} of {len(ring)}"


@pytest.mark.parametrize("name", GALLERY)
def test_text_boxes_hold_their_ink(name: str, renders: dict[str, Rendered]) -> None:
    rendered = renders[name]
    img = _pixels(rendered)
    for text in rendered.geometry.texts:
        _check_text(img, text)


@pytest.mark.parametrize("name", GALLERY)
def test_legend_swatches_show_series_colours(name: str, renders: dict[str, Rendered]) -> None:
    rendered = renders[name]
    img = _pixels(rendered)
    for entry in rendered.geometry.legend:
        assert _count_color(img, entry.swatch_box, hex_to_rgb(entry.color)) >= 6, entry.label


def test_expected_elements_are_recorded(
    renders: dict[str, Rendered], specs: dict[str, ChartSpec]
) -> None:
    geo = renders["grouped"].geometry
    spec = specs["grouped"]
    assert len([m for m in geo.marks if m.kind == "bar"]) == 3 * spec.table.n_rows
    assert [e.series for e in geo.legend] == ["2019", "2020", "2021"]
    values = geo.texts_with_role("value_label")
    assert len(values) == 3 * spec.table.n_rows
    assert {(t.row, t.column) for t in values} == {
        (i, c) for i in range(spec.table.n_rows) for c in ("2019", "2020", "2021")
    }
    ticks = [t for t in geo.texts_with_role("tick_label") if t.axis == "x"]
    assert [t.text for t in ticks] == list(spec.table.labels("Source"))
    assert [t.row for t in ticks] == list(range(spec.table.n_rows))
    assert geo.texts_with_role("title")[0].text == "Generation by year"
    pie = renders["pie_labels"].geometry
    assert [t.text for t in pie.texts_with_role("category_label")] == list(
        specs["pie_labels"].table.labels("Browser")
    )
    assert [m.kind for m in renders["box"].geometry.marks[:4]] == [
        "box",
        "median",
        "whisker",
        "whisker",
    ]


def test_no_tick_labels_keeps_the_layout(renders: dict[str, Rendered]) -> None:
    bare = renders["no_ticks"].geometry
    assert not bare.texts_with_role("tick_label")
    assert bare.plot_area.width > 0


@pytest.mark.parametrize(
    "name", ["vbar", "hbar", "grouped_h", "stacked", "line", "scatter", "log_lines"]
)
def test_axis_maps_place_marks_and_ticks(name: str, renders: dict[str, Rendered]) -> None:
    geo: Geometry = renders[name].geometry
    for tick in geo.texts_with_role("tick_label"):
        assert tick.axis is not None and tick.value is not None
        at = geo.axis(tick.axis).to_pixel(tick.value)
        if tick.axis == "x" and geo.chart_type != "stacked_bar":  # those are rotated
            assert abs(at - tick.box.center[0]) <= 1.0, tick.text
        elif tick.axis == "y":  # centred on the baseline, so not on the box's middle
            assert tick.box.y0 < at < tick.box.y1, tick.text
    for mark in geo.marks:
        if mark.kind == "bar":
            horizontal = geo.axis("x").kind != "category"
            amap = geo.axis("x" if horizontal else "y")
            length = mark.box.width if horizontal else mark.box.height
            assert abs(amap.to_pixel(mark.value) - amap.to_pixel(0.0)) == pytest.approx(
                length, abs=1.0
            )
            if geo.chart_type != "stacked_bar":
                end = mark.box.x1 if horizontal else mark.box.y0
                assert amap.to_data(end) == pytest.approx(
                    mark.value, abs=0.01 * abs(amap.v1 - amap.v0)
                )
        elif mark.kind in ("vertex", "point"):
            assert abs(geo.axis("y").to_pixel(mark.value) - mark.anchor[1]) <= 1.0


def test_sidecar_round_trip(specs: dict[str, ChartSpec], tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "chart.png"  # type: ignore[operator]
    geo = render_to_file(specs["stacked"], path)
    assert (tmp_path / "chart.geometry.json").exists()  # type: ignore[operator]
    assert load_geometry(path) == geo
    assert Image.open(path).size == (geo.width, geo.height)


def test_fast_text_extent_matches_matplotlibs(specs: dict[str, ChartSpec]) -> None:
    """The extractor's shortcut gives exactly `Text.get_window_extent`'s boxes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from chartproof.charts._build import build_plan
    from chartproof.charts._extract import text_extent
    from chartproof.charts._layout import pinned_rc
    from chartproof.charts._plan import execute

    for name in ("grouped", "line", "pie_labels", "log_lines"):
        plan = build_plan(specs[name])
        with pinned_rc(plan.rc):
            fig = Figure(figsize=plan.figsize, dpi=plan.dpi)
            canvas = FigureCanvasAgg(fig)
            execute(fig, plan.ops)
            canvas.draw()
            renderer = canvas.get_renderer()
            texts = [t for t in fig.findobj(lambda a: hasattr(a, "get_text")) if t.get_text()]
            assert texts
            for t in texts:
                fast = text_extent(t, renderer).extents
                assert fast == pytest.approx(t.get_window_extent(renderer).extents, abs=1e-6)
