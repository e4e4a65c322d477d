"""Reading and writing numbers the way charts and answers print them.

The single place where chartproof turns "1,234.5", "12%" or "$3.4" into floats and back.
"""

from __future__ import annotations

import math

__all__ = ["format_number", "parse_number"]


def parse_number(text: str) -> float | None:
    """Parse a table cell or answer as a number: "1,234.5", "12%", "$3.4", "-7" → float.

    Returns None when the text is not a single number. Thousands separators, a leading
    currency sign, a trailing "%" and surrounding spaces are allowed.
    """
    s = text.strip().replace("\u2212", "-")
    if not s:
        return None
    if s.endswith("%"):
        s = s[:-1].strip()
    for sign in ("$", "€", "£", "¥"):
        if s.startswith(sign):
            s = s[1:]
        elif s.startswith("-" + sign):
            s = "-" + s[2:]
    if "," in s:
        parts = s.lstrip("-").split(",")
        if not (1 <= len(parts[0]) <= 3 and all(len(p.split(".")[0]) == 3 for p in parts[1:])):
            return None
        s = s.replace(",", "")
    try:
        x = float(s)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def format_number(x: float, digits: int = 6) -> str:
    """Shortest readable form of a number: 12.0 → "12", 0.125 → "0.125", 1/3 → "0.333333"."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    s = f"{x:.{digits}g}"
    if "e" in s:
        return s
    return s.rstrip("0").rstrip(".") if "." in s else s
