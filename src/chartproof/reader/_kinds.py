"""Answers in the question's own type: yes/no questions get "Yes" or "No" from a checked
comparison, multiple-choice questions get one of their options, label questions a label.

Yes/no questions are checked, never guessed: FigureQA's shapes are question programs
(`questions/programs/figureqa.py`), and "Is A greater than B?" otherwise solves A and B as
questions of their own and compares them. When no check applies
the answer stays "unknown", with the reason."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from chartproof.numeric import format_number, parse_number
from chartproof.questions import ChartView
from chartproof.questions.labels import find_mentions, norm, numbers_written, similarity
from chartproof.questions.programs.figureqa import BIGGER, COMPARISON
from chartproof.questions.wording import QuestionKind, question_kind

__all__ = [
    "Asked",
    "Check",
    "QuestionKind",
    "asked",
    "check_yes_no",
    "choice_index",
    "claim_questions",
    "nearest_option",
    "options_in_text",
    "question_kind",
]

Check = tuple[bool, str]
"""A checked claim: whether it holds, and the sentence saying what was compared."""

# ------------------------------------------------------------------ the form asked for


@dataclass(frozen=True)
class Asked:
    """What a question asks once its format instructions are read and set apart."""

    core: str
    """The question (or the claim) without its instructions."""
    form: Literal["yes_no", "true_false", "letter", "free"]
    """The reply the instructions or the wording ask for: "Yes"/"No", "True"/"False", an
    option's letter, or the answer in the question's own type."""
    lead: str = ""
    """Words the reply must begin with ("Begin your answer with 'My answer is'")."""
    claim: bool = False
    """The core is a statement to check ("True or False: ...", "Is it the case that ...")."""
    whole: str = ""
    """The question without its instructions, the claim's opening words kept."""


_PIECES = re.compile(r"(?<=[?!])\s*(?=\S)|(?<=\.)\s+(?=\S)|\s*\n\s*|(?=\bNOTE\s*:)")
_ORDERS = re.compile(
    r"^(?:note\b|please\b|answer\b|respond\b|reply\b|begin\b|start\b|choose\b|select\b|"
    r"pick\b|only\b|just\b|your (?:final )?answer\b|you (?:only |just )?(?:need|should|must|"
    r"have)\b|(?:give|provide|output|write|use|state) (?:only |just )?(?:the|your|a|one)\b)",
    re.I,
)
_ABOUT_REPLY = re.compile(
    r"\b(?:answer|reply|respond|response|word|phrase|letter|option|choice|yes|no|true|false)\b",
    re.I,
)
_CLAIM_LEADS = re.compile(
    r"^(?:true or false\s*[:?.,-]\s*|(?:is|was) it (?:true|the case|correct) that\s+|"
    r"(?:is|are) the following (?:statement|claim)s? (?:true|correct)\s*[:?]\s*)",
    re.I,
)
_TRUE_OR_FALSE_TAIL = re.compile(r"[\s.,;:-]*\(?\s*true or false\s*\)?\s*[?.]?\s*$", re.I)
_QUOTED = re.compile(r"\b(?:begin|start)\b.*?\bwith\s+[\"'“‘](.+?)[\"'”’]\s*[.!]?$", re.I)


def asked(question: str) -> Asked:
    """Set the format instructions of a question apart ("NOTE: You only need to answer 'Yes'
    or 'No'.", "Answer with a single word or phrase.", "Begin your answer with 'My answer
    is'", "True or False: ...") and say which form of reply they ask for. A sentence is an
    instruction when it opens as an order or a note and speaks of the reply; the rest is
    the question, kept as written."""
    kept, orders = [], []
    for piece in _PIECES.split(question.strip()):
        if piece and _ORDERS.match(piece) and _ABOUT_REPLY.search(piece):
            orders.append(piece)
        elif piece:
            kept.append(piece)
    core = whole = " ".join(kept).strip() or question.strip()
    said = " ".join(orders).lower()
    words = set(re.findall(r"[a-z]+", said))
    lead = next((m.group(1).strip() for o in orders if (m := _QUOTED.search(o))), "")
    claim = False
    m = _CLAIM_LEADS.match(core)
    tail = _TRUE_OR_FALSE_TAIL.search(core)
    form: Literal["yes_no", "true_false", "letter", "free"] = "free"
    if m:
        core, claim = core[m.end() :].strip(), True
        form = "true_false" if m.group(0).lower().startswith("true") else "yes_no"
    elif tail and tail.start() > 0:
        core, claim, form = core[: tail.start()].strip(), True, "true_false"
    if {"true", "false"} <= words:
        form = "true_false"
    elif {"yes", "no"} <= words:
        form = "yes_no"
    elif words & {"letter", "option", "choice", "choices", "options"} and form == "free":
        form = "letter"
    core = core.rstrip(" .?") if claim else core
    return Asked(core=core, form=form, lead=lead, claim=claim, whole=whole)


_COPULA = re.compile(r"^(.+?) (is|are|was|were|has|have|had|does|do|did|can|will) (.+)$", re.I)


def claim_questions(statement: str) -> list[str]:
    """A statement as the yes/no questions it can be read as: the subject and the first
    verb swapped ("Olive is the maximum" -> "Is Olive the maximum?", "Teal has the highest
    value" -> "Does Teal have the highest value?"), and, for a verb in -s, each such verb
    ("Red intersects Blue" -> "Does Red intersect Blue?")."""
    s = statement.strip().rstrip(".?! ")
    out = []
    m = _COPULA.match(s)
    if m:
        subject, verb, rest = m.groups()
        v = verb.lower()
        if v in ("has", "have", "had"):
            aux = {"has": "Does", "have": "Do", "had": "Did"}[v]
            out.append(f"{aux} {subject} have {rest}?")
        out.append(f"{v.capitalize()} {subject} {rest}?")
    words = s.split(" ")
    for i, w in enumerate(words[1:], start=1):
        if len(w) > 3 and w.endswith("s") and w.isalpha() and w.islower():
            stem = w[:-2] if w.endswith(("sses", "shes", "ches", "xes")) else w[:-1]
            out.append(f"Does {' '.join(words[:i])} {stem} {' '.join(words[i + 1 :])}?")
    return out


# ------------------------------------------------------------------ yes/no checks

Solver = Callable[[str], float | str | None]
"""Answers a sub-question: a number, a label, or None when it cannot."""


def _norm_q(question: str) -> str:
    return " ".join(norm(question.replace("?", " ")).split())


_TIMES = re.compile(
    r"^(?:is|are|was|were) (?:the )?(.+?) (?:is |are )?(\w+|\d+(?:\.\d+)?) times (?:the |as \w+ as )?(.+?)$"
)

_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "twice": 2, "half": 0.5}


def _share_series(left: str, right: str, view: ChartView) -> tuple[str, str]:
    """ "A in fairly well more than B": the series one side names holds for the other side
    too, when that side names none."""
    if len(view.series) < 2:
        return left, right
    sl, sr = find_mentions(left, view.series), find_mentions(right, view.series)
    if sl and not sr:
        return left, f"{right} in {sl[0]}"
    if sr and not sl:
        return f"{left} in {sr[0]}", right
    return left, right


def _value_of(phrase: str, solve: Solver, view: ChartView) -> tuple[float, str] | None:
    """A phrase ("the median of green bars", "Canada", "38") as a number, solving it as a
    question when it is not one."""
    p = phrase.strip()
    x = parse_number(p.rstrip("%").strip())
    if x is not None:
        return x, format_number(x)
    for question in (f"What is the {p}?", f"What is the value of {p}?"):
        got = solve(question)
        if isinstance(got, float):
            return got, format_number(got)
    return None


def check_yes_no(question: str, view: ChartView, solve: Solver) -> Check | None:
    """Whether the yes/no question's claim holds on the chart, with what was compared; None
    when no check applies."""
    q = _norm_q(question)
    m = _TIMES.match(q)
    if m:
        k = _NUMBER_WORDS.get(m.group(2)) or parse_number(m.group(2))
        a, b = _value_of(m.group(1), solve, view), _value_of(m.group(3), solve, view)
        if k is not None and a is not None and b is not None and b[0] != 0:
            ratio = a[0] / b[0]
            ok = abs(ratio - k) <= 0.05 * k
            return ok, f"{a[1]} is {format_number(ratio)} times {b[1]}, against {format_number(k)}"
    m = COMPARISON.match(q)
    if m:
        left, right = _share_series(m.group(1), m.group(3), view)
        a, b = _value_of(left, solve, view), _value_of(right, solve, view)
        if a is not None and b is not None:
            bigger = m.group(2) in BIGGER
            ok = a[0] > b[0] if bigger else a[0] < b[0]
            word = "greater" if bigger else "less"
            neg = "" if ok else " not"
            return (
                ok,
                f"{m.group(1)} is {a[1]} and {m.group(3)} is {b[1]}; {a[1]} is{neg} {word} "
                f"than {b[1]}",
            )
    return None


# ------------------------------------------------------------------ multiple choice

_OPTION = re.compile(
    r"(?:^|\s|\n)\(?([A-Ha-h])[.):]\s+(.+?)(?=(?:\s|\n)\(?[A-Ha-h][.):]\s+|$)", re.S
)


_NUMBERED = (
    re.compile(r"(?:^|\s)\((\d)\)\s+(.+?)(?=\s\(\d\)\s|$)", re.S),  # "(1) 12 (2) 15"
    re.compile(r"(?:^|\n)\s*(\d)[.)]\s+(.+?)(?=\n\s*\d[.)]\s|$)", re.S),  # one per line
)


def options_in_text(question: str) -> tuple[str, list[str]]:
    """Options written into the question, lettered ("... A. 12 B. 15" or one per line) or
    numbered ("(1) 12 (2) 15", or "1. 12" one per line): the question without them and the
    option texts, in order; no options when the marks do not run A, B, C, ... (1, 2, 3, ...)
    from the start."""
    head, _sep, _rest = question.partition("\n")
    for pattern, first in ((_OPTION, "A"), *((p, "1") for p in _NUMBERED)):
        m = list(pattern.finditer(question))
        marks = [x.group(1).upper() for x in m]
        if len(m) >= 2 and marks == [chr(ord(first) + i) for i in range(len(m))]:
            stem = question[: m[0].start()].strip()
            stem = re.sub(r"\b(options|choices)\s*:?\s*$", "", stem, flags=re.I).strip()
            return stem or head, [x.group(2).strip() for x in m]
    return question, []


def choice_index(answer: str, choices: Sequence[str], view: ChartView | None = None) -> int | None:
    """The option a computed answer stands for: the option equal to it, the number nearest
    it (within 10 %), or the most alike text (at least 0.6 alike); None otherwise."""
    if not choices:
        return None
    a = answer.strip().rstrip(".")
    na = norm(a)
    for i, c in enumerate(choices):
        if norm(c) == na:
            return i
    x = parse_number(a.rstrip("%"))
    if x is not None:
        best: tuple[float, int] | None = None
        for i, c in enumerate(choices):
            nums = numbers_written(c)
            if len(nums) != 1:
                continue
            d = abs(nums[0] - x)
            if best is None or d < best[0]:
                best = (d, i)
        if best is not None and best[0] <= 0.1 * max(abs(x), 1e-9):
            return best[1]
        return None
    if na in ("yes", "no"):
        for i, c in enumerate(choices):
            if norm(c).split()[:1] == [na]:
                return i
    scored = sorted(((similarity(a, c), i) for i, c in enumerate(choices)), reverse=True)
    if scored and scored[0][0] >= 0.6:
        return scored[0][1]
    # The answer named inside a longer option ("Canada" in "Canada, with 12 %").
    inside = [i for i, c in enumerate(choices) if na and f" {na} " in f" {norm(c)} "]
    return inside[0] if len(inside) == 1 else None


def nearest_option(answer: str, choices: Sequence[str]) -> tuple[int | None, str]:
    """The option nearest an answer no option equals, and how it is near: by value (the
    number with the smallest relative difference, for a number answer and options that
    each hold one number) or by label (the most alike text, when any is alike at all)."""
    x = parse_number(answer.strip().rstrip(".").rstrip("%"))
    if x is not None:
        nums = [numbers_written(c) for c in choices]
        if all(len(n) == 1 for n in nums):
            scale = max(abs(x), 1e-9)
            i = min(range(len(choices)), key=lambda k: abs(nums[k][0] - x) / scale)
            return i, "by value"
    scored = [(similarity(answer, c), i) for i, c in enumerate(choices)]
    best = max(scored, default=(0.0, -1))
    if best[0] >= 0.3 and [sc for sc, _ in scored].count(best[0]) == 1:
        return best[1], "by label"
    return None, ""
