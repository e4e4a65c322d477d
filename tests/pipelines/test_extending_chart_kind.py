"""A new chart type is one module's worth of code: a dot plot (one dot per category, no
bars, no lines), declared and drawn here alone, renders with its geometry, gets the
category charts' questions and premises, and flows through `generate_from_specs`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from chartproof.charts import SpecError, render, validate_spec
from chartproof.charts.drawing import (
    CategoryAxis,
    MarkInfo,
    NumberAxis,
    Op,
    Tag,
    cartesian_ops,
    categories,
    color_of,
    column_values,
    op,
)
from chartproof.charts.kinds import ChartKind, register_chart_kind, unregister_chart_kind
from chartproof.pipelines.generate import generate_from_specs
from chartproof.questions import chart_view
from chartproof.questions.program import execute, list_programs
from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style

# ---------------------------------------------------------------- the new kind's module


def dot_ops(spec: ChartSpec) -> list[Op]:
    """Calls drawing a dot plot: one dot per category at its value."""
    style, col = spec.style, spec.encoding.y[0]
    labels, values = categories(spec), column_values(spec, col)
    y_axis = NumberAxis(lo=min(values), hi=max(values), scale=style.y_scale, title=style.y_title)
    x_axis = CategoryAxis(labels, 0.5, style.x_title, style.tick_rotation)
    color = color_of(spec, 0)

    def draw() -> list[Op]:
        marks = tuple(
            MarkInfo("point", i, col, col, v, color, x=float(i), y=v, radius_pt=3.0)
            for i, v in enumerate(values)
        )
        xs = [float(i) for i in range(len(labels))]
        return [op("ax", "scatter", xs, values, s=36.0, color=color, tag=Tag("points", marks))]

    return cartesian_ops(spec, x_axis, y_axis, draw, None, full_frame=False)


DOT = ChartKind(
    "dot",
    "dot plot",
    dot_ops,
    family="dot",
    mark="dot",
    mark_phrase="the {color}dot for {x}",
    single_series=True,
    zero_based=False,
)

# ---------------------------------------------------------------- the test


@pytest.fixture
def dot_kind() -> Iterator[None]:
    register_chart_kind(DOT)
    yield
    unregister_chart_kind("dot")


def _spec(spec_id: str = "d0", values: tuple[float, ...] = (41.0, 67.0, 23.0, 55.0)) -> ChartSpec:
    table = DataTable(
        columns=(Column(name="Team", kind="category"), Column(name="Score", unit="pts")),
        rows=tuple(zip(("Ash", "Birch", "Cedar", "Doum"), values, strict=True)),
    )
    return ChartSpec(
        id=spec_id,
        chart_type="dot",
        table=table,
        encoding=Encoding(x="Team", y=("Score",)),
        style=Style(title="Points per team", y_title="Score", value_labels=False),
    )


def test_it_renders_with_its_geometry(dot_kind: None) -> None:
    rendered = render(_spec())
    assert rendered.png.startswith(b"\x89PNG")
    marks = rendered.geometry.marks
    assert [(m.kind, m.row, m.value) for m in marks] == [
        ("point", 0, 41.0),
        ("point", 1, 67.0),
        ("point", 2, 23.0),
        ("point", 3, 55.0),
    ]
    # dots go left to right by category and up with their value (pixel y grows downwards)
    xs = [m.anchor[0] for m in marks]
    assert xs == sorted(xs)
    by_value = sorted(marks, key=lambda m: m.value)
    assert [m.anchor[1] for m in by_value] == sorted((m.anchor[1] for m in marks), reverse=True)


def test_its_declared_capabilities_decide_validation(dot_kind: None) -> None:
    spec = _spec()
    two = spec.model_copy(
        update={
            "table": spec.table.model_copy(
                update={
                    "columns": (*spec.table.columns, Column(name="Other")),
                    "rows": tuple((*r, 1.0) for r in spec.table.rows),
                }
            ),
            "encoding": Encoding(x="Team", y=("Score", "Other")),
        }
    )
    with pytest.raises(SpecError, match="a dot chart shows exactly one value column"):
        validate_spec(two)


def test_it_gets_the_category_questions(dot_kind: None) -> None:
    names = {p.name for p in list_programs(chart_type="dot")}
    # the programs of every category chart apply; those of bars, lines and pies do not
    assert {"structure_chart_type", "argmax_x", "sort_descending", "total"} <= names
    assert not names & {"pie_share", "color_of_wedge", "value_at_position", "largest_rise"}
    view = chart_view(_spec())
    assert view.mark == "dot" and view.kind.title == "dot plot"
    kind = execute("structure_chart_type", {}, view)
    assert kind is not None and kind.answer.value == "dot plot"
    top = execute("argmax_x", {"series": "Score"}, view)
    assert top is not None and top.answer.value == "Birch"
    # its explanation names the mark with the kind's own phrase and plural
    assert top.final.note == "the blue dot for Birch is the highest of the blue dots"


def test_it_flows_through_generate(dot_kind: None, tmp_path: Path) -> None:
    specs = [_spec(f"d{i}", (41.0 + i, 67.0, 23.0, 55.0 - i)) for i in range(2)]
    out = generate_from_specs(specs, tmp_path / "data", per_chart=3, executor="local:1")
    assert out.charts == 2 and out.samples == 6
    rows = [
        json.loads(line)
        for line in (tmp_path / "data" / "samples.jsonl").read_text("utf-8").splitlines()
    ]
    assert {r["chart_type"] for r in rows} == {"dot"}
    assert all((tmp_path / "data" / r["image"]["path"]).is_file() for r in rows)
    assert all(r["answer"] is not None for r in rows)
    premises = [p for r in rows for p in r.get("premises") or ()]
    assert any("dot plot" in p["text"] and p["truth"] for p in premises)


def test_an_unregistered_kind_is_refused() -> None:
    with pytest.raises(ValidationError, match="unknown chart type 'dot'"):
        _spec()
