"""Line charts drawn the scientific way: dense axes that label every other position, a black
series, overlapping starts hidden under one marker, log value axes."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from chartproof.reader.perception.labels import fill_skipped_labels
from chartproof.reader.perception.line_reader import _marker_positions
from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style


def _spec(
    cid: str, labels: list[str], series: dict[str, list[float]], **style: object
) -> ChartSpec:
    cols = (Column(name="t", kind="time"), *(Column(name=s) for s in series))
    rows = tuple((lab, *(series[s][i] for s in series)) for i, lab in enumerate(labels))
    table = DataTable(columns=cols, rows=rows)
    return ChartSpec(
        id=cid,
        chart_type="line",
        table=table,
        encoding=Encoding(x="t", y=tuple(series)),
        style=Style(width=5.0, height=3.6, legend_loc="outside right", **style),  # type: ignore[arg-type]
    )


_STEPS = [f"{0.5 * i:.1f}" for i in range(1, 20)]
_ZIG = [1.0 + 0.08 * i + (0.25 if i % 2 else 0.0) for i in range(19)]

DENSE = _spec(
    "dense",
    _STEPS,
    {
        "Control": [round(v, 3) for v in _ZIG],
        "Treated": [round(v + 2.0, 3) for v in _ZIG[::-1]],
        "Baseline": [round(3.0 + 0.6 * math.sin(i / 2.0), 3) for i in range(19)],
    },
    markers=False,
    palette=("#0072b2", "#d55e00", "#000000"),
    gridlines="both",
    font_size=9.0,
)
"""Every other x label printed (0.5, 1.5, ...), no markers, the third series black."""

DECAY = _spec(
    "decay",
    [str(20 * i) for i in range(1, 13)],
    {
        "fast": [round(90 * math.exp(-0.5 * i), 4) for i in range(12)],
        "slow": [round(90 * math.exp(-0.2 * i), 4) for i in range(12)],
        "mid": [round(90 * math.exp(-0.33 * i), 4) for i in range(12)],
    },
    markers=True,
    y_scale="log",
    gridlines="both",
)
"""Log value axis; all series start on one point, where the top marker hides the others."""


@pytest.fixture(scope="module")
def readings(engine: object) -> dict[str, object]:
    from PIL import Image

    from chartproof.charts import render
    from chartproof.reader.perception import read_chart

    out: dict[str, object] = {}
    for spec in (DENSE, DECAY):
        image = np.asarray(Image.open(io.BytesIO(render(spec).png)).convert("RGB"))
        out[spec.id] = read_chart(image, engine.read(image))  # type: ignore[attr-defined]
    return out


def _check(spec: ChartSpec, reading: object) -> None:
    table = reading.table  # type: ignore[attr-defined]
    assert reading.chart_type == "line"  # type: ignore[attr-defined]
    assert [str(r[0]) for r in table.rows] == [str(r[0]) for r in spec.table.rows]
    for name in spec.table.names[1:]:
        assert name in table.names, table.to_csv()
        col = table.index(name)
        for gold_row, row in zip(spec.table.rows, table.rows, strict=True):
            gold = gold_row[spec.table.index(name)]
            assert isinstance(row[col], float), f"{name}@{row[0]}: {table.to_csv()}"
            assert row[col] == pytest.approx(gold, rel=0.05), f"{name}@{row[0]}"


def test_every_other_label_and_black_series(readings: dict[str, object]) -> None:
    _check(DENSE, readings["dense"])


def test_log_axis_with_hidden_markers(readings: dict[str, object]) -> None:
    _check(DECAY, readings["decay"])


def test_marker_grid_joins_places_with_one_marker_and_fills_a_gap() -> None:
    # Three series draw markers at 40..200 except 120 (under a value label); at 20 only one
    # marker shows (the others lie beneath it); a speck off the grid at 212 stays out.
    a = [(x, 10.0, 7.0) for x in (20.0, 40.0, 60.0, 80.0, 100.0, 140.0, 160.0, 180.0, 200.0)]
    b = [(x, 30.0, 7.0) for x in (40.0, 60.0, 80.0, 100.0, 140.0, 160.0, 180.0, 200.0, 212.0)]
    c = [(x, 50.0, 7.0) for x in (40.0, 60.0, 80.0, 100.0, 140.0, 160.0, 180.0, 200.0)]
    xs = _marker_positions([a, b, c])
    assert xs == pytest.approx([20.0 * i for i in range(1, 11)], abs=0.5)


@pytest.mark.parametrize(
    ("labels", "filled"),
    [
        (["0.5", None, "2.5", None, "4.5"], ["0.5", "1.5", "2.5", "3.5", "4.5"]),
        (["10", None, "30", None, "50"], ["10", "20", "30", "40", "50"]),
        (["1.0", None, "2.0"], ["1.0", "1.5", "2.0"]),
    ],
)
def test_skipped_labels_take_the_printed_decimals(
    labels: list[str | None], filled: list[str]
) -> None:
    assert fill_skipped_labels(labels) == filled
