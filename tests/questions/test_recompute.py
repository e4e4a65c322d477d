"""Property test: every program's answer, on random tables and seeds, equals an independent
pandas recomputation from the table (tests/questions/question_oracle.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from question_factory import random_spec
from question_oracle import recompute, same

from chartproof.questions import list_programs, make_questions
from chartproof.types import ChartType

CHART_TYPES: tuple[ChartType, ...] = (
    "vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "scatter", "box",
)  # fmt: skip


@settings(max_examples=90, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), chart=st.sampled_from(CHART_TYPES))
def test_every_answer_matches_recomputation(seed: int, chart: ChartType) -> None:
    spec = random_spec(random.Random(seed), chart, spec_id=f"h{seed}")
    items = make_questions(spec, seed=seed, per_chart=200, with_premises=False)
    for family, n in (("structure", 20), ("computed", 30), ("figureqa", 30)):
        items += make_questions(
            spec, seed=seed, per_chart=n, families=(family,), with_premises=False
        )
    for item in items:
        want = recompute(item.program, dict(item.args), spec)
        assert same(item.answer.value, want), (item.program, item.question, item.answer, want)


@pytest.mark.slow
def test_property_test_reaches_every_program() -> None:
    """The random charts of the property test exercise every registered program."""
    seen: set[str] = set()
    rng = random.Random(7)
    for i in range(135):
        spec = random_spec(rng, CHART_TYPES[i % len(CHART_TYPES)], spec_id=f"cov{i}")
        items = make_questions(spec, seed=i, per_chart=200, with_premises=False)
        items += make_questions(
            spec, seed=i, per_chart=60, families=("computed", "figureqa"), with_premises=False
        )
        for item in items:
            seen.add(item.program)
            assert same(item.answer.value, recompute(item.program, dict(item.args), spec))
    missing = {p.name for p in list_programs() if p.family != "structure"} - seen
    assert not missing
