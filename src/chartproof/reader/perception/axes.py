"""Numeric axes from tick labels: group aligned numeric OCR tokens and fit a robust
pixel-to-value mapping (linear or log10), rejecting misread or stray labels as outliers."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from typing import Literal

import numpy as np

from chartproof.ocr import parse_label_number
from chartproof.reader.perception.pixels import distance_to
from chartproof.reader.perception.records import AxisFit, OcrToken

__all__ = ["find_axes", "fit_axis", "line_fit", "power_of_ten", "raised_powers", "snap_ticks"]


def line_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope and intercept of y on x (centred, so large tick values such as
    years or millions stay well conditioned); nan when x does not vary. The deviations are
    scaled to at most 1 before they are squared: a misread label ("2e272") would overflow."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return math.nan, math.nan
    xm, ym = float(np.mean(x)), float(np.mean(y))
    dx, dy = x - xm, y - ym
    sx, sy = float(np.max(np.abs(dx))), float(np.max(np.abs(dy)))
    if sx == 0 or not math.isfinite(sx) or not math.isfinite(sy):
        return math.nan, math.nan
    ux, uy = dx / sx, dy / (sy or 1.0)
    slope = float(ux @ uy) / float(ux @ ux) * ((sy or 1.0) / sx)
    return slope, ym - slope * xm


def _cluster(values: Sequence[float], tol: float) -> list[list[int]]:
    """Single-linkage clusters of indices whose values lie within `tol` of a neighbour."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    groups: list[list[int]] = []
    for i in order:
        if groups and values[i] - values[groups[-1][-1]] <= tol:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻°º", "0123456789-00")
_POWER = re.compile(r"^10([-−⁻]?[0-9⁰¹²³⁴⁵⁶⁷⁸⁹°º]{1,2})$")


def power_of_ten(text: str) -> float | None:
    """A log-axis tick printed as 10 with a superscript exponent, as OCR reads it: "10²",
    "10⁻¹", "10°" or "10º" (misread ⁰s) or, with the superscript flattened, "102" → 100."""
    m = _POWER.match(text.strip().replace(" ", ""))
    if m is None:
        return None
    exp = m.group(1).translate(_SUPERSCRIPT).replace("−", "-")
    try:
        return 10.0 ** int(exp)
    except ValueError:
        return None


_SUPER_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_FLAT_POWER = re.compile(r"^10([0-9⁰¹²³⁴⁵⁶⁷⁸⁹]{1,2})$")


def raised_powers(
    tokens: Sequence[OcrToken], image: np.ndarray, background: tuple[int, int, int]
) -> list[OcrToken]:
    """The tokens with log-axis ticks the OCR flattened ("102" for 10², "10³3" for 10³)
    rewritten with superscript exponents, when the image shows the digits after "10" raised
    above the baseline of the "10"; other tokens pass through unchanged."""
    out = []
    for t in tokens:
        m = _FLAT_POWER.match(t.text.strip())
        exp = _raised_tail(t, image, background) if m and not t.vertical else None
        if m is None or exp is None:
            out.append(t)
            continue
        digits = m.group(1).translate(_SUPERSCRIPT)
        if exp < len(digits) and len(set(digits)) == 1:
            digits = digits[:exp]  # the OCR read one raised digit twice
        sup = "".join(_SUPER_DIGITS[int(d)] for d in digits)
        out.append(t.model_copy(update={"text": "10" + sup}))
    return out


def _raised_tail(tok: OcrToken, image: np.ndarray, background: tuple[int, int, int]) -> int | None:
    """Number of glyphs after the first two ("1", "0") when they all end well above the
    baseline of those two; None when the token does not look like that."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(tok.box[0])), max(0, int(tok.box[1]))
    x1, y1 = min(w, math.ceil(tok.box[2])), min(h, math.ceil(tok.box[3]))
    if x1 - x0 < 6 or y1 - y0 < 6:
        return None
    ink = distance_to(image[y0:y1, x0:x1], background) > 80
    cols = ink.any(axis=0)
    runs: list[tuple[int, int]] = []
    for c in np.nonzero(cols)[0]:
        if runs and c == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], int(c))
        else:
            runs.append((int(c), int(c)))
    if len(runs) < 3:
        return None
    rows = [np.nonzero(ink[:, a : b + 1].any(axis=1))[0] for a, b in runs]
    base_top = min(int(r[0]) for r in rows[:2])
    base = max(int(r[-1]) for r in rows[:2])
    height = base - base_top + 1
    if height < 5 or any(int(r[-1]) > base - 0.3 * height for r in rows[2:]):
        return None
    return len(runs) - 2


def fit_axis(
    tokens: Sequence[OcrToken], direction: Literal["x", "y"], allow_log: bool = True
) -> AxisFit | None:
    """Fit value ↔ pixel over tick labels with a RANSAC over label pairs, then least squares
    on the inliers. Returns None when fewer than two labels agree on one mapping.

    Labels are read as plain numbers and, separately, as powers of ten ("10²"); the reading
    whose fit explains more labels wins."""
    plain = _fit_values(tokens, [parse_label_number(t.text) for t in tokens], direction, allow_log)
    powers = [power_of_ten(t.text) for t in tokens]
    if sum(p is not None for p in powers) < 2:
        return plain
    # Powers of ten only ever label log axes.
    logfit = _fit_values(tokens, powers, direction, allow_log, only_log=True)
    if logfit is None:
        return plain
    if plain is None or len(logfit.ticks) > len(plain.ticks):
        return logfit
    return plain


def _fit_values(
    tokens: Sequence[OcrToken],
    vals: Sequence[float | None],
    direction: Literal["x", "y"],
    allow_log: bool,
    only_log: bool = False,
) -> AxisFit | None:
    items = [(t, v) for t, v in zip(tokens, vals, strict=True) if v is not None]
    if len(items) < 2:
        return None
    best: AxisFit | None = None
    best_key: tuple[int, float] = (0, 0.0)
    scales: list[Literal["linear", "log"]] = [] if only_log else ["linear"]
    if allow_log and all(v > 0 for _, v in items):
        scales.append("log")
    for scale in scales:
        fit = _ransac(items, direction, scale)
        if fit is None:
            continue
        # More inliers wins; a log fit must explain more ticks than the linear one to win.
        key = (len(fit.ticks) - (1 if scale == "log" else 0), -fit.residual_px)
        if best is None or key > best_key:
            best, best_key = fit, key
    return best


def _ransac(
    items: list[tuple[OcrToken, float]],
    direction: Literal["x", "y"],
    scale: Literal["linear", "log"],
) -> AxisFit | None:
    pos = np.array([t.cx if direction == "x" else t.cy for t, _ in items])
    raw = np.array([v for _, v in items])
    val = np.log10(raw) if scale == "log" else raw
    n = len(items)
    sorted_pos = np.sort(pos)
    gaps = np.diff(sorted_pos)
    gaps = gaps[gaps > 1]
    step = float(np.median(gaps)) if len(gaps) else 10.0
    tol = max(2.5, 0.12 * step)
    best_in: np.ndarray | None = None
    best_err = math.inf
    for i, j in itertools.combinations(range(n), 2):
        if val[i] == val[j] or abs(pos[i] - pos[j]) < 2:
            continue
        slope = (pos[j] - pos[i]) / (val[j] - val[i])
        icpt = pos[i] - slope * val[i]
        err = np.abs(icpt + slope * val - pos)
        inl = err <= tol
        count = int(inl.sum())
        e = float(err[inl].mean())
        if (
            best_in is None
            or count > int(best_in.sum())
            or (count == int(best_in.sum()) and e < best_err)
        ):
            best_in, best_err = inl, e
    if best_in is None or best_in.sum() < 2:
        return None
    v_in, p_in = val[best_in], pos[best_in]
    if len(np.unique(v_in)) < 2 or len(np.unique(p_in)) < 2:
        return None  # one value read twice says nothing about the scale
    slope, icpt = line_fit(v_in, p_in)
    if not math.isfinite(slope) or abs(slope) < 1e-9:
        return None
    res = float(np.sqrt(np.mean((icpt + slope * v_in - p_in) ** 2)))
    kept = tuple(items[k][0] for k in range(n) if best_in[k])
    rejected = tuple(items[k][0] for k in range(n) if not best_in[k])
    return AxisFit(
        direction=direction,
        scale=scale,
        intercept=float(icpt),
        slope=float(slope),
        ticks=kept,
        rejected=rejected,
        residual_px=res,
    )


def find_axes(tokens: Sequence[OcrToken]) -> tuple[AxisFit | None, AxisFit | None]:
    """The best vertical (y) and horizontal (x) numeric axes among the tokens.

    Candidates are numeric labels sharing a right edge, left edge or centre column (y axis)
    or a baseline row (x axis); values must grow upwards on a y axis and rightwards on an
    x axis. Each axis keeps the candidate fit explaining the most labels.
    """
    num = [
        t
        for t in tokens
        if not t.vertical
        and (parse_label_number(t.text) is not None or power_of_ten(t.text) is not None)
    ]
    y_best = _best_group(num, "y")
    x_best = _best_group(num, "x")
    return y_best, x_best


def _best_group(num: list[OcrToken], direction: Literal["x", "y"]) -> AxisFit | None:
    if len(num) < 2:
        return None
    keys: list[list[float]]
    if direction == "y":
        keys = [[t.box[2] for t in num], [t.box[0] for t in num], [t.cx for t in num]]
        tol = 6.0
    else:
        keys = [[t.cy for t in num], [t.box[1] for t in num]]
        tol = 4.0
    best: AxisFit | None = None
    seen: set[frozenset[int]] = set()
    for key in keys:
        for group in _cluster(key, tol):
            fs = frozenset(group)
            if len(group) < 2 or fs in seen:
                continue
            seen.add(fs)
            toks = [num[i] for i in group]
            # Tick labels of one axis do not overlap along it.
            fit = fit_axis(toks, direction)
            if fit is None:
                continue
            growing = fit.slope < 0 if direction == "y" else fit.slope > 0
            if not growing:
                continue
            # Equal fits: the one spanning more of the image (two point labels one above
            # the other fit an "axis" as well as the real end ticks do).
            if best is None or (len(fit.ticks), -round(fit.residual_px, 1), _extent(fit)) > (
                len(best.ticks),
                -round(best.residual_px, 1),
                _extent(best),
            ):
                best = fit
    return best


def _extent(fit: AxisFit) -> float:
    pos = [t.cx if fit.direction == "x" else t.cy for t in fit.ticks]
    return max(pos) - min(pos)


def snap_ticks(fit: AxisFit, image: np.ndarray, background: tuple[int, int, int]) -> AxisFit:
    """Move each tick label's position onto its tick mark (a short dark stroke between the
    label and the plot) and refit: label boxes sit a pixel or two off their ticks, and a
    superscript ("10²") shifts the box centre further."""
    h, w = image.shape[:2]
    ink = distance_to(image, background) > 60
    values: list[float] = []
    positions: list[float] = []
    for t in fit.ticks:
        value = _tick_value(t.text, fit)
        target = fit.pixel(value) if value is not None else None
        if value is None or target is None:
            continue
        half = max(3, int(0.5 * t.height))
        if fit.direction == "y":
            x0, x1 = int(t.box[2]) + 1, min(w, int(t.box[2]) + 14)
            lo, hi = max(0, int(t.cy) - half), min(h, int(t.cy) + half + 1)
            if x1 <= x0 or hi <= lo:
                continue
            counts = ink[lo:hi, x0:x1].sum(axis=1)
            # A tick mark stops at the spine; the perpendicular spine (the x axis next to
            # the lowest y label) runs on into the plot.
            counts[ink[lo:hi, x1 : min(w, x1 + 30)].all(axis=1)] = 0
        else:
            y0, y1 = max(0, int(t.box[1]) - 14), int(t.box[1]) - 1
            lo, hi = max(0, int(t.cx) - half), min(w, int(t.cx) + half + 1)
            if y1 <= y0 or hi <= lo:
                continue
            counts = ink[y0:y1, lo:hi].sum(axis=0)
            counts[ink[max(0, y0 - 30) : y0, lo:hi].all(axis=0)] = 0
        if counts.max() < 3:
            continue
        best = np.nonzero(counts == counts.max())[0]
        # A tick mark is one to two pixels thick: take the middle of the strongest rows.
        pos = lo + float(best.mean())
        if abs(pos - target) <= half:
            values.append(value)
            positions.append(pos)
    if len(values) < 2 or len(set(values)) < 2:
        return fit
    v = np.log10(values) if fit.scale == "log" else np.array(values)
    slope, icpt = line_fit(v, np.array(positions))
    if not math.isfinite(slope) or abs(slope) < 1e-9:
        return fit
    res = float(np.sqrt(np.mean((icpt + slope * v - np.array(positions)) ** 2)))
    return fit.model_copy(
        update={"intercept": float(icpt), "slope": float(slope), "residual_px": res}
    )


def _tick_value(text: str, fit: AxisFit) -> float | None:
    if fit.scale == "log":
        p = power_of_ten(text)
        if p is not None:
            return p
    return parse_label_number(text)
