"""Table recovery from rendered charts with known tables: every cell within the relaxed 5 %,
labels and series names read, evidence attached to every cell."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from chartproof.types import DataTable

from .conftest import SPECS


def _cells(table: DataTable) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for row in table.rows:
        for name, cell in zip(table.names[1:], row[1:], strict=True):
            if isinstance(cell, float):
                out[(str(row[0]).lower(), name.lower())] = cell
    return out


@pytest.mark.parametrize("name", sorted(SPECS))
def test_rendered_chart_table_is_recovered(
    name: str, chart_dir: Path, read_png: Callable[[Path], object]
) -> None:
    spec = SPECS[name]
    reading = read_png(chart_dir / f"{name}.png")
    got = _cells(reading.table)  # type: ignore[attr-defined]
    gold = _cells(spec.table)
    single = len(spec.table.names) == 2
    for (label, series), value in gold.items():
        if single:
            # One series: its name is not printed, so match the only value column.
            matches = [v for (lab, _), v in got.items() if lab == label]
        else:
            matches = [got[(label, series)]] if (label, series) in got else []
        assert matches, f"{name}: no cell for {label!r}/{series!r} in {reading.table.to_csv()}"  # type: ignore[attr-defined]
        assert matches[0] == pytest.approx(value, rel=0.05), f"{name}: {label}/{series}"


@pytest.mark.parametrize(
    ("name", "chart_type"),
    [
        ("vbar", "vbar"),
        ("hbar", "hbar"),
        ("grouped", "grouped_bar"),
        ("stacked", "stacked_bar"),
        ("line", "line"),
        ("pie", "pie"),
    ],
)
def test_chart_type_is_detected(
    name: str, chart_type: str, chart_dir: Path, read_png: Callable[[Path], object]
) -> None:
    assert read_png(chart_dir / f"{name}.png").chart_type == chart_type  # type: ignore[attr-defined]


def test_evidence_and_confidence_cover_every_cell(
    chart_dir: Path, read_png: Callable[[Path], object]
) -> None:
    reading = read_png(chart_dir / "hbar.png")
    table = reading.table  # type: ignore[attr-defined]
    filled = sum(isinstance(c, float) for r in table.rows for c in r[1:])
    assert len(reading.evidence) == filled  # type: ignore[attr-defined]
    # Value labels are printed on this chart: every cell cites the OCR text it used.
    assert all(e.source == "value_label" and e.text for e in reading.evidence)  # type: ignore[attr-defined]
    assert all(0 < c <= 1 for row in reading.confidence for c in row)  # type: ignore[attr-defined]


def test_legend_names_series_and_colours(
    chart_dir: Path, read_png: Callable[[Path], object]
) -> None:
    reading = read_png(chart_dir / "grouped.png")
    assert [e.label for e in reading.legend] == ["North", "South"]  # type: ignore[attr-defined]
    assert reading.x_title == "Year"  # type: ignore[attr-defined]
    assert reading.series_colors == {"North": "#1f77b4", "South": "#ff7f0e"}  # type: ignore[attr-defined]


def test_value_axis_fit_reads_titles(chart_dir: Path, read_png: Callable[[Path], object]) -> None:
    reading = read_png(chart_dir / "vbar.png")
    assert reading.title == "Fruit sales"  # type: ignore[attr-defined]
    assert reading.y_title == "Sales (t)"  # type: ignore[attr-defined]
    axis = reading.value_axis  # type: ignore[attr-defined]
    assert axis is not None and axis.scale == "linear" and len(axis.ticks) >= 3
