"""Synthetic suites: reproducible, stable ids, every template × domain reachable, and the
data are plausible (pies sum to 100, quartiles ordered, printed values are the data)."""

from __future__ import annotations

import itertools

import pytest

from chartproof.charts import SUITES, generate_specs, render, validate_spec
from chartproof.charts.suites import domains
from chartproof.numeric import parse_number
from chartproof.types import ChartSpec


def test_prefix_of_a_longer_run_is_the_shorter_run() -> None:
    for name in SUITES:
        short = list(generate_specs(name, 20, seed=3))
        long = list(generate_specs(name, 40, seed=3))
        assert long[:20] == short, name
        assert [s.id for s in short] == [f"{name}-s3-{i:06d}" for i in range(20)]


def test_seed_changes_the_charts_and_is_recorded() -> None:
    a = list(generate_specs("chartr", 10, seed=0))
    b = list(generate_specs("chartr", 10, seed=1))
    assert [s.table for s in a] != [s.table for s in b]
    assert {s.seed for s in b} == {1}


def test_unknown_suite_names_the_choices() -> None:
    with pytest.raises(KeyError, match="unknown suite 'nope'; choose one of: bias, chartqax"):
        list(generate_specs("nope", 1, 0))
    with pytest.raises(ValueError, match=r"unknown suite 'chartqx' \(did you mean 'chartqax'\?\)"):
        list(generate_specs("chartqx", 1, 0))


def test_at_least_twenty_templates_and_twenty_domains() -> None:
    assert len(SUITES["chartr"].templates) >= 20
    assert len(domains()) >= 20


def _plausible(spec: ChartSpec) -> None:
    table, enc = spec.table, spec.encoding
    if spec.chart_type == "pie":
        values = table.numbers(enc.y[0])
        assert sum(v or 0 for v in values) == pytest.approx(100.0, abs=1e-9), spec.id
    if spec.chart_type == "stacked_bar" and table.col(enc.y[0]).unit == "%":
        for row in table.rows:
            assert sum(float(c) for c in row[1:] if c is not None) == pytest.approx(100.0, abs=1e-9)
    if spec.chart_type == "box":
        for row in table.rows:
            stats = [float(c) for c in row[1:] if c is not None]
            assert stats == sorted(stats) and len(set(stats)) == 5, (spec.id, row)
    if spec.style.value_labels:
        # what the chart prints is the data, not a rounded version of it
        for col in enc.y:
            for v in table.numbers(col):
                assert v is not None
                assert parse_number(spec.style.value_format.format(v)) == pytest.approx(v), (
                    spec.id,
                    v,
                )
    if spec.chart_type in ("vbar", "hbar"):
        values = table.numbers(enc.y[0])
        assert len(set(values)) == len(values), f"{spec.id}: tied bars"
    if spec.chart_type == "grouped_bar":
        for row in table.rows:
            assert len(set(row[1:])) == len(row) - 1, f"{spec.id}: tied bars in {row}"
    assert 2 <= table.n_rows <= 110
    assert len(spec.series_names()) <= 8


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_every_template_in_every_domain_is_valid_and_plausible(suite: str) -> None:
    s = SUITES[suite]
    for (name, template), domain in itertools.product(s.templates.items(), domains()):
        spec = template(s.context(7, 11, domain))
        validate_spec(spec)
        _plausible(spec)
        assert spec.domain is not None, name


def test_suites_cover_their_chart_types() -> None:
    def types(name: str) -> set[str]:
        return {s.chart_type for s in generate_specs(name, 2 * len(SUITES[name].templates), 0)}

    assert types("chartqax") == {"hbar", "vbar", "line", "pie"}
    assert {
        "vbar",
        "hbar",
        "grouped_bar",
        "stacked_bar",
        "line",
        "area",
        "pie",
        "scatter",
        "box",
    } <= types("chartr")
    realcqa = list(generate_specs("realcqa", 24, 0))
    assert {"scatter", "box"} <= {s.chart_type for s in realcqa}
    assert any(s.style.y_scale == "log" for s in realcqa)
    assert max(len(s.series_names()) for s in realcqa) >= 6
    assert any("$" in " ".join(s.table.names) for s in realcqa)


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_suite_charts_render_with_geometry(suite: str) -> None:
    for spec in generate_specs(suite, 6, seed=5):
        rendered = render(spec)
        assert rendered.geometry.marks, spec.id
        # long titles are wrapped onto several lines
        titles = [" ".join(t.text.split()) for t in rendered.geometry.texts if t.role == "title"]
        assert titles == ([spec.style.title] if spec.style.title else [])
