"""Building blocks the suites' templates share: category picks, looks and value formats."""

from __future__ import annotations

from typing import Any

from chartproof.charts.suites._base import Ctx, Template
from chartproof.charts.suites._domains import Dimension
from chartproof.types import ChartSpec

__all__ = ["fmt", "grouped_rows", "look", "pick_category", "pick_groups", "restyled"]


def fmt(decimals: int, unit: str | None, values: list[float]) -> str:
    """Value-label format: the data's decimals, thousands separators for big numbers and a
    "%" sign for percentages."""
    comma = "," if max(abs(v) for v in values) >= 10_000 else ""
    suffix = "%" if unit == "%" else ""
    return f"{{:{comma}.{decimals}f}}{suffix}"


def restyled(template: Template, **changes: Any) -> Template:
    """The same template with some style fields fixed."""

    def apply(ctx: Ctx) -> ChartSpec:
        spec = template(ctx)
        return spec.model_copy(update={"style": spec.style.model_copy(update=changes)})

    return apply


def look(ctx: Ctx, **override: Any) -> dict[str, Any]:
    """A randomly chosen but tidy look: size, font size, palette."""
    width, height = ctx.rng.choice(((6.4, 4.8), (7.0, 4.5), (8.0, 5.0), (7.2, 4.8)))
    style: dict[str, Any] = {
        "width": width,
        "height": height,
        "dpi": 100,
        "font_size": ctx.rng.choice((9.0, 10.0, 10.0, 11.0)),
        "palette": ctx.palette(),
    }
    style.update(override)
    return style


def pick_category(ctx: Ctx, lo: int, hi: int) -> tuple[Dimension, list[str]]:
    """A category dimension of the domain and between lo and hi of its labels."""
    dim = ctx.rng.choice(ctx.domain.categories)
    return dim, ctx.pick(dim.labels, lo, hi, ordinal=dim.ordinal)


def pick_groups(ctx: Ctx, lo: int, hi: int) -> tuple[str, list[str]]:
    """Series names: the domain's groups, or recent years."""
    if ctx.rng.random() < 0.35:
        return "Year", ctx.years(ctx.rng.randint(lo, min(hi, 4)))
    groups = ctx.domain.groups
    return groups.title, ctx.pick(groups.labels, lo, hi, ordinal=groups.ordinal)


def grouped_rows(labels: list[str], columns: list[list[float]]) -> list[list[Any]]:
    """Rows [label, v1, v2, ...] from per-series columns."""
    return [[lab, *(col[i] for col in columns)] for i, lab in enumerate(labels)]
