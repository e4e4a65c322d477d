"""Answers in the question's own type: the form a question asks for (`asked`: yes/no,
true/false, an option's letter), the yes/no questions a claim reads as, the option a
computed answer stands for; label questions get a label.

Yes/no questions are checked by question programs (FigureQA's shapes, claims about a cell,
a colour or two quantities: `questions/programs/figureqa.py`, `claims.py`), never here."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from chartproof.numeric import parse_number
from chartproof.questions import ChartView
from chartproof.questions.labels import norm, numbers_written, similarity
from chartproof.questions.wording import QuestionKind, question_kind

__all__ = [
    "Asked",
    "QuestionKind",
    "asked",
    "choice_index",
    "claim_questions",
    "nearest_option",
    "options_in_text",
    "question_kind",
]

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
