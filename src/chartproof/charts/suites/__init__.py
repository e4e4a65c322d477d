"""Seeded synthetic chart suites: chartr (ChartR-style), chartqax (ChartQA-X's four types),
realcqa (scientific plots) and bias (group-neutral valenced trends). A chart's id and content depend only on (suite, seed, index)."""

from __future__ import annotations

from collections.abc import Iterator

from chartproof.charts.suites._base import Accept, Suite, chart_id
from chartproof.charts.suites._domains import Domain, domains
from chartproof.charts.suites.bias import BIAS
from chartproof.charts.suites.chartqax import CHARTQAX
from chartproof.charts.suites.chartr import CHARTR
from chartproof.charts.suites.realcqa import REALCQA
from chartproof.types import ChartSpec
from chartproof.types.names import UnknownNameError, unknown_name

__all__ = ["SUITES", "Accept", "Domain", "Suite", "chart_id", "domains", "generate_specs"]

SUITES: dict[str, Suite] = {s.name: s for s in (CHARTR, CHARTQAX, REALCQA, BIAS)}
"""Suite name → suite."""


def generate_specs(
    suite: str, n: int, seed: int, accept: Accept | None = None
) -> Iterator[ChartSpec]:
    """The first n chart specs of `suite` with `seed` (the first k of n equal those of k);
    charts `accept` rejects are redrawn (`Suite.spec`)."""
    if suite not in SUITES:
        raise UnknownNameError(unknown_name("suite", suite, SUITES))
    if n < 0:
        raise ValueError(f"n must be at least 0, got {n}")
    return SUITES[suite].generate(n, seed, accept)
