"""Step questions that operations declare: the template an operation writes its question
with, the kinds of its slots and how to run it, so a solver maps a chain's sub-question back
to the operation through the same template parser as whole questions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from chartproof.questions.program import ArgValue
from chartproof.questions.trace import Op, Tracer

__all__ = ["STEP_QUESTIONS", "StepQuestion", "StepRun", "step_question"]

StepRun = Callable[[Tracer, Mapping[str, ArgValue]], Op | None]
"""An operation run on a step question's resolved arguments."""


@dataclass(frozen=True)
class StepQuestion:
    """A sub-question an operation writes, and how to answer it by running the operation."""

    op: str
    """The operation's name."""
    template: str
    """What it asks, with `{slot}`s (slots not in `slots` are derived text, e.g. x_title)."""
    slots: Mapping[str, str]
    """Argument slot → kind (x, series, ordinal, ...), resolved on the chart."""
    run: StepRun
    """The operation, run on the resolved arguments."""


STEP_QUESTIONS: list[StepQuestion] = []
"""Every declared step question, in declaration order."""


def step_question(
    op: str,
    template: str,
    run: StepRun,
    **slots: str,
) -> str:
    """Declare the question an operation writes; returns the template for it to fill."""
    STEP_QUESTIONS.append(StepQuestion(op, template, MappingProxyType(slots), run))
    return template
