"""Label text as the chart shows it: mathtext rendered, normalised comparison, fuzzy lookup
of a phrase among a chart's labels, and the numbers a text writes."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

from chartproof.numeric import parse_number

__all__ = [
    "aliases",
    "best_label",
    "find_mentions",
    "labels_listed",
    "labels_written",
    "loose_mention",
    "norm",
    "norm_question",
    "numbers_written",
    "plain_math",
    "similarity",
]

_NON_ALNUM = re.compile(r"[^\w%.]+|_+")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_NUMBER = re.compile(r"(?<![\w.])[-−]?[$€£¥]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?(?![\w])")


_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η",
    "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "pi": "π", "rho": "ρ",
    "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
}  # fmt: skip
_LATEX_CMD = re.compile(r"\\([A-Za-z]+)")


def plain_math(text: str) -> str:
    """Matplotlib mathtext as the image shows it: "$\\eta$ = $10^{-1}$" → "η = 10-1"."""
    if "$" not in text and "\\" not in text:
        return text

    def cmd(m: re.Match[str]) -> str:
        name = m.group(1)
        if name.lower() in _GREEK:
            letter = _GREEK[name.lower()]
            return letter.upper() if name[0].isupper() else letter
        return {"times": "×", "cdot": "·", "pm": "±", "circ": "°", "ell": "l"}.get(name, "")

    t = _LATEX_CMD.sub(cmd, text)
    return re.sub(r"[${}^_]", "", t)


def norm(text: str) -> str:
    """Lower case, mathtext rendered, punctuation and footnote stars dropped, single spaces."""
    t = plain_math(text).lower().replace("\ufffd", "'").replace("’", "'")
    t = t.replace("∆", "δ").replace("µ", "μ").replace("−", "-").translate(_SUPERSCRIPTS)
    t = _NON_ALNUM.sub(" ", t.replace("'", ""))
    return " ".join(w.strip(".") for w in t.split() if w.strip("."))


@functools.lru_cache(maxsize=256)
def norm_question(question: str) -> str:
    """`norm` of a question ("?" and other punctuation dropped), kept for the many cues
    that read the same question."""
    return norm(question)


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


def numbers_written(text: str) -> list[float]:
    """Numbers written in the text, in order ("1,234", "12.5%", "$3")."""
    out = []
    for m in _NUMBER.finditer(text):
        x = parse_number(m.group(0).replace("−", "-"))
        if x is not None:
            out.append(x)
    return out


_LIST_SEP = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+)"


def labels_listed(labels: Sequence[str]) -> str:
    """Labels as a question lists them: "A", "A and B", "A, B and C"."""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + f" and {labels[-1]}"


def labels_written(text: str, options: Sequence[str]) -> list[str] | None:
    """The labels of `options` a list such as `labels_listed` writes names, in order (any
    case; commas and "and" between them, also inside a label: "Food and drink and Rent");
    None unless the whole text is such a list."""
    opts = sorted({o for o in options if o.strip()}, key=len, reverse=True)
    if not opts:
        return None
    one = "(?:" + "|".join(re.escape(" ".join(o.split())) for o in opts) + ")"
    t = " ".join(text.split())
    by_text = {" ".join(o.split()).lower(): o for o in options}
    out: list[str] = []
    pos = 0
    while pos < len(t) or not out:  # the longest label at each place
        head = re.match(f"{_LIST_SEP if out else ''}({one})(?=$|{_LIST_SEP})", t[pos:], re.I)
        if head is None:
            return None
        out.append(by_text[head.group(1).lower()])
        pos += head.end()
    return out


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
