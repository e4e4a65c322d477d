"""Label removal: exact re-render on specs (checked against the geometry sidecar) and OCR
inpainting on external images."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from chartproof.ocr import OcrToken
from chartproof.types import ChartSpec
from chartproof.variants import perturb, to_rgb, variants_for
from chartproof.variants.images import RGB
from chartproof.variants.perturbations.label_removal import value_label_boxes

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


def test_spec_label_removal_keeps_the_structure_and_records_the_spec(
    make_vbar: Callable[..., ChartSpec],
) -> None:
    """ChartR removes the printed numbers and keeps axes, tick labels and category names."""
    spec = make_vbar()
    [v1] = variants_for(spec, ["label_removal"], [1], "bars")
    assert v1.spec is not None and v1.spec.style.value_labels is False
    assert v1.spec.style.tick_labels == spec.style.tick_labels
    assert v1.spec.id == "bars~label_removal-1" and v1.spec.parent_id == "bars"
    assert v1.spec.transforms[-1] == v1.transform
    assert v1.spec.table == spec.table  # the data, hence the answers, are unchanged
    before = charts.render(spec).geometry.texts
    after = charts.render(v1.spec).geometry.texts
    assert [t.text for t in after] == [t.text for t in before if t.role != "value_label"]
    assert any(t.role == "tick_label" for t in after)


def test_label_removal_has_no_level_that_deletes_names(
    make_vbar: Callable[..., ChartSpec],
) -> None:
    spec = make_vbar()
    with pytest.raises(ValueError, match=r"'label_removal' has levels \[1\], not 2"):
        perturb(None, "label_removal", 2, sample_id="bars", spec=spec)
    with pytest.raises(ValueError, match=r"'label_removal' has levels \[1\], not 2"):
        variants_for(spec, ["label_removal"], range(1, 4), "bars")


def _box(text: str, x0: float, y0: float, x1: float, y1: float) -> OcrToken:
    return OcrToken(text=text, box=(x0, y0, x1, y1), score=1.0)


def _y_ticks(pairs: list[tuple[str, float]], right: float = 30) -> list[OcrToken]:
    """Tick labels right-aligned at `right`, centred at the given heights."""
    return [_box(t, right - 6 * len(t), y - 4, right, y + 4) for t, y in pairs]


def _x_ticks(pairs: list[tuple[str, float]], y: float = 260) -> list[OcrToken]:
    """Tick labels centred at the given x positions on one row."""
    return [_box(t, x - 3 * len(t), y, x + 3 * len(t), y + 8) for t, x in pairs]


Y_TICKS = _y_ticks([("0", 200), ("10", 150), ("20", 100)])
YEARS = _x_ticks([("2019", 60), ("2020", 120), ("2021", 180)])
TICK_CASES: list[tuple[str, list[OcrToken], list[OcrToken]]] = [
    (
        "y ticks on the left, years on the bottom row, two labels and a word",
        [*Y_TICKS, *YEARS, _box("Sales", 100, 5, 140, 15)],
        [_box("12.5", 70, 120, 90, 128), _box("7", 130, 170, 136, 178)],
    ),
    (
        # Labels of three lines' points at one x share a right edge and sit on a straight
        # line against height (each at its own value), but their gaps (97, 77) are not
        # whole multiples of one step: not an axis.
        "a column of value labels beside the y axis",
        _y_ticks([("1000", 20), ("800", 101), ("600", 184), ("400", 266)]),
        _y_ticks([("804", 93), ("707", 133), ("630", 165)], right=94),
    ),
    (
        "a log axis and a y axis with a tick label missed",
        [
            *_y_ticks([("1", 250), ("10", 200), ("100", 150), ("1000", 100)], right=40),
            *_x_ticks([("0", 60), ("10", 90), ("30", 150), ("40", 180)], y=280),
        ],
        [_box("55", 120, 130, 132, 138)],
    ),
    (
        # Years with uneven gaps on evenly spaced categories: ticks, because nothing
        # numeric lies below them; the value labels' row has numbers below it.
        "numeric categories with uneven gaps and a row of value labels",
        _x_ticks([("2000", 60), ("2005", 120), ("2010", 180), ("2012", 240)]),
        _x_ticks([("31", 60), ("33", 120), ("35", 180), ("38", 240)], y=120),
    ),
    (
        "overlapping labels read as one run of numbers",
        Y_TICKS,
        [_box("31.26%31.23%", 100, 150, 170, 158)],
    ),
]


@pytest.mark.parametrize(
    ("ticks", "labels"), [c[1:] for c in TICK_CASES], ids=[c[0] for c in TICK_CASES]
)
def test_value_label_boxes_keeps_axis_ticks(ticks: list[OcrToken], labels: list[OcrToken]) -> None:
    words = [t for t in ticks if not any(ch.isdigit() for ch in t.text)]
    got = value_label_boxes([*ticks, *labels], width=300, height=300)
    assert got == labels
    assert not [t for t in got if t in words]


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
