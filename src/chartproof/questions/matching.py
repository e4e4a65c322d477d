"""From a question's words back to a program and its arguments: the inverse of the
paraphrase templates, for solvers (e.g. the offline chart reader) that run the programs on a
table they recovered.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

from chartproof.numeric import parse_number
from chartproof.questions.describe import ordinal_value
from chartproof.questions.ops.shape import CORRELATION_BANDS
from chartproof.questions.program import ArgValue, Program, list_programs, render_slots
from chartproof.questions.view import ChartView, chart_view
from chartproof.types import ChartSpec, DataTable

__all__ = ["QuestionMatch", "match_question", "question_templates", "template_regex"]

_ORDINAL = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
    r"\d+(?:st|nd|rd|th))"
)
_NUMBER = r"[-+\u2212]?[$€£¥]?\d[\d,]*(?:\.\d+)?%?"


@dataclass(frozen=True, slots=True)
class QuestionMatch:
    """A question recognised as an instance of a program template."""

    program: Program
    """The program whose template matched."""
    args: dict[str, ArgValue]
    """Arguments recovered from the slots, resolved to the chart's own labels."""
    paraphrase: int
    """Which template matched."""


def question_templates(families: Iterable[str] | None = None) -> dict[str, tuple[str, ...]]:
    """Every program's paraphrase templates by program name (slots as `{name}`)."""
    fams = tuple(families) if families is not None else None
    return {p.name: p.templates for p in list_programs(families=fams)}


def _alternation(options: Iterable[str]) -> str:
    opts = sorted({o for o in options if o}, key=len, reverse=True)
    if not opts:
        return r"(?!x)x"
    return "(?:" + "|".join(_loose(o) for o in opts) + ")"


def _loose(text: str) -> str:
    """A literal that tolerates any run of whitespace where the text has one."""
    return "".join(
        r"\s+" if tok.isspace() else re.escape(tok) for tok in re.split(r"(\s+)", text) if tok
    )


@functools.lru_cache(maxsize=2048)
def template_regex(template: str, slots: tuple[str, ...]) -> tuple[re.Pattern[str], int]:
    """A case-insensitive pattern for a template (argument slots captured, derived slots as
    any words) and the number of literal characters it holds."""
    body = template.rstrip().rstrip("?.!")
    parts: list[str] = []
    literal = 0
    seen: set[str] = set()
    for lit, field, _, _ in string.Formatter().parse(body):
        parts.append(_loose(lit))
        literal += len(lit.strip())
        if not field:
            continue
        if field in slots and field not in seen:
            seen.add(field)
            parts.append(f"(?P<{field}>.+?)")
        elif field in seen:
            parts.append(f"(?P={field})")
        else:
            parts.append("(?:.+?)")
    return re.compile(rf"^\s*{''.join(parts)}\s*[?.!]?\s*$", re.IGNORECASE | re.S), literal


@functools.lru_cache(maxsize=4096)
def _compile(
    template: str,
    kinds: tuple[tuple[str, str], ...],
    x: tuple[str, ...],
    series: tuple[str, ...],
    colors: tuple[str, ...],
    derived: tuple[tuple[str, str], ...],
) -> re.Pattern[str]:
    kind_of = dict(kinds)
    fixed = dict(derived)
    parts: list[str] = []
    seen: set[str] = set()
    # the closing punctuation is optional, so it is left out of the literal text
    body_text = template.rstrip().rstrip("?.!")
    for literal, field, _, _ in string.Formatter().parse(body_text):
        parts.append(_loose(literal))
        if not field:
            continue
        if field in seen:
            parts.append(f"(?P={field})")
            continue
        seen.add(field)
        kind = kind_of.get(field)
        if kind is None:  # derived slot: its usual text, or any words
            parts.append(f"(?:{_loose(fixed.get(field, ''))}|.+?)")
            continue
        body = {
            "x": _alternation(x),
            "series": _alternation(series),
            "number": _NUMBER,
            "ordinal": _ORDINAL,
            "color": _alternation(colors),
            "band": _alternation(CORRELATION_BANDS),
            "numbers": rf"{_NUMBER}(?:(?:,\s*|,?\s+and\s+){_NUMBER})+",
        }[kind]
        parts.append(f"(?P<{field}>{body})")
    pattern = "".join(parts)
    return re.compile(rf"^\s*{pattern}\s*[?.!]?\s*$", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _literal_words(template: str) -> frozenset[str]:
    """Lower-case words of a template's literal text: a question lacking one cannot match."""
    text = " ".join(lit for lit, _, _, _ in string.Formatter().parse(template))
    return frozenset(re.findall(r"[a-z]+", text.lower()))


def _resolve(kind: str, text: str, view: ChartView) -> ArgValue | None:
    t = " ".join(text.split())
    if kind == "x":
        return _canonical(t, view.x_labels)
    if kind == "series":
        return _canonical(t, view.series)
    if kind == "color":
        return _canonical(t, tuple(view.colors.values()))
    if kind == "band":
        return _canonical(t, tuple(CORRELATION_BANDS))
    if kind == "number":
        return parse_number(t.replace("\u2212", "-"))
    if kind == "ordinal":
        return ordinal_value(t)
    return None


def _canonical(text: str, options: Iterable[str]) -> str | None:
    low = text.lower()
    for o in options:
        if " ".join(o.split()).lower() == low:
            return o
    return None


def match_question(
    text: str,
    chart: ChartSpec | ChartView | DataTable,
    *,
    families: Iterable[str] | None = None,
) -> QuestionMatch | None:
    """The program and arguments a question was written from, or None when no template of
    a program that applies to the chart matches.

    A bare `DataTable` is read as a vertical bar chart of its first column against every
    numeric column (build a `ChartView` to say more). Labels match case-insensitively and
    resolve to the chart's own spelling; among several matching templates the most specific
    (longest literal text) wins.
    """
    view = ChartView.from_table(chart) if isinstance(chart, DataTable) else chart_view(chart)
    fams = tuple(families) if families is not None else None
    colors = tuple(sorted(set(view.colors.values())))
    words = frozenset(re.findall(r"[a-z]+", text.lower()))
    best: tuple[int, QuestionMatch] | None = None
    for prog in list_programs(families=fams):
        if not prog.applies(view) or not any(_literal_words(t) <= words for t in prog.templates):
            continue
        kinds = tuple(sorted(prog.slots.items()))
        derived = tuple(
            (k, v)
            for k, v in render_slots(view, prog, _dummy_args(prog)).items()
            if k not in prog.slots
        )
        for i, template in enumerate(prog.templates):
            if not _literal_words(template) <= words:
                continue
            pattern = _compile(template, kinds, view.x_labels, view.series, colors, derived)
            m = pattern.match(text)
            if m is None:
                continue
            args: dict[str, ArgValue] = {}
            for name, kind in prog.slots.items():
                value = _resolve(kind, m.group(name), view)
                if value is None:
                    break
                args[name] = value
            else:
                score = len("".join(lit for lit, _, _, _ in string.Formatter().parse(template)))
                if best is None or score > best[0]:
                    best = (score, QuestionMatch(program=prog, args=args, paraphrase=i))
    return best[1] if best else None


def _dummy_args(prog: Program) -> dict[str, ArgValue]:
    """Placeholder arguments, so derived slots can be rendered without real ones."""
    return {name: (1 if kind in ("number", "ordinal") else "") for name, kind in prog.slots.items()}
