"""Perception rules for Statista-style charts, on small hand-built images: grey series
between the background and a dark colour, legend dots inside the OCR box, 100 % stacks
whose thin segments fall apart under labels, sub-pixel segment edges, axes fitted on
gridlines, and line vertices hidden under value labels."""

from __future__ import annotations

import numpy as np
import pytest

from chartproof.ocr import OcrToken
from chartproof.reader.perception.bars import Bar, BarLayout, find_bar_layouts, find_bars
from chartproof.reader.perception.edges import refine_bars
from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.gridlines import snap_gridlines
from chartproof.reader.perception.legend import find_legend
from chartproof.reader.perception.line_reader import _under_labels
from chartproof.reader.perception.lines import vertices
from chartproof.reader.perception.palette import ColorLayer, color_layers, text_mask
from chartproof.reader.perception.records import AxisFit, Box
from chartproof.reader.perception.scene import Scene

WHITE = (255, 255, 255)
NAVY = (15, 40, 62)
GREY = (186, 186, 186)
BLUE = (40, 118, 221)
RED = (166, 11, 11)


def _canvas(h: int = 120, w: int = 200) -> np.ndarray:
    return np.full((h, w, 3), 255, dtype=np.uint8)


def _layer(image: np.ndarray, rgb: tuple[int, int, int]) -> ColorLayer:
    mask = np.all(image == np.array(rgb, dtype=np.uint8), axis=2)
    return ColorLayer(rgb=rgb, mask=mask, count=int(mask.sum()))


def _tok(text: str, box: tuple[float, float, float, float], **kw: object) -> OcrToken:
    return OcrToken(text=text, box=box, score=1.0, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- colour layers


def test_grey_bars_between_white_and_navy_are_a_series_not_antialiasing() -> None:
    # (186, 186, 186) lies within 14 RGB of the white-navy blend line, so the blend test
    # alone calls it an antialiased edge of the navy bars; filled bars are not edges.
    img = _canvas()
    img[20:100, 20:50] = NAVY
    img[40:100, 70:100] = GREY
    rgbs = {lay.rgb for lay in color_layers(img, np.zeros(img.shape[:2], bool), WHITE)}
    assert NAVY in rgbs and GREY in rgbs


def test_a_thin_blend_band_around_a_bar_is_still_dropped() -> None:
    img = _canvas()
    img[20:100, 20:50] = NAVY
    img[19, 19:51] = GREY  # a one-pixel halo in the blend colour
    img[100, 19:51] = GREY
    img[19:101, 19] = GREY
    img[19:101, 50] = GREY
    rgbs = {lay.rgb for lay in color_layers(img, np.zeros(img.shape[:2], bool), WHITE)}
    assert NAVY in rgbs and GREY not in rgbs


# ---------------------------------------------------------------------- legend


def _legend_image() -> tuple[np.ndarray, list[OcrToken]]:
    img = _canvas(60, 400)
    img[24:34, 20:30] = BLUE  # dot left of its label, outside the label box
    img[24:34, 150:160] = GREY  # a mid-grey series
    img[24:34, 262:272] = RED  # dot inside the OCR box of its label
    toks = [
        _tok("Cardiology", (34, 20, 110, 38), char_x=tuple(40.0 + 7 * i for i in range(10))),
        _tok("OB/GYN", (164, 20, 220, 38), char_x=tuple(170.0 + 8 * i for i in range(6))),
        _tok(
            "Orthopedic surgery",
            (260, 20, 390, 38),
            char_x=tuple(284.0 + 6 * i for i in range(18)),
        ),
    ]
    for t in toks:  # glyph ink inside the label boxes
        x0 = int(t.char_x[0]) - 3
        img[25:33, x0 : int(t.box[2]) - 4 : 3] = (30, 30, 30)
    return img, toks


def test_legend_reads_grey_swatches_and_dots_inside_the_label_box() -> None:
    img, toks = _legend_image()
    layers = [_layer(img, c) for c in (BLUE, GREY, RED)]
    legend = find_legend(toks, layers, text_mask(img.shape[:2], toks))
    assert {e.label: e.color for e in legend} == {
        "Cardiology": "#2876dd",
        "OB/GYN": "#bababa",
        "Orthopedic surgery": "#a60b0b",
    }


def test_unaligned_numbers_beside_markers_are_not_a_legend() -> None:
    img = _canvas(200, 400)
    img[40:48, 40:48] = BLUE  # markers of a line, each with its value label to the right
    img[120:128, 200:208] = BLUE
    toks = [_tok("803.61", (50, 35, 100, 53)), _tok("763.48", (210, 116, 260, 134))]
    layers = [_layer(img, BLUE)]
    assert find_legend(toks, layers, text_mask(img.shape[:2], toks)) == ()


def test_a_thin_scrap_of_an_icon_is_no_swatch() -> None:
    img = _canvas(60, 300)
    img[30:34, 20:26] = BLUE  # 6×4 px: part of an "(i)" icon left of a footer link
    toks = [_tok("Additional Information", (30, 20, 170, 39))]
    legend = find_legend(toks, [_layer(img, BLUE)], text_mask(img.shape[:2], toks))
    assert legend == ()


# ---------------------------------------------------------------------- bars


def _hundred_percent_stacks() -> tuple[np.ndarray, list[OcrToken]]:
    """Horizontal 100 % stacks from x=20 to x=220: blue, navy, then a thin grey end
    segment cut in two by a white label box printed over it."""
    img = _canvas(200, 260)
    toks = []
    for k, y in enumerate(range(20, 180, 40)):
        navy0 = 150 + 5 * k
        img[y : y + 24, 20:navy0] = BLUE
        img[y : y + 24, navy0:210] = NAVY
        img[y : y + 24, 210:220] = GREY
        # The end label ("2%") runs over navy and grey; its box hides the middle rows.
        img[y + 6 : y + 18, 200:232] = WHITE
        img[y + 8 : y + 16, 204:228:3] = (20, 20, 20)
        toks.append(_tok("4.82%", (200.0, y + 6.0, 232.0, y + 18.0)))
    return img, toks


def test_baseline_is_the_edge_most_bar_area_stands_on() -> None:
    img, toks = _hundred_percent_stacks()
    layers = [_layer(img, c) for c in (BLUE, NAVY, GREY)]
    layout = find_bars(layers, "horizontal", labels=[t.box for t in toks])
    assert layout is not None and layout.stacked
    assert layout.baseline == 20


def test_labels_printed_across_segments_do_not_cut_them_up() -> None:
    img, toks = _hundred_percent_stacks()
    layers = [_layer(img, c) for c in (BLUE, NAVY, GREY)]
    layout = find_bars(layers, "horizontal", labels=[t.box for t in toks])
    assert layout is not None
    grey = sorted((b for b in layout.bars if b.layer == 2), key=lambda b: b.box[1])
    assert [b.box for b in grey] == [(210.0, y, 220.0, y + 24.0) for y in (20, 60, 100, 140)]
    # Without the label boxes the grey ends are halves too thin to be read as one bar each.
    bare = find_bars(layers, "horizontal")
    assert bare is not None
    assert not any(b.layer == 2 and b.box[3] - b.box[1] == 24 for b in bare.bars)


@pytest.mark.parametrize("exclude", [(), ((205.0, 15.0, 235.0, 50.0),)])
def test_both_orientations_at_once_match_one_at_a_time(exclude: tuple[Box, ...]) -> None:
    # find_bar_layouts makes each layer's mask once for both orientations; the layouts
    # are those of find_bars, and the layers' own masks are left as they were.
    img, toks = _hundred_percent_stacks()
    layers = [_layer(img, c) for c in (BLUE, NAVY, GREY)]
    before = [lay.mask.copy() for lay in layers]
    labels = [t.box for t in toks]
    both = find_bar_layouts(layers, exclude, labels=labels)
    one = tuple(find_bars(layers, o, exclude, labels=labels) for o in ("vertical", "horizontal"))
    assert both == one
    assert both[1] is not None and both[1].stacked
    assert all(np.array_equal(a, lay.mask) for a, lay in zip(before, layers, strict=True))


def test_a_label_beside_a_bar_fills_nothing() -> None:
    img = _canvas(100, 200)
    img[40:100, 20:40] = BLUE
    toks = [_tok("12.5", (44.0, 34.0, 80.0, 50.0))]  # value label just right of the top
    layout = find_bars([_layer(img, BLUE)], "vertical", labels=[t.box for t in toks])
    assert layout is not None
    assert [b.box for b in layout.bars] == [(20.0, 40.0, 40.0, 100.0)]


def test_specks_of_the_bar_colour_at_its_end_do_not_lengthen_it() -> None:
    img = _canvas(100, 200)
    img[20:50, 20:120] = NAVY
    img[30, 120:123] = NAVY  # antialiased glyph edges of a label touching the bar's end
    img[41, 120:122] = NAVY
    img[35, 124] = NAVY
    layout = find_bars([_layer(img, NAVY)], "horizontal")
    assert layout is not None
    assert [b.box for b in layout.bars] == [(20.0, 20.0, 120.0, 50.0)]


# ---------------------------------------------------------------------- sub-pixel edges


def _layout(bars: list[Bar], orientation: str, stacked: bool, baseline: float) -> BarLayout:
    return BarLayout(
        orientation=orientation,  # type: ignore[arg-type]
        bars=tuple(bars),
        baseline=baseline,
        stacked=stacked,
        score=1.0,
    )


def _bar(layer: int, box: tuple[float, float, float, float], orientation: str) -> Bar:
    return Bar(layer=layer, span=Frame(orientation).span(box), box=box)  # type: ignore[arg-type]


def test_a_bar_end_is_read_to_the_fraction_of_its_antialiased_pixel() -> None:
    img = _canvas(60, 200)
    img[10:30, 20:100] = BLUE
    blend = 0.4 * np.array(BLUE) + 0.6 * np.array(WHITE)
    img[10:30, 100] = blend.round().astype(np.uint8)  # the bar covers 40 % of column 100
    layers = [_layer(img, BLUE)]
    bar = _bar(0, (20.0, 10.0, 100.0, 30.0), "horizontal")
    out = refine_bars(img, _layout([bar], "horizontal", False, 20.0), layers, WHITE)
    assert out.bars[0].span.v1 == pytest.approx(100.4, abs=0.02)
    assert out.bars[0].span.v0 == 20.0


def test_vertical_bar_top_is_read_to_a_fraction_too() -> None:
    img = _canvas(120, 60)
    img[40:100, 10:30] = BLUE
    blend = 0.75 * np.array(BLUE) + 0.25 * np.array(WHITE)
    img[39, 10:30] = blend.round().astype(np.uint8)  # row 39 is 75 % bar
    bar = _bar(0, (10.0, 40.0, 30.0, 100.0), "vertical")
    out = refine_bars(img, _layout([bar], "vertical", False, -100.0), [_layer(img, BLUE)], WHITE)
    # canonical v = -y: the top moves up by 0.75 px, from -40 to -39.25
    assert out.bars[0].span.v1 == pytest.approx(-39.25, abs=0.02)


def test_stacked_segments_share_edges_and_the_outer_border_counts_half() -> None:
    # Segments drawn with a 1 px white border: navy fill 100..149, separator at 150, grey
    # fill 151..159. The shared edge is the separator's middle, and the grey value ends half
    # a border past its fill, as the blue-navy edge is exact (no separator there).
    img = _canvas(60, 220)
    img[10:30, 20:100] = BLUE
    img[10:30, 100:150] = NAVY
    img[10:30, 151:160] = GREY
    layers = [_layer(img, c) for c in (BLUE, NAVY, GREY)]
    bars = [
        _bar(0, (20.0, 10.0, 100.0, 30.0), "horizontal"),
        _bar(1, (100.0, 10.0, 150.0, 30.0), "horizontal"),
        _bar(2, (151.0, 10.0, 160.0, 30.0), "horizontal"),
    ]
    out = refine_bars(img, _layout(bars, "horizontal", True, 20.0), layers, WHITE)
    spans = [b.span for b in out.bars]
    assert spans[0].v1 == pytest.approx(100.0) and spans[1].v0 == pytest.approx(100.0)
    assert spans[1].v1 == pytest.approx(150.5) and spans[2].v0 == pytest.approx(150.5)
    assert spans[2].v1 == pytest.approx(160.5)


# ---------------------------------------------------------------------- gridlines


def _axis_with_gridlines(offset: float) -> tuple[np.ndarray, AxisFit]:
    """A horizontal value axis 0..100 with ticks every 20 at x = 40 + 3 px per unit, faint
    dotted gridlines above the labels, and label boxes `offset` px off their gridlines."""
    img = _canvas(200, 400)
    ticks = []
    for v in range(0, 101, 20):
        x = 40 + 3 * v
        img[10:160:2, x] = (225, 227, 231)
        cx = x + 0.5 + offset
        ticks.append(_tok(str(v), (cx - 8, 166.0, cx + 8, 180.0)))
    fit = AxisFit(
        direction="x",
        scale="linear",
        intercept=40.5 + offset,
        slope=3.0,
        ticks=tuple(ticks),
        residual_px=0.4,
    )
    return img, fit


def test_axis_is_refitted_on_its_gridlines() -> None:
    img, fit = _axis_with_gridlines(offset=1.2)
    out = snap_gridlines(fit, img, WHITE)
    assert out.intercept == pytest.approx(40.5, abs=0.05)
    assert out.slope == pytest.approx(3.0, abs=0.01)


def test_axis_without_gridlines_is_left_alone() -> None:
    img, fit = _axis_with_gridlines(offset=1.2)
    img[:] = 255
    assert snap_gridlines(fit, img, WHITE) == fit


# ---------------------------------------------------------------------- lines


def test_a_vertex_under_a_value_label_is_found_once_the_line_is_put_back() -> None:
    # A straight rising blue line; a value label's box hides it from x = 85 to 116.
    img = _canvas(120, 220)
    for x in range(20, 201):
        y = round(100 - 0.4 * (x - 20))
        img[y - 1 : y + 2, x] = BLUE
    text = np.zeros(img.shape[:2], dtype=bool)
    text[50:80, 85:117] = True
    layer = _layer(img, BLUE)
    scene = Scene(
        image=img,
        tokens=(),
        layers=(layer,),
        legend=(),
        legend_box=None,
        text=text,
        y_axis=None,
        x_axis=None,
        text_height=12.0,
    )
    xs = [20.0, 60.0, 100.0, 140.0, 180.0]
    masks = [layer.mask & ~text]
    cut = [vertices(masks[0], xs, [])]
    assert cut[0][2] is None
    out = _under_labels(scene, [0], masks, [[]], xs, cut)
    assert out[0][2] is not None and out[0][2].y == pytest.approx(68.0, abs=1.0)
    assert out[0][0] == cut[0][0]  # found vertices stay as they were


def _thin_top_segments(label_over_gap: bool) -> tuple[np.ndarray, list[ColorLayer]]:
    """Two 96 px wide stacks (blue, then a 6 px grey top segment); the left stack's grey
    is cut in two by a dark label the OCR could not read."""
    img = _canvas(200, 300)
    for x0, top in ((20, 60), (160, 80)):
        img[top:180, x0 : x0 + 96] = BLUE
        img[top - 6 : top, x0 : x0 + 96] = GREY
    img[52:62, 54:82] = WHITE  # the label's halo cuts the grey segment
    img[53:61, 55:81] = (18, 18, 18)  # its dark glyphs and their outline
    img[55:59, 60:81:5] = WHITE
    if label_over_gap:
        img[52:62, 118:158] = (18, 18, 18)
        img[60:80, 160:256] = BLUE  # both stacks of equal height
    layers = [_layer(img, c) for c in (BLUE, GREY, (18, 18, 18))]
    return img, layers


def test_a_thin_segment_cut_by_an_unread_label_is_joined_again() -> None:
    _, layers = _thin_top_segments(label_over_gap=False)
    layout = find_bars(layers, "vertical")
    assert layout is not None and layout.stacked
    grey = sorted(b.box for b in layout.bars if b.layer == 1)
    assert grey == [(20.0, 54.0, 116.0, 60.0), (160.0, 74.0, 256.0, 80.0)]


def test_equal_bars_in_neighbouring_slots_stay_apart_under_a_wide_label() -> None:
    _, layers = _thin_top_segments(label_over_gap=True)
    layout = find_bars(layers, "vertical")
    assert layout is not None
    blue = sorted(b.box for b in layout.bars if b.layer == 0)
    assert blue == [(20.0, 60.0, 116.0, 180.0), (160.0, 60.0, 256.0, 180.0)]
