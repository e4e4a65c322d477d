"""Text helpers of the reader's solver: label mentions and aliases in a question (the label
comparison helpers come from `questions.labels`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from chartproof.questions.labels import best_label, norm, numbers_written, plain_math, similarity

__all__ = [
    "aliases",
    "best_label",
    "find_mentions",
    "loose_mention",
    "norm",
    "numbers_written",
    "plain_math",
    "similarity",
    "words_to_numbers",
]

_STOP = frozenset({"of", "the", "in", "a", "an", "for", "on", "at"})

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_QUARTERS = {
    "q1": "first quarter",
    "q2": "second quarter",
    "q3": "third quarter",
    "q4": "fourth quarter",
}


def aliases(label: str) -> list[str]:
    """Ways a question may name a label: as printed, without a parenthetical or footnote
    marks, with "'21" / "21" years and month or quarter abbreviations written out."""
    base = label.strip()
    out = [base]
    bare = re.sub(r"\s*\([^)]*\)", "", base).strip(" *")
    if bare and bare != base:
        out.append(bare)
    words = norm(bare or base).split()
    long: list[str] = []
    for i, w in enumerate(words):
        y = w.lstrip("'")
        if y.isdigit() and len(y) == 2 and (i > 0 or len(words) == 1):
            long.append("20" + y)
        elif w[:3] in {m[:3] for m in _MONTHS} and len(w) <= 4 and w.isalpha():
            long.append(next(m for m in _MONTHS if m.startswith(w[:3])))
        elif w in _QUARTERS:
            long.append(_QUARTERS[w])
        else:
            long.append(w)
    expanded = " ".join(long)
    if expanded and expanded not in (norm(x) for x in out):
        out.append(expanded)
    return out


def find_mentions(text: str, options: Sequence[str], threshold: float = 0.86) -> list[str]:
    """Options the text mentions (as a run of words, fuzzily, under any of their
    `aliases`), in order of mention, without options contained in a longer mention."""
    words = [w for w in norm(text).split() if w not in _STOP]
    found: list[tuple[int, int, str, float]] = []
    for o in options:
        best = 0.0
        where, span = -1, 0
        for alias in aliases(o):
            ow = [w for w in norm(alias).split() if w not in _STOP]
            if not ow:
                continue
            n = len(ow)
            target = " ".join(ow)
            for i in range(len(words) - n + 1):
                cand = " ".join(words[i : i + n])
                s = 1.0 if cand == target else SequenceMatcher(None, cand, target).ratio()
                # Short labels ("X", "UK", years) must match exactly.
                if len(target) <= 4 and cand != target:
                    s = 0.0
                if s > best:
                    best, where, span = s, i, n
        if best >= threshold:
            found.append((where, where + span, o, best))
    # Drop mentions covered by a longer one ("Asia" inside "Asia Pacific"), or by a closer
    # match of the same words ("favorable" names Favorable, not Unfavorable).
    found.sort(key=lambda f: (-(f[1] - f[0]), -f[3]))
    kept: list[tuple[int, int, str, float]] = []
    for f in found:
        if not any(k[0] <= f[0] and f[1] <= k[1] for k in kept):
            kept.append(f)
    kept.sort(key=lambda f: f[0])
    return [f[2] for f in kept]


def loose_mention(text: str, options: Sequence[str]) -> str | None:
    """The option whose longer words the text shares most (at least half of them, and more
    than any other option): "smartphone gamers" names "Smartphone gamer only"."""
    words = norm(text).split()
    scored: list[tuple[float, str]] = []
    for o in options:
        ow = [w for w in norm(aliases(o)[-1]).split() if len(w) > 2]
        if not ow:
            continue
        hits = sum(
            1
            for w in ow
            if any(x == w or SequenceMatcher(None, x, w).ratio() >= 0.85 for x in words)
        )
        scored.append((hits / len(ow), o))
    scored.sort(key=lambda p: -p[0])
    if not scored or scored[0][0] < 0.5:
        return None
    if len(scored) > 1 and scored[1][0] >= scored[0][0]:
        return None
    return scored[0][1]


_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}


def words_to_numbers(text: str) -> str:
    """ "three percent" → "3 percent" (small numbers written as words)."""
    return re.sub(
        r"\b(" + "|".join(_NUMBER_WORDS) + r")\b(?=\s+(?:percent|%|per cent))",
        lambda m: str(_NUMBER_WORDS[m.group(1).lower()]),
        text,
        flags=re.I,
    )
