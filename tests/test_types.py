"""Core records: validation errors name the culprit, round trips are lossless."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from chartproof.types import Answer, ChartSpec, Column, DataTable, Encoding, ImageRef, Sample


def _table() -> DataTable:
    return DataTable(
        columns=(Column(name="Year", kind="time"), Column(name="Sales", unit="%")),
        rows=(("2019", 1.5), ("2020", 3.0)),
    )


def test_ragged_table_names_row() -> None:
    with pytest.raises(ValidationError, match="row 1 has 1 cells"):
        DataTable(
            columns=(Column(name="a", kind="category"), Column(name="b")), rows=(("x", 1.0), ("y",))
        )


def test_non_finite_number_rejected() -> None:
    with pytest.raises(ValidationError, match="not finite"):
        DataTable(columns=(Column(name="b"),), rows=((float("nan"),),))


def test_csv_round_trip_infers_kinds() -> None:
    t = DataTable.from_csv('Year,Sales,Note\n2019,"1,200",a\n2020,7%,b\n')
    assert [c.kind for c in t.columns] == ["time", "number", "category"]
    assert t.numbers("Sales") == (1200.0, 7.0)
    assert DataTable.from_csv(t.to_csv()) == t


def test_csv_ragged_line_named() -> None:
    with pytest.raises(ValueError, match="line 3"):
        DataTable.from_csv("a,b\n1,2\n3\n")


def test_spec_rejects_unknown_column() -> None:
    with pytest.raises(ValidationError, match="absent from the table"):
        ChartSpec(
            id="c", chart_type="vbar", table=_table(), encoding=Encoding(x="Year", y=("Cost",))
        )


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        (Answer.number(12.0), "12"),
        (Answer.number(0.125), "0.125"),
        (Answer.boolean(True), "Yes"),
        (Answer(kind="list", value=("a", 2.0)), "a, 2"),
    ],
)
def test_answer_text(answer: Answer, text: str) -> None:
    assert answer.text() == text


def test_answer_kind_must_match_value() -> None:
    with pytest.raises(ValidationError, match="cannot hold"):
        Answer(kind="number", value="twelve")


@pytest.mark.parametrize("path", ["../x.png", "/etc/passwd", "a/../../b.png"])
def test_image_path_may_not_escape(path: str) -> None:
    with pytest.raises(ValidationError, match="escapes"):
        ImageRef(path=path)


def test_sample_json_round_trip_and_groups() -> None:
    spec = ChartSpec(
        id="c", chart_type="vbar", table=_table(), encoding=Encoding(x="Year", y=("Sales",))
    )
    s = Sample(
        id="s1",
        image=ImageRef(path="images/c.png"),
        question="q?",
        answer=Answer.number(3.0),
        table=spec.table,
        spec=spec,
        chart_type="vbar",
        task_type="VE",
        groups={"domain": "retail"},
    )
    assert Sample.model_validate_json(s.model_dump_json()) == s
    assert s.group_labels() == {
        "chart_type": "vbar",
        "task_type": "VE",
        "perturbation": "original",
        "domain": "retail",
    }


def test_records_are_frozen_and_strict() -> None:
    t = _table()
    with pytest.raises(ValidationError):
        t.rows = ()  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        Column(name="a", colour="red")  # type: ignore[call-arg]
