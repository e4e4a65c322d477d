"""Chain sub-questions that build on earlier steps: the reader puts the labels earlier steps
found into the question ("the year from step 3" → "2019", "the series drawn in the colour
from step 1" → the series the legend shows in that colour). Steps that combine earlier
answers are step questions the operations declare, run in `solver._direct` on the recalled
answers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from chartproof.questions.view import ChartView

__all__ = ["numbered", "resolve_steps"]

_FROM_STEP = re.compile(
    r"\bthe (?P<noun>(?:(?!\bthe\b)[^?,])+?) (?P<colour>drawn in the colour )?from step "
    r"(?P<n>\d+)\b",
    re.I,
)
_REF = re.compile(r"\bstep (\d+)", re.I)
_STEPS = re.compile(r"steps ((?:\d+, )*\d+ and \d+|\d+)", re.I)


def numbered(
    question: str, earlier: Sequence[tuple[str, str]], steps: Sequence[int] | None
) -> dict[int, tuple[str, str]]:
    """The earlier (question, answer) pairs by step number: as the request numbers them, or
    else the steps the question names, in order."""
    if steps is not None and len(steps) == len(earlier):
        return dict(zip(steps, earlier, strict=True))
    named = sorted({int(n) for n in _REF.findall(question)})
    for m in _STEPS.finditer(question):
        named = sorted(set(named) | {int(n) for n in re.findall(r"\d+", m.group(1))})
    return dict(zip(named, earlier, strict=False))


def resolve_steps(question: str, by_step: Mapping[int, tuple[str, str]], view: ChartView) -> str:
    """The question with every label an earlier step found written out."""

    def label(m: re.Match[str]) -> str:
        found = by_step.get(int(m.group("n")))
        if found is None:
            return m.group(0)
        answer = found[1].strip().rstrip(".")
        if m.group("colour"):
            keys = [k for k, c in view.colors.items() if c.lower() == answer.lower()]
            return keys[0] if len(keys) == 1 else m.group(0)
        return answer

    return _FROM_STEP.sub(label, question)
