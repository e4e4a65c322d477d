"""Plausible numbers for synthetic charts: trends, seasons, shares that sum to exactly 100,
ordered five-number summaries and correlated pairs, rounded to the precision charts print.

Every function is pure given its `random.Random`; values are distinct where a question could
ask which is larger.
"""

from __future__ import annotations

import itertools
import math
import random

__all__ = [
    "LONE_OUTLIER",
    "ONE_SCALE",
    "correlated",
    "distinct",
    "five_numbers",
    "jitter",
    "one_scale",
    "seasonal",
    "shares",
    "sized",
    "trend",
    "untie_rows",
]


def _round(v: float, decimals: int) -> float:
    r = round(v, decimals)
    return 0.0 if r == 0 else r


def _spread_out(values: list[float], decimals: int, low: float, high: float) -> list[float]:
    """Round, then nudge repeated values apart by one printed unit so no two are equal."""
    unit = 10.0**-decimals
    out: list[float] = []
    for v in values:
        r = _round(min(max(v, low), high), decimals)
        step = 0
        while r in out:
            step += 1
            sign = 1 if step % 2 else -1
            r = _round(r + sign * ((step + 1) // 2) * unit, decimals)
        out.append(r)
    return out


ONE_SCALE = 10.0
"""Largest over smallest value of one measure in one chart (`distinct`): a measure's range
covers many charts (employment of a small sector or a whole economy), one chart stays on one
scale."""

LONE_OUTLIER = 2.5
"""Largest over second-largest value allowed in one chart of three or more values: above it
one bar towers over the rest ("Retail 19.8, every other sector ≤ 2.9")."""


def one_scale(values: list[float]) -> bool:
    """Whether positive values of one measure sit on one scale: largest / smallest within
    `ONE_SCALE` (plus a printed unit of rounding) and no lone outlier (`LONE_OUTLIER`)."""
    if len(values) < 2 or min(values) <= 0:
        return True
    top = sorted(values, reverse=True)
    if top[0] / top[-1] > ONE_SCALE * 1.05:
        return False
    return len(top) < 3 or top[0] / top[1] <= LONE_OUTLIER


def distinct(
    rng: random.Random, n: int, low: float, high: float, decimals: int, *, wide: bool = False
) -> list[float]:
    """n distinct values in [low, high] on one scale (`one_scale`): when the range spans
    more than `ONE_SCALE`, a band of that factor is placed log-uniformly inside it and the
    values drawn log-uniformly in the band; draws with a lone outlier are drawn again.
    `wide` keeps the whole range (log-uniform above a factor of 20) for charts meant to span
    orders of magnitude (log axes)."""
    if wide:
        if low > 0 and high / low > 20:
            a, b = math.log(low), math.log(high)
            raw = [math.exp(rng.uniform(a, b)) for _ in range(n)]
        else:
            raw = [rng.uniform(low, high) for _ in range(n)]
        return _spread_out(raw, decimals, low, high)
    values: list[float] = []
    for _ in range(50):
        if low > 0 and high / low > ONE_SCALE:
            a = rng.uniform(math.log(low), math.log(high / ONE_SCALE))
            raw = [math.exp(rng.uniform(a, a + math.log(ONE_SCALE))) for _ in range(n)]
        else:
            raw = [rng.uniform(low, high) for _ in range(n)]
        values = _spread_out(raw, decimals, low, high)
        if one_scale(values):
            return values
    return values


def jitter(
    rng: random.Random, base: list[float], rel: float, decimals: int, low: float, high: float
) -> list[float]:
    """Each base value moved by up to ±rel of the range [low, high], rounded, distinct."""
    span = high - low
    return _spread_out([b + rng.uniform(-rel, rel) * span for b in base], decimals, low, high)


def untie_rows(columns: list[list[float]], decimals: int) -> list[list[float]]:
    """Nudge values so no two series are equal in the same row (one printed unit at a time)."""
    unit = 10.0**-decimals
    out = [list(c) for c in columns]
    for i in range(len(out[0]) if out else 0):
        seen: set[float] = set()
        for col in out:
            while col[i] in seen:
                col[i] = _round(col[i] + unit, decimals)
            seen.add(col[i])
    return out


def trend(
    rng: random.Random, n: int, low: float, high: float, decimals: int, direction: int
) -> list[float]:
    """A trend over n steps that stays within [low, high]: a curve (accelerating or
    levelling off) with persistent year-to-year noise, so no series is a straight line."""
    span = high - low
    start = low + span * rng.uniform(0.05, 0.35)
    end = high - span * rng.uniform(0.05, 0.35)
    if direction < 0:
        start, end = end, start
    bend = rng.choice((rng.uniform(0.45, 0.8), rng.uniform(1.3, 2.2)))
    noise, drift = span * 0.05, 0.0
    raw = []
    for i in range(n):
        drift = 0.6 * drift + rng.gauss(0, noise)  # shocks that persist a few steps
        raw.append(start + (end - start) * (i / max(n - 1, 1)) ** bend + drift)
    return _spread_out(raw, decimals, low, high)


def sized(
    rng: random.Random, sizes: list[float], low: float, high: float, decimals: int
) -> list[float]:
    """Distinct values in [low, high] that follow `sizes` (a count per country follows its
    population): the largest near `high`, the others in proportion, ±25 % each."""
    top = max(sizes)
    raw = [low + (high - low) * s / top * rng.uniform(0.75, 1.0) for s in sizes]
    return _spread_out(raw, decimals, low, high)


def seasonal(
    rng: random.Random, low: float, high: float, decimals: int, peak: int, months: int = 12
) -> list[float]:
    """Twelve monthly values peaking around month `peak` (0 = January), with a little noise."""
    mid, amp = (low + high) / 2, (high - low) / 2 * rng.uniform(0.7, 0.9)
    raw = [
        mid + amp * math.cos(2 * math.pi * (m - peak) / 12) + rng.gauss(0, amp * 0.06)
        for m in range(months)
    ]
    return _spread_out(raw, decimals, low, high)


def shares(rng: random.Random, k: int, decimals: int = 0, minimum: float = 4.0) -> list[float]:
    """k distinct percentages of at least `minimum` that sum to exactly 100 at the precision."""
    unit = 10**-decimals
    total = round(100 / unit)
    floor = round(minimum / unit)
    while True:
        weights = [rng.gammavariate(1.6, 1.0) for _ in range(k)]
        s = sum(weights)
        free = total - floor * k
        raw = [floor + free * w / s for w in weights]
        units = [math.floor(r) for r in raw]
        # largest remainders get the leftover units, so the parts add up exactly
        order = sorted(range(k), key=lambda i: raw[i] - units[i], reverse=True)
        for i in order[: total - sum(units)]:
            units[i] += 1
        if len(set(units)) == k:
            return [_round(u * unit, decimals) for u in units]


def five_numbers(
    rng: random.Random, low: float, high: float, decimals: int
) -> tuple[float, float, float, float, float]:
    """min < q1 < median < q3 < max inside [low, high], strictly increasing after rounding."""
    unit = 10.0**-decimals
    span = high - low
    while True:
        centre = rng.uniform(low + 0.3 * span, high - 0.3 * span)
        iqr = span * rng.uniform(0.12, 0.3)
        q1 = centre - iqr * rng.uniform(0.35, 0.65)
        q3 = q1 + iqr
        med = q1 + iqr * rng.uniform(0.3, 0.7)
        lo = max(low, q1 - iqr * rng.uniform(0.6, 1.5))
        hi = min(high, q3 + iqr * rng.uniform(0.6, 1.5))
        stats = tuple(_round(v, decimals) for v in (lo, q1, med, q3, hi))
        if all(b - a >= unit * 0.999 for a, b in itertools.pairwise(stats)):
            return stats  # type: ignore[return-value]


def correlated(
    rng: random.Random,
    n: int,
    x: tuple[float, float, int],
    y: tuple[float, float, int],
    sign: int,
    strength: float,
) -> tuple[list[float], list[float]]:
    """n (x, y) points whose y follows x (sign ±1) with correlation roughly `strength`."""
    (xl, xh, xd), (yl, yh, yd) = x, y
    us = [rng.random() for _ in range(n)]
    noise = math.sqrt(max(1 - strength**2, 0.0)) * 0.3
    vs = [
        min(
            max(
                (u if sign > 0 else 1 - u) * strength + rng.gauss(0.5 * (1 - strength), noise), 0.0
            ),
            1.0,
        )
        for u in us
    ]
    if xl > 0 and xh / xl > 20:
        xs = [math.exp(math.log(xl) + u * (math.log(xh) - math.log(xl))) for u in us]
    else:
        xs = [xl + u * (xh - xl) for u in us]
    ys = [yl + v * (yh - yl) for v in vs]
    return _spread_out(xs, xd, xl, xh), [_round(v, yd) for v in ys]
