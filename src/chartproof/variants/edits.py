"""Counterfactual data edits (Chartographer): seed-controlled changes to a chart's table that
keep the chart plausible, so a fixed question gets a new, re-derivable answer.

| edit | what changes | not applicable to |
|---|---|---|
| `jitter` | every value × (1 + N(0, 0.15²)), rounded to the column's decimals | — |
| `reorder` | category rows permuted; on time or numeric x, values permuted across x | scatter |
| `extremum_move` | one series' maximum swaps places with another of its values | — |
| `trend_flip` | values reversed along x (scatter: y reversed in x order) | — |
| `rename` | one category label (or scatter series) gets a new name | time x axes |

Invariants kept: values stay non-negative in columns that were; pie values keep their total;
box plots keep min ≤ q1 ≤ median ≤ q3 ≤ max per row (box edits move whole rows); the number
of decimals of each column is kept. An edit that would leave the table unchanged returns None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from chartproof.charts.kinds import chart_kind
from chartproof.types import Cell, ChartSpec, DataTable
from chartproof.types.registry import Registry
from chartproof.variants.perturbations.base import ParamValue

__all__ = ["EDITS", "EDIT_KINDS", "RENAME_POOL", "Edit", "EditFn"]

JITTER_SCALE = 0.15

RENAME_POOL: tuple[str, ...] = (
    "Northvale", "Eastbrook", "Westfield", "Southport", "Lakeside", "Riverton", "Hillcrest",
    "Oakridge", "Fairview", "Brookside", "Ashford", "Cedarton", "Aurora", "Summit", "Harbor",
    "Kestrel", "Marlow", "Pinecrest", "Redwater", "Sterling",
)  # fmt: skip
"""New names a renamed category is drawn from (any not already in the chart)."""


@dataclass(frozen=True)
class Edit:
    """The edited table and how it was made."""

    table: DataTable
    """The new table."""
    params: dict[str, ParamValue] = field(default_factory=dict)
    """What was changed (indices, labels, scale), recorded on the transform."""
    renamed: tuple[str, str] | None = None
    """(old, new) when a label was renamed: question arguments naming it follow it."""


EditFn = Callable[[ChartSpec, np.random.Generator], Edit | None]
"""An edit: the spec and a seeded generator in, an `Edit` (or None: not applicable) out."""

EDITS: Registry[EditFn] = Registry("data edit", modules=(__name__,), group="chartproof.edits")
"""Edit kinds by name, in the order seeds cycle through them (`@EDITS.register(name)`;
another package's through the ``chartproof.edits`` entry-point group)."""


def _cols(table: DataTable) -> dict[str, list[Cell]]:
    return {name: list(table.values(name)) for name in table.names}


def _table(table: DataTable, cols: dict[str, list[Cell]]) -> DataTable:
    rows = tuple(tuple(cols[name][i] for name in table.names) for i in range(table.n_rows))
    return DataTable(columns=table.columns, rows=rows)


def _decimals(values: Sequence[Cell]) -> int:
    need = 0
    for v in values:
        if isinstance(v, float):
            d = next((d for d in range(5) if abs(round(v, d) - v) < 1e-9), 4)
            need = max(need, d)
    return need


def _changed(spec: ChartSpec, cols: dict[str, list[Cell]]) -> bool:
    return any(list(spec.table.values(n)) != cols[n] for n in spec.table.names)


def _as_float(v: Cell) -> float:
    return v if isinstance(v, float) else 0.0


def _x_is_category(spec: ChartSpec) -> bool:
    return spec.table.col(spec.encoding.x).kind == "category"


def _groups(spec: ChartSpec) -> list[list[int]]:
    """Row indices per series (long-format scatter), else one group of all rows."""
    if spec.encoding.series is None:
        return [list(range(spec.table.n_rows))]
    by: dict[str, list[int]] = {}
    for i, s in enumerate(spec.table.labels(spec.encoding.series)):
        by.setdefault(s, []).append(i)
    return list(by.values())


@EDITS.register("jitter")
def jitter(spec: ChartSpec, rng: np.random.Generator) -> Edit | None:
    """Multiply every value by 1 + N(0, 0.15²) (see the module docstring for invariants)."""
    cols = _cols(spec.table)
    for name in spec.encoding.y:
        values = cols[name]
        present = [float(v) for v in values if isinstance(v, float)]
        if not present:
            continue
        span = (max(present) - min(present)) or abs(present[0]) or 1.0
        digits = _decimals(values)
        nonneg = min(present) >= 0
        new: list[Cell] = []
        for v in values:
            if not isinstance(v, float):
                new.append(v)
                continue
            x = v * (1.0 + rng.normal(0.0, JITTER_SCALE)) if v else rng.normal(0.0, 0.1 * span)
            x = max(0.0, x) if nonneg else x
            new.append(float(round(x, digits)))
        cols[name] = new
    kind = chart_kind(spec.chart_type)
    if kind.whole:
        _keep_total(spec, cols)
    if kind.data == "boxes":
        _sort_box_rows(spec, cols)
    if not _changed(spec, cols):
        return None
    return Edit(_table(spec.table, cols), {"scale": JITTER_SCALE})


def _keep_total(spec: ChartSpec, cols: dict[str, list[Cell]]) -> None:
    name = spec.encoding.y[0]
    old = [float(v) for v in spec.table.values(name) if isinstance(v, float)]
    new = [float(v) for v in cols[name] if isinstance(v, float)]
    if not new or sum(new) <= 0:
        return
    digits = _decimals(spec.table.values(name))
    scaled = [round(v * sum(old) / sum(new), digits) for v in new]
    # put the rounding residue on the largest wedge so the total is exact
    top = int(np.argmax(scaled))
    scaled[top] = round(scaled[top] + sum(old) - sum(scaled), digits)
    it = iter(scaled)
    cols[name] = [float(next(it)) if isinstance(v, float) else v for v in cols[name]]


def _sort_box_rows(spec: ChartSpec, cols: dict[str, list[Cell]]) -> None:
    names = spec.encoding.y
    for i in range(spec.table.n_rows):
        cells = [cols[n][i] for n in names]
        if all(isinstance(c, float) for c in cells):
            for n, v in zip(names, sorted(float(c) for c in cells if c is not None), strict=True):
                cols[n][i] = v


def _permute_rows(cols: dict[str, list[Cell]], perm: Sequence[int], names: Sequence[str]) -> None:
    for n in names:
        old = list(cols[n])
        cols[n] = [old[j] for j in perm]


def _non_identity(n: int, rng: np.random.Generator) -> list[int] | None:
    if n < 2:
        return None
    for _ in range(20):
        perm = [int(i) for i in rng.permutation(n)]
        if perm != list(range(n)):
            return perm
    return None


@EDITS.register("reorder")
def reorder(spec: ChartSpec, rng: np.random.Generator) -> Edit | None:
    """Permute category rows; on time or numeric x, permute the values across x."""
    if chart_kind(spec.chart_type).data == "points":
        return None
    perm = _non_identity(spec.table.n_rows, rng)
    if perm is None:
        return None
    cols = _cols(spec.table)
    moved = spec.table.names if _x_is_category(spec) else spec.encoding.y
    _permute_rows(cols, perm, moved)
    if not _changed(spec, cols):
        return None
    what = "rows" if _x_is_category(spec) else "values"
    return Edit(_table(spec.table, cols), {"permuted": what, "order": ",".join(map(str, perm))})


@EDITS.register("extremum_move")
def extremum_move(spec: ChartSpec, rng: np.random.Generator) -> Edit | None:
    """Swap one series' maximum with another of its values (box: whole rows, by median)."""
    cols = _cols(spec.table)
    if chart_kind(spec.chart_type).data == "boxes":
        key, moved = spec.encoding.y[2], list(spec.encoding.y)
    else:
        key = spec.encoding.y[int(rng.integers(len(spec.encoding.y)))]
        moved = [key]
    groups = _groups(spec)
    group = groups[int(rng.integers(len(groups)))] if len(groups) > 1 else groups[0]
    values = [(i, cols[key][i]) for i in group if isinstance(cols[key][i], float)]
    if len(values) < 2:
        return None
    top = max(float(v) for _, v in values if v is not None)
    at = next(i for i, v in values if v == top)
    others = [i for i, v in values if v != top]
    if not others:
        return None
    to = others[int(rng.integers(len(others)))]
    for n in moved:
        cols[n][at], cols[n][to] = cols[n][to], cols[n][at]
    return Edit(_table(spec.table, cols), {"column": key, "from_row": at, "to_row": to})


@EDITS.register("trend_flip")
def trend_flip(spec: ChartSpec, rng: np.random.Generator) -> Edit | None:
    """Reverse the values along x (scatter: the y values in x order, per series)."""
    cols = _cols(spec.table)
    if chart_kind(spec.chart_type).data == "points":
        xs = cols[spec.encoding.x]
        for group in _groups(spec):
            order = sorted(group, key=lambda i: _as_float(xs[i]))
            for n in spec.encoding.y:
                ys = [cols[n][i] for i in order]
                for i, v in zip(order, reversed(ys), strict=True):
                    cols[n][i] = v
    else:
        for n in spec.encoding.y:
            cols[n] = list(reversed(cols[n]))
    if not _changed(spec, cols):
        return None
    return Edit(_table(spec.table, cols), {"reversed": ",".join(spec.encoding.y)})


@EDITS.register("rename")
def rename(spec: ChartSpec, rng: np.random.Generator) -> Edit | None:
    """Give one category label (or scatter series) a new name from `RENAME_POOL`."""
    if chart_kind(spec.chart_type).long_format and spec.encoding.series is not None:
        column = spec.encoding.series
    elif _x_is_category(spec):
        column = spec.encoding.x
    else:
        return None
    cols = _cols(spec.table)
    labels = [v for v in dict.fromkeys(cols[column]) if isinstance(v, str)]
    taken = set(spec.table.labels(column)) | set(spec.table.names)
    fresh = [w for w in RENAME_POOL if w not in taken]
    if not labels or not fresh:
        return None
    old = labels[int(rng.integers(len(labels)))]
    new = fresh[int(rng.integers(len(fresh)))]
    cols[column] = [new if v == old else v for v in cols[column]]
    return Edit(_table(spec.table, cols), {"column": column, "old": old, "new": new}, (old, new))


EDIT_KINDS: tuple[str, ...] = tuple(name for name, _ in EDITS.registered())
"""The default edit kinds (the shipped ones)."""
