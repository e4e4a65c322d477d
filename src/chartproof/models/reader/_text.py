"""Text helpers of the reader's solver: normalised comparison of labels, fuzzy lookup of a
phrase among a chart's labels, and the numbers a question mentions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

from chartproof.numeric import parse_number

__all__ = ["best_label", "find_mentions", "norm", "numbers_in", "similarity"]

_NON_ALNUM = re.compile(r"[^0-9a-z%.]+")
_NUMBER = re.compile(r"(?<![\w.])[-−]?[$€£¥]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?(?![\w])")


def norm(text: str) -> str:
    """Lower case, punctuation and footnote stars dropped, single spaces."""
    t = text.lower().replace("\ufffd", "'").replace("’", "'")
    t = _NON_ALNUM.sub(" ", t.replace("'", ""))
    return " ".join(w.strip(".") for w in t.split() if w.strip("."))


def similarity(a: str, b: str) -> float:
    """0..1 likeness of two labels after normalisation (1 = equal)."""
    na, nb = norm(a), norm(b)
    if not na or not nb:
        return 0.0
    if na == nb:
        return 1.0
    return SequenceMatcher(None, na, nb).ratio()


def best_label(phrase: str, options: Iterable[str], threshold: float = 0.75) -> str | None:
    """The option most like `phrase`, when it is at least `threshold` alike."""
    best: tuple[float, str] | None = None
    for o in options:
        s = similarity(phrase, o)
        if best is None or s > best[0]:
            best = (s, o)
    if best is None or best[0] < threshold:
        return None
    return best[1]


def find_mentions(text: str, options: Sequence[str], threshold: float = 0.86) -> list[str]:
    """Options the text mentions (as a run of words, fuzzily), longest first, without
    options contained in a longer mention."""
    words = norm(text).split()
    found: list[tuple[int, int, str]] = []
    for o in options:
        ow = norm(o).split()
        if not ow:
            continue
        n = len(ow)
        target = " ".join(ow)
        best = 0.0
        where = -1
        for i in range(len(words) - n + 1):
            cand = " ".join(words[i : i + n])
            s = 1.0 if cand == target else SequenceMatcher(None, cand, target).ratio()
            # Short labels ("X", "UK", years) must match exactly.
            if len(target) <= 4 and cand != target:
                s = 0.0
            if s > best:
                best, where = s, i
        if best >= threshold:
            found.append((where, where + n, o))
    # Drop mentions covered by a longer one ("Asia" inside "Asia Pacific").
    found.sort(key=lambda f: -(f[1] - f[0]))
    kept: list[tuple[int, int, str]] = []
    for f in found:
        if not any(k[0] <= f[0] and f[1] <= k[1] for k in kept):
            kept.append(f)
    kept.sort(key=lambda f: f[0])
    return [f[2] for f in kept]


def numbers_in(text: str) -> list[float]:
    """Numbers written in the text, in order ("1,234", "12.5%", "$3")."""
    out = []
    for m in _NUMBER.finditer(text):
        x = parse_number(m.group(0).replace("−", "-"))
        if x is not None:
            out.append(x)
    return out
