"""Deterministic layout arithmetic: text extents from the bundled font, nice ticks, margins.

Everything here is computed before drawing, so the numbers end up as literals in the plan.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import matplotlib as mpl
from matplotlib import font_manager
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.cbook import is_math_text
from matplotlib.font_manager import FontProperties

__all__ = [
    "FONT_FAMILY",
    "MATH_FONTSET",
    "format_tick",
    "log_ticks",
    "nice_ticks",
    "pinned_rc",
    "text_extent",
    "wrap_to_width",
]

FONT_FAMILY = "DejaVu Sans"
"""The only font chartproof draws with: bundled with matplotlib, so every machine has it."""
MATH_FONTSET = "dejavusans"
"""Mathtext font set matching `FONT_FAMILY`."""

_STEPS = (1.0, 2.0, 2.5, 5.0)


@contextmanager
def pinned_rc(rc: tuple[tuple[str, Any], ...]) -> Iterator[None]:
    """matplotlib's default rcParams plus `rc`, whatever the user's matplotlibrc says; the
    user's settings are back afterwards. Drawing and measuring text both happen inside."""
    prefer_bundled_font()
    with mpl.rc_context():
        # what `matplotlib.rcdefaults()` sets, without re-validating ~300 known-good values
        dict.update(cast(dict[str, Any], mpl.rcParams), _defaults())
        cast(Any, mpl.rcParams).update(dict(rc))
        yield


@lru_cache(maxsize=1)
def prefer_bundled_font() -> None:
    """Make `FONT_FAMILY` name matplotlib's own copy of the font, never a system one: a
    machine with its own DejaVu (a Debian fonts package), whose font list matplotlib
    rebuilt or cached from another install, can list that copy first or only, and another
    version of the font moves text by a pixel. Adds the bundled files where the list lacks
    them and puts them first, as a tie in matplotlib's font matching goes to the first."""
    bundled = Path(mpl.get_data_path(), "fonts", "ttf")
    manager = font_manager.fontManager
    listed = {Path(f.fname) for f in manager.ttflist}
    for path in sorted(bundled.glob("DejaVuSans*.ttf")):
        if path not in listed:
            manager.addfont(path)
    manager.ttflist.sort(key=lambda f: not Path(f.fname).is_relative_to(bundled))  # stable
    # matplotlib memoises font matching (a private lru_cache): forget what it matched before
    cast(Any, font_manager.FontManager)._findfont_cached.cache_clear()


@lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    with mpl.rc_context():
        mpl.rcdefaults()
        return dict(cast(dict[str, Any], mpl.rcParams.copy()))


@lru_cache(maxsize=8)
def _renderer(dpi: float) -> RendererAgg:
    return RendererAgg(1, 1, dpi)  # type: ignore[no-untyped-call]


@lru_cache(maxsize=8192)
def _line_extent(text: str, size_pt: float, dpi: float) -> tuple[float, float]:
    prefer_bundled_font()
    prop = FontProperties(family=FONT_FAMILY, size=size_pt, math_fontfamily=MATH_FONTSET)
    renderer = _renderer(dpi)
    measure = renderer.get_text_width_height_descent
    w, h, _ = measure(text, prop, ismath=is_math_text(text))  # type: ignore[no-untyped-call]
    _, lp_h, _ = measure("lp", prop, ismath=False)  # type: ignore[no-untyped-call]
    return float(w), float(max(h, lp_h))


def text_extent(
    text: str, size_pt: float, dpi: float, rotation: float = 0.0
) -> tuple[float, float]:
    """Width and height in pixels of (possibly multi-line, rotated) text drawn with the font."""
    lines = text.split("\n")
    sizes = [_line_extent(line, size_pt, dpi) for line in lines]
    w = max(s[0] for s in sizes)
    # matplotlib spaces lines 1.2 line heights apart
    h = sum(s[1] for s in sizes) + (len(lines) - 1) * 0.2 * sizes[0][1]
    if rotation:
        a = math.radians(rotation)
        c, s = abs(math.cos(a)), abs(math.sin(a))
        return w * c + h * s, w * s + h * c
    return w, h


def wrap_to_width(text: str, size_pt: float, dpi: float, max_px: float) -> str:
    """Break text at spaces into as few lines as keep each line within `max_px`."""
    if text_extent(text, size_pt, dpi)[0] <= max_px or " " not in text:
        return text
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if current and text_extent(trial, size_pt, dpi)[0] > max_px:
            lines.append(current)
            current = word
        else:
            current = trial
    lines.append(current)
    return "\n".join(lines)


def _clean(x: float, decimals: int) -> float:
    v = round(x, decimals)
    return 0.0 if v == 0 else v


def step_decimals(step: float) -> int:
    """Decimals needed to print multiples of a nice step exactly (2.5 → 1, 0.25 → 2, 50 → 0)."""
    exp = math.floor(math.log10(step))
    mantissa = round(step / 10**exp, 6)
    return max(0, -exp + (1 if mantissa == 2.5 else 0))


def nice_ticks(lo: float, hi: float, max_ticks: int) -> list[float]:
    """Evenly spaced round ticks covering [lo, hi] with at most `max_ticks` ticks."""
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        pad = abs(hi) * 0.5 or 1.0
        lo, hi = lo - pad, hi + pad
    span = hi - lo
    exp = math.floor(math.log10(span / max(max_ticks, 2))) - 1
    while True:
        for m in _STEPS:
            step = m * 10.0**exp
            start = math.floor(lo / step + 1e-9)
            stop = math.ceil(hi / step - 1e-9)
            if stop - start + 1 <= max_ticks:
                d = step_decimals(step) + 1
                return [_clean(k * step, d) for k in range(start, stop + 1)]
        exp += 1


def log_ticks(lo: float, hi: float, max_ticks: int) -> list[float]:
    """Powers of ten covering [lo, hi] (both positive), at least two, at most `max_ticks`."""
    e0 = math.floor(math.log10(lo) + 1e-9)
    e1 = math.ceil(math.log10(hi) - 1e-9)
    if e1 <= e0:
        e1 = e0 + 1
    every = 1
    while (e1 - e0) // every + 1 > max_ticks:
        every += 1
    e0 = e0 - (e0 % every)
    while e1 % every:
        e1 += 1
    return [10.0**e for e in range(e0, e1 + 1, every)]


def format_tick(value: float, step: float, log: bool = False) -> str:
    """Tick label text: powers of ten as mathtext on log axes, else fixed decimals of the step.

    Numbers of 10,000 and more get thousands separators, as printed charts usually show them.
    """
    if log:
        return f"$10^{{{round(math.log10(value))}}}$"
    d = step_decimals(step)
    if abs(value) >= 10_000:
        return f"{value:,.{d}f}"
    return f"{value:.{d}f}"
