"""The chart-kind table: one `ChartKind` per chart type says how it is drawn and what it shows.

Every per-kind decision (which question programs apply, whether there are axes, a legend of
series or of wedges, stacking, which data edits keep it honest, how a script reveals it) is a
lookup here. A new chart type is one module that calls `register_chart_kind` plus its line
in `_HOMES` (or, in another package, an entry point of the group ``chartproof.chart_kinds``);
`CHART_KINDS` is their `chartproof.types.registry.Registry`. This module is light: drawing
code loads on the first render.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from chartproof.types import ChartSpec
from chartproof.types.registry import Registry

__all__ = [
    "CHART_KINDS",
    "ENTRY_POINT_GROUP",
    "ChartKind",
    "DataShape",
    "KindSet",
    "chart_kind",
    "chart_kinds",
    "kind_titles",
    "kinds_where",
    "register_chart_kind",
    "unregister_chart_kind",
]

DataShape: TypeAlias = Literal["category", "points", "boxes"]
"""What a chart's table means: one value per (x label, series); (x, y) points per series;
one five-number summary per x label."""

Draw: TypeAlias = Callable[[ChartSpec], Sequence[Any]]
"""A function returning the drawing-plan calls (`charts._plan.Op`) of a valid spec."""


@dataclass(frozen=True, slots=True)
class ChartKind:
    """Everything chartproof decides per chart type, declared once."""

    name: str
    """`ChartSpec.chart_type` value, e.g. "vbar"."""
    title: str
    """How questions, premises and text prompts name the chart: "vertical bar chart"."""
    draw: Draw
    """Returns the drawing plan of a valid spec (imports its drawing code when called)."""
    family: str
    """Look shared with other kinds, which picks the question programs, the audit's analysis
    prompt and the wording: "bar", "line", "pie", "scatter", "box" or a new one."""
    mark: str
    """The word for one mark: "bar", "point", "wedge", "segment", "box"."""
    mark_phrase: str
    """How an explanation names one mark: a template over {color} (the colour word and a
    space, or nothing), {series} and {x}, e.g. "the {color}bar for {x}"."""
    mark_phrase_one: str | None = None
    """The phrase when only one series is shown (None: the same as `mark_phrase`)."""
    data: DataShape = "category"
    """What the table means (see `DataShape`)."""
    axes: bool = True
    """Whether the chart has x/y axes (axis titles, ranges, tick positions)."""
    color_keys: Literal["series", "x"] = "series"
    """What colours and legend entries name: the series, or each x label (pie wedges)."""
    single_series: bool = False
    """Shows exactly one value column."""
    orientation: Literal["vertical", "horizontal"] | None = None
    """Fixed direction of the marks; None when `Style.orientation` decides."""
    stacks: bool = False
    """Values stack on each other (totals are marks too; needs a linear axis, values ≥ 0)."""
    whole: bool = False
    """Values are parts of one whole (≥ 0, positive total; data edits keep the total)."""
    zero_based: bool = True
    """The value axis reaches zero (bars, wedges), so reading errors span from zero."""
    gaps: bool = False
    """Missing values may be drawn as gaps instead of being an error."""
    long_format: bool = False
    """Takes `Encoding.series` (one y column, groups named by a label column)."""
    redrawable: bool = False
    """The offline reader can redraw it from the table it recovered."""
    script_call: str | None = None
    """Regular expression of the plotting call that reveals this kind in a script."""
    script_rank: int = 100
    """Order in which `script_call`s are tried (lower first: pie before bar before plot)."""
    report_rank: int = 99
    """Column of the kind in the report's chart-type tables (lower first; ties by name)."""

    def phrase(self, *, color: str, series: str, x: str, single: bool) -> str:
        """One mark named as `mark_phrase` says."""
        template = self.mark_phrase_one if single and self.mark_phrase_one else self.mark_phrase
        return template.format(color=color, series=series, x=x)


_HOMES: tuple[str, ...] = ("chartproof.charts._kinds_builtin",)
"""Modules that register the shipped kinds, loaded by name on the first lookup. A shipped
chart type adds its module here."""

ENTRY_POINT_GROUP = "chartproof.chart_kinds"
"""Entry-point group of chart kinds in other packages: each entry names a module that
registers its kinds when imported (loaded after the shipped ones)."""

# kinds registered at run time (a script, a test) exist in this process only; a worker
# process started by spawn finds the shipped ones and the entry points' on its own
CHART_KINDS: Registry[ChartKind] = Registry("chart type", modules=_HOMES, group=ENTRY_POINT_GROUP)
"""Chart kinds by chart type, in registration order (the shipped ones first)."""


def register_chart_kind(kind: ChartKind, *, replace: bool = False) -> ChartKind:
    """Add a chart kind (its name becomes a valid `ChartSpec.chart_type`); returns it."""
    CHART_KINDS.load()
    if kind.name in CHART_KINDS and not replace:
        raise ValueError(f"chart kind {kind.name!r} is already registered")
    return CHART_KINDS.register(kind.name, kind, replace=True)


def unregister_chart_kind(name: str) -> None:
    """Remove a chart kind (tests that add one clean up with this)."""
    CHART_KINDS.unregister(name)


def chart_kind(name: str) -> ChartKind:
    """The kind called `name`; KeyError naming the known kinds when there is none."""
    kind = CHART_KINDS.get(name)
    if kind is None:
        raise KeyError(f"unknown chart type {name!r}; known: {', '.join(CHART_KINDS)}")
    return kind


def chart_kinds() -> tuple[ChartKind, ...]:
    """Every registered kind, in registration order."""
    return tuple(CHART_KINDS.values())


class KindSet:
    """A set of chart types given by a test on their `ChartKind`, evaluated at lookup time,
    so a kind registered later joins every set its capabilities put it in."""

    __slots__ = ("_test",)

    def __init__(self, test: Callable[[ChartKind], bool]) -> None:
        self._test = test

    @staticmethod
    def _names(other: KindSet | Iterable[str]) -> Callable[[ChartKind], bool]:
        if isinstance(other, KindSet):
            return other._test
        names = frozenset(other)
        return lambda k: k.name in names

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        kind = CHART_KINDS.get(name)
        return kind is not None and self._test(kind)

    def __iter__(self) -> Iterator[str]:
        return iter([k.name for k in chart_kinds() if self._test(k)])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __or__(self, other: KindSet | Iterable[str]) -> KindSet:
        a, b = self._test, self._names(other)
        return KindSet(lambda k: a(k) or b(k))

    def __and__(self, other: KindSet | Iterable[str]) -> KindSet:
        a, b = self._test, self._names(other)
        return KindSet(lambda k: a(k) and b(k))

    def __sub__(self, other: KindSet | Iterable[str]) -> KindSet:
        a, b = self._test, self._names(other)
        return KindSet(lambda k: a(k) and not b(k))

    def __repr__(self) -> str:
        return f"KindSet({sorted(self)})"


def kinds_where(test: Callable[[ChartKind], bool]) -> KindSet:
    """The chart types whose kind passes `test`, e.g. `kinds_where(lambda k: k.axes)`."""
    return KindSet(test)


class _Titles(Mapping[str, str]):
    """Chart type → title, read live from the table."""

    def __getitem__(self, name: str) -> str:
        kind = CHART_KINDS.get(name)
        if kind is None:
            raise KeyError(name)
        return kind.title

    def __iter__(self) -> Iterator[str]:
        return iter([k.name for k in chart_kinds()])

    def __len__(self) -> int:
        return len(chart_kinds())


_TITLES = _Titles()


def kind_titles() -> Mapping[str, str]:
    """Chart type → how questions name it ("vertical bar chart"), for every registered kind."""
    return _TITLES
