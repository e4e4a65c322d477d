"""Pew-style charts drawn by hand (no OCR: the text tokens are given): stacked horizontal bars
with every value printed inside its segment, no value axis and the series named by headers
above the top bar; line charts with hollow markers, point labels and series names written
in the lines' colours."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from chartproof.ocr import OcrToken
from chartproof.reader.perception.axes import find_axes
from chartproof.reader.perception.bars import Bar
from chartproof.reader.perception.geometry import Span
from chartproof.reader.perception.headers import _header_block
from chartproof.reader.perception.line_reader import _typical
from chartproof.reader.perception.lines import fill_small_holes, marker_centres
from chartproof.reader.perception.on_marks import off_marks, on_mark

pytest.importorskip("cv2", reason="the reader needs: pip install 'chartproof[reader]'")

WHITE = (255, 255, 255)
NAVY = (30, 64, 114)
SKY = (75, 131, 207)
OLIVE = (148, 157, 72)
ORANGE = (234, 158, 44)


def _tok(text: str, x0: float, y0: float, x1: float, y1: float) -> OcrToken:
    return OcrToken(text=text, box=(x0, y0, x1, y1), score=0.99)


def _glyphs(image: np.ndarray, tok: OcrToken, rgb: tuple[int, int, int]) -> None:
    """Write the token's text into its box in one colour (OpenCV's Hershey font)."""
    import cv2

    x0, y0, _, y1 = (int(v) for v in tok.box)
    canvas = np.ascontiguousarray(image[:, :, ::-1])
    scale = (y1 - y0) / 30.0
    cv2.putText(
        canvas, tok.text, (x0, y1 - 2), cv2.FONT_HERSHEY_SIMPLEX, scale, rgb[::-1], 2, cv2.LINE_8
    )
    image[:] = canvas[:, :, ::-1]


# ------------------------------------------------------------------ text on marks


def test_text_inside_a_bar_is_on_a_mark_and_text_beside_it_is_not() -> None:
    image = np.full((100, 300, 3), 255, dtype=np.uint8)
    image[10:50, 20:120] = NAVY
    inside = _tok("66", 60, 20, 80, 38)
    beside = _tok("66", 140, 20, 160, 38)
    edge = _tok("66", 112, 20, 132, 38)  # half over the bar's end: mostly background
    assert on_mark(inside, image, WHITE)
    assert not on_mark(beside, image, WHITE)
    assert not on_mark(edge, image, WHITE)
    assert off_marks([inside, beside], image, WHITE) == [beside]


def test_text_on_a_shaded_plot_area_is_not_on_a_mark() -> None:
    # OECD shades the whole plot light blue and prints the y ticks inside it.
    image = np.full((200, 300, 3), 255, dtype=np.uint8)
    image[20:190, 10:290] = (221, 232, 240)
    image[100:120, 120:200] = NAVY  # a bar
    tick = _tok("80", 20, 40, 40, 56)
    label = _tok("7", 150, 103, 160, 117)
    assert not on_mark(tick, image, WHITE)
    assert on_mark(label, image, WHITE)


# ------------------------------------------------------------------ stacked bars

_ROWS = [("Identity theft", (17, 25, 58)), ("Mobile addiction", (20, 30, 50))]


def _stacked_chart() -> tuple[np.ndarray, list[OcrToken]]:
    """Two stacked horizontal bars, 4 px per point, values printed inside the segments,
    headers above the top bar, no axis."""
    image = np.full((220, 600, 3), 255, dtype=np.uint8)
    colours = (NAVY, SKY, OLIVE)
    toks = [_tok("Very", 166, 40, 202, 56), _tok("concerned", 152, 58, 216, 74)]
    toks += [_tok("Somewhat", 240, 58, 296, 74), _tok("Not", 420, 58, 448, 74)]
    for r, (label, values) in enumerate(_ROWS):
        y0 = 80 + 60 * r
        x = 150
        toks.append(_tok(label, 10, y0 + 10, 140, y0 + 28))
        for v, c in zip(values, colours, strict=True):
            w = 4 * v
            image[y0 : y0 + 38, x : x + w] = c
            cx = x + w // 2
            toks.append(_tok(str(v), cx - 9, y0 + 10, cx + 9, y0 + 28))
            x += w
    return image, toks


def test_stacked_bars_without_axis_read_printed_values_and_header_names() -> None:
    from chartproof.reader.perception import read_chart

    image, toks = _stacked_chart()
    # Two labels in a row fit a horizontal "axis" unless text on marks is left out.
    assert find_axes(toks)[1] is not None
    assert find_axes(off_marks(toks, image, WHITE)) == (None, None)
    reading = read_chart(image, toks)
    table = reading.table
    assert reading.chart_type == "stacked_bar"
    # Series in stacking order (left to right), named by the text above their segment.
    assert table.names[1:] == ("Very concerned", "Somewhat", "Not")
    got = {r[0]: tuple(r[1:]) for r in table.rows}
    assert got == {label: tuple(float(v) for v in vals) for label, vals in _ROWS}


def test_header_block_stops_at_a_wider_line_above() -> None:
    # "Not a reason" sits on the bar; the subtitle above it is wider: not part of the header.
    header = _tok("Not a reason", 300, 80, 380, 96)
    subtitle = _tok("reason why they did not vote", 250, 64, 460, 79)
    second = _tok("Very", 310, 64, 350, 79)
    assert _header_block([header, subtitle], 100.0, 16.0) == [header]
    assert set(map(id, _header_block([header, second], 100.0, 16.0))) == {id(header), id(second)}


def test_header_names_by_swatch_colour_when_headers_do_not_sit_over_segments() -> None:
    from chartproof.reader.perception.headers import header_names
    from chartproof.reader.perception.palette import ColorLayer
    from chartproof.reader.perception.scene import Scene

    image = np.full((120, 400, 3), 255, dtype=np.uint8)
    # A legend row: "■ Too little  ■ About right" whose entries do not line up with the
    # segments below them (the first segment is long, the second short).
    image[80:110, 20:320] = NAVY
    image[80:110, 320:380] = SKY
    a = _tok("Too little", 40, 50, 130, 66)
    b = _tok("About right", 150, 50, 260, 66)
    image[53:63, 41:51] = NAVY  # swatches inside the OCR boxes, as the OCR returns them
    image[53:63, 151:161] = SKY
    layers = tuple(ColorLayer(rgb=c, mask=np.all(image == c, axis=2), count=1) for c in (NAVY, SKY))
    scene = Scene(
        image=image,
        tokens=(a, b),
        layers=layers,
        legend=(),
        legend_box=None,
        text=np.zeros(image.shape[:2], dtype=bool),
        y_axis=None,
        x_axis=None,
        text_height=16.0,
    )
    slot = [
        Bar(0, Span(80, 110, 20, 320), (20, 80, 320, 110)),
        Bar(1, Span(80, 110, 320, 380), (320, 80, 380, 110)),
    ]
    assert header_names(scene, [slot], [0, 1]) == ["Too little", "About right"]


# ------------------------------------------------------------------ lines


def test_hollow_markers_are_found_once_their_hole_is_filled() -> None:
    import cv2

    mask = np.zeros((60, 120), dtype=np.uint8)
    mask[29:32, 10:111] = 1  # a 3 px stroke
    for x in (10, 60, 110):
        mask[27:34, x - 3 : x + 4] = 0  # white inside the ring
        cv2.circle(mask, (x, 30), 6, 1, 2)
    ring = mask.astype(bool)
    filled = fill_small_holes(ring)
    assert filled.sum() > ring.sum()
    assert sorted(round(x) for x, _, _ in marker_centres(ring)) == [10, 60, 110]
    # A big enclosed region (a frame around the plot) stays open.
    frame = np.zeros((60, 120), dtype=bool)
    frame[5, 5:115] = frame[55, 5:115] = frame[5:56, 5] = frame[5:56, 114] = True
    assert fill_small_holes(frame).sum() == frame.sum()


def test_small_blobs_at_bends_are_not_markers() -> None:
    ms = [(10.0, 5.0, 9.0), (50.0, 5.0, 9.0), (70.0, 8.0, 4.0), (90.0, 5.0, 10.0)]
    assert _typical(ms) == [ms[0], ms[1], ms[3]]


def test_two_point_labels_do_not_beat_the_axis_end_ticks() -> None:
    # A y axis printing only "80%" and "0", and a point label "43" over "35" in one column.
    toks = [
        _tok("80%", 10, 20, 40, 34),
        _tok("0", 30, 260, 40, 274),
        _tok("43", 60, 120, 80, 134),
        _tok("35", 60, 160, 80, 174),
    ]
    y_axis, _ = find_axes(toks)
    assert y_axis is not None
    assert sorted(t.text for t in y_axis.ticks) == ["0", "80%"]


def _line_chart() -> tuple[np.ndarray, list[OcrToken]]:
    """Two lines over five years, hollow markers, values printed by every point in the
    line's colour, names written beside the lines in their colours, y axis "80%" / "0"."""
    import cv2

    image = np.full((320, 420, 3), 255, dtype=np.uint8)
    xs = [60, 140, 220, 300, 380]
    series = {
        "Unfavorable": (ORANGE, [35, 29, 30, 52, 54]),
        "Favorable": (OLIVE, [43, 52, 45, 37, 38]),
    }

    def y_of(v: float) -> int:
        return round(260 - 2.5 * v)  # 0 at y=260, 80 at y=60

    toks = [_tok("80%", 10, 53, 42, 67), _tok("0", 30, 253, 40, 267)]
    for k, (name, (rgb, vals)) in enumerate(series.items()):
        bgr = rgb[::-1]
        pts = [(x, y_of(v)) for x, v in zip(xs, vals, strict=True)]
        canvas = image[:, :, ::-1].copy()
        for a, b in itertools.pairwise(pts):
            cv2.line(canvas, a, b, bgr, 2)
        for p in pts:
            cv2.circle(canvas, p, 6, (255, 255, 255), -1)
            cv2.circle(canvas, p, 6, bgr, 2)
        image[:] = canvas[:, :, ::-1]
        for (x, y), v in zip(pts, vals, strict=True):
            dy = -30 if k == 1 else 14  # one series labelled above, the other below
            t = _tok(str(v), x - 9, y + dy, x + 9, y + dy + 14)
            toks.append(t)
            _glyphs(image, t, rgb)
        t = _tok(name, 300, 20 + 200 * (1 - k), 380, 34 + 200 * (1 - k))
        toks.append(t)
        _glyphs(image, t, rgb)
    for x, year in zip(xs, range(2011, 2016), strict=True):
        toks.append(_tok(str(year), x - 16, 280, x + 16, 294))
    return image, toks


def test_pew_line_chart_with_point_labels_and_coloured_names() -> None:
    from chartproof.reader.perception import read_chart

    image, toks = _line_chart()
    reading = read_chart(image, toks)
    assert reading.chart_type == "line"
    table = reading.table
    assert set(table.names[1:]) == {"Unfavorable", "Favorable"}
    assert table.labels(table.names[0]) == tuple(str(y) for y in range(2011, 2016))
    assert table.numbers("Unfavorable") == pytest.approx((35, 29, 30, 52, 54), abs=1.0)
    assert table.numbers("Favorable") == pytest.approx((43, 52, 45, 37, 38), abs=1.0)


# ------------------------------------------------------------------ pies


def test_pie_wedges_named_by_the_words_under_their_values() -> None:
    import cv2

    from chartproof.reader.perception import read_chart

    image = np.full((300, 300, 3), 255, dtype=np.uint8)
    canvas = image[:, :, ::-1].copy()
    # 50 % from 12 o'clock clockwise (right half), then 30 %, then 20 % (OpenCV angles run
    # clockwise from 3 o'clock).
    for (a0, a1), rgb in zip(((-90, 90), (90, 198), (198, 270)), (NAVY, SKY, OLIVE), strict=True):
        cv2.ellipse(canvas, (150, 150), (120, 120), 0, a0, a1, rgb[::-1], -1)
    image[:] = canvas[:, :, ::-1]
    toks = [
        _tok("50%", 200, 130, 236, 148),
        _tok("Higher", 192, 150, 244, 166),
        _tok("30%", 70, 190, 106, 208),
        _tok("About the", 56, 210, 120, 226),
        _tok("same", 68, 228, 108, 244),
        _tok("20%", 90, 80, 126, 98),
        _tok("Lower", 84, 100, 132, 116),
    ]
    for t in toks:
        _glyphs(image, t, WHITE)
    reading = read_chart(image, toks)
    assert reading.chart_type == "pie"
    table = reading.table
    got = dict(zip(table.labels(table.names[0]), table.numbers(table.names[1]), strict=True))
    assert got == {"Higher": 50.0, "About the same": 30.0, "Lower": 20.0}


def test_headers_pushed_aside_by_short_segments_are_taken_in_order() -> None:
    from chartproof.reader.perception.headers import header_names
    from chartproof.reader.perception.palette import ColorLayer
    from chartproof.reader.perception.scene import Scene

    image = np.full((140, 700, 3), 255, dtype=np.uint8)
    # 79 % | 14 % | 6 %: the two short segments' headers stand left of them, and the OCR ran
    # "Somewhat" and "Not" into one line; "NET" heads a printed column past the bars.
    spans = [(100, 490), (490, 560), (560, 590)]
    for (x0, x1), c in zip(spans, (NAVY, SKY, OLIVE), strict=True):
        image[90:130, x0:x1] = c
    merged = OcrToken(
        text="Somewhat Not",
        box=(440, 40, 600, 60),
        score=0.99,
        char_x=(*(450.0 + 12 * i for i in range(8)), 560.0, 572.0, 584.0, 596.0),
    )
    toks = (
        _tok("Very", 270, 40, 310, 60),
        _tok("concerned", 250, 62, 330, 82),
        merged,
        _tok("concerned", 440, 62, 540, 82),
        _tok("concerned", 545, 62, 645, 82),
        _tok("NET", 640, 40, 690, 60),
    )
    layers = tuple(
        ColorLayer(rgb=c, mask=np.all(image == c, axis=2), count=1) for c in (NAVY, SKY, OLIVE)
    )
    scene = Scene(
        image=image,
        tokens=toks,
        layers=layers,
        legend=(),
        legend_box=None,
        text=np.zeros(image.shape[:2], dtype=bool),
        y_axis=None,
        x_axis=None,
        text_height=20.0,
    )
    slot = [Bar(k, Span(90, 130, x0, x1), (x0, 90, x1, 130)) for k, (x0, x1) in enumerate(spans)]
    assert header_names(scene, [slot], [0, 1, 2]) == [
        "Very concerned",
        "Somewhat concerned",
        "Not concerned",
    ]
