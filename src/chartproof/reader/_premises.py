"""True/false verdicts on premise statements (visual premise proving): the statement is
matched to a premise template, its slots resolved on the chart, and the claim checked by the
judge the template declares beside its builder (`questions.premises`)."""

from __future__ import annotations

import string
from dataclasses import dataclass

from chartproof.questions import ChartView
from chartproof.questions.matching import template_regex
from chartproof.questions.premises import PREMISE_TEMPLATES, premise_judge

__all__ = ["Verdict", "judge_premise"]


@dataclass(frozen=True)
class Verdict:
    """A checked premise."""

    truth: bool
    """Whether the statement holds for the chart."""
    template: str
    """The premise template it matched."""
    reason: str
    """What was compared, as an explanation sentence."""


def judge_premise(statement: str, view: ChartView, rel: float = 0.0005) -> Verdict | None:
    """The verdict on a premise statement, or None when no judged template fits it (the
    template with the most literal text wins)."""
    best: tuple[int, Verdict] | None = None
    for key, paraphrases in PREMISE_TEMPLATES.items():
        judge = premise_judge(key)
        if judge is None:
            continue
        for template in paraphrases:
            slots = tuple(f for _, f, _, _ in string.Formatter().parse(template) if f)
            pattern, literal = template_regex(template, slots)
            m = pattern.match(statement)
            got = None if m is None else judge(m.groupdict(), view, rel)
            if got is not None and (best is None or literal > best[0]):
                best = (literal, Verdict(truth=got[0], template=key, reason=got[1]))
    return best[1] if best else None
