"""Charts exported at a high resolution read like the same charts at screen resolution: the
reader scales a chart whose text runs tall down to the text height derendering is tuned for
(`image.text_scale`, `image.at_text_height`), and the strokes a larger image shows the OCR
(a legend's line swatch read as "1") are not taken for text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from chartproof.ocr import OcrToken
from chartproof.reader.perception.image import (
    TEXT_HEIGHT,
    TEXT_HEIGHT_MAX,
    at_text_height,
    text_scale,
)
from chartproof.reader.perception.palette import ColorLayer
from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style


def _tok(height: float, **kw: object) -> OcrToken:
    fields = {"text": "label", "box": (10.0, 50.0, 60.0, 50.0 + height), "score": 0.99, **kw}
    return OcrToken(**fields)  # type: ignore[arg-type]


SCALE_CASES = [
    # (token heights and extra fields, expected scale, why)
    ([(18, {}), (20, {}), (22, {})], 1.0, "screen-size text is read as it is"),
    ([(26, {}), (26, {}), (26, {})], 1.0, "at the limit: not scaled"),
    ([(40, {}), (40, {}), (44, {})], 0.5, "text twice the tuned height: half the size"),
    ([(30, {}), (50, {}), (60, {}), (20, {})], 0.5, "the median (40) decides"),
    ([(40, {}), (40, {})], 1.0, "two tokens do not say how tall the text is"),
    (
        [(40, {}), (40, {}), (80, {"vertical": True}), (80, {"vertical": True}), (16, {})],
        0.5,
        "vertical axis titles (box height is their length) do not count",
    ),
    (
        [(16, {}), (16, {}), (16, {}), (60, {"angle": 35.0}), (60, {"angle": 35.0})],
        1.0,
        "the box of a slanted label is taller than its text: not counted",
    ),
    (
        [(18, {}), (18, {}), (18, {}), (90, {"score": 0.3}), (90, {"score": 0.3})],
        1.0,
        "unsure readings (icons, specks) do not count",
    ),
]


@pytest.mark.parametrize(("toks", "scale", "why"), SCALE_CASES)
def test_text_scale(toks: list[tuple[float, dict[str, object]]], scale: float, why: str) -> None:
    got = text_scale([_tok(h, **kw) for h, kw in toks])
    assert got == pytest.approx(scale), why


# (token heights, the image's long side, expected scale, why): a print export shrunk to the
# working size is read at the tuned height as soon as its text is taller
PRINT_CASES = [
    ([23, 23, 23], 1400, 20 / 23, "shrunk to the working size: taller than tuned, scaled"),
    ([23, 23, 23], 1399, 1.0, "below the working size: 26 px is the limit"),
    ([23, 23, 23], 0, 1.0, "size not given: as below the working size"),
    ([19, 20, 20], 1400, 1.0, "at the tuned height: not scaled"),
    ([40, 40, 40], 1400, 0.5, "above both limits: the same scale either way"),
]


@pytest.mark.parametrize(("heights", "side", "scale", "why"), PRINT_CASES)
def test_text_scale_of_a_print_export(
    heights: list[float], side: int, scale: float, why: str
) -> None:
    assert text_scale([_tok(h) for h in heights], side) == pytest.approx(scale), why


def test_a_print_export_is_derendered_at_the_tuned_text_height() -> None:
    image = np.zeros((1400, 1000, 3), dtype=np.uint8)
    toks = [OcrToken(text="2020", box=(0.0, 0.0, 80.0, 25.0), score=1.0) for _ in range(3)]
    small, scaled = at_text_height(image, toks)
    assert small.shape == (1120, 800, 3) and scaled[0].height == pytest.approx(20.0)
    small, _ = at_text_height(image[:1399], toks)
    assert small.shape == (1399, 1000, 3)  # not shrunk to the working size: as it is


def test_the_limit_is_above_the_tuned_height() -> None:
    assert TEXT_HEIGHT < TEXT_HEIGHT_MAX


def test_image_and_tokens_scale_together() -> None:
    image = np.zeros((600, 1000, 3), dtype=np.uint8)
    image[100:300, 200:400] = 255
    toks = [
        OcrToken(text="2020", box=(200.0, 400.0, 280.0, 440.0), score=1.0, char_x=(210.0, 270.0))
        for _ in range(3)
    ]
    small, scaled = at_text_height(image, toks)
    assert small.shape == (300, 500, 3)
    assert scaled[0].box == pytest.approx((100.0, 200.0, 140.0, 220.0))
    assert scaled[0].char_x == pytest.approx((105.0, 135.0))
    # The white square shrinks with the image: 100..150 × 50..100 after halving.
    ys, xs = np.nonzero(small[:, :, 0] > 127)
    assert (ys.min(), ys.max(), xs.min(), xs.max()) == (50, 149, 100, 199)


def test_screen_text_leaves_image_and_tokens_alone() -> None:
    image = np.zeros((480, 640, 3), dtype=np.uint8)
    toks = [OcrToken(text="a", box=(0.0, 0.0, 30.0, 18.0), score=1.0) for _ in range(3)]
    small, scaled = at_text_height(image, toks)
    assert small is image and scaled == tuple(toks)


# ---------------------------------------------------------------------- end to end

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
SERIES = {
    "United States": [5790, 5960, 6190, 6380, 6520, 6560, 6500, 6375, 6170, 5960, 5790, 5740],
    "Spain": [5275, 5290, 5325, 5350, 5375, 5380, 5370, 5350, 5325, 5300, 5280, 5260],
    "Sweden": [5220, 5225, 5230, 5235, 5240, 5242, 5240, 5237, 5230, 5225, 5220, 5218],
}


def _hires(dpi: int) -> ChartSpec:
    """Three lines over twelve months, legend below: at 200 dpi (1,440 × 960 px) the reader
    found no chart at all before it read at the text's scale."""
    cols = (Column(name="Month", kind="category"), *(Column(name=s) for s in SERIES))
    rows = tuple((m, *(float(SERIES[s][i]) for s in SERIES)) for i, m in enumerate(MONTHS))
    table = DataTable(columns=cols, rows=rows)
    return ChartSpec(
        id=f"hires-{dpi}",
        chart_type="line",
        table=table,
        encoding=Encoding(x="Month", y=tuple(SERIES)),
        style=Style(
            width=7.2,
            height=4.8,
            dpi=dpi,
            title="New hires by country, 2020",
            x_title="Month",
            y_title="New hires (thousands)",
            legend_loc="outside bottom",
        ),
    )


@pytest.mark.parametrize("dpi", [100, 200, 300])
def test_a_line_chart_reads_the_same_at_any_export_resolution(
    dpi: int, engine: object, tmp_path: Path
) -> None:
    from chartproof.charts import render
    from chartproof.reader.perception import read_chart
    from chartproof.reader.perception.image import load_image

    spec = _hires(dpi)
    path = tmp_path / f"{spec.id}.png"
    path.write_bytes(render(spec).png)
    image = load_image(path)
    reading = read_chart(image, engine.read(image))  # type: ignore[attr-defined]
    table = reading.table
    assert reading.chart_type == "line"
    assert [str(r[0]) for r in table.rows] == MONTHS
    for name, values in SERIES.items():
        col = table.index(name)
        got = [row[col] for row in table.rows]
        assert got == pytest.approx(values, rel=0.05), name
    # Every coordinate of the reading lies in the frame it was read in.
    width, height = reading.size
    assert all(0 <= t.box[0] <= t.box[2] <= width + 1 for t in reading.tokens)
    assert all(0 <= t.box[1] <= t.box[3] <= height + 1 for t in reading.tokens)


# ---------------------------------------------------------------------- swatch strokes read as text

GREEN = (44, 160, 44)


def _green_layer(draw: str) -> ColorLayer:
    """A 40 × 60 canvas with a green mark under the token box (10, 10)-(40, 30)."""
    image = np.full((40, 60, 3), 255, dtype=np.uint8)
    if draw == "swatch":  # a legend's line swatch: 30 px long, 3 px thick
        image[19:22, 10:40] = GREEN
    elif draw == "glyph":  # a "1" printed in the series colour: 4 px wide, 18 px tall
        image[11:29, 23:27] = GREEN
    elif draw == "short":  # a dot of the line, a third of the box wide
        image[19:22, 20:30] = GREEN
    mask = np.all(image == np.array(GREEN, dtype=np.uint8), axis=2)
    return ColorLayer(rgb=GREEN, mask=mask, count=int(mask.sum()))


DASH_CASES = [
    # (token text, what lies under it, read as a stroke, why)
    ("1", "swatch", True, "a line swatch read as '1' (seen at 200 dpi)"),
    ("-", "swatch", True, "a line swatch read as '-'"),
    ("1", "glyph", False, "a '1' printed in the series colour is taller than wide"),
    ("1", "short", False, "colour across a third of the box: not the token's stroke"),
    ("7", "swatch", False, "a digit no stroke looks like"),
    ("1", "none", False, "nothing drawn under it"),
    ("10", "swatch", False, "two characters are text"),
]


@pytest.mark.parametrize(("text", "draw", "dash", "why"), DASH_CASES)
def test_swatch_strokes_read_as_text(text: str, draw: str, dash: bool, why: str) -> None:
    from chartproof.reader.perception.reader import _is_dash

    tok = OcrToken(text=text, box=(10.0, 10.0, 40.0, 30.0), score=0.6)
    assert _is_dash(tok, [_green_layer(draw)]) is dash, why


# ---------------------------------------------------------------------- edge tints


def _layer(rgb: tuple[int, int, int], mask: np.ndarray) -> ColorLayer:
    return ColorLayer(rgb=rgb, mask=mask, count=int(mask.sum()))


def _diagonal(shape: tuple[int, int], offset: int, width: int) -> np.ndarray:
    """A stroke rising left to right, `width` px thick, `offset` px below the main one."""
    ys, xs = np.indices(shape)
    centre = shape[0] - 20 - xs * (shape[0] - 40) / shape[1] + offset
    return np.abs(ys - centre) < width / 2


def _halo_case(case: str) -> tuple[list[ColorLayer], int]:
    shape = (200, 300)
    blue = _diagonal(shape, 0, 3)
    grid = np.zeros(shape, dtype=bool)
    grid[:, ::50] = True
    grey = grid.copy()
    if case == "tints":  # the edge either side of the blue stroke, in the gridlines' grey
        grey |= _diagonal(shape, 0, 7) & ~blue
    elif case == "series":  # a grey line of its own, crossing the blue one once
        ys, xs = np.indices(shape)
        grey |= np.abs(ys - (30 + xs * 140 / 300)) < 1.5
    elif case == "far tints":  # tints, but 10 px from any stroke (a grey series beside it)
        grey |= _diagonal(shape, 10, 2)
    layers = [_layer((31, 119, 180), blue), _layer((220, 220, 220), grey)]
    return layers, 1


HALO_CASES = [
    # (what the light grey holds besides its gridlines, a halo, why)
    ("tints", True, "the soft edge of a stroke scaled down from a print export"),
    ("series", False, "a grey series touches the blue one only where they cross"),
    ("far tints", False, "pixels 10 px from every darker stroke are drawn on their own"),
    ("gridlines only", False, "gridlines and nothing else: no pixels off the rules to judge"),
]


@pytest.mark.parametrize(("case", "halo", "why"), HALO_CASES)
def test_edge_tints_are_not_a_series(case: str, halo: bool, why: str) -> None:
    from chartproof.reader.perception.reader import _halo

    layers, i = _halo_case(case)
    assert _halo(layers, i) is halo, why
