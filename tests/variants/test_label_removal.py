"""Label removal: exact re-render on specs (checked against the geometry sidecar) and OCR
inpainting on external images."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from chartproof.types import ChartSpec
from chartproof.variants import perturb, to_rgb, variants_for
from chartproof.variants.images import RGB
from chartproof.variants.perturbations.label_removal import TextBox, value_label_boxes

charts = pytest.importorskip("chartproof.charts")


def _near_mark_edge(x: int, y: int, boxes: list[tuple[float, float, float, float]]) -> bool:
    return any(
        (abs(x - x0) <= 1 or abs(x - x1) <= 1 or abs(y - y0) <= 1 or abs(y - y1) <= 1)
        and x0 - 1 <= x <= x1 + 1
        and y0 - 1 <= y <= y1 + 1
        for x0, y0, x1, y1 in boxes
    )


def assert_no_value_label_pixels(spec: ChartSpec, image: RGB) -> int:
    """Every pixel inside each value label's box (from the original render's geometry) is the
    background, a mark's fill colour, or an anti-aliased pixel on a mark's edge."""
    geometry = charts.render(spec).geometry
    labels = [t for t in geometry.texts if t.role == "value_label"]
    fills = {tuple(int(spec.style.palette[0][i : i + 2], 16) for i in (1, 3, 5))}
    fills |= {tuple(int(m.color[i : i + 2], 16) for i in (1, 3, 5)) for m in geometry.marks}
    allowed = {(255, 255, 255), *fills}
    marks = [(m.box.x0, m.box.y0, m.box.x1, m.box.y1) for m in geometry.marks]
    for label in labels:
        rows, cols = label.box.pixel_slice(geometry.width, geometry.height)
        for y in range(rows.start, rows.stop):
            for x in range(cols.start, cols.stop):
                px = tuple(int(v) for v in image[y, x])
                assert px in allowed or _near_mark_edge(x, y, marks), (label.text, x, y, px)
    return len(labels)


def test_spec_label_removal_leaves_no_value_label_pixels(
    make_vbar: Callable[..., ChartSpec],
) -> None:
    spec = make_vbar()
    png, t = perturb(None, "label_removal", 1, sample_id="bars", spec=spec)
    assert t.params == {"method": "rerender", "removes": "value_labels"}
    assert t.answer_preserved is True
    image = to_rgb(png)
    assert assert_no_value_label_pixels(spec, image) == 4
    # the original does have label ink there: the check can fail
    with pytest.raises(AssertionError):
        assert_no_value_label_pixels(spec, to_rgb(charts.render(spec).png))
    # exact: the same pixels as rendering the spec without value labels
    plain = make_vbar(value_labels=False)
    assert np.array_equal(image, to_rgb(charts.render(plain).png))


def test_spec_label_removal_level_two_drops_tick_labels_and_records_the_spec(
    make_vbar: Callable[..., ChartSpec],
) -> None:
    spec = make_vbar()
    [v1, v2] = variants_for(spec, ["label_removal"], range(1, 6), "bars")
    assert [v1.transform.level, v2.transform.level] == [1, 2]
    assert v2.spec is not None and v2.spec.style.tick_labels is False
    assert v2.spec.style.value_labels is False
    assert v2.spec.id == "bars~label_removal-2" and v2.spec.parent_id == "bars"
    assert v2.spec.transforms[-1] == v2.transform
    assert v2.spec.table == spec.table  # the data, hence the answers, are unchanged
    geometry = charts.render(v2.spec).geometry
    assert not [t for t in geometry.texts if t.role in ("tick_label", "value_label")]


def test_value_label_boxes_keeps_axis_ticks() -> None:
    # y ticks share a right edge at the left; x ticks share a row at the bottom.
    ticks_y = [TextBox(str(v), (20, y, 30, y + 8)) for v, y in ((0, 200), (10, 150), (20, 100))]
    ticks_x = [
        TextBox(str(v), (x, 260, x + 12, 268)) for v, x in ((2019, 60), (2020, 120), (2021, 180))
    ]
    labels = [TextBox("12.5", (70, 120, 90, 128)), TextBox("7", (130, 170, 136, 178))]
    words = [TextBox("Sales", (100, 5, 140, 15))]
    got = value_label_boxes([*ticks_y, *ticks_x, *labels, *words], width=300, height=300)
    assert got == labels


def _ink(region: RGB) -> int:
    """Dark grey pixels: text ink (black labels), not the blue of the bars."""
    hi, lo = region.max(axis=2).astype(int), region.min(axis=2).astype(int)
    return int(((hi < 110) & (hi - lo < 40)).sum())


@pytest.mark.slow
def test_ocr_label_removal_on_an_image(make_vbar: Callable[..., ChartSpec]) -> None:
    pytest.importorskip("rapidocr")
    spec = make_vbar()
    spec = spec.model_copy(update={"style": spec.style.model_copy(update={"dpi": 100})})
    rendered = charts.render(spec)
    png, t = perturb(rendered.png, "label_removal", 1, sample_id="ext")
    assert t.params == {"method": "ocr_inpaint", "removes": "value_labels"}
    before, after = to_rgb(rendered.png), to_rgb(png)
    g = rendered.geometry
    for text in g.texts:
        rows, cols = text.box.pixel_slice(g.width, g.height)
        if text.role == "value_label":
            assert _ink(before[rows, cols]) > 0 and _ink(after[rows, cols]) == 0, text.text
        elif text.role == "tick_label":
            assert np.array_equal(before[rows, cols], after[rows, cols]), text.text
