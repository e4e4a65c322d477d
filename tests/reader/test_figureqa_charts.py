"""Two real FigureQA plots (skipped when ../shared/data is absent): bars painted one colour
each with labels turned upright, and line series drawn as dots, answered yes or no."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from chartproof.reader import solve, view_of

FIGUREQA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "figureqa"

pytestmark = [
    pytest.mark.needs_shared,
    pytest.mark.skipif(
        not (FIGUREQA / "images").is_dir(),
        reason="real FigureQA samples live in ../shared/data/figureqa, absent here",
    ),
]


def test_painted_bars_with_upright_labels(read_png: Callable[[Path], object]) -> None:
    reading = read_png(FIGUREQA / "images" / "train" / "20856.png")
    assert reading.chart_type == "vbar"  # type: ignore[attr-defined]
    table = reading.table  # type: ignore[attr-defined]
    labels = table.labels(table.names[0])
    assert list(labels[:3]) == [
        "Light Slate",
        "Cornflower",
        "Dark Turquoise",
    ]
    values = dict(zip(labels, table.numbers(table.names[1]), strict=True))
    # Read off the axis (no printed values): Light Slate ~97, Bubblegum ~13.
    assert abs(values["Light Slate"] - 97) < 2 and abs(values["Bubblegum"] - 13) < 2
    view = view_of(reading)  # type: ignore[arg-type]
    assert solve("Is Cornflower less than Light Slate?", view).answer == "Yes"
    assert solve("Is Bubblegum the minimum?", view).answer == "Yes"
    assert solve("Is Light Green the low median?", view).answer == "No"


def test_dot_line_series(read_png: Callable[[Path], object]) -> None:
    reading = read_png(FIGUREQA / "images" / "train" / "96216.png")
    assert reading.chart_type == "line"  # type: ignore[attr-defined]
    table = reading.table  # type: ignore[attr-defined]
    salmon = [v for v in table.numbers("Salmon") if v is not None]
    # Salmon falls from ~85 to ~15 across the plot.
    assert salmon[0] > 80 and salmon[-1] < 20
    view = view_of(reading)  # type: ignore[arg-type]
    assert solve("Does Salmon have the highest value?", view).answer == "Yes"
    assert solve("Does Salmon intersect Dark Slate?", view).answer == "Yes"
    assert solve("Does Dark Slate have the maximum area under the curve?", view).answer == "No"
