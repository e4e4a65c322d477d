"""What every synthetic suite shares: per-chart seeded randomness, stable ids, the template
registry and the helpers templates use to build specs."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from chartproof.charts.colors import PALETTES
from chartproof.charts.suites._domains import Domain, Measure, domains
from chartproof.types import (
    Cell,
    ChartSpec,
    ChartType,
    Column,
    ColumnKind,
    DataTable,
    Encoding,
    Style,
)
from chartproof.types.registry import Registry

__all__ = [
    "MONTHS",
    "SUITES",
    "Accept",
    "Ctx",
    "Suite",
    "Template",
    "chart_id",
    "register_suite",
    "value_format",
]

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def chart_id(suite: str, seed: int, index: int) -> str:
    """Stable id of chart `index` of a suite run: depends on nothing else."""
    return f"{suite}-s{seed}-{index:06d}"


def value_format(decimals: int, unit: str | None = None) -> str:
    """Format string printing values at their precision ("%" units keep their sign)."""
    suffix = "%" if unit == "%" else ""
    return f"{{:.{decimals}f}}{suffix}"


@dataclass
class Ctx:
    """Everything a template may use to draw one chart."""

    suite: str
    """Suite name."""
    seed: int
    """Run seed."""
    index: int
    """Position of the chart in the run."""
    rng: random.Random
    """This chart's own random stream."""
    domain: Domain
    """Topical domain."""

    @property
    def id(self) -> str:
        """The chart's id."""
        return chart_id(self.suite, self.seed, self.index)

    def pick(
        self, labels: tuple[str, ...], lo: int, hi: int, *, ordinal: bool = False
    ) -> list[str]:
        """Between lo and hi labels, in their listed order; a contiguous run of them when
        they are `ordinal` (age groups 25-34, 35-44, 45-54, never 18-24, 35-44, 65-74)."""
        k = self.rng.randint(min(lo, len(labels)), min(hi, len(labels)))
        if ordinal:
            start = self.rng.randint(0, len(labels) - k)
            return list(labels[start : start + k])
        keep = sorted(self.rng.sample(range(len(labels)), k))
        return [labels[i] for i in keep]

    def measure(self, dimension: str | None = None, *, by_groups: bool = False) -> Measure:
        """One of the domain's per-category measures; one that describes `dimension` (and
        splits by the domain's groups) when given."""
        if dimension is None:
            return self.rng.choice(self.domain.measures)
        fits = self.domain.measures_over(dimension, by_groups=by_groups)
        return self.rng.choice(fits or self.domain.measures_over(dimension))

    def years(self, n: int) -> list[str]:
        """n consecutive years ending between 2019 and 2024."""
        end = self.rng.randint(2019, 2024)
        return [str(y) for y in range(end - n + 1, end + 1)]

    def palette(self, *names: str) -> tuple[str, ...]:
        """One of the named palettes (all of them when none is given)."""
        return PALETTES[self.rng.choice(names or tuple(sorted(PALETTES)))]

    def spec(
        self,
        chart_type: ChartType,
        columns: list[tuple[str, ColumnKind, str | None]],
        rows: list[list[Cell]],
        x: str,
        y: tuple[str, ...],
        series: str | None = None,
        domain: str | None = None,
        **style: Any,
    ) -> ChartSpec:
        """Assemble the spec (columns as (name, kind, unit)); `domain` overrides the topical
        domain's name (scientific fields)."""
        table = DataTable(
            columns=tuple(Column(name=n, kind=k, unit=u) for n, k, u in columns),
            rows=tuple(tuple(r) for r in rows),
        )
        return ChartSpec(
            id=self.id,
            chart_type=chart_type,
            table=table,
            encoding=Encoding(x=x, y=y, series=series),
            style=Style.model_validate(style),
            seed=self.seed,
            domain=domain or self.domain.name,
        )


Template = Callable[[Ctx], ChartSpec]
"""Draws one chart spec from a context."""

Accept = Callable[[ChartSpec], bool]
"""Whether a drawn chart is kept (e.g. whether its questions can be asked unambiguously)."""


@dataclass(frozen=True)
class Suite:
    """A named, seeded family of chart templates over the topical domains."""

    name: str
    """Registry name."""
    description: str
    """One line on what the suite imitates."""
    templates: dict[str, Template]
    """Template name → template, in registry order."""
    chains_per_chart: int = 0
    """ChartR reasoning chains asked about every chart before its other questions."""

    def context(self, seed: int, index: int, domain: Domain | None = None, attempt: int = 0) -> Ctx:
        """The context of chart `index`: its random stream and (unless given) its domain;
        `attempt` > 0 gives the fresh streams of redrawn charts (see `spec`)."""
        key = f"{self.name}/{seed}/{index}" + (f"/redraw{attempt}" if attempt else "")
        rng = random.Random(key)
        picked = rng.choice(domains())
        return Ctx(self.name, seed, index, rng, domain or picked)

    def template_for(self, seed: int, index: int) -> str:
        """Which template chart `index` uses: every template once per round, seeded order."""
        names = sorted(self.templates)
        random.Random(f"{self.name}/{seed}/order").shuffle(names)
        return names[index % len(names)]

    def spec(
        self, seed: int, index: int, accept: Accept | None = None, attempts: int = 8
    ) -> ChartSpec:
        """Chart `index` of the run with `seed`. With `accept`, a chart it rejects is
        redrawn (same template and id, fresh data) up to `attempts` times, as ChartR keeps
        only the charts that pass its quality check; the last draw is kept regardless."""
        template = self.templates[self.template_for(seed, index)]
        spec = template(self.context(seed, index))
        for attempt in range(1, attempts if accept is not None else 1):
            if accept is None or accept(spec):
                break
            spec = template(self.context(seed, index, attempt=attempt))
        return spec

    def generate(self, n: int, seed: int, accept: Accept | None = None) -> Iterator[ChartSpec]:
        """The first n charts of the run with `seed` (redrawn where `accept` rejects them)."""
        for index in range(n):
            yield self.spec(seed, index, accept)


_HOMES = (
    "chartproof.charts.suites.chartr",
    "chartproof.charts.suites.chartqax",
    "chartproof.charts.suites.realcqa",
    "chartproof.charts.suites.bias",
)
"""Modules of the shipped suites, in the order they are listed (a new one adds its line)."""

SUITES: Registry[Suite] = Registry("suite", modules=_HOMES, group="chartproof.suites")
"""Suite name → suite (`register_suite` registers here; another package's suites through
the ``chartproof.suites`` entry-point group)."""


def register_suite(suite: Suite) -> Suite:
    """Register a suite under its name; returns it (ValueError on a name taken)."""
    SUITES.load()  # the shipped suites first, whichever module is imported first
    return SUITES.register(suite.name, suite)
