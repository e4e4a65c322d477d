"""Plots keep every series visible and their scales fixed."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from chartproof.reports.plots import grouped_bars, line_chart


def _share_of(png: bytes, rgb: tuple[int, int, int]) -> float:
    px = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return float((np.abs(px - np.array(rgb)).sum(axis=2) < 40).mean())


def test_identical_robustness_curves_both_show() -> None:
    points = [(0.0, 0.8), (1.0, 0.7), (2.0, 0.6), (3.0, 0.5)]
    one = line_chart({"blur": points}, title="t", x_label="x", y_label="y")
    two = line_chart({"blur": points, "noise": points}, title="t", x_label="x", y_label="y")
    orange = (0xD9, 0x48, 0x0F)  # the second series' colour
    blue = (0x24, 0x58, 0xC6)  # the first's
    # the second curve is drawn beside the first, not over it: the first keeps much of
    # what it shows alone (its markers, its shifted line), not just its legend swatch
    assert _share_of(one, orange) == 0.0 and _share_of(two, orange) > 0.002
    assert _share_of(two, blue) > 0.3 * _share_of(one, blue)


def test_grouped_bars_draw_one_bar_per_run_and_value() -> None:
    blue, orange = (0x24, 0x58, 0xC6), (0xD9, 0x48, 0x0F)
    png = grouped_bars({"a": {"vbar": 0.5, "pie": 0.5}, "b": {"vbar": 0.5}}, title="t", y_label="y")
    # a has two bars of height 0.5, b one: about twice the blue of the orange
    ratio = _share_of(png, blue) / _share_of(png, orange)
    assert 1.6 < ratio < 2.4
