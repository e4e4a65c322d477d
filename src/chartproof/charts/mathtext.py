"""Matplotlib mathtext as the text a reader sees: "Loss $\\mathcal{L}$" → "Loss ℒ",
"$10^{-2}$" → "10⁻²", "$A_{280}$" → "A₂₈₀", "$\\Delta lacZ$" → "ΔlacZ".

Chart labels may be mathtext (RealCQA's scientific charts are full of it); questions, gold
answers and premises name labels as the chart shows them, so they use `display_text`, and
the mathtext source stays in the sample's metadata. The conversion follows what matplotlib
draws: text between an even number of unescaped "$" is math, in which spaces are ignored,
commands become their symbols, and sub- and superscripts become Unicode sub- and
superscript characters where every character has one (else "_(...)" / "^(...)").
"""

from __future__ import annotations

import re

__all__ = ["display_text", "has_mathtext"]

_SYMBOLS = {
    # Greek, lower case
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ϵ",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "vartheta": "ϑ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "varpi": "ϖ",
    "rho": "ρ",
    "varrho": "ϱ",
    "sigma": "σ",
    "varsigma": "ς",
    "tau": "τ",
    "upsilon": "υ",
    "phi": "ϕ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    # Greek, upper case
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Upsilon": "Υ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
    # operators and signs
    "times": "×",
    "cdot": "·",
    "pm": "±",
    "mp": "∓",
    "div": "÷",
    "leq": "≤",
    "geq": "≥",
    "le": "≤",
    "ge": "≥",
    "neq": "≠",
    "approx": "≈",
    "sim": "∼",
    "propto": "∝",
    "infty": "∞",
    "partial": "∂",
    "nabla": "∇",
    "circ": "∘",
    "degree": "°",
    "prime": "′",
    "ell": "ℓ",
    "hbar": "ℏ",
    "AA": "Å",
    "langle": "⟨",
    "rangle": "⟩",
    "rightarrow": "→",
    "leftarrow": "←",
    "to": "→",
    "sum": "∑",
    "prod": "∏",
    "int": "∫",
    "sqrt": "√",
    "%": "%",
    "$": "$",
    "_": "_",
    "{": "{",
    "}": "}",
    "#": "#",
    "&": "&",
    # spaces
    ",": " ",
    ";": " ",
    ":": " ",
    " ": " ",
    "quad": " ",
    "qquad": " ",
    "!": "",
}
_FONTS = frozenset(["mathrm", "mathit", "mathbf", "mathsf", "mathtt", "text", "textrm", "rm"])
_SCRIPT_CAPITALS = {"B": "ℬ", "E": "ℰ", "F": "ℱ", "H": "ℋ", "I": "ℐ", "L": "ℒ", "M": "ℳ", "R": "ℛ"}
_SUPER = dict(
    zip(
        "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ",
        strict=True,
    )
)
_SUPER["∘"] = "°"  # "^\circ" is how mathtext writes a degree sign
_SUB = dict(
    zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)
_DOLLAR = re.compile(r"(?<!\\)\$")


def has_mathtext(text: str) -> bool:
    """Whether matplotlib would draw part of `text` as math (an even number ≥ 2 of "$")."""
    n = len(_DOLLAR.findall(text))
    return n >= 2 and n % 2 == 0


def display_text(text: str) -> str:
    """`text` as matplotlib draws it, in plain Unicode; text without math is returned as is
    (apart from "\\$" → "$")."""
    if not has_mathtext(text):
        return text.replace("\\$", "$")
    parts = _DOLLAR.split(text)
    out = []
    for i, part in enumerate(parts):
        out.append(_math(part) if i % 2 else part.replace("\\$", "$"))
    return "".join(out)


def _math(src: str) -> str:
    """One math segment."""
    text, _ = _group(src, 0, top=True)
    return text


def _group(src: str, pos: int, *, top: bool = False) -> tuple[str, int]:
    """Convert from `pos` to the matching "}" (or the end); returns text and the position
    after it."""
    out: list[str] = []
    while pos < len(src):
        ch = src[pos]
        if ch == "}" and not top:
            return "".join(out), pos + 1
        if ch == "{":
            inner, pos = _group(src, pos + 1)
            out.append(inner)
        elif ch.isspace():
            pos += 1  # mathtext ignores spaces
        elif ch == "~":
            out.append(" ")
            pos += 1
        elif ch in "^_":
            arg, pos = _argument(src, pos + 1)
            out.append(_script(arg, ch == "^"))
        elif ch == "\\":
            word, pos = _command(src, pos + 1)
            if word in _FONTS:
                arg, pos = _argument(src, pos)
                out.append(arg)
            elif word == "mathcal":
                arg, pos = _argument(src, pos)
                out.append("".join(_calligraphic(c) for c in arg))
            elif word == "frac":
                num, pos = _argument(src, pos)
                den, pos = _argument(src, pos)
                out.append(f"{num}/{den}")
            elif word in ("left", "right", "big", "Big", "displaystyle"):
                pass  # sizing: the delimiter that follows is drawn as itself
            else:
                out.append(_SYMBOLS.get(word, word))
        else:
            out.append(ch)
            pos += 1
    return "".join(out), pos


def _command(src: str, pos: int) -> tuple[str, int]:
    """The command name after a backslash: letters, or one other character."""
    match = re.match(r"[A-Za-z]+", src[pos:])
    if match:
        return match.group(), pos + match.end()
    return (src[pos], pos + 1) if pos < len(src) else ("", pos)


def _argument(src: str, pos: int) -> tuple[str, int]:
    """A command's or script's argument: a {group}, a \\command, or one character."""
    while pos < len(src) and src[pos].isspace():
        pos += 1
    if pos >= len(src):
        return "", pos
    if src[pos] == "{":
        return _group(src, pos + 1)
    if src[pos] == "\\":
        word, end = _command(src, pos + 1)
        return _SYMBOLS.get(word, word), end
    return src[pos], pos + 1


def _script(arg: str, superscript: bool) -> str:
    table = _SUPER if superscript else _SUB
    if arg and all(c in table for c in arg):
        return "".join(table[c] for c in arg)
    mark = "^" if superscript else "_"
    return f"{mark}{arg}" if len(arg) == 1 else f"{mark}({arg})"


def _calligraphic(ch: str) -> str:
    if ch in _SCRIPT_CAPITALS:
        return _SCRIPT_CAPITALS[ch]
    if "A" <= ch <= "Z":
        return chr(0x1D49C + ord(ch) - ord("A"))  # MATHEMATICAL SCRIPT CAPITAL
    return ch
