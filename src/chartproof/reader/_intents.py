"""Free-form chart questions (ChartQA style) mapped onto question programs by the cues the
programs declare (`questions.cues`); used when no template fits."""

from __future__ import annotations

from dataclasses import dataclass

from chartproof.questions import ArgValue, ChartView
from chartproof.questions.cues import NAMED_VALUE
from chartproof.questions.matching import cue_readings
from chartproof.questions.program import PROGRAMS

__all__ = ["CLOSEST", "Intent", "intents"]

CLOSEST = "closest_value"
"""The label (or series) whose value is nearest a number the question gives: the solver
runs it itself until a program of that name declares `NAMED_VALUE`."""


@dataclass(frozen=True)
class Intent:
    """A program name with arguments read from a free-form question."""

    program: str
    """Registered program name (or `CLOSEST`)."""
    args: dict[str, ArgValue]
    """Its arguments."""
    why: str
    """Which cue chose it."""


def intents(question: str, view: ChartView) -> list[Intent]:
    """Candidate programs for a free-form question, most likely first."""
    extra = () if CLOSEST in PROGRAMS else ((CLOSEST, NAMED_VALUE),)
    return [Intent(*found) for found in cue_readings(question, view, extra=extra)]
