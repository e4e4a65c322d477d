"""Premises as first-order-logic ASTs (JSON) and an evaluator that checks them on a chart.

Terms: {"const": "2019"}, {"num": 12.5}, {"list": [...]}, {"var": "x"},
{"fn": "Value", "args": [x, series]} and the other chart functions below.
Formulas: {"pred": "Eq" | "Lt" | "Gt" | "In" | "SetEq" | "SeqEq" | ..., "args": [...]},
{"not": f}, {"and": [f, ...]}, {"forall": "x", "in": term, "body": f}, {"exists": ...}.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from chartproof.questions.ops.shape import CORRELATION_BANDS, pearson
from chartproof.questions.ops.structure import CHART_TYPE_NAMES, value_range
from chartproof.questions.view import BOX_STATS, ChartView

__all__ = [
    "Logic",
    "LogicError",
    "evaluate",
    "exists",
    "fn",
    "forall",
    "lab",
    "neg",
    "num",
    "pred",
    "seq",
    "var",
]

Logic: TypeAlias = dict[str, Any]
"""One AST node (JSON-ready)."""


def lab(text: str) -> Logic:
    """A label constant."""
    return {"const": text}


def num(x: float) -> Logic:
    """A number constant."""
    return {"num": float(x)}


def seq(items: list[Logic]) -> Logic:
    """A list of terms."""
    return {"list": items}


def var(name: str) -> Logic:
    """A bound variable."""
    return {"var": name}


def fn(name: str, *args: Logic) -> Logic:
    """A chart function applied to terms."""
    return {"fn": name, "args": list(args)}


def pred(name: str, *args: Logic, tol: float | None = None) -> Logic:
    """A predicate; `tol` is the absolute tolerance of a numeric "Eq"."""
    node: Logic = {"pred": name, "args": list(args)}
    if tol is not None:
        node["tol"] = tol
    return node


def neg(f: Logic) -> Logic:
    """Negation."""
    return {"not": f}


def forall(name: str, domain: Logic, body: Logic) -> Logic:
    """Universal quantifier over the items of a list term."""
    return {"forall": name, "in": domain, "body": body}


def exists(name: str, domain: Logic, body: Logic) -> Logic:
    """Existential quantifier over the items of a list term."""
    return {"exists": name, "in": domain, "body": body}


# ---------------------------------------------------------------------- evaluation

Value: TypeAlias = Any
Env: TypeAlias = Mapping[str, Value]


class LogicError(ValueError):
    """An AST that cannot be evaluated on a chart (unknown function, missing cell)."""


def _column(view: ChartView, series: str) -> list[tuple[str, float]]:
    col = view.values.get(series)
    if col is None or any(v is None for v in col):
        raise LogicError(f"series {series!r} is missing or has gaps")
    return [(x, float(v)) for x, v in zip(view.x_labels, col, strict=True) if v is not None]


def _where(view: ChartView, series: str, cond: str, lo: float, hi: float | None) -> list[str]:
    out = []
    for x, v in _column(view, series):
        if (
            (cond == "above" and v > lo)
            or (cond == "below" and v < lo)
            or (cond == "between" and hi is not None and lo < v < hi)
        ):
            out.append(x)
    return out


def _arg(view: ChartView, which: str, series: str, among: list[str] | None) -> str:
    pairs = _column(view, series)
    if among is not None:
        pairs = [p for p in pairs if p[0] in among]
    best = (max if which == "max" else min)(pairs, key=lambda p: p[1])
    return best[0]


def _series_at(view: ChartView, x: str) -> list[tuple[str, float]]:
    out = []
    for s in view.series:
        v = view.value(s, x)
        if v is None:
            raise LogicError(f"no value of {s!r} at {x!r}")
        out.append((s, v))
    return out


def _box(view: ChartView, stat: str, x: str) -> float:
    box = view.boxes.get(x)
    if box is None:
        raise LogicError(f"no box at {x!r}")
    return box[BOX_STATS.index(stat)]


def _count_items(view: ChartView, what: str) -> float:
    if what == "lines":
        return float(len(view.series)) if view.chart_type == "line" else 0.0
    if what == "legend_labels":
        if not view.legend:
            return 0.0
        return float(len(view.x_labels if view.kind.color_keys == "x" else view.series))
    if what == "series":
        return float(len(view.series))
    if what == "marks":
        return float(view.n * (1 if view.kind.color_keys == "x" else len(view.series)))
    raise LogicError(f"unknown count {what!r}")


def _widest_gap(view: ChartView, series: str, a: str, b: str) -> float:
    pairs = _column(view, series)
    gaps = [
        abs(va - vb)
        for (la, va), (lb, vb) in itertools.combinations(pairs, 2)
        if {la, lb} != {a, b}
    ]
    return max(gaps)


def _points(view: ChartView, series: str) -> tuple[tuple[float, float], ...]:
    pts = view.points.get(series)
    if not pts:
        raise LogicError(f"no points for {series!r}")
    return pts


def _band(r: float) -> str:
    for name, (lo, hi) in CORRELATION_BANDS.items():
        if lo <= r <= hi:
            return name
    raise LogicError(f"r={r} is outside [-1, 1]")


def _legend(view: ChartView) -> list[str]:
    if not view.legend:
        return []
    return list(view.x_labels if view.kind.color_keys == "x" else view.series)


def _order(view: ChartView, series: str, desc: bool, among: list[str] | None) -> list[str]:
    pairs = _column(view, series)
    if among is not None:
        pairs = [p for p in pairs if p[0] in among]
    return [x for x, _ in sorted(pairs, key=lambda p: p[1], reverse=desc)]


def _trend(view: ChartView, series: str, a: str, b: str) -> str:
    ia, ib = view.xi(a), view.xi(b)
    va, vb = view.value(series, a), view.value(series, b)
    if ia is None or ib is None or va is None or vb is None:
        raise LogicError(f"no values of {series!r} at {a!r} and {b!r}")
    if ia > ib:
        va, vb = vb, va
    return "increasing" if vb > va else "decreasing" if vb < va else "flat"


def _functions(view: ChartView) -> dict[str, Callable[..., Value]]:
    """Chart functions by name; arguments arrive evaluated."""
    v = view
    return {
        "ChartType": lambda: CHART_TYPE_NAMES[v.chart_type],
        "YTitle": lambda: v.y_title,
        "XTitle": lambda: v.x_title,
        "XTicks": lambda: list(v.x_labels),
        "XKind": lambda: "number" if v.x_kind == "number" else "category",
        "NSeries": lambda: float(len(v.series)),
        "Legend": lambda: _legend(v),
        "ValueMin": lambda: _range(v)[0],
        "ValueMax": lambda: _range(v)[1],
        "XMin": lambda: min(p[0] for pts in v.points.values() for p in pts),
        "XMax": lambda: max(p[0] for pts in v.points.values() for p in pts),
        "Value": lambda x, s: _value(v, s, x),
        "Box": lambda stat, x: _box(v, stat, x),
        "Color": lambda key: v.colors.get(key),
        "NColors": lambda: float(len(set(v.colors.values()))),
        "LabelAt": lambda k: v.x_labels[int(k) - 1] if 1 <= int(k) <= v.n else None,
        "ArgMax": lambda s, among=None: _arg(v, "max", s, among),
        "ArgMin": lambda s, among=None: _arg(v, "min", s, among),
        "ArgMaxSeries": lambda x: max(_series_at(v, x), key=lambda p: p[1])[0],
        "ArgMinSeries": lambda x: min(_series_at(v, x), key=lambda p: p[1])[0],
        "BoxArgMax": lambda stat: max(v.boxes, key=lambda x: _box(v, stat, x)),
        "BoxArgMin": lambda stat: min(v.boxes, key=lambda x: _box(v, stat, x)),
        "Max": lambda s: max(p[1] for p in _column(v, s)),
        "Min": lambda s: min(p[1] for p in _column(v, s)),
        "Sum": lambda s: math.fsum(p[1] for p in _column(v, s)),
        "Mean": lambda s: statistics.fmean(p[1] for p in _column(v, s)),
        "Median": lambda s: statistics.median(p[1] for p in _column(v, s)),
        "Range": lambda s: max(p[1] for p in _column(v, s)) - min(p[1] for p in _column(v, s)),
        "Values": lambda s: [p[1] for p in _column(v, s)],
        "KthLargest": lambda s, k: sorted((p[1] for p in _column(v, s)), reverse=True)[int(k) - 1],
        "Order": lambda s, desc, among=None: _order(v, s, desc == "desc", among),
        "OrderSeries": lambda x, desc: [
            s for s, _ in sorted(_series_at(v, x), key=lambda p: p[1], reverse=desc == "desc")
        ],
        "Select": lambda s, cond, lo, hi=None: _where(v, s, cond, lo, hi),
        "Count": lambda s, cond, lo, hi=None: float(len(_where(v, s, cond, lo, hi))),
        "FirstWhere": lambda s, cond, lo: next(iter(_where(v, s, cond, lo, None)), None),
        "SumWhere": lambda s, cond, lo: math.fsum(
            _value(v, s, x) for x in _where(v, s, cond, lo, None)
        ),
        "StackTotal": lambda x: math.fsum(p[1] for p in _series_at(v, x)),
        "IQR": lambda x: _box(v, "q3", x) - _box(v, "q1", x),
        "WidestGap": lambda s, a, b: _widest_gap(v, s, a, b),
        "CountItems": lambda what: _count_items(v, what),
        "Pearson": lambda s: pearson(_points(v, s)),
        "MeanX": lambda s: statistics.fmean(p[0] for p in _points(v, s)),
        "MeanY": lambda s: statistics.fmean(p[1] for p in _points(v, s)),
        "CoDeviation": lambda s: _codev(_points(v, s)),
        "CorrBand": lambda s: _band(pearson(_points(v, s)) or 0.0),
        "Trend": lambda s, a, b: _trend(v, s, a, b),
        "Add": lambda a, b: a + b,
        "Sub": lambda a, b: a - b,
        "AbsDiff": lambda a, b: abs(a - b),
        "Div": lambda a, b: a / b,
        "Mean2": lambda a, b: (a + b) / 2,
        "Percent": lambda a, b: 100 * a / b,
        "ListSum": lambda xs: math.fsum(xs),
        "ListMean": lambda xs: statistics.fmean(xs),
        "ListMedian": lambda xs: statistics.median(xs),
        "ListRange": lambda xs: max(xs) - min(xs),
        "Length": lambda xs: float(len(xs)),
        "Nth": lambda xs, i: xs[int(i)] if 0 <= int(i) < len(xs) else None,
        "LargestStep": lambda s, direction: _largest_step(v, s, direction),
    }


def _range(view: ChartView) -> tuple[float, float]:
    r = value_range(view)
    if r is None:
        raise LogicError("chart has no plotted values")
    return r


def _value(view: ChartView, series: str, x: str) -> float:
    v = view.value(series, x)
    if v is None:
        raise LogicError(f"no value of {series!r} at {x!r}")
    return v


def _codev(points: tuple[tuple[float, float], ...]) -> float:
    mx = statistics.fmean(p[0] for p in points)
    my = statistics.fmean(p[1] for p in points)
    return math.fsum((x - mx) * (y - my) for x, y in points)


def _eq(a: Value, b: Value, tol: float) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= tol
    return bool(a == b)


def _largest_step(view: ChartView, series: str, direction: str) -> list[str]:
    pairs = _column(view, series)
    sign = 1.0 if direction == "rise" else -1.0
    steps = [(sign * (b - a), la, lb) for (la, a), (lb, b) in itertools.pairwise(pairs)]
    _, la, lb = max(steps)
    return [la, lb]


def _monotone(view: ChartView, series: str, direction: str) -> bool:
    vals = [v for _, v in _column(view, series)]
    if direction == "increase":
        return all(b > a for a, b in itertools.pairwise(vals))
    return all(b < a for a, b in itertools.pairwise(vals))


def _above(view: ChartView, a: str, b: str) -> bool:
    return all(x > y for (_, x), (_, y) in zip(_column(view, a), _column(view, b), strict=True))


def _predicates(view: ChartView) -> dict[str, Callable[..., bool]]:
    return {
        "Monotone": lambda s, direction: _monotone(view, s, direction),
        "Above": lambda a, b: _above(view, a, b),
        "Cross": lambda a, b: not (_above(view, a, b) or _above(view, b, a)),
        "Lt": lambda a, b: a < b,
        "Gt": lambda a, b: a > b,
        "In": lambda a, xs: a in xs,
        "SetEq": lambda a, b: set(a) == set(b) and len(a) == len(b),
        "SeqEq": lambda a, b: list(a) == list(b),
    }


def evaluate(node: Logic, view: ChartView, env: Env | None = None) -> Value:
    """The value of a term or the truth of a formula on a chart.

    Raises `LogicError` naming the culprit when the AST does not fit the chart.
    """
    env = env or {}
    if "const" in node:
        return node["const"]
    if "num" in node:
        return float(node["num"])
    if "list" in node:
        return [evaluate(n, view, env) for n in node["list"]]
    if "var" in node:
        name = node["var"]
        if name not in env:
            raise LogicError(f"unbound variable {name!r}")
        return env[name]
    if "fn" in node:
        funcs = _functions(view)
        name = node["fn"]
        if name not in funcs:
            raise LogicError(f"unknown function {name!r}")
        args = [evaluate(a, view, env) for a in node.get("args", [])]
        try:
            return funcs[name](*args)
        except (KeyError, IndexError, ValueError, ZeroDivisionError, TypeError) as exc:
            raise LogicError(f"{name}{tuple(args)} fails on this chart: {exc}") from exc
    if "pred" in node:
        name = node["pred"]
        args = [evaluate(a, view, env) for a in node.get("args", [])]
        if name == "Eq":
            return _eq(args[0], args[1], float(node.get("tol", 0.0)))
        preds = _predicates(view)
        if name not in preds:
            raise LogicError(f"unknown predicate {name!r}")
        return bool(preds[name](*args))
    if "not" in node:
        return not evaluate(node["not"], view, env)
    if "and" in node:
        return all(evaluate(f, view, env) for f in node["and"])
    if "or" in node:
        return any(evaluate(f, view, env) for f in node["or"])
    for quant in ("forall", "exists"):
        if quant in node:
            domain = evaluate(node["in"], view, env)
            name = node[quant]
            results = (evaluate(node["body"], view, {**env, name: item}) for item in domain)
            return all(results) if quant == "forall" else any(results)
    raise LogicError(f"not an AST node: {node!r}")
