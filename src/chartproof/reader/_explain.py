"""The reader's side of ChartQA-X dataset building: explaining a given answer
(`explain_candidate` prompts) and judging someone else's explanation (`explain_verify`).

The reader is a program, not a language model, so its judgement is a check of what it can
check: an explanation is called correct when every number it cites is one the chart shows
(or one step of arithmetic away from those, or the question's or answer's own numbers),
every category it names exists, and it reaches the given answer. It cannot judge whether the
steps are well argued; that is what ROSCOE scores are for.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence

from chartproof.metrics.accuracy import relaxed_accuracy
from chartproof.questions.labels import norm, numbers_written
from chartproof.questions.view import ChartView
from chartproof.reader.solver import UNKNOWN, Solution
from chartproof.types import Answer

__all__ = ["agrees", "explain_answer", "verify_explanation"]

_REL = 0.05
"""Relative tolerance between a cited number and a value the chart shows (the reading error
of a printed or estimated value, as relaxed accuracy)."""

_REL_DERIVED = 0.01
"""Tighter tolerance for numbers one step of arithmetic away: with several values on a chart
their sums, differences and ratios lie close together, and 5 % would excuse almost anything."""

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+")


def agrees(a: str, b: str) -> bool:
    """Whether answer `a` says what answer `b` says, by relaxed accuracy with `b` as gold
    (numbers within 5 %, else normalised text)."""
    return relaxed_accuracy(a, Answer(kind="text", value=b)) == 1.0


def _close(x: float, y: float, rel: float = _REL) -> bool:
    return abs(x - y) <= max(rel * max(abs(x), abs(y)), 1e-9)


def explain_answer(solution: Solution, given: str | None) -> str:
    """The reader's explanation of how the chart leads to `given`: its own trace when it
    reaches the same answer; otherwise its trace with the answer it reaches instead (an
    honest explanation of a different answer, which a verifier should reject)."""
    if not solution.known:
        return f"The reader could not work this question out from the chart. {solution.explanation}"
    if given is None or agrees(solution.answer, given):
        return solution.explanation
    return f"{solution.explanation} This reading does not give {given.strip()}."


def _chart_numbers(view: ChartView) -> list[float]:
    values = [v for vs in view.values.values() for v in vs if v is not None]
    values += [v for pts in view.points.values() for p in pts for v in p]
    values += [v for box in view.boxes.values() for v in box]
    for label in view.x_labels:
        values += numbers_written(label)
    return values


def _derived(values: Sequence[float], limit: int = 80) -> set[float]:
    """Numbers one step of arithmetic from the chart's: sums, differences and ratios of two
    values, percentage changes, totals and means (pairs only on charts of up to `limit`
    values, so the set stays small)."""
    out: set[float] = set()
    if values:
        out.add(sum(values))
        out.add(sum(values) / len(values))
    vs = list(values)[:limit]
    for a, b in itertools.permutations(vs, 2):
        out.update((a + b, a - b, abs(a - b), (a + b) / 2))
        if b:
            out.update((a / b, 100 * a / b, 100 * (a - b) / b))
    return out


def _supported(x: float, shown: Iterable[float], derived: Iterable[float]) -> bool:
    return any(_close(x, k) for k in shown) or any(_close(x, k, _REL_DERIVED) for k in derived)


def verify_explanation(
    view: ChartView,
    question: str,
    answer: str,
    explanation: str,
    solution: Solution,
) -> tuple[bool, str]:
    """(correct, reason) for a candidate explanation of `answer` to `question` on the chart.

    Incorrect when it is empty, cites a number the chart does not support, or does not reach
    the answer (a numeric answer must appear among its numbers, a text answer among its
    words) — and when the reader's own solution contradicts the given answer, since then the
    chart as read does not back the explanation either."""
    text = explanation.strip()
    if not text:
        return False, "the explanation is empty"
    if solution.known and not agrees(solution.answer, answer):
        return False, f"the chart as read gives {solution.answer}, not {answer}"
    base = _chart_numbers(view)
    shown = {
        *base,
        *numbers_written(question),
        *numbers_written(answer),
        *numbers_written(solution.explanation),
    }
    derived = _derived(base)
    for x in numbers_written(text):
        if not _supported(x, shown, derived):
            return False, f"{x:g} is not a value the chart shows or one step from them"
    target = numbers_written(answer)
    if len(target) == 1:
        if not any(_close(x, target[0]) for x in numbers_written(text)):
            return False, f"the explanation never reaches {answer}"
    elif norm(answer) not in {"yes", "no", "true", "false", UNKNOWN}:
        words = set(_WORD.findall(norm(text)))
        wanted = [w for w in _WORD.findall(norm(answer)) if len(w) > 2]
        if wanted and not any(w in words for w in wanted):
            return False, f"the explanation never names {answer}"
    return True, "every number cited is on the chart and the explanation reaches the answer"
