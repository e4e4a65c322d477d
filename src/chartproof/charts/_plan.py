"""A chart as a drawing plan: a flat list of matplotlib method calls with literal arguments.

The renderer executes a plan and the chart-as-code generator prints the very same plan as a
script, so the picture and its code cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "FIGURE_VAR",
    "MarkInfo",
    "MarkKind",
    "Op",
    "Plan",
    "Tag",
    "TagKind",
    "TextInfo",
    "Var",
    "execute",
]

FIGURE_VAR = "fig"
"""Name the figure is bound to, both while rendering and in emitted code."""

MarkKind: TypeAlias = Literal["bar", "vertex", "point", "wedge", "box", "whisker", "median", "area"]
"""Kinds of data marks a plan draws."""

TagKind: TypeAlias = Literal[
    "bars",
    "line",
    "points",
    "area",
    "wedges",
    "boxes",
    "value_labels",
    "category_labels",
    "ticks",
    "legend",
    "title",
    "x_title",
    "y_title",
]
"""What the artists returned by a tagged call show."""


@dataclass(frozen=True)
class Var:
    """A reference to a value bound by an earlier call, or an attribute path on one."""

    name: str
    """Variable name, optionally with attributes: "ax", "fig.transFigure"."""


@dataclass(frozen=True)
class MarkInfo:
    """What one data mark shows and where its anchor sits in data coordinates."""

    kind: MarkKind
    """Kind of mark."""
    row: int
    """Table row the mark shows."""
    column: str | None
    """Value column the mark shows (None for a whole box)."""
    series: str | None
    """Series (legend) name; for pies the wedge's category."""
    value: float
    """The number the mark encodes."""
    color: str
    """Fill or line colour as #rrggbb."""
    x: float = 0.0
    """Anchor x in data coordinates (position along a category axis, or a number)."""
    y: float = 0.0
    """Anchor y in data coordinates (top of an area band, a vertex, a point)."""
    base: float = 0.0
    """Other end of the mark in data coordinates (bottom of an area band)."""
    radius_pt: float = 0.0
    """Half size of a marker in points (vertices and points); stroke pad of box parts."""
    corners: tuple[float, float, float, float] | None = None
    """Data-space rectangle (x0, y0, x1, y1) the mark covers (box-plot parts)."""


@dataclass(frozen=True)
class TextInfo:
    """What one text artist shows."""

    text: str
    """The text as drawn."""
    row: int | None = None
    """Table row it belongs to (category tick labels, value labels)."""
    column: str | None = None
    """Value column it belongs to (value labels)."""
    series: str | None = None
    """Series it belongs to (value labels, legend entries)."""
    value: float | None = None
    """Number it stands for: tick position on numeric axes, the labelled value."""
    color: str | None = None
    """Swatch colour of a legend entry."""


@dataclass(frozen=True)
class Tag:
    """Meaning of the artists a call returns, read back by the geometry extractor."""

    kind: TagKind
    """What the artists show."""
    marks: tuple[MarkInfo, ...] = ()
    """Data marks, in the order the call returns their artists."""
    texts: tuple[TextInfo, ...] = ()
    """Text items, in the order the call returns their artists."""
    axis: Literal["x", "y"] | None = None
    """Axis of tick labels."""
    categories: tuple[str, ...] = ()
    """All category labels of a category axis, by position (tick tags only)."""


@dataclass(frozen=True)
class Op:
    """One method call: `bind = target.method(*args, **kwargs)`."""

    target: str
    """Variable (optionally with attributes) the method is called on, e.g. "ax.spines.top"."""
    method: str
    """Method name."""
    args: tuple[Any, ...] = ()
    """Positional arguments: literals (numbers, strings, lists, tuples, dicts) or `Var`s."""
    kwargs: tuple[tuple[str, Any], ...] = ()
    """Keyword arguments as ordered pairs."""
    bind: str | None = None
    """Variable the result is bound to."""
    item: int | None = None
    """Keep only this element of the result (e.g. 0 for the line of `ax.plot`)."""
    tag: Tag | None = None
    """Meaning of the returned artists, for the geometry sidecar."""


@dataclass(frozen=True)
class Plan:
    """Everything needed to draw one chart."""

    spec_id: str
    """Id of the spec the plan draws."""
    chart_type: str
    """Chart type of that spec."""
    rc: tuple[tuple[str, Any], ...]
    """rcParams applied on top of matplotlib's defaults."""
    figsize: tuple[float, float]
    """Figure size in inches."""
    dpi: int
    """Dots per inch."""
    ops: tuple[Op, ...] = field(default_factory=tuple)
    """The calls, in order."""


def op(
    target: str,
    method: str,
    *args: Any,
    bind: str | None = None,
    item: int | None = None,
    tag: Tag | None = None,
    **kwargs: Any,
) -> Op:
    """Shorthand for building an `Op` with keyword arguments in call order."""
    return Op(target, method, args, tuple(kwargs.items()), bind, item, tag)


def _resolve_path(env: Mapping[str, Any], path: str) -> Any:
    head, *rest = path.split(".")
    value = env[head]
    for attr in rest:
        value = getattr(value, attr)
    return value


def _resolve(env: Mapping[str, Any], value: Any) -> Any:
    if isinstance(value, Var):
        return _resolve_path(env, value.name)
    if isinstance(value, list):
        return [_resolve(env, v) for v in value]
    if isinstance(value, tuple):
        return tuple(_resolve(env, v) for v in value)
    if isinstance(value, dict):
        return {k: _resolve(env, v) for k, v in value.items()}
    return value


def execute(fig: Any, ops: Sequence[Op]) -> list[tuple[Tag, Any]]:
    """Run the calls on a figure; return each tagged call's tag with what it returned."""
    env: dict[str, Any] = {FIGURE_VAR: fig}
    tagged: list[tuple[Tag, Any]] = []
    for o in ops:
        method = getattr(_resolve_path(env, o.target), o.method)
        result = method(*_resolve(env, o.args), **{k: _resolve(env, v) for k, v in o.kwargs})
        if o.item is not None:
            result = result[o.item]
        if o.bind is not None:
            env[o.bind] = result
        if o.tag is not None:
            tagged.append((o.tag, result))
    return tagged
