"""The registered question programs, one module per family; importing this package
registers them all (see `chartproof.questions.program.list_programs`)."""

from chartproof.questions.programs import (
    box,
    chains,
    chains_box,
    claims,
    color,
    comparison,
    computation,
    computed,
    extraction,
    figureqa,
    filtering,
    human,
    ordering,
    position,
    realcqa,
    scatter,
    structure,
    trend,
)

__all__ = [
    "box",
    "chains",
    "chains_box",
    "claims",
    "color",
    "comparison",
    "computation",
    "computed",
    "extraction",
    "figureqa",
    "filtering",
    "human",
    "ordering",
    "position",
    "realcqa",
    "scatter",
    "structure",
    "trend",
]
