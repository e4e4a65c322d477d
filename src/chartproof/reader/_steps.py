"""Chain sub-questions that build on earlier steps: the reader puts the labels earlier steps
found into the question ("the year from step 3" → "2019", "the series drawn in the colour
from step 1" → the series the legend shows in that colour) and answers the steps that only
combine earlier reads (sums and filters of them; the steps the operations declare as step
questions run in `solver._direct`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from chartproof.numeric import format_number, parse_number
from chartproof.questions.ops.steps import read_label
from chartproof.questions.view import ChartView

__all__ = ["combine_steps", "numbered", "resolve_steps"]

_FROM_STEP = re.compile(
    r"\bthe (?P<noun>(?:(?!\bthe\b)[^?,])+?) (?P<colour>drawn in the colour )?from step "
    r"(?P<n>\d+)\b",
    re.I,
)
_REF = re.compile(r"\bstep (\d+)", re.I)
_STEPS = re.compile(r"steps ((?:\d+, )*\d+ and \d+|\d+)", re.I)
_SUM = re.compile(r"^what is the sum of the values from steps ", re.I)
_AMONG = re.compile(r"values of the answer to step (\d+)\??$", re.I)
_SELECT = re.compile(
    r"^of the .+? values read in steps .+?, which have .+? "
    r"(?P<cond>above|below|between) (?P<lo>[^ ?]+)(?: and (?P<hi>[^ ?]+))?\??$",
    re.I,
)


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


def _number(text: str) -> float | None:
    return parse_number(text.strip().rstrip("."))


def combine_steps(question: str, by_step: Mapping[int, tuple[str, str]]) -> tuple[str, str] | None:
    """(answer, explanation) of a step that only combines earlier answers; None for others."""
    q = question.strip()
    listed = _STEPS.search(q)
    if listed is None:
        return None
    steps = [int(n) for n in re.findall(r"\d+", listed.group(1))]
    reads = [by_step.get(n) for n in steps]
    if any(r is None for r in reads):
        return None
    pairs = [(read_label(r[0]), _number(r[1])) for r in reads if r is not None]
    if any(v is None for _, v in pairs):
        return None
    if _SUM.match(q):
        keep = None
        among = _AMONG.search(q)
        if among:
            chosen = by_step.get(int(among.group(1)))
            if chosen is None:
                return None
            keep = {x.strip() for x in chosen[1].split(",")}
        total = sum(v for lab, v in pairs if v is not None and (keep is None or lab in keep))
        text = format_number(total)
        return text, f"Adding the values of steps {listed.group(1)} gives {text}."
    sel = _SELECT.match(q)
    if sel:
        lo, hi = _number(sel.group("lo")), _number(sel.group("hi") or "")
        cond = sel.group("cond").lower()
        if lo is None or (cond == "between" and hi is None):
            return None
        kept = []
        for lab, v in pairs:
            if lab is None or v is None:
                return None
            if (
                (cond == "above" and v > lo)
                or (cond == "below" and v < lo)
                or (cond == "between" and hi is not None and lo < v < hi)
            ):
                kept.append(lab)
        if not kept:
            return None
        return ", ".join(
            kept
        ), f"Of the values read, {', '.join(kept)} are {cond} {sel.group('lo')}."
    return None
