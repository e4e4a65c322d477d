"""From a question's words back to a program and its arguments: the inverse of the
paraphrase templates, for solvers (e.g. the offline chart reader) that run the programs on a
table they recovered.

`parse(question, view)` is the one entry point: every (program, arguments) the question
may have been written from, most likely first: a template as written, a template loosely
(labels resolved to the nearest), then the programs' free-form cues (`questions.cues`).
One compiler turns a template into a pattern (`template_pattern`): strict, where each slot
matches only a label the chart writes (`match_question`), or loose, where a slot is any words
(`template_regex`: `template_matches`, `step_matches`, the premise judges). One resolver
(`resolve_slot`) maps a slot's text to the chart's own label, exactly or fuzzily (so OCR
slips such as "lonix" for "Ionix" still reach the right program).
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from chartproof.numeric import format_number, parse_number
from chartproof.questions.cues import Cue, walk
from chartproof.questions.describe import ordinal_value
from chartproof.questions.labels import (
    best_label,
    labels_listed,
    labels_written,
    norm,
    numbers_written,
    similarity,
)
from chartproof.questions.mentions import mentions
from chartproof.questions.ops.shape import CORRELATION_BANDS
from chartproof.questions.ops.steps import STEP_QUESTIONS, StepQuestion, name_steps, named_steps
from chartproof.questions.program import (
    ArgValue,
    Program,
    execute,
    list_programs,
    program_for,
    render_slots,
)
from chartproof.questions.trace import Op
from chartproof.questions.view import ChartView, chart_view
from chartproof.types import ChartSpec, DataTable

__all__ = [
    "STAGES",
    "Parse",
    "QuestionMatch",
    "answer_ops",
    "cue_readings",
    "match_question",
    "parse",
    "pick",
    "question_templates",
    "resolve_slot",
    "step_matches",
    "template_matches",
    "template_pattern",
    "template_regex",
]

_ORDINAL = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
    r"\d+(?:st|nd|rd|th))"
)
_NUMBER = r"[-+\u2212]?[$€£¥]?\d[\d,]*(?:\.\d+)?%?"
_NUMBERS = rf"{_NUMBER}(?:(?:,\s*|,?\s+and\s+){_NUMBER})+"
"""A list of numbers as written ("46, 43 and 41")."""
_NAMED_STEPS = r".+?\(step \d+\)(?:,?\s+or\s+|,\s*).+?\(step \d+\)"
"""Results named with their steps ("Berlin (step 3) or Vienna (step 9)", `name_steps`)."""
_ANY = ".+?"


@dataclass(frozen=True, slots=True)
class QuestionMatch:
    """A question recognised as an instance of a program template."""

    program: Program
    """The program whose template matched."""
    args: dict[str, ArgValue]
    """Arguments recovered from the slots, resolved to the chart's own labels."""
    paraphrase: int
    """Which template matched."""


Stage = Literal["template", "paraphrase", "cue"]
"""How a parse was found: a template as written (labels exactly, derived slots as the chart
writes them), a template loosely (labels fuzzily), or a program's free-form cue."""
STAGES: tuple[Stage, ...] = ("template", "paraphrase", "cue")
"""Every stage, in the order `parse` tries them."""


@dataclass(frozen=True)
class Parse:
    """One reading of a question: a program and its arguments."""

    program: Program
    """The program."""
    args: dict[str, ArgValue]
    """Its arguments, resolved to the chart's own labels."""
    how: str
    """The stage that found it ("template", "paraphrase") or the cue's reason."""
    score: float = 0.0
    """Within a template stage, how specific the match (literal characters, plus slot
    likeness for a paraphrase); higher first."""
    paraphrase: int = -1
    """Which template matched (-1 for a cue)."""


def parse(
    question: str,
    view: ChartView,
    *,
    stages: Sequence[Stage] = STAGES,
    families: Iterable[str] | None = None,
) -> list[Parse]:
    """Every (program, arguments) of a program that applies to the chart that the question
    may have been written from, most likely first: by stage (`STAGES` order), within a
    template stage the most specific match first, within the cues by rank."""
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise ValueError(f"unknown parse stage {unknown[0]!r}; known: {', '.join(STAGES)}")
    fams = tuple(families) if families is not None else None
    programs = [p for p in list_programs(families=fams) if p.applies(view)]
    out: list[Parse] = []
    for stage in STAGES:
        if stage not in stages:
            continue
        if stage == "template":
            out += _exact_parses(question, view, programs)
        elif stage == "paraphrase":
            out += _loose_parses(question, view, programs)
        else:
            by_name = {p.name: p for p in programs}
            for name, args, why in cue_readings(question, view):
                # a reading with other arguments asks one of the program's variants
                name = program_for(name, args).name if name in by_name else name
                if name in by_name:
                    out.append(Parse(by_name[name], args, f"cue: {why}"))
    return out


def answer_ops(question: str, view: ChartView) -> tuple[Op, ...] | None:
    """The operations answering a question on the chart, the last the answer: those of the
    first reading `parse` gives that runs and answers; None when none does (the default
    `trace.Ask`, how a program's `quantity` arguments are answered)."""
    for found in parse(question, view):
        result = execute(found.program, found.args, view)
        if result is not None:
            return result.ops
    return None


def cue_readings(
    question: str,
    view: ChartView,
    extra: Iterable[tuple[str, Cue]] = (),
    *,
    ranks: range | None = None,
) -> list[tuple[str, dict[str, ArgValue], str]]:
    """(program name, arguments, why) of every cue of a registered program that applies to
    the chart, and of `extra` (cues of programs run elsewhere), that the question fits, in
    rank order (`questions.cues.walk`; a final cue of any program ends the walk); only cues
    whose rank is in `ranks` when given (`questions.cues.PATTERNS`: those the reader tries
    before loose templates)."""
    extra = tuple(extra)
    cues = [(p.name, c) for p in list_programs() for c in p.cues] + list(extra)
    if ranks is not None:
        cues = [(n, c) for n, c in cues if c.rank in ranks]
    cued = {n for n, _ in cues}
    applies = {p.name for p in list_programs() if p.name in cued and p.applies(view)}
    applies |= {n for n, _ in extra}
    return walk(mentions(question, view), cues, applies.__contains__)


def question_templates(families: Iterable[str] | None = None) -> dict[str, tuple[str, ...]]:
    """Every program's paraphrase templates by program name (slots as `{name}`)."""
    fams = tuple(families) if families is not None else None
    return {p.name: p.templates for p in list_programs(families=fams)}


# ------------------------------------------------------------------ the one compiler


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


@functools.lru_cache(maxsize=4096)
def template_pattern(
    template: str,
    captures: tuple[tuple[str, str], ...],
    derived: tuple[tuple[str, str], ...] | None = None,
) -> tuple[re.Pattern[str], int]:
    """A case-insensitive pattern for a template and the number of literal characters it
    holds. `captures` are the argument slots (name, pattern of their text: ".+?" for any
    words, an alternation of the chart's labels to be strict); a slot written twice must
    repeat its text. Other (derived) slots are any words; with `derived` (slot → the text
    the chart gives it) they are that text or any words on one line (strict), without it
    any words across lines (loose)."""
    body_of = dict(captures)
    fixed = dict(derived or ())
    parts: list[str] = []
    literal = 0
    seen: set[str] = set()
    # the closing punctuation is optional, so it is left out of the literal text
    for lit, field, _, _ in string.Formatter().parse(template.rstrip().rstrip("?.!")):
        parts.append(_loose(lit))
        literal += len(lit.strip())
        if not field:
            continue
        if field in seen:
            parts.append(f"(?P={field})")
        elif field in body_of:
            seen.add(field)
            parts.append(f"(?P<{field}>{body_of[field]})")
        elif derived is not None:
            parts.append(f"(?:{_loose(fixed.get(field, ''))}|{_ANY})")
        else:
            parts.append(f"(?:{_ANY})")
    flags = re.IGNORECASE if derived is not None else re.IGNORECASE | re.S
    return re.compile(rf"^\s*{''.join(parts)}\s*[?.!]?\s*$", flags), literal


def template_regex(template: str, slots: tuple[str, ...]) -> tuple[re.Pattern[str], int]:
    """The loose pattern of a template (every slot in `slots` captured as any words, other
    slots any words) and its literal characters (`template_pattern`)."""
    return template_pattern(template, tuple((s, _ANY) for s in slots))


def _listing(labels: Sequence[str]) -> str:
    """One or more of the labels as a list writes them ("A, B and C")."""
    one = _alternation(labels)
    return rf"{one}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+){one})*"


def _strict_bodies(kinds: Mapping[str, str], view: ChartView) -> tuple[tuple[str, str], ...]:
    """Each argument slot's pattern: one of the chart's labels of its kind, or a number,
    ordinal, list of numbers or results named with their steps as written."""
    colors = tuple(sorted(set(view.colors.values())))
    out = []
    for name, kind in sorted(kinds.items()):
        body = {
            "x": lambda: _alternation(view.x_labels),
            "series": lambda: _alternation(view.series),
            "number": lambda: _NUMBER,
            "ordinal": lambda: _ORDINAL,
            "color": lambda: _alternation(colors),
            "band": lambda: _alternation(CORRELATION_BANDS),
            "numbers": lambda: _NUMBERS,
            "named_steps": lambda: _NAMED_STEPS,
            "x_list": lambda: _listing(view.x_labels),
            "series_list": lambda: _listing(view.series),
            # a phrase is read by its program's cue, which solves it as a question
            "quantity": lambda: _alternation(()),
        }[kind]()
        out.append((name, body))
    return tuple(out)


# ------------------------------------------------------------------ the one resolver


def resolve_slot(
    kind: str, text: str, view: ChartView, *, exact: bool = False
) -> tuple[ArgValue, float] | None:
    """The chart value a slot's text stands for, with its likeness (0..1): a label of the
    slot's kind (`exact`: the same words in any case; else the nearest label, see `pick`),
    a number, an ordinal, a list of numbers, or results named with their steps. None when
    the text names none."""
    t = " ".join(text.split())
    if not exact:
        t = t.strip(" '\"")
    if kind in ("number", "ordinal"):
        n = parse_number(t.replace("\u2212", "-")) if kind == "number" else ordinal_value(t)
        return None if n is None else (n, 1.0)
    if kind == "numbers":  # as the programs write a list: "46, 43, 41"
        listed = numbers_written(t) if re.fullmatch(_NUMBERS, t, re.I) else []
        return None if len(listed) < 2 else (", ".join(format_number(v) for v in listed), 1.0)
    if kind == "named_steps":  # "Berlin (step 3), Amsterdam (step 6) or Vienna (step 9)"
        named = named_steps(t)
        return None if named is None else (name_steps(named), 1.0)
    if kind in ("x_list", "series_list"):
        return _resolve_list(t, view.x_labels if kind == "x_list" else view.series, view, exact)
    options = {
        "x": view.x_labels,
        "series": view.series,
        "color": tuple(sorted(set(view.colors.values()))),
        "band": tuple(CORRELATION_BANDS),
    }.get(kind)
    if options is None:
        return None
    if exact:
        same = [o for o in options if " ".join(o.split()).lower() == t.lower()]
        return (same[0], 1.0) if same else None
    found = pick(t, options)
    if found is None and kind == "series" and len(view.series) == 1:
        # One series: questions name it by a column name the image may not show.
        return view.series[0], 0.5
    return found


def _resolve_list(
    t: str, options: Sequence[str], view: ChartView, exact: bool
) -> tuple[ArgValue, float] | None:
    """One or more labels as a list writes them ("A, B and C", `labels_listed`): the labels
    as written, else (not `exact`) each part the nearest label, its likeness the least."""
    found = labels_written(t, options)
    if found is not None:
        return labels_listed(found), 1.0
    if exact:
        return None
    picked = [pick(part, options) for part in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", t)]
    if all(p is not None for p in picked):
        return labels_listed([p[0] for p in picked if p]), min(p[1] for p in picked if p)
    if options == view.series and len(view.series) == 1:
        return view.series[0], 0.5  # as for one series: named by a column the image may not show
    return None


def pick(text: str, options: Iterable[str]) -> tuple[str, float] | None:
    """The option `text` names and its likeness: one equal after `norm`, else the most
    alike at least 0.75 alike (`best_label`), else None."""
    opts = list(options)
    for o in opts:
        if norm(o) == norm(text):
            return o, 1.0
    found = best_label(text, opts, threshold=0.75)
    if found is None:
        return None
    return found, similarity(text, found)


def _resolve_all(
    kinds: Mapping[str, str],
    groups: Mapping[str, str | None],
    view: ChartView,
    *,
    exact: bool = False,
) -> tuple[dict[str, ArgValue] | None, float]:
    """Every slot resolved (None when one is not) and the sum of their likeness."""
    args: dict[str, ArgValue] = {}
    total = 0.0
    for name, kind in kinds.items():
        text = groups.get(name)
        got = None if text is None else resolve_slot(kind, text, view, exact=exact)
        if got is None:
            return None, 0.0
        args[name] = got[0]
        total += got[1]
    return args, total


# ------------------------------------------------------------------ matching questions


@functools.lru_cache(maxsize=4096)
def _literal_words(template: str) -> frozenset[str]:
    """Lower-case words of a template's literal text: a question lacking one cannot match."""
    text = " ".join(lit for lit, _, _, _ in string.Formatter().parse(template))
    return frozenset(re.findall(r"[a-z]+", text.lower()))


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
    found = parse(text, view, stages=("template",), families=families)
    if not found:
        return None
    return QuestionMatch(
        program=found[0].program, args=found[0].args, paraphrase=found[0].paraphrase
    )


def _exact_parses(text: str, view: ChartView, programs: Sequence[Program]) -> list[Parse]:
    """Templates the question is as written, the most literal text first."""
    words = frozenset(re.findall(r"[a-z]+", text.lower()))
    out: list[Parse] = []
    for prog in programs:
        if not any(_literal_words(t) <= words for t in prog.templates):
            continue
        bodies = _strict_bodies(prog.slots, view)
        derived = tuple(
            (k, v)
            for k, v in render_slots(view, prog, _dummy_args(prog)).items()
            if k not in prog.slots
        )
        for i, template in enumerate(prog.templates):
            if not _literal_words(template) <= words:
                continue
            m = template_pattern(template, bodies, derived)[0].match(text)
            args = _resolve_all(prog.slots, m.groupdict(), view, exact=True)[0] if m else None
            if args is not None:
                score = len("".join(lit for lit, _, _, _ in string.Formatter().parse(template)))
                out.append(Parse(prog, args, "template", score, i))
    out.sort(key=lambda p: -p.score)
    return out


def _dummy_args(prog: Program) -> dict[str, ArgValue]:
    """Placeholder arguments, so derived slots can be rendered without real ones."""
    return {name: (1 if kind in ("number", "ordinal") else "") for name, kind in prog.slots.items()}


def template_matches(
    question: str, view: ChartView, families: Iterable[str] | None = None
) -> list[Parse]:
    """Every (program, arguments) whose template the question fits loosely, each slot's
    text resolved to the nearest label of the chart, best first."""
    return parse(question, view, stages=("paraphrase",), families=families)


def _loose_parses(question: str, view: ChartView, programs: Sequence[Program]) -> list[Parse]:
    out: list[Parse] = []
    for prog in programs:
        slots = tuple(sorted(prog.slots))
        for i, template in enumerate(prog.templates):
            pattern, literal = template_regex(template, slots)
            m = pattern.match(question)
            args, likeness = _resolve_all(prog.slots, m.groupdict(), view) if m else (None, 0.0)
            if args is not None:
                out.append(Parse(prog, args, "paraphrase", literal + 10 * likeness, i))
    out.sort(key=lambda c: -c.score)
    return out


def step_matches(question: str, view: ChartView) -> list[tuple[StepQuestion, dict[str, ArgValue]]]:
    """Every step question an operation declares that the question fits, with its resolved
    arguments, best first (the same compiler and resolver as `template_matches`)."""
    out: list[tuple[float, StepQuestion, dict[str, ArgValue]]] = []
    for step in STEP_QUESTIONS:
        pattern, literal = template_regex(step.template, tuple(sorted(step.slots)))
        m = pattern.match(question)
        args, likeness = _resolve_all(step.slots, m.groupdict(), view) if m else (None, 0.0)
        if args is not None:
            out.append((literal + 10 * likeness, step, args))
    out.sort(key=lambda c: -c[0])
    return [(step, args) for _, step, args in out]
