"""Perception rules found on real ChartQA charts, each on a small hand-built case: rotated
category labels (anchored by the end nearest the axis, read in two diagonal pieces),
month-year labels filled in, dense marked lines on the grid their markers hold, lines and
banners that are not area bands, a bottom segment hidden under its label, legend rows the
OCR ran across a swatch (wide or small and close), faint grey swatches of bars, a tick mark
the OCR read into a label beside the axis, and a line fit that does not overflow on a
misread label."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from chartproof.ocr import UNREAD_FOOTNOTE, OcrToken
from chartproof.reader.perception.area_reader import area_layers
from chartproof.reader.perception.axes import line_fit
from chartproof.reader.perception.bars import Bar, find_bars, group_slots
from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.labels import assign_category_labels, fill_skipped_labels
from chartproof.reader.perception.legend import find_legend
from chartproof.reader.perception.line_reader import _label_positions, _marked_grid
from chartproof.reader.perception.palette import ColorLayer
from chartproof.reader.perception.records import AxisFit, Box
from chartproof.reader.perception.scene import Scene
from chartproof.reader.perception.split_text import _heaviest_run, split_at_marks

BLUE = (40, 118, 221)
NAVY = (15, 40, 62)
GREY = (186, 186, 186)


def _tok(text: str, box: tuple[float, float, float, float], **kw: object) -> OcrToken:
    return OcrToken(text=text, box=box, score=1.0, **kw)


def _layer(image: np.ndarray, rgb: tuple[int, int, int]) -> ColorLayer:
    mask = np.all(image == np.array(rgb, dtype=np.uint8), axis=2)
    return ColorLayer(rgb=rgb, mask=mask, count=int(mask.sum()))


# ---------------------------------------------------------------------- rotated labels


def test_labels_turned_45_degrees_go_to_the_slot_under_their_upper_end() -> None:
    # Points every 15 px, a year label every other point, each turned 45° and ~35 px wide:
    # the box centre lies over the slot before the one the label names.
    slots = [100.0 + 15 * i for i in range(9)]
    toks = [
        _tok(str(1980 + 2 * k), (slots[2 * k] - 26, 210.0, slots[2 * k] + 9, 245.0), angle=45.0)
        for k in range(5)
    ]
    texts, _ = assign_category_labels(toks, Frame("vertical"), slots, -205.0, 15.0)
    assert texts == ["1980", None, "1982", None, "1984", None, "1986", None, "1988"]
    assert fill_skipped_labels(texts)[1::2] == ["1981", "1983", "1985", "1987"]


def test_a_turned_label_read_in_two_diagonal_pieces_is_joined_in_reading_order() -> None:
    # "Q1 '15" rising rightwards: the OCR returns "'15" (upper right, next to the axis) and
    # "Q1" (lower left, overlapping its corner). A piece under the next label's corner
    # goes with that label only.
    slots = [100.0, 122.0, 144.0]
    toks = []
    for k, u in enumerate(slots):
        toks.append(_tok("15", (u - 12, 205.0, u + 10, 222.0), angle=30.0))
        toks.append(_tok(f"Q{k + 1}", (u - 26, 219.0, u - 4, 236.0)))
    texts, used = assign_category_labels(toks, Frame("vertical"), slots, -203.0, 22.0)
    assert texts == ["Q1 15", "Q2 15", "Q3 15"]
    assert [len(u) for u in used] == [2, 2, 2]


def test_a_wrapped_label_whose_line_boxes_overlap_is_joined() -> None:
    # "Latin America / and the / Caribbean" set tightly: each OCR box reaches 5 px into the
    # one above it.
    slots = [100.0, 200.0]
    toks = [
        _tok("Asia", (85.0, 205.0, 115.0, 223.0)),
        _tok("Latin America", (160.0, 205.0, 240.0, 223.0)),
        _tok("and the", (176.0, 218.0, 224.0, 234.0)),
        _tok("Caribbean", (170.0, 230.0, 230.0, 246.0)),
    ]
    texts, _ = assign_category_labels(toks, Frame("vertical"), slots, -203.0, 100.0)
    assert texts == ["Asia", "Latin America and the Caribbean"]


def test_level_labels_do_not_take_a_neighbours_piece() -> None:
    # Upright labels: no diagonal joining, whatever overlaps.
    slots = [100.0, 122.0]
    toks = [
        _tok("A", (92.0, 205.0, 108.0, 222.0)),
        _tok("B", (114.0, 205.0, 130.0, 222.0)),
        _tok("x", (80.0, 219.0, 96.0, 236.0)),
    ]
    texts, _ = assign_category_labels(toks, Frame("vertical"), slots, -203.0, 22.0)
    assert texts == ["A", "B"]


def _spaced(text: str, x0: float, step: float = 7.0) -> tuple[float, ...]:
    return tuple(x0 + step * i for i in range(len(text)))


# (label text, centre of its last character's distance left of the axis line) -> text kept;
# labels 14 px high, the axis line at x = 200
TICK_CASES = [
    ("Dose B -", 2.0, "Dose B"),  # a tick read as its own word
    ("Dose A 1", 3.0, "Dose A"),  # ... or as a "1"
    ("Cancer-", 3.0, "Cancer"),  # ... glued to the label
    ("Q1", 3.0, "Q"),  # (a label touching the axis line is never drawn)
    ("2011", 13.0, "2011"),  # a label's own last "1" ends a tick and a pad short
    ("BBB-", 12.0, "BBB-"),  # a rating's own "-"
    ("Asia", 2.0, "Asia"),  # no tick glyph
    ("Clerical", 3.0, "Clerical"),  # a word's own "l", even over the tick
    ("-", 2.0, "-"),  # nothing left
]


@pytest.mark.parametrize(("text", "gap", "kept"), TICK_CASES)
def test_a_tick_mark_read_into_a_label_beside_the_axis_is_dropped(
    text: str, gap: float, kept: str
) -> None:
    x_last = 200.0 - gap
    chars = _spaced(text, x_last - 7.0 * (len(text) - 1))
    tok = _tok(text, (chars[0] - 4, 93.0, x_last + 4, 107.0), char_x=chars)
    texts, used = assign_category_labels([tok], Frame("horizontal"), [100.0], 200.0, 40.0)
    assert texts == [kept] and used == [[tok]]
    # without character positions nothing is cut
    bare = _tok(text, tok.box)
    assert assign_category_labels([bare], Frame("horizontal"), [100.0], 200.0, 40.0)[0] == [text]


@pytest.mark.parametrize(
    ("labels", "filled"),
    [
        (["Jan 17", None, "Mar 17", None], ["Jan 17", "Feb 17", "Mar 17", "Apr 17"]),
        (["Nov 17", None, "Jan 18"], ["Nov 17", "Dec 17", "Jan 18"]),
        (["Oct '19", None, None, "Jan '20"], ["Oct '19", "Nov '19", "Dec '19", "Jan '20"]),
        (["Jan 2019", None, "Jul 2019"], ["Jan 2019", "Apr 2019", "Jul 2019"]),
        # uneven: nothing filled
        (["Jan 17", None, "Mar 17", "Jun 17"], ["Jan 17", None, "Mar 17", "Jun 17"]),
        # plain month names keep their own rule
        (["Jan", None, "Mar"], ["Jan", "Feb", "Mar"]),
    ],
)
def test_month_year_labels_are_filled_in_their_own_style(
    labels: list[str | None], filled: list[str | None]
) -> None:
    assert fill_skipped_labels(labels) == filled


# ---------------------------------------------------------------------- dense marked lines


def test_the_grid_most_markers_hold_wins_over_finer_straight_ones() -> None:
    # Labels every 26 px, a marker every 13 px (a few missed, a few stray blobs): the
    # 13 px grid, not a finer one on which any stroke also runs straight.
    grids = [(k, [100.0 + j * 26.0 / k for j in range(6 * k + 1)], 0.0) for k in (1, 2, 3, 4)]
    markers = [100.0 + 13 * j for j in range(13) if j not in (3, 8)] + [141.0, 171.0]
    assert _marked_grid(grids, markers) == grids[1][1]


def test_a_finer_grid_is_kept_when_its_added_places_hold_markers_often_enough() -> None:
    # Markers seen on 12 of 13 labelled places but only 7 of 12 between them (steep
    # stretches blur them): still the finer grid.
    grids = [(k, [100.0 + j * 26.0 / k for j in range(12 * k + 1)], 0.0) for k in (1, 2, 4)]
    on = [100.0 + 26 * j for j in range(12)]
    between = [113.0 + 26 * j for j in range(7)]
    assert _marked_grid(grids, on + between) == grids[1][1]
    assert _marked_grid(grids, on + between[:2]) == grids[0][1]


def test_places_run_on_to_a_last_point_whose_stroke_a_label_hides() -> None:
    import cv2

    # Points every 13 px from x=100 to x=256, labels every other point; the stroke stops at
    # x=249 (a value label over the last point), so no grid of places ends on the stroke.
    mask = np.zeros((120, 300), dtype=np.uint8)
    pts = np.array([[100 + 13 * j, 40 if j % 2 else 80] for j in range(13)], dtype=np.int32)
    cv2.polylines(mask, [pts], False, 1, 2)
    mask[:, 250:] = 0
    markers = [100.0 + 13 * j for j in range(12) if j != 5]
    got = _label_positions([mask.astype(bool)], [100.0 + 26 * j for j in range(7)], markers)
    assert got is not None and len(got) == 13
    assert got[-1] == pytest.approx(256.0, abs=1.0)


def test_labels_kept_unevenly_still_give_every_place() -> None:
    import cv2

    # 22 places 25.1 px apart (0, 3, 5, 7, 10, ... 48 h, printed evenly); the numeric axis
    # fit kept 13 labels whose values fall in line, skipping one or two places between
    # them, so their median gap (38 px) is no label step and their narrowest one (24 px)
    # drifts by a whole place over the axis unless each gap is counted on its own.
    places = [72.0 + 25.1 * j for j in range(22)]
    kept = [0, 2, 3, 6, 7, 10, 11, 13, 14, 16, 17, 20, 21]
    mask = np.zeros((200, 640), dtype=np.uint8)
    pts = np.array([[round(x), 60 + (j % 3) * 8] for j, x in enumerate(places)], np.int32)
    cv2.polylines(mask, [pts], False, 1, 2)
    got = _label_positions([mask.astype(bool)], [round(places[j]) for j in kept])
    assert got is not None and len(got) == 22
    assert got == pytest.approx(places, abs=1.5)


def test_markers_on_every_labelled_place_only_keep_the_label_grid() -> None:
    grids = [(k, [100.0 + j * 26.0 / k for j in range(6 * k + 1)], 0.0) for k in (1, 2)]
    markers = [100.0 + 26 * j for j in range(7)]
    assert _marked_grid(grids, markers) == grids[0][1]
    assert _marked_grid(grids, markers[:2]) is None  # too few markers to say


# ---------------------------------------------------------------------- area bands


def _scene(image: np.ndarray, layers: list[ColorLayer], ticks_y: list[float]) -> Scene:
    ticks = tuple(_tok(str(10 * i), (10.0, y - 6, 30.0, y + 6)) for i, y in enumerate(ticks_y))
    axis = AxisFit(direction="y", scale="linear", intercept=ticks_y[0], slope=-10.0, ticks=ticks)
    return Scene(
        image=image,
        tokens=ticks,
        layers=tuple(layers),
        legend=(),
        legend_box=None,
        text=np.zeros(image.shape[:2], dtype=bool),
        y_axis=axis,
        x_axis=None,
        text_height=12.0,
    )


def test_a_filled_band_on_the_axis_is_an_area() -> None:
    img = np.full((200, 300, 3), 255, dtype=np.uint8)
    for x in range(40, 290):
        img[120 + int(20 * np.sin(x / 30)) : 180, x] = BLUE
    scene = _scene(img, [_layer(img, BLUE)], [180.0, 80.0])
    assert area_layers(scene, [0]) == [0]


def test_a_banner_above_the_top_tick_is_no_area() -> None:
    img = np.full((200, 300, 3), 255, dtype=np.uint8)
    img[5:30, 10:290] = BLUE  # "Zoomable statistic" banner over the plot
    scene = _scene(img, [_layer(img, BLUE)], [180.0, 80.0])
    assert area_layers(scene, [0]) == []
    # The same band among the ticks would be one.
    img2 = np.full((200, 300, 3), 255, dtype=np.uint8)
    img2[100:125, 10:290] = BLUE
    assert area_layers(_scene(img2, [_layer(img2, BLUE)], [180.0, 80.0]), [0]) == [0]


def test_a_dense_zigzag_line_is_no_area() -> None:
    # One wide component of many pixels, but a thin stroke: a line, not a band.
    import cv2

    img = np.full((200, 600, 3), 255, dtype=np.uint8)
    pts = np.array([[20 + 12 * i, 90 if i % 2 else 170] for i in range(45)], dtype=np.int32)
    cv2.polylines(img, [pts], False, BLUE, 2)
    lay = _layer(img, BLUE)
    assert lay.count >= 0.02 * 600 * 200
    assert area_layers(_scene(img, [lay], [180.0, 80.0]), [0]) == []


# ---------------------------------------------------------------------- hidden segments


def test_a_bottom_segment_wholly_under_its_label_is_still_a_bar() -> None:
    # Stacked bars whose thin bottom segment is no taller than its white, dark-edged
    # "5.9%": the label's box covers the segment, so only the colour between glyphs shows.
    img = np.full((200, 200, 3), 255, dtype=np.uint8)
    labels = []
    for x0 in (30, 90, 150):
        img[40:160, x0 : x0 + 30] = NAVY
        img[160:178, x0 : x0 + 30] = BLUE
        img[164:175, x0 + 4 : x0 + 26 : 3] = (20, 20, 20)  # glyph strokes
        img[164:175, x0 + 5 : x0 + 26 : 3] = (255, 255, 255)
        labels.append((x0 - 1.0, 160.0, x0 + 31.0, 178.0))
    layers = [_layer(img, NAVY), _layer(img, BLUE)]
    found = find_bars(layers, "vertical", labels=labels)
    assert found is not None
    blue = [b for b in found.bars if b.layer == 1]
    assert len(blue) == 3
    assert all(abs(b.box[1] - 160) <= 1 and abs(b.box[3] - 177) <= 1 for b in blue)


def test_coloured_text_on_the_background_fills_no_bar() -> None:
    img = np.full((200, 200, 3), 255, dtype=np.uint8)
    img[40:160, 30:60] = NAVY
    img[100:112, 120:160:2] = BLUE  # blue glyph strokes, no frame of blue around them
    layers = [_layer(img, NAVY), _layer(img, BLUE)]
    found = find_bars(layers, "vertical", labels=[(118.0, 98.0, 162.0, 114.0)])
    assert found is not None
    assert {b.layer for b in found.bars} == {0}


# ---------------------------------------------------------------------- legend rows


def test_a_legend_line_run_over_a_swatch_is_cut_there() -> None:
    img = np.full((60, 400, 3), 255, dtype=np.uint8)
    img[24:30, 215:240] = GREY  # the "Renewables" swatch, inside the merged OCR box
    text = "Fossil fuels*Renewables*"
    xs = [100.0 + 8 * i for i in range(13)] + [250.0 + 8 * i for i in range(11)]
    tok = _tok(text, (96.0, 18.0, 334.0, 36.0), char_x=tuple(xs))
    pieces = split_at_marks([tok], [_layer(img, GREY)])
    assert [p.text for p in pieces] == ["Fossil fuels*", "Renewables*"]
    assert pieces[1].box[0] >= 240


def test_a_letters_grey_edge_in_the_gap_does_not_widen_the_swatch() -> None:
    # multi_col_21019 read in bfloat16: the "R" of "Renewables" centred 3 px further right
    # put its light grey anti-aliased edge in the gap; the piece's box, clear of a "mark"
    # reaching that edge, started past the letter and lost its swatch
    img = np.full((60, 400, 3), 255, dtype=np.uint8)
    img[24:30, 215:230] = GREY  # the swatch
    img[20:34, 243] = GREY  # the letter's edge, 13 columns on
    text = "Fossil fuels*Renewables*"
    xs = [100.0 + 8 * i for i in range(13)] + [250.0 + 8 * i for i in range(11)]
    tok = _tok(text, (96.0, 18.0, 334.0, 36.0), char_x=tuple(xs))
    pieces = split_at_marks([tok], [_layer(img, GREY)])
    assert [p.text for p in pieces] == ["Fossil fuels*", "Renewables*"]
    assert pieces[1].box[0] == 241  # its first letter's own room, not pushed past the edge (245)


def test_a_swatch_read_as_a_dash_and_spaces_are_cut_out_of_a_legend_row() -> None:
    # FigureQA val1 1175.png: "[swatch] Orchid [swatch] Light Slate [swatch] Violet Red" read
    # as one token, the second swatch as "—" and the third as two spaces, so no two
    # neighbouring characters stood a gap apart
    img = np.full((60, 460, 3), 255, dtype=np.uint8)
    img[27:30, 262:282] = GREY  # Light Slate's line swatch, under the "—"
    img[27:30, 368:384] = BLUE  # Violet Red's, under the two spaces
    text = "Orchid — Light Slate  Violet Red"
    xs = [223, 232, 238, 244, 250, 256, 264, 271, 281, 292, 298, 304, 310, 319, 323, 327]
    xs += [333, 339, 345, 352, 363, 375, 387, 393, 399, 405, 411, 415, 421, 427, 435, 441]
    tok = _tok(text, (213.0, 19.0, 448.0, 38.0), char_x=tuple(float(x) for x in xs))
    pieces = split_at_marks([tok], [_layer(img, GREY), _layer(img, BLUE)])
    assert [p.text for p in pieces] == ["Orchid", "Light Slate", "Violet Red"]
    assert [len(p.char_x) for p in pieces] == [6, 11, 10]
    # a dash between words with no mark under it stays text
    plain = np.full((60, 460, 3), 255, dtype=np.uint8)
    assert split_at_marks([tok], [_layer(plain, GREY)]) == [tok]


HEAVIEST_RUN_CASES = [
    # (pixels per column, (first, last + 1) of the heaviest run)
    ([0, 3, 3, 0, 0, 1], (1, 3)),
    ([1, 0, 6, 6, 6, 0, 2, 2], (2, 5)),
    ([4, 4, 4], (0, 3)),
    ([0, 0, 5], (2, 3)),
    ([2, 0, 2], (0, 1)),  # a tie keeps the first run
]


@pytest.mark.parametrize(("counts", "run"), HEAVIEST_RUN_CASES)
def test_heaviest_run_of_columns(counts: list[int], run: tuple[int, int]) -> None:
    assert _heaviest_run(np.array(counts)) == run


def test_a_wide_gap_without_a_mark_is_not_cut() -> None:
    img = np.full((60, 400, 3), 255, dtype=np.uint8)
    xs = [100.0 + 8 * i for i in range(13)] + [250.0 + 8 * i for i in range(11)]
    tok = _tok("Fossil fuels*Renewables*", (96.0, 18.0, 334.0, 36.0), char_x=tuple(xs))
    img[24:30, 215:240] = (30, 30, 30)  # dark grey: glyph ink, not a swatch
    assert split_at_marks([tok], [_layer(img, (30, 30, 30))]) == [tok]


def _pew_legend_row(first: int = 6) -> tuple[np.ndarray, OcrToken]:
    """Pew's legend row as the OCR reads it: one token over three entries, each after a
    6-pixel square swatch that stands closer to its neighbours than a wide gap; the first
    swatch starts at x = `first`, its label's first character centre at 19."""
    img = np.full((60, 420, 3), 255, dtype=np.uint8)
    img[24:30, first : first + 6] = NAVY
    img[24:30, 93:99] = BLUE
    img[24:30, 197:203] = GREY
    xs = [19.0 + 5 * i for i in range(14)] + [105.0 + 5 * i for i in range(18)]
    xs += [210.0 + 5 * i for i in range(12)]
    text = "Very important" + "Somewhat important" + "Not too much"
    return img, _tok(text, (3.6, 20.0, 272.0, 34.7), char_x=tuple(xs))


# 8: the swatch ends two pixels from the label's letters, four of its six columns
# show beside the label's box (9177.png's "Unfavorable")
@pytest.mark.parametrize("first", [6, 8])
def test_a_legend_row_run_over_small_square_swatches_is_cut_at_each(first: int) -> None:
    img, tok = _pew_legend_row(first)
    layers = [_layer(img, NAVY), _layer(img, BLUE), _layer(img, GREY)]
    pieces = split_at_marks([tok], layers)
    assert [p.text for p in pieces] == ["Very important", "Somewhat important", "Not too much"]
    # each box stops a pixel short of the swatch beside it
    assert pieces[0].box[2] <= 92 and pieces[1].box[0] >= 100 and pieces[1].box[2] <= 196
    from chartproof.reader.perception.palette import text_mask

    legend = find_legend(pieces, layers, text_mask(img.shape[:2], pieces))
    assert [(e.label, e.color) for e in legend] == [
        ("Very important", _layer(img, NAVY).hex),
        ("Somewhat important", _layer(img, BLUE).hex),
        ("Not too much", _layer(img, GREY).hex),
    ]


FAINT = (220, 216, 199)  # Pew's "Don't know" beige: chroma 21, luma about 215


@pytest.mark.parametrize(("bar_in_faint", "named"), [(True, True), (False, False)])
def test_a_faint_grey_swatch_names_a_series_only_when_bars_are_drawn_in_it(
    bar_in_faint: bool, named: bool
) -> None:
    img = np.full((200, 300, 3), 255, dtype=np.uint8)
    img[24:32, 10:18] = NAVY
    img[24:32, 110:118] = FAINT
    img[80:100, 20:200] = NAVY
    bars = [(20.0, 80.0, 200.0, 100.0)]
    if bar_in_faint:
        img[80:100, 200:260] = FAINT
        bars.append((200.0, 80.0, 260.0, 100.0))
    toks = [
        _tok("Yes", (22.0, 20.0, 50.0, 36.0), char_x=(26.0, 36.0, 46.0)),
        _tok(
            "Don't know", (122.0, 20.0, 200.0, 36.0), char_x=tuple(126.0 + 8 * i for i in range(10))
        ),
    ]
    from chartproof.reader.perception.palette import text_mask

    layers = [_layer(img, NAVY), _layer(img, FAINT)]
    legend = find_legend(toks, layers, text_mask(img.shape[:2], toks), bars)
    assert ("Don't know" in [e.label for e in legend]) is named


@pytest.mark.parametrize(("text", "entry"), [(UNREAD_FOOTNOTE, False), ("Yes", True)])
def test_a_footnote_line_the_ocr_left_unread_is_no_legend_label(text: str, entry: bool) -> None:
    """A mark at the start of a footnote line the OCR left unread (`UNREAD_FOOTNOTE`: the
    whole line's box) made it a legend entry, and the legend's box then ran from the top
    of OpenCQA 2520.png to its foot, over every bar."""
    from chartproof.reader.perception.palette import text_mask

    img = np.full((60, 300, 3), 255, dtype=np.uint8)
    img[24:32, 10:18] = NAVY
    toks = [_tok(text, (22.0, 20.0, 120.0, 36.0), char_x=tuple(26.0 + 9 * i for i in range(10)))]
    legend = find_legend(toks, [_layer(img, NAVY)], text_mask(img.shape[:2], toks))
    assert [e.label for e in legend] == ([text] if entry else [])


@pytest.mark.parametrize(
    ("mark", "why"),
    [
        ((slice(26, 28), slice(60, 140)), "a line crossing the text runs on under the glyphs"),
        ((slice(26, 28), slice(93, 99)), "two pixels high: a stroke, not a swatch"),
        ((slice(8, 30), slice(93, 99)), "reaches a line height above: a bar behind the text"),
        ((slice(24, 31, 3), slice(92, 100)), "striped, not solid"),
    ],
)
def test_a_mark_in_a_narrow_gap_that_is_no_swatch_cuts_nothing(
    mark: tuple[slice, slice], why: str
) -> None:
    img = np.full((60, 420, 3), 255, dtype=np.uint8)
    img[mark] = BLUE
    xs = [19.0 + 5 * i for i in range(14)] + [105.0 + 5 * i for i in range(18)]
    tok = _tok("Very importantSomewhat important", (11.0, 20.0, 200.0, 34.7), char_x=tuple(xs))
    assert split_at_marks([tok], [_layer(img, BLUE)]) == [tok], why


# ---------------------------------------------------------------------- line fit


def test_line_fit_stays_finite_on_a_misread_huge_label() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        slope, icpt = line_fit(np.array([2019.0, 2e272]), np.array([396.0, 216.0]))
        assert np.isfinite(slope) and np.isfinite(icpt)
        assert line_fit(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0])) == (2.0, 1.0)
        assert all(np.isnan(line_fit(np.array([3.0, 3.0]), np.array([1.0, 2.0]))))


# ---------------------------------------------------------------------- grouped bars


def _bar(layer: int, u0: float, u1: float) -> Bar:
    box = (u0, 50.0, u1, 150.0)
    return Bar(layer=layer, span=Frame("vertical").span(box), box=box)


def test_bars_of_a_group_two_pixels_apart_share_a_slot() -> None:
    # 15 px bars drawn at sub-pixel places: pairs 2 px apart, groups 10 px apart.
    bars = [_bar(0, 0, 15), _bar(1, 17, 32), _bar(0, 42, 57), _bar(1, 59, 74)]
    slots = group_slots(bars, stacked=False)
    assert [[b.layer for b in s] for s in slots] == [[0, 1], [0, 1]]


def test_bars_of_one_colour_two_pixels_apart_stay_apart() -> None:
    bars = [_bar(0, 0, 15), _bar(0, 17, 32), _bar(0, 34, 49)]
    assert len(group_slots(bars, stacked=False)) == 3


def test_a_two_pixel_segment_between_two_thick_ones_keeps_the_stack_together() -> None:
    # 100 % stacks: blue 20 px, a 2 px red sliver (a 1.5 % share), then navy on top. Without
    # the sliver the navy segment floats 3 px above the blue and leaves the stack.
    img = np.full((200, 200, 3), 255, dtype=np.uint8)
    for x0 in (30, 90, 150):
        img[158:178, x0 : x0 + 30] = BLUE
        img[156:158, x0 : x0 + 30] = (166, 11, 11)
        img[100:155, x0 : x0 + 30] = NAVY
    img[60:62, 90:120] = (166, 11, 11)  # a lone sliver over nothing: no segment
    layers = [_layer(img, BLUE), _layer(img, (166, 11, 11)), _layer(img, NAVY)]
    found = find_bars(layers, "vertical")
    assert found is not None and found.stacked
    assert sorted(b.layer for b in found.bars) == [0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_the_baseline_of_a_stack_is_not_the_edge_two_tall_segments_share() -> None:
    # Four stacks on y=180: short blue bases of different heights, tall navy middles, short
    # grey tops. Three navy/grey seams happen to line up within a pixel, and more bar area
    # touches them than the base line; but each seam has a segment on both sides in one
    # slot, which a baseline never has.
    img = np.full((220, 260, 3), 255, dtype=np.uint8)
    for k, (x0, seam, low) in enumerate(
        ((20, 61, 120), (80, 60, 130), (140, 61, 140), (200, 99, 150))
    ):
        img[low:180, x0 : x0 + 40] = BLUE
        img[seam:low, x0 : x0 + 40] = NAVY
        img[seam - 12 - 3 * k : seam, x0 : x0 + 40] = GREY
    layers = [_layer(img, BLUE), _layer(img, NAVY), _layer(img, GREY)]
    found = find_bars(layers, "vertical")
    assert found is not None and found.stacked
    assert found.baseline == pytest.approx(-180.0, abs=1.5)
    assert len(found.bars) == 12


# ---------------------------------------------------------------------- legends


def test_a_row_of_line_swatches_taken_for_bars_stays_a_legend() -> None:
    # Six legend entries, each a short line swatch; the bar finder saw the six swatches as
    # six short bars. Half of them match their swatch box closely, half less (their dots
    # make the bar box taller): all six are still legend entries.
    colours = [BLUE, NAVY, GREY, (166, 11, 11), (135, 188, 36), (235, 181, 35)]
    img = np.full((80, 600, 3), 255, dtype=np.uint8)
    toks, bars = [], []
    for k, rgb in enumerate(colours):
        x0 = 20 + 95 * k
        img[38:43, x0 : x0 + 16] = rgb
        toks.append(_tok(str(2015 + k), (x0 + 22.0, 32.0, x0 + 58.0, 48.0)))
        bars.append(
            (float(x0), 38.0, x0 + 16.0, 42.0) if k % 2 else (float(x0), 33.0, x0 + 16.0, 47.0)
        )
    layers = [_layer(img, rgb) for rgb in colours]
    text = np.zeros(img.shape[:2], dtype=bool)
    for t in toks:
        text[int(t.box[1]) : int(t.box[3]), int(t.box[0]) : int(t.box[2])] = True
    legend = find_legend(toks, layers, text, bars)
    assert [e.label for e in legend] == [str(2015 + k) for k in range(6)]


def _mask_with(*shapes: tuple[int, int, int, int]) -> np.ndarray:
    mask = np.zeros((60, 60), bool)
    for x, y, w, h in shapes:
        mask[y : y + h, x : x + w] = True
    return mask


def _lattice() -> np.ndarray:
    """A 9 x 3 px rectangle holed at every other pixel along its middle row: 23 of 27 pixels
    (85.2 % full), and no 2 x 2 block of set pixels."""
    mask = _mask_with((10, 20, 9, 3))
    mask[21, 11:19:2] = False
    return mask


# (mask, orientation, rectangles (x0, y0, x1, y1) found); worked by hand
RECT_CASES = [
    (_mask_with((10, 10, 8, 30)), "vertical", [(10, 10, 18, 40)]),
    (
        _mask_with((10, 10, 8, 30), (30, 20, 8, 20)),
        "vertical",
        [(10, 10, 18, 40), (30, 20, 38, 40)],
    ),
    # a 2 px wide bar holds 2 x 2 blocks: found
    (_mask_with((10, 10, 2, 30)), "vertical", [(10, 10, 12, 40)]),
    # hairlines and a diagonal fringe hold none: not labelled at all
    (_mask_with((5, 30, 50, 1), (30, 5, 1, 50)), "horizontal", []),
    (np.eye(60, dtype=bool) | np.eye(60, k=1, dtype=bool), "vertical", []),
    # the only box 85 % full without a block (see `bars._rects`): the closing fills it
    (_lattice(), "horizontal", [(10, 20, 19, 23)]),
    (_lattice(), "vertical", [(10, 20, 19, 23)]),
    (_lattice().T, "vertical", [(20, 10, 23, 19)]),
]


@pytest.mark.parametrize(("mask", "orientation", "found"), RECT_CASES)
def test_bar_rectangles(mask: np.ndarray, orientation: str, found: list[tuple[int, ...]]) -> None:
    from chartproof.reader.perception.bars import _rects

    assert sorted(r[:4] for r in _rects(mask, orientation)) == found  # type: ignore[arg-type]


def test_a_second_bar_search_finds_rectangles_again_only_where_the_exclusion_cut() -> None:
    """read_chart searches for bars before the legend is known and again with the legend cut
    out: with a `memo`, the second search fills no labels in again, runs `_rects` only on
    the layers the cut changed, and finds what a search without a memo finds."""
    from chartproof.reader.perception import bars

    img = np.full((120, 200, 3), 255, dtype=np.uint8)
    img[40:110, 20:40] = NAVY  # bars standing on y = 110
    img[60:110, 60:80] = NAVY
    img[50:110, 100:120] = BLUE
    img[10:18, 150:158] = BLUE  # a legend swatch
    layers = [_layer(img, NAVY), _layer(img, BLUE)]
    legend = [(145.0, 5.0, 195.0, 22.0)]
    calls: list[int] = []
    real = bars._rects

    def counted(mask: np.ndarray, orientation: str) -> list[tuple[int, int, int, int, float]]:
        calls.append(int(mask.sum()))
        return real(mask, orientation)  # type: ignore[arg-type]

    filled: list[int] = []
    real_fill = bars._under_labels

    def fill(mask: np.ndarray, printed: object) -> np.ndarray:
        filled.append(1)
        return real_fill(mask, printed)  # type: ignore[arg-type]

    labels = [(22.0, 50.0, 38.0, 60.0)]  # a value label printed across the first bar
    memo = bars.RectMemo()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bars, "_rects", counted)
        mp.setattr(bars, "_under_labels", fill)
        first = bars.find_bar_layouts(layers, labels=labels, memo=memo)
        assert (len(calls), len(filled)) == (4, 2)  # two layers, two orientations
        again = bars.find_bar_layouts(layers, legend, labels=labels, memo=memo)
        # the blue layer, whose swatch the legend cut out; no label filled in again
        assert (len(calls), len(filled)) == (6, 2)
        assert first == bars.find_bar_layouts(layers, labels=labels)
        assert again == bars.find_bar_layouts(layers, legend, labels=labels)
    assert again[0] is not None and len(again[0].bars) == 3


# (boxes a, boxes b, IoU matrix): worked by hand
IOU_CASES = [
    ([(0, 0, 10, 10)], [(0, 0, 10, 10)], [[1.0]]),
    ([(0, 0, 10, 10)], [(5, 0, 15, 10)], [[50 / 150]]),  # half overlaps: 50 of 150
    ([(0, 0, 10, 10)], [(10, 0, 20, 10), (20, 20, 30, 30)], [[0.0, 0.0]]),  # touching, apart
    ([(0, 0, 10, 10), (2, 2, 4, 4)], [(0, 0, 4, 4)], [[16 / 100], [4 / 16]]),
    ([(3, 3, 3, 3)], [(3, 3, 3, 3)], [[0.0]]),  # empty boxes: no union
    ([], [(0, 0, 1, 1)], np.zeros((0, 1)).tolist()),
    ([(0, 0, 1, 1)], [], [[]]),
]


@pytest.mark.parametrize(("a", "b", "want"), IOU_CASES)
def test_iou_matrix(a: list[Box], b: list[Box], want: list[list[float]]) -> None:
    from chartproof.reader.perception.geometry import iou_matrix

    got = iou_matrix(a, b)
    assert got.shape == (len(a), len(b))
    assert np.allclose(got, np.array(want, dtype=float).reshape(len(a), len(b)))
