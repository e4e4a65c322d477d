"""Seeded synthetic chart suites: chartr (ChartR-style), chartqax (ChartQA-X's four types),
realcqa (scientific plots) and bias (group-neutral valenced trends). A chart's id and content
depend only on (suite, seed, index). `SUITES` is their registry: a new suite is one module
that calls `register_suite` plus its line in `_base._HOMES`."""

from __future__ import annotations

from collections.abc import Iterator

from chartproof.charts.suites._base import SUITES, Accept, Suite, chart_id, register_suite
from chartproof.charts.suites._domains import Domain, domains
from chartproof.types import ChartSpec

__all__ = [
    "SUITES",
    "Accept",
    "Domain",
    "Suite",
    "chart_id",
    "domains",
    "generate_specs",
    "register_suite",
]


def generate_specs(
    suite: str, n: int, seed: int, accept: Accept | None = None
) -> Iterator[ChartSpec]:
    """The first n chart specs of `suite` with `seed` (the first k of n equal those of k);
    charts `accept` rejects are redrawn (`Suite.spec`)."""
    found = SUITES[suite]  # UnknownNameError naming the nearest suite
    if n < 0:
        raise ValueError(f"n must be at least 0, got {n}")
    return found.generate(n, seed, accept)
