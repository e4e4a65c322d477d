"""Free-form chart questions (ChartQA style) mapped onto question programs by the cues the
programs declare (`questions.cues`); used when no template fits."""

from __future__ import annotations

from dataclasses import dataclass

from chartproof.questions import ArgValue, ChartView
from chartproof.questions.cues import MENTIONS
from chartproof.questions.matching import cue_readings

__all__ = ["CLOSEST", "Intent", "intents"]

CLOSEST = "closest_value"
"""The program that names the label (or series) whose value is nearest a number the
question gives; it declares the `NAMED_VALUE` cue."""


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
    return [Intent(*found) for found in cue_readings(question, view, ranks=MENTIONS)]
