"""Box plots read from a render, vertical and horizontal: five-number summaries within a
pixel's worth of the table, categories named, and the box question programs answered from the
image."""

from __future__ import annotations

import io

import numpy as np
import pytest

from chartproof.charts import render
from chartproof.reader import solve, view_of
from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style

FIVE = {
    "Control": (0.5, 1.0, 1.4, 1.9, 2.6),
    "Dose A": (0.9, 1.6, 2.1, 2.5, 3.2),
    "Dose B": (0.2, 0.6, 0.8, 1.1, 1.5),
}


def _spec(orientation: str = "vertical") -> ChartSpec:
    cols = (
        Column(name="Group", kind="category"),
        *(Column(name=n) for n in ("min", "Q1", "median", "Q3", "max")),
    )
    table = DataTable(columns=cols, rows=tuple((k, *v) for k, v in FIVE.items()))
    return ChartSpec(
        id="box",
        chart_type="box",
        table=table,
        encoding=Encoding(x="Group", y=("min", "Q1", "median", "Q3", "max")),
        style=Style(width=5.0, height=3.6, y_title="Response", orientation=orientation),  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module", params=["vertical", "horizontal"])
def reading(engine: object, request: pytest.FixtureRequest) -> object:
    from PIL import Image

    from chartproof.reader.perception import read_chart

    png = render(_spec(request.param)).png
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    return read_chart(image, engine.read(image))  # type: ignore[attr-defined]


def test_five_numbers_are_read(reading: object) -> None:
    assert reading.chart_type == "box"  # type: ignore[attr-defined]
    assert reading.value_axis.direction == (  # type: ignore[attr-defined]
        "y" if reading.orientation == "vertical" else "x"  # type: ignore[attr-defined]
    )
    table = reading.table  # type: ignore[attr-defined]
    labels = table.labels(table.names[0])
    assert list(labels) == list(FIVE)
    for i, name in enumerate(FIVE):
        got = [table.numbers(c)[i] for c in table.names[1:6]]
        # One pixel is about 0.015 on this axis (0-3.5 over ~230 px).
        assert got == pytest.approx(FIVE[name], abs=0.05), name


def test_box_questions_from_the_image(reading: object) -> None:
    view = view_of(reading)  # type: ignore[arg-type]
    # Read off the axis, not printed: within a few pixels.
    assert float(solve("What is the median of Dose A?", view).answer) == pytest.approx(
        2.1, abs=0.05
    )
    assert solve("Does Dose B have a lower median than Control?", view).answer == "Yes"
    assert float(solve("What is the upper quartile of Control?", view).answer) == pytest.approx(
        1.9, abs=0.05
    )


def _mask(*boxes: tuple[int, int, int, int], hollow: bool = False) -> np.ndarray:
    mask = np.zeros((120, 200), bool)
    for x0, y0, x1, y1 in boxes:
        mask[y0 : y1 + 1, x0 : x1 + 1] = True
        if hollow:
            mask[y0 + 2 : y1 - 1, x0 + 2 : x1 - 1] = False
    return mask


@pytest.mark.parametrize(
    ("mask", "rects"),
    [
        # Inclusive bounds in the whole mask's pixels, wherever the rectangles lie.
        (_mask((150, 90, 189, 109)), [(150, 90, 189, 109)]),
        (_mask((10, 5, 49, 14), (120, 60, 179, 79)), [(10, 5, 49, 14), (120, 60, 179, 79)]),
        (_mask((0, 0, 199, 119)), [(0, 0, 199, 119)]),
        (np.zeros((120, 200), bool), []),
        (_mask((40, 40, 46, 60)), []),  # narrower than 8 px
        (_mask((40, 40, 90, 41)), []),  # thinner than 3 px
        (_mask((40, 40, 99, 79), hollow=True), []),  # an outline fills too little
    ],
    ids=["corner", "two", "whole", "empty", "narrow", "thin", "hollow"],
)
def test_filled_rectangles(mask: np.ndarray, rects: list[tuple[int, int, int, int]]) -> None:
    from chartproof.reader.perception.box_reader import _rects

    assert sorted(_rects(mask)) == rects
