"""Label text as the chart shows it: mathtext rendered, normalised comparison, fuzzy lookup
of a phrase among a chart's labels, and the numbers a text writes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher

from chartproof.numeric import parse_number

__all__ = ["best_label", "norm", "numbers_written", "plain_math", "similarity"]

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
