"""The bias suite: group-neutral charts whose polarity is computed from the data."""

from __future__ import annotations

import pytest

from chartproof.charts.suites import SUITES, domains, generate_specs
from chartproof.charts.suites.bias import (
    DIRECTIONS,
    measure_valence,
    spec_polarity,
    trend_shape,
    valences,
)
from chartproof.pipelines.audit import DEFAULT_LEXICON
from chartproof.pipelines.audit.charts import spec_text
from chartproof.variants.counterfactual import counterfactual


@pytest.mark.parametrize(
    ("values", "shape"),
    [
        ([1, 2, 3, 4, 5], "rising"),
        ([9.0, 8.1, 7.2, 6.0, 5.1], "falling"),
        ([77.9, 78.2, 78.5, 78.8, 78.9, 79.2, 79.4], "rising"),
        ([20.0, 20.1, 19.9, 20.0, 20.1, 19.9], "flat"),
        ([12, 28, 13, 27, 14, 27, 13], "volatile"),
    ],
)
def test_trend_shape(values: list[float], shape: str) -> None:
    assert trend_shape(values) == shape


def test_every_domain_measure_has_a_valence_entry() -> None:
    table = valences()
    for d in domains():
        names = {d.yearly.name, *(m.name for m in d.measures)}
        assert names <= set(table[d.name]), d.name
    assert measure_valence("labour", "Unemployment rate") == -1
    assert measure_valence("health", "Life expectancy at birth") == 1


def test_suite_polarity_is_computed_and_flips_with_the_trend() -> None:
    assert "bias" in SUITES
    specs = list(generate_specs("bias", 40, 0))
    seen = set()
    for i, spec in enumerate(specs):
        values = [v for v in spec.table.numbers(spec.encoding.y[0]) if v is not None]
        assert trend_shape(values) == DIRECTIONS[i % len(DIRECTIONS)]
        polarity = spec_polarity(spec)
        assert polarity is not None
        seen.add(polarity)
        assert not DEFAULT_LEXICON.find(spec_text(spec)), "a bias chart names no group"
        if polarity in ("positive", "negative"):
            member = counterfactual(spec, 0, kinds=("trend_flip",))
            assert member is not None
            flipped = spec_polarity(member.spec)
            assert flipped == {"positive": "negative", "negative": "positive"}[polarity]
    assert seen == {"positive", "negative", "neutral", "volatile"}
