"""validate_spec names the spec and the problem; the cases live in cases/validate.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.charts import SpecError, render, spec_to_code, validate_spec
from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style

CASES = json.loads((Path(__file__).parent / "cases" / "validate.json").read_text(encoding="utf-8"))


def _spec(case: dict[str, Any]) -> ChartSpec:
    table = DataTable(
        columns=(Column(name="label", kind="category"), Column(name="v"), Column(name="w")),
        rows=tuple(tuple(r) for r in case["rows"]),
    )
    return ChartSpec(
        id="case",
        chart_type=case["chart_type"],
        table=table,
        encoding=Encoding(x="label", y=tuple(case["y"])),
        style=Style.model_validate(case.get("style", {})),
    )


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_validate_cases(case: dict[str, Any]) -> None:
    spec = _spec(case)
    if case["error"] is None:
        validate_spec(spec)
        return
    with pytest.raises(SpecError) as info:
        validate_spec(spec)
    assert str(info.value).startswith("chart spec 'case': ")
    assert case["error"] in str(info.value)


def test_render_and_code_refuse_bad_specs() -> None:
    bad = _spec(next(c for c in CASES if c["name"] == "pie with a negative share"))
    with pytest.raises(SpecError, match="pie values must be non-negative"):
        render(bad)
    with pytest.raises(SpecError, match="pie values must be non-negative"):
        spec_to_code(bad)


def test_box_needs_ordered_five_number_summaries() -> None:
    table = DataTable(
        columns=(Column(name="g", kind="category"), *(Column(name=n) for n in "abcde")),
        rows=(("x", 1.0, 2.0, 3.0, 4.0, 5.0), ("y", 1.0, 4.0, 3.0, 5.0, 6.0)),
    )
    spec = ChartSpec(
        id="b", chart_type="box", table=table, encoding=Encoding(x="g", y=tuple("abcd"))
    )
    with pytest.raises(SpecError, match=r"box chart needs five columns"):
        validate_spec(spec)
    spec = spec.model_copy(update={"encoding": Encoding(x="g", y=tuple("abcde"))})
    with pytest.raises(
        SpecError, match=r"row 1: five-number summary \[1.0, 4.0, 3.0, 5.0, 6.0\] is not ordered"
    ):
        validate_spec(spec)
