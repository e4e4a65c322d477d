"""Perception rules found on charts drawn by plotting libraries the reader was not tuned on
(`bench/bench_styles.py`: Vega-Lite, ECharts, Chart.js), each on a small drawn case: bars of
a group that stand apart, and legend swatches filled with a tint of the series colour."""

from __future__ import annotations

import numpy as np

from chartproof.ocr import OcrToken
from chartproof.reader.perception.bars import Bar, group_slots
from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.legend import find_legend
from chartproof.reader.perception.palette import background_color, color_layers, text_mask
from chartproof.reader.perception.scene import Scene, series_names


def _bar(layer: int, u0: float, u1: float) -> Bar:
    box = (u0, 50.0, u1, 150.0)
    return Bar(layer=layer, span=Frame("vertical").span(box), box=box)


def test_bars_of_a_group_standing_apart_share_a_slot_when_groups_stand_farther() -> None:
    # ECharts' default: 30 px bars, 9 px apart within a category, 20 px between categories
    # (Chart.js: 3 px and 17 px); three series, the middle one missing in the last category.
    for inner, outer in ((9, 20), (3, 17)):
        bars, u = [], 0.0
        for cat in range(3):
            for layer in (0, 1, 2) if cat < 2 else (0, 2):
                bars.append(_bar(layer, u, u + 30))
                u += 30 + inner
            u += outer - inner
        slots = group_slots(bars, stacked=False)
        assert [[b.layer for b in s] for s in slots] == [[0, 1, 2], [0, 1, 2], [0, 2]]


def test_bars_of_distinct_colours_evenly_apart_stay_apart() -> None:
    # One series with a colour per bar, 9 px apart and one category left empty: the gaps do
    # come in two sizes, but no colour recurs, so no two bars make a group.
    bars = [_bar(k, 40.0 * k, 40.0 * k + 31) for k in (0, 1, 2, 4, 5)]
    assert len(group_slots(bars, stacked=False)) == 5


BLUE, RED = (54, 162, 235), (255, 99, 132)  # Chart.js' first two default colours


def _tint(rgb: tuple[int, int, int]) -> tuple[int, ...]:
    """The colour at half opacity over white, as Chart.js fills a legend swatch."""
    return tuple(round((c + 255) / 2) for c in rgb)


def test_a_swatch_filled_with_a_tint_of_the_series_colour_names_that_series() -> None:
    img = np.full((240, 400, 3), 255, dtype=np.uint8)
    tokens = []
    for k, (rgb, name) in enumerate(((BLUE, "Shoply"), (RED, "Cartwise"))):
        x = 60 + 150 * k
        # the swatch: a 36 x 10 box filled with the tint, bordered in the full colour
        img[20:32, x : x + 38] = rgb
        img[22:30, x + 2 : x + 36] = _tint(rgb)
        tokens.append(OcrToken(text=name, box=(x + 42, 16.0, x + 100, 36.0), score=1.0))
        # the series: a 3 px line rising across the plot
        for col in range(40, 380):
            row = 200 - k * 60 - (col - 40) // 6
            img[row : row + 3, col] = rgb
    text = text_mask(img.shape[:2], tokens)
    layers = color_layers(img, text, background_color(img))
    legend = find_legend(tokens, layers, text)
    # the legend found the tints, not the lines' colours
    assert sorted(e.color for e in legend) == sorted(
        "#" + "".join(f"{c:02x}" for c in _tint(rgb)) for rgb in (BLUE, RED)
    )
    scene = Scene(
        image=img, tokens=tuple(tokens), layers=tuple(layers), legend=legend,
        legend_box=None, text=text, y_axis=None, x_axis=None, text_height=20.0,
    )  # fmt: skip
    lines = [i for i, lay in enumerate(layers) if lay.rgb in (BLUE, RED)]
    assert len(lines) == 2
    named = dict(zip((layers[i].rgb for i in lines), series_names(scene, lines, None), strict=True))
    assert named == {BLUE: "Shoply", RED: "Cartwise"}
