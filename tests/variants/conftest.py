"""Fixtures for the variants tests: a small synthetic chart image drawn with numpy (fast and
independent of the renderer) and hand-built chart specs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style
from chartproof.variants.images import RGB


def bar_image() -> RGB:
    """A 120×160 white image with three blue bars, a black axis and dark "label" blocks."""
    img = np.full((120, 160, 3), 255, dtype=np.uint8)
    img[100:102, 10:150] = 0
    for x0, top in ((20, 60), (65, 30), (110, 45)):
        img[top:100, x0 : x0 + 30] = (31, 119, 180)
        img[top - 10 : top - 3, x0 + 8 : x0 + 22] = 40
    return img


@pytest.fixture
def chart_image() -> RGB:
    return bar_image()


def vbar_spec(chart_id: str = "bars", *, value_labels: bool = True) -> ChartSpec:
    table = DataTable(
        columns=(Column(name="Fruit", kind="category"), Column(name="Sales", unit="t")),
        rows=(("Apples", 12.0), ("Pears", 31.0), ("Plums", 7.0), ("Kiwis", 19.0)),
    )
    return ChartSpec(
        id=chart_id,
        chart_type="vbar",
        table=table,
        encoding=Encoding(x="Fruit", y=("Sales",)),
        style=Style(value_labels=value_labels, title="Fruit sales", y_title="Sales (t)", dpi=60),
    )


@pytest.fixture
def make_vbar() -> Callable[..., ChartSpec]:
    """`vbar_spec` as a fixture: a four-bar chart with value labels, 60 dpi."""
    return vbar_spec
