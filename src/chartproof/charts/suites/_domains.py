"""Topical domains of the synthetic suites: category labels, series, measures with units and
plausible ranges, read from `domains.json` (data, not logic)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from pydantic import Field, model_validator

from chartproof.types import Record

__all__ = ["Dimension", "Domain", "Measure", "Pair", "domains"]


class Dimension(Record):
    """A categorical dimension: its axis title and its labels."""

    title: str
    """Axis or legend title, e.g. "Energy source"."""
    labels: tuple[str, ...] = Field(min_length=2)
    """Category labels, unique."""
    ordinal: bool = False
    """The labels have a natural order (age groups, seasons, sizes) and are listed in it:
    charts show a contiguous run of them, in that order, never sorted by value."""
    sizes: tuple[float, ...] = ()
    """Relative size of each label's population (e.g. millions of people), when the labels
    are entities of very different sizes: counts and totals scale with it."""
    income: tuple[float, ...] = ()
    """Income per head of each label (thousand USD of GDP per person), when the labels are
    countries: amounts per person (health spending, revenue per user) follow it."""

    @model_validator(mode="after")
    def _unique(self) -> Dimension:
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"dimension {self.title!r} repeats a label")
        for name, values in (("size", self.sizes), ("income", self.income)):
            if values and (len(values) != len(self.labels) or min(values) <= 0):
                raise ValueError(f"dimension {self.title!r}: one positive {name} per label")
        return self

    def income_of(self, label: str) -> float | None:
        """The label's income per head, None when the dimension has none."""
        return self.income[self.labels.index(label)] if self.income else None

    def size_of(self, label: str) -> float | None:
        """The label's size, None when the dimension has no sizes."""
        return self.sizes[self.labels.index(label)] if self.sizes else None


class Measure(Record):
    """A quantity with a unit and the range its values plausibly take."""

    name: str
    """What is measured, e.g. "Electricity generation"."""
    unit: str
    """Unit, e.g. "TWh" or "%"."""
    low: float
    """Smallest plausible value."""
    high: float
    """Largest plausible value."""
    decimals: int = Field(ge=0, le=4)
    """Digits after the decimal point that charts print (data are rounded to them)."""
    trend: int = 0
    """Yearly series only: +1 rising, -1 falling over time."""
    peak: int = 0
    """Monthly series only: index of the peak month (0 = January)."""
    additive: bool = False
    """Yearly series only: values of different entities add up to a meaningful total."""
    over: tuple[str, ...] = ()
    """Titles of the category dimensions the measure describes ("Protected land area" by
    "Country", not by "Waste type"); empty: all of them."""
    by_groups: bool = True
    """Whether the measure splits meaningfully by the domain's groups (grouped bars)."""
    extensive: bool = False
    """A count or total that grows with the size of what is measured (a country's hires),
    so over a dimension with `sizes` its values follow them."""
    follows_income: bool = False
    """An amount per person that grows with income (health spending per head), so over a
    dimension with `income` its values follow it."""

    def describes(self, dimension: str) -> bool:
        """Whether the measure makes sense per label of `dimension`."""
        return not self.over or dimension in self.over

    @model_validator(mode="after")
    def _range(self) -> Measure:
        if not self.low < self.high:
            raise ValueError(f"measure {self.name!r}: low {self.low} is not below high {self.high}")
        return self

    @property
    def title(self) -> str:
        """Axis title: name and unit."""
        return f"{self.name} ({self.unit})"


class Pair(Record):
    """Two measures of the same entities, correlated with the given sign."""

    entity: str
    """What each point is, e.g. "Countries"."""
    x: Measure
    """Horizontal measure."""
    y: Measure
    """Vertical measure."""
    sign: int
    """+1 when y grows with x, -1 when it falls."""
    groups: Dimension | None = None
    """A grouping of the entities that colours the points (countries by region); None when
    the domain has none that fits, and then points are not grouped."""


class Share(Record):
    """Parts of a whole, for pie charts and 100 % stacks."""

    name: str
    """What is split, e.g. "Share of primary energy consumption"."""
    labels: tuple[str, ...] = Field(min_length=3)
    """The parts."""


class Domain(Record):
    """One topical domain."""

    name: str
    """Domain name, e.g. "energy"."""
    categories: tuple[Dimension, ...] = Field(min_length=1)
    """Categorical dimensions bars and boxes are drawn over."""
    groups: Dimension
    """Series dimension crossing the categories in grouped and stacked bars."""
    entities: Dimension
    """Series of multi-series lines and areas over time (regions, countries, firms)."""
    measures: tuple[Measure, ...] = Field(min_length=1)
    """Measures per category."""
    yearly: Measure
    """A measure with a trend over the years."""
    monthly: Measure
    """A measure with a seasonal cycle over the months."""
    share: Share
    """Parts of a whole."""
    pair: Pair
    """Two correlated measures, for scatter plots."""
    spread: Measure
    """A measure with a spread per category, for box plots."""
    change: Measure
    """A signed percentage change per category."""
    stack: str | None
    """Name of the measure that adds up across `groups` (stacked bars); None when none does."""

    @model_validator(mode="after")
    def _stack_is_a_measure(self) -> Domain:
        if self.stack is not None and self.stack not in {m.name for m in self.measures}:
            raise ValueError(
                f"domain {self.name!r}: stack {self.stack!r} is not one of its measures"
            )
        titles = {d.title for d in self.categories}
        for m in (*self.measures, self.spread, self.change):
            unknown = set(m.over) - titles
            if unknown:
                raise ValueError(f"domain {self.name!r}: {m.name!r} is over {sorted(unknown)}")
        for d in self.categories:
            if not any(m.describes(d.title) for m in self.measures):
                raise ValueError(f"domain {self.name!r}: no measure describes {d.title!r}")
        return self

    def measures_over(self, dimension: str, *, by_groups: bool = False) -> list[Measure]:
        """The measures that describe `dimension` (and split by groups, when asked)."""
        return [
            m for m in self.measures if m.describes(dimension) and (m.by_groups or not by_groups)
        ]

    def stack_measure(self) -> Measure | None:
        """The measure named by `stack`."""
        return next((m for m in self.measures if m.name == self.stack), None)


@lru_cache(maxsize=1)
def domains() -> tuple[Domain, ...]:
    """All domains, in file order."""
    text = resources.files("chartproof.charts.suites").joinpath("domains.json").read_text("utf-8")
    raw = json.loads(text)
    return tuple(Domain.model_validate({"name": name, **body}) for name, body in raw.items())
