"""The registered question programs, one module per family; importing this package
registers them all (see `chartproof.questions.program.programs`)."""

from chartproof.questions.programs import (
    color,
    comparison,
    computation,
    extraction,
    position,
)

__all__ = [
    "color",
    "comparison",
    "computation",
    "extraction",
    "position",
]
