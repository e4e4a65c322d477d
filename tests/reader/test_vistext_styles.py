"""Perception rules for VisText-style charts (Vega-Lite and ggplot renders of the ChartBias
images), on small hand-drawn charts with their text tokens given (no OCR): a plot on a canvas
much wider than itself, an area filled in dark grey, year labels turned 90°, a line drawn
6 px thick, and a dense axis that labels every other year."""

from __future__ import annotations

import numpy as np
import pytest

from chartproof.ocr import OcrToken
from chartproof.reader.perception import read_chart
from chartproof.reader.perception.palette import ColorLayer
from chartproof.reader.perception.plot_extent import solid_fill
from chartproof.reader.perception.thick_lines import thick_stroke, thin_stroke
from chartproof.reader.perception.upright_labels import (
    one_number,
    sparse_numbers,
    top_edge,
    upright_row,
)

cv2 = pytest.importorskip("cv2", reason="the reader needs: pip install 'chartproof[reader]'")

GOLD = (200, 157, 41)
DARK = (77, 77, 77)
ORANGE = (230, 108, 55)
GRID = (221, 221, 221)
LEFT, RIGHT, TOP, BOTTOM = 100, 400, 40, 240  # the plot; y = 0 at BOTTOM, 20 at TOP
YEARS = [2010, 2012, 2014, 2016, 2018]


def _tok(text: str, box: tuple[float, float, float, float], **kw: object) -> OcrToken:
    return OcrToken(text=text, box=box, score=0.99, **kw)  # type: ignore[arg-type]


def _y(value: float) -> int:
    return round(BOTTOM - (BOTTOM - TOP) * value / 20)


def _x(i: int, n: int) -> int:
    return round(LEFT + (RIGHT - LEFT) * i / (n - 1))


def _canvas(width: int) -> tuple[np.ndarray, list[OcrToken]]:
    """White canvas, light gridlines at y = 0, 5, 10, 15, 20 and their tick labels."""
    img = np.full((320, width, 3), 255, dtype=np.uint8)
    toks = []
    for v in (0, 5, 10, 15, 20):
        img[_y(v), LEFT : RIGHT + 1] = GRID
        toks.append(_tok(str(v), (70, _y(v) - 8, 92, _y(v) + 8)))
    toks.append(_tok("Deaths per 1,000", (10, 2, 200, 22)))
    return img, toks


def _year_labels(n_slots: int, *, upright: bool, every: int = 1, step: int = 2) -> list[OcrToken]:
    """Year labels under the slots (every `every`-th one), `step` years apart per slot."""
    out = []
    for i in range(0, n_slots, every):
        x = _x(i, n_slots)
        year = str(2010 + step * i)
        if upright:
            out.append(_tok(year, (x - 7, BOTTOM + 8, x + 7, BOTTOM + 44), vertical=True))
        else:
            out.append(_tok(year, (x - 16, BOTTOM + 8, x + 16, BOTTOM + 24)))
    out.append(_tok("Year", (230, 290, 270, 308)))
    return out


def _area(img: np.ndarray, values: list[float], rgb: tuple[int, int, int]) -> None:
    n = len(values)
    pts = [(_x(i, n), _y(v)) for i, v in enumerate(values)]
    poly = np.array([(LEFT, BOTTOM), *pts, (RIGHT, BOTTOM)], dtype=np.int32)
    canvas = np.ascontiguousarray(img[:, :, ::-1])
    cv2.fillPoly(canvas, [poly], rgb[::-1], lineType=cv2.LINE_8)
    img[:] = canvas[:, :, ::-1]


def _line(img: np.ndarray, values: list[float], rgb: tuple[int, int, int], width: int) -> None:
    n = len(values)
    pts = np.array([(_x(i, n), _y(v)) for i, v in enumerate(values)], dtype=np.int32)
    canvas = np.ascontiguousarray(img[:, :, ::-1])
    cv2.polylines(canvas, [pts], False, rgb[::-1], thickness=width, lineType=cv2.LINE_8)
    img[:] = canvas[:, :, ::-1]


def _values(reading_rows: tuple[tuple[object, ...], ...]) -> list[float]:
    return [float(r[1]) for r in reading_rows]  # type: ignore[arg-type]


FIVE = [15.0, 14.0, 12.0, 11.0, 10.0]


def test_an_area_on_a_canvas_three_times_wider_than_its_plot() -> None:
    # Vega-Lite leaves the right of a 1,050 px canvas blank: the band is 29 % of the image
    # wide but the whole plot, and was read as no chart at all
    img, toks = _canvas(1050)
    _area(img, FIVE, GOLD)
    reading = read_chart(img, [*toks, *_year_labels(5, upright=False)])
    assert reading.chart_type == "area"
    assert [r[0] for r in reading.table.rows] == [str(y) for y in YEARS]
    assert _values(reading.table.rows) == pytest.approx(FIVE, abs=0.25)


def test_an_area_filled_in_dark_grey_is_no_text() -> None:
    # ggplot's default fill has the luma of text and axes; one solid region is a mark
    img, toks = _canvas(500)
    _area(img, FIVE, DARK)
    reading = read_chart(img, [*toks, *_year_labels(5, upright=False)])
    assert reading.chart_type == "area"
    assert _values(reading.table.rows) == pytest.approx(FIVE, abs=0.25)


def test_year_labels_turned_upright_are_the_categories_not_the_axis_title() -> None:
    img, toks = _canvas(500)
    _line(img, FIVE, ORANGE, 2)
    reading = read_chart(img, [*toks, *_year_labels(5, upright=True)])
    assert reading.chart_type == "line"
    assert [r[0] for r in reading.table.rows] == [str(y) for y in YEARS]
    assert _values(reading.table.rows) == pytest.approx(FIVE, abs=0.3)
    # the upright labels are not the y-axis title either
    assert "2010" not in (reading.table.columns[1].name or "")


def test_a_line_drawn_six_pixels_thick() -> None:
    img, toks = _canvas(500)
    _line(img, FIVE, ORANGE, 6)
    reading = read_chart(img, [*toks, *_year_labels(5, upright=False)])
    assert reading.chart_type == "line"
    assert [r[0] for r in reading.table.rows] == [str(y) for y in YEARS]
    assert _values(reading.table.rows) == pytest.approx(FIVE, abs=0.4)


def test_a_dense_axis_labelling_every_other_year_keeps_every_year() -> None:
    # nine yearly values, labels on even years only: the top edge bends at every year, and
    # a label wider than a year's slot is one number, never cut into "20" and "12"
    nine = [15.0, 12.0, 14.0, 11.0, 13.0, 9.0, 12.0, 8.0, 10.0]
    img, toks = _canvas(500)
    _area(img, nine, GOLD)
    reading = read_chart(img, [*toks, *_year_labels(9, upright=False, every=2, step=1)])
    assert [r[0] for r in reading.table.rows] == [str(2010 + i) for i in range(9)]
    assert _values(reading.table.rows) == pytest.approx(nine, abs=0.3)


# ------------------------------------------------------------------ the rules one by one


def test_upright_row_takes_the_vertical_labels_under_the_plot() -> None:
    labels = _year_labels(5, upright=True)
    row = upright_row(labels, BOTTOM, LEFT, RIGHT)
    assert [t.text for t in row] == [str(y) for y in YEARS]
    flat = _year_labels(5, upright=False)
    assert upright_row(flat, BOTTOM, LEFT, RIGHT) == []
    # horizontal labels between the plot and the upright text are the labels instead
    above = [
        _tok("2010", (84, BOTTOM + 2, 116, BOTTOM + 6)),
        _tok("2012", (159, BOTTOM + 2, 191, BOTTOM + 6)),
    ]
    assert upright_row([*above, *labels], BOTTOM, LEFT, RIGHT) == []


@pytest.mark.parametrize(
    ("text", "want"),
    [("2005", True), ("1,500", True), ("2005 2010", False), ("Year", False), ("", False)],
)
def test_one_number(text: str, want: bool) -> None:
    assert one_number(text) is want


@pytest.mark.parametrize(
    ("texts", "slots", "want"),
    [
        (["2001", None, "2003", None, "2005", None], 6, True),
        (["2001", None, None, None, None, None, None, None], 8, False),  # one label
        (["Jan", None, "Mar", None], 4, False),  # not numbers
    ],
)
def test_sparse_numbers(texts: list[str | None], slots: int, want: bool) -> None:
    assert sparse_numbers(texts, slots) is want


def test_top_edge_is_one_pixel_per_column() -> None:
    m = np.zeros((10, 4), bool)
    m[3:, 0] = True
    m[6:, 2] = True
    edge = top_edge(m)
    assert edge.sum() == 2 and edge[3, 0] and edge[6, 2]


def test_thick_stroke_and_thinning() -> None:
    img = np.full((300, 500, 3), 255, dtype=np.uint8)
    _line(img, FIVE, ORANGE, 6)
    mask = np.all(img == np.array(ORANGE, np.uint8), axis=2)
    assert thick_stroke(mask, 500, straight=False)
    assert not thick_stroke(mask, 500, straight=True)
    thin = thin_stroke(mask)
    assert np.median(thin.sum(axis=0)[thin.any(axis=0)]) <= 2
    assert thin.any(axis=0).sum() >= 0.9 * mask.any(axis=0).sum()
    block = np.zeros((300, 500), bool)
    block[100:200, 100:400] = True  # a filled region is no line
    assert not thick_stroke(block, 500, straight=False)


def test_solid_fill_tells_a_dark_area_from_text() -> None:
    area = np.zeros((300, 500), bool)
    area[100:240, 100:400] = True
    assert solid_fill(ColorLayer(rgb=DARK, mask=area, count=int(area.sum())), (500, 300))
    text = np.zeros((300, 500), bool)
    text[10:22, 10:300:3] = True  # glyph strokes
    assert not solid_fill(ColorLayer(rgb=DARK, mask=text, count=int(text.sum())), (500, 300))
