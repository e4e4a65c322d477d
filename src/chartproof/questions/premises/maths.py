"""Math premises (MP) for the implicit arithmetic of a question: sums, differences, ratios,
means, medians, ranges, interquartile ranges, stack totals and Pearson's correlation steps."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Sequence

from chartproof.questions.labels import norm, numbers_written
from chartproof.questions.ops.filter import condition_text
from chartproof.questions.premises.claims import (
    Claim,
    Statement,
    claim,
    far_numbers,
    number_text,
    tolerance,
)
from chartproof.questions.premises.data import values_claim
from chartproof.questions.premises.judging import Judge, Ruling, Slots, close, judged, number
from chartproof.questions.premises.logic import Logic, evaluate, fn, lab, num, pred, seq
from chartproof.questions.trace import Op, ref_index
from chartproof.questions.view import ChartView

__all__ = ["MATH_BUILDERS", "pearson_claims"]

Builder = Callable[[ChartView, Op, Sequence[Op]], list[Claim]]

_OPS: dict[str, tuple[str, str, Callable[[float, float], float]]] = {
    "add": ("plus", "Add", lambda a, b: a + b),
    "sub": ("minus", "Sub", lambda a, b: a - b),
    "absdiff": ("minus", "Sub", lambda a, b: a - b),
    "div": ("divided by", "Div", lambda a, b: a / b),
    "mean": ("averaged with", "Mean2", lambda a, b: (a + b) / 2),
    "percent": ("as a percentage of", "Percent", lambda a, b: 100 * a / b),
}
"""Arithmetic by name: how a premise says it, its logic function, and its value (the
other operations' values on the same numbers make plausible wrong results)."""


def _one(made: Claim | None) -> list[Claim]:
    return [made] if made else []


def _number_claim(
    view: ChartView,
    slot: str,
    template: str,
    slots: dict[str, str],
    term: Logic,
    v: float,
    err: float,
    pool: Sequence[float],
    *,
    free: bool = False,
) -> Claim | None:
    """A quantity stated as v, against three far-off numbers (plausible ones from `pool`
    first)."""
    tol = tolerance(view, v, err, free=free)

    def stmt(text: str, c: float) -> Statement:
        return Statement(template, {**slots, "value": text}, pred("Eq", term, num(c), tol=tol))

    text, stated = number_text(view, v, free=free)
    wrong = far_numbers(view, v, tol, pool, free=free)
    return claim(slot, stmt(text, stated), (stmt(t, c) for t, c in wrong))


def _arith(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    fn_name = str(op.args["fn"])
    ia, ib = ref_index(op.args["a"]), ref_index(op.args["b"])
    if ia is None or ib is None:
        return []
    a, b = ops[ia].number(), ops[ib].number()
    free_a, free_b = ops[ia].free, ops[ib].free
    if fn_name == "absdiff" and a < b:
        a, b = b, a
        free_a, free_b = free_b, free_a
    word, f, _ = _OPS[fn_name]
    ta, va = number_text(view, a, free=free_a)
    tb, vb = number_text(view, b, free=free_b)
    v = op.number()
    alternatives = [
        other(x, y)
        for name, (_, _, other) in _OPS.items()
        for x, y in ((a, b), (b, a))
        if name != fn_name and not (name in ("div", "percent") and y == 0)
    ]
    return _one(
        _number_claim(
            view, f"op{op.id}:arith", "MP_arith", {"a": ta, "op": word, "b": tb},
            fn(f, num(va), num(vb)), v, op.err + _rounding(view, a, b, va, vb, f), alternatives,
            free=op.free,
        )
    )  # fmt: skip


def _rounding(view: ChartView, a: float, b: float, va: float, vb: float, f: str) -> float:
    """How far the result on the printed operands can drift from the exact result."""
    exact = evaluate(fn(f, num(a), num(b)), view)
    printed = evaluate(fn(f, num(va), num(vb)), view)
    return abs(float(exact) - float(printed))


def _aggregate(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, kind = str(op.args["series"]), str(op.args["fn"])
    col = view.column(s)
    if col is None:
        return []
    texts = [number_text(view, c) for c in col]
    items = ", ".join(t for t, _ in texts)
    listed = seq([num(c) for _, c in texts])
    v = op.number()
    n = len(col)
    total = sum(col)
    template, term, slots, pool = {
        "sum": ("MP_sum", fn("ListSum", listed), {}, [total - c for c in col] + [total + col[0]]),
        "mean": (
            "MP_mean",
            fn("ListMean", listed),
            {"n": str(n)},
            [statistics.median(col), total / (n - 1) if n > 1 else total, total / (n + 1)],
        ),
        "median": ("MP_median", fn("ListMedian", listed), {"n": str(n)}, sorted(col, key=lambda c: abs(c - v))),
        "range": ("MP_range", fn("ListRange", listed), {}, [max(col), max(col) - sorted(col)[1] if n > 1 else 0.0]),
    }[kind]  # fmt: skip
    # the listed numbers are the values as printed, so the math is checked on those
    err = sum(abs(c - p) for c, (_, p) in zip(col, texts, strict=True)) + op.err
    made = _number_claim(
        view, f"op{op.id}:{kind}", template, {"items": items, **slots}, term, v, err, pool
    )
    return [*_one(values_claim(view, op, s)), *_one(made)]


def _sum_where(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, cond, lo = str(op.args["series"]), str(op.args["cond"]), float(str(op.args["lo"]))
    col = view.column(s) or ()
    v = op.number()
    pool = [sum(col), *(v - c for c in col), *(v + c for c in col)]
    return _one(
        _number_claim(
            view, f"op{op.id}:sum_where", "MP_sum_where",
            {"series": s, "cond": condition_text(view, cond, lo)},
            fn("SumWhere", lab(s), lab(cond), num(lo)), v, op.err, pool,
        )
    )  # fmt: skip


def _stack_total(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    x = str(op.args["x"])
    totals = [
        sum(v for v in (view.value(s, other) for s in view.series) if v is not None)
        for other in view.x_labels
        if other != x
    ]
    return _one(
        _number_claim(
            view, f"op{op.id}:stack", "MP_stack", {"x": x}, fn("StackTotal", lab(x)),
            op.number(), op.err, totals,
        )
    )  # fmt: skip


def _iqr(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    x = str(op.args["x"])
    mn, q1, _, q3, mx = view.boxes[x]
    pool = [q3 - mn, mx - q1, mx - mn, *(b[3] - b[1] for k, b in view.boxes.items() if k != x)]
    return _one(
        _number_claim(
            view, f"op{op.id}:iqr", "MP_iqr", {"x": x}, fn("IQR", lab(x)), op.number(), op.err, pool
        )
    )


def _widest_gap(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s = str(op.args["series"])
    ex = op.args["exclude"]
    assert isinstance(ex, list)
    x1, x2 = str(ex[0]), str(ex[1])
    col = view.column(s) or ()
    pool = sorted({abs(a - b) for a in col for b in col}, reverse=True)
    return _one(
        _number_claim(
            view, f"op{op.id}:widest_gap", "MP_widest_gap",
            {"series": s, "x1": x1, "x2": x2, "x_title": view.x_label},
            fn("WidestGap", lab(s), lab(x1), lab(x2)), op.number(), op.err, pool,
        )
    )  # fmt: skip


def pearson_claims(view: ChartView, op: Op, series: str) -> list[Claim]:
    """The steps of Pearson's r for a scatter series (RealCQA-V2's math premises): mean of x,
    mean of y, sum of products of deviations, and r itself, each with wrong values."""
    pts = view.points.get(series)
    if not pts or len(pts) < 3:
        return []
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    codev = sum((x - mx) * (y - my) for x, y in pts)
    from chartproof.questions.ops.shape import pearson

    r = pearson(pts)
    if r is None:
        return []
    out = [
        _number_claim(
            view, f"op{op.id}:mean_x", "MP_mean_axis", {"axis": "x", "series": series},
            fn("MeanX", lab(series)), mx, 0.0, [my, statistics.median(xs), max(xs) / 2],
            free=True,
        ),
        _number_claim(
            view, f"op{op.id}:mean_y", "MP_mean_axis", {"axis": "y", "series": series},
            fn("MeanY", lab(series)), my, 0.0, [mx, statistics.median(ys), max(ys) / 2],
        ),
        _number_claim(
            view, f"op{op.id}:codev", "MP_codev", {"series": series},
            fn("CoDeviation", lab(series)), codev, 0.0, [-codev, codev / len(pts), 2 * codev],
            free=True,
        ),
        _pearson_claim(view, op, series, r),
    ]  # fmt: skip
    return [c for c in out if c is not None]


def _pearson_claim(view: ChartView, op: Op, series: str, r: float) -> Claim | None:
    term = fn("Pearson", lab(series))
    tol = 0.005

    def stmt(c: float) -> Statement:
        return Statement(
            "MP_pearson",
            {"series": series, "value": f"{c:.2f}"},
            pred("Eq", term, num(round(c, 2)), tol=tol),
        )

    wrong = [
        c
        for c in (-r, r / 2, (r + 1) / 2 if r < 0.5 else r - 0.4, r - 0.3, r + 0.3)
        if -1 <= c <= 1
    ]
    wrong = [c for c in wrong if abs(round(c, 2) - r) > 3 * tol]
    return claim(f"op{op.id}:pearson", stmt(r), (stmt(c) for c in wrong))


MATH_BUILDERS: dict[str, Builder] = {
    "arith": _arith,
    "aggregate": _aggregate,
    "sum_where": _sum_where,
    "stack_total": _stack_total,
    "iqr": _iqr,
    "widest_gap": _widest_gap,
}
"""Claim builders of the operations that produce math premises, by operation name."""


_ARITH: dict[str, Callable[[float, float], float]] = {
    "plus": lambda p, q: p + q,
    "minus": lambda p, q: p - q,
    "times": lambda p, q: p * q,
    "multiplied by": lambda p, q: p * q,
    "divided by": lambda p, q: p / q if q else math.nan,
    "over": lambda p, q: p / q if q else math.nan,
}


@judged("MP_arith")
def _judge_arith(s: Slots, view: ChartView, rel: float) -> Ruling:
    a, b, v = number(s["a"]), number(s["b"]), number(s["value"])
    op = norm(s["op"])
    if a is None or b is None or v is None:
        return None
    f = _ARITH.get(op)
    if f is None and norm(s["b"]).startswith("by "):
        f, op = _ARITH.get(op + " by"), op + " by"
        b = number(s["b"].strip()[3:])
    if f is None or b is None:
        return None
    r = f(a, b)
    return close(r, v, rel, s["value"]), f"{s['a']} {op} {s['b']} is {r:.6g}"


def _aggregate_judge(f: Callable[[list[float]], float], word: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> Ruling:
        # The items must be a plain list of numbers ("42, 33 and 9"), nothing else.
        if re.sub(r"[\d.,%$\s-]|\band\b", "", s["items"]):
            return None
        xs, v = numbers_written(s["items"]), number(s["value"])
        if not xs or v is None:
            return None
        r = f(xs)
        return close(r, v, rel, s["value"]), f"the {word} is {r:.6g}"

    return judge


judged("MP_sum")(_aggregate_judge(sum, "sum"))
judged("MP_mean")(_aggregate_judge(statistics.fmean, "mean"))
judged("MP_median")(_aggregate_judge(statistics.median, "median"))
judged("MP_range")(_aggregate_judge(lambda v: max(v) - min(v), "range"))
