"""Free-form chart questions (ChartQA style) mapped onto question programs by the cues the
programs declare (`questions.cues`); used when no template fits."""

from __future__ import annotations

from dataclasses import dataclass

from chartproof.questions import ArgValue, ChartView
from chartproof.questions.cues import MENTIONS
from chartproof.questions.matching import cue_readings

__all__ = ["Intent", "intents"]


@dataclass(frozen=True)
class Intent:
    """A program name with arguments read from a free-form question."""

    program: str
    """Registered program name (arguments beyond its slots ask one of its `variants`:
    `questions.program.program_for`)."""
    args: dict[str, ArgValue]
    """Its arguments."""
    why: str
    """Which cue chose it."""


def intents(question: str, view: ChartView) -> list[Intent]:
    """Candidate programs for a free-form question, most likely first: the cues over the
    question's mentions (`questions.cues.MENTIONS`; the solver walks the programs' own
    patterns before the loose templates)."""
    return [Intent(*found) for found in cue_readings(question, view, ranks=MENTIONS)]
