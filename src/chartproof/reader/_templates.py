"""Fuzzy inversion of paraphrase templates: a question matches a template when its literal
words match, and each slot's text is resolved to the nearest label the chart shows (so OCR
slips such as "lonix" for "Ionix" still reach the right program)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from chartproof.numeric import parse_number
from chartproof.questions import ArgValue, ChartView, Program, list_programs
from chartproof.questions.describe import ordinal_value
from chartproof.questions.labels import best_label, norm, similarity
from chartproof.questions.matching import template_regex
from chartproof.questions.ops.steps import STEP_QUESTIONS, StepQuestion

__all__ = ["Candidate", "fuzzy_matches", "resolve_slot", "step_matches"]


@dataclass(frozen=True)
class Candidate:
    """A program and arguments a question may have been written from."""

    program: Program
    """The program."""
    args: dict[str, ArgValue]
    """Its arguments, resolved to the chart's own labels."""
    score: float
    """How well the question matched (literal characters plus slot likeness)."""


def resolve_slot(kind: str, text: str, view: ChartView) -> tuple[ArgValue, float] | None:
    """The chart value a slot's text stands for, with its likeness (0..1)."""
    t = " ".join(text.split()).strip(" '\"")
    if kind == "x":
        return _pick(t, view.x_labels)
    if kind == "series":
        found = _pick(t, view.series)
        if found is None and len(view.series) == 1:
            # One series: questions name it by a column name the image may not show.
            return view.series[0], 0.5
        return found
    if kind == "color":
        return _pick(t, sorted(set(view.colors.values())))
    if kind == "number":
        x = parse_number(t.replace("−", "-"))
        return None if x is None else (x, 1.0)
    if kind == "ordinal":
        k = ordinal_value(t)
        return None if k is None else (k, 1.0)
    if kind == "band":
        from chartproof.questions.ops.shape import CORRELATION_BANDS

        return _pick(t, tuple(CORRELATION_BANDS))
    return None


def _pick(text: str, options: Iterable[str]) -> tuple[ArgValue, float] | None:
    opts = list(options)
    for o in opts:
        if norm(o) == norm(text):
            return o, 1.0
    found = best_label(text, opts, threshold=0.75)
    if found is None:
        return None
    return found, similarity(text, found)


def fuzzy_matches(
    question: str, view: ChartView, families: Iterable[str] | None = None
) -> list[Candidate]:
    """Every (program, arguments) whose template the question fits, best first."""
    fams = tuple(families) if families is not None else None
    out: list[Candidate] = []
    for prog in list_programs(families=fams):
        if not prog.applies(view):
            continue
        slots = tuple(sorted(prog.slots))
        for template in prog.templates:
            pattern, literal = template_regex(template, slots)
            m = pattern.match(question)
            if m is None:
                continue
            args, likeness = _resolve_all(prog.slots, m.groupdict(), view)
            if args is None:
                continue
            out.append(Candidate(program=prog, args=args, score=literal + 10 * likeness))
    out.sort(key=lambda c: -c.score)
    return out


def step_matches(question: str, view: ChartView) -> list[tuple[StepQuestion, dict[str, ArgValue]]]:
    """Every step question an operation declares that the question fits, with its resolved
    arguments, best first (the same parse as `fuzzy_matches`)."""
    out: list[tuple[float, StepQuestion, dict[str, ArgValue]]] = []
    for step in STEP_QUESTIONS:
        pattern, literal = template_regex(step.template, tuple(sorted(step.slots)))
        m = pattern.match(question)
        args, likeness = _resolve_all(step.slots, m.groupdict(), view) if m else (None, 0.0)
        if args is not None:
            out.append((literal + 10 * likeness, step, args))
    out.sort(key=lambda c: -c[0])
    return [(step, args) for _, step, args in out]


def _resolve_all(
    kinds: Mapping[str, str], groups: Mapping[str, str | None], view: ChartView
) -> tuple[dict[str, ArgValue] | None, float]:
    args: dict[str, ArgValue] = {}
    total = 0.0
    for name, kind in kinds.items():
        text = groups.get(name)
        if text is None:
            return None, 0.0
        got = resolve_slot(kind, text, view)
        if got is None:
            return None, 0.0
        args[name] = got[0]
        total += got[1]
    return args, total
