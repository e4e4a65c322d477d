"""Reasoning premises (RP) from the operations that compare, order, filter and judge
trends; false versions flip the relation or point at other marks where it fails."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence

from chartproof.questions.describe import ordinal
from chartproof.questions.labels import norm
from chartproof.questions.ops.filter import condition_text
from chartproof.questions.ops.shape import CORRELATION_BANDS
from chartproof.questions.premises.claims import (
    _ARITH_TEXT,
    Claim,
    Statement,
    chart_numbers,
    claim,
    far_numbers,
    foreign_labels,
    neighbours,
    other_labels,
    subject,
    tolerance,
)
from chartproof.questions.premises.judging import (
    Judge,
    Ruling,
    Slots,
    close,
    column,
    judged,
    listed,
    number,
    series_named,
    x_named,
)
from chartproof.questions.premises.logic import (
    Logic,
    exists,
    fn,
    forall,
    lab,
    neg,
    num,
    pred,
    seq,
    var,
)
from chartproof.questions.trace import Op, ref_index
from chartproof.questions.view import ChartView

__all__ = ["REASONING_BUILDERS"]

Builder = Callable[[ChartView, Op, Sequence[Op]], list[Claim]]

_REL_TEMPLATE = {"lt": "RP_less", "gt": "RP_greater", "eq": "RP_equal"}


def _one(made: Claim | None) -> list[Claim]:
    return [made] if made else []


def _ref(op: Op, key: str, ops: Sequence[Op]) -> Op:
    i = ref_index(op.args[key])
    if i is None:
        raise ValueError(f"operation {op.id} ({op.op}): argument {key!r} is no step reference")
    return ops[i]


def _rel(rel: str, a: tuple[str, Logic], b: tuple[str, Logic], tol: float) -> Statement:
    logic = {
        "lt": pred("Lt", a[1], b[1]),
        "gt": pred("Gt", a[1], b[1]),
        "eq": pred("Eq", a[1], b[1], tol=tol),
    }[rel]
    return Statement(_REL_TEMPLATE[rel], {"a": a[0], "b": b[0]}, logic)


def _relation_claim(view: ChartView, slot: str, a: Op, b: Op, ops: Sequence[Op]) -> Claim | None:
    """A true relation between two computed quantities; false: the other relations, and
    the first quantity against other chart values on the wrong side."""
    sa, sb = subject(view, a, ops), subject(view, b, ops)
    if sa is None or sb is None:
        return None
    x, y = a.number(), b.number()
    tol = tolerance(view, x, a.err) + tolerance(view, y, b.err)
    actual = "lt" if x < y else "gt" if x > y else "eq"
    if actual == "eq" and not (a.exact and b.exact):
        return None
    if actual != "eq" and abs(x - y) <= tol:
        # too close to call: "equal" holds within the tolerance while "less"/"greater" go
        # by the raw floats (1.3 + 82.1 falls just below 83.4), so no label is sound
        return None
    cands = [_rel(r, sa, sb, tol) for r in ("lt", "gt", "eq") if r != actual]
    tol_a = tolerance(view, x, a.err)
    for text, c in far_numbers(view, x, tol_a, chart_numbers(view, x), k=4):
        const = (text, num(c))
        cands.append(_rel("lt" if c < x else "gt", sa, const, tol_a))
    return claim(slot, _rel(actual, sa, sb, tol), cands)


def _compare(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    return _one(
        _relation_claim(view, f"op{op.id}:relation", _ref(op, "a", ops), _ref(op, "b", ops), ops)
    )


def _larger(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    a, b = _ref(op, "a", ops), _ref(op, "b", ops)
    s = str(a.args["series"])
    best = str(op.value)
    other = str(b.args["x"]) if best == a.args["x"] else str(a.args["x"])

    def stmt(hi: str, lo: str) -> Statement:
        return Statement(
            "RP_larger",
            {"x": hi, "x2": lo, "series": s},
            pred("Gt", fn("Value", lab(hi), lab(s)), fn("Value", lab(lo), lab(s))),
        )

    cands = [stmt(other, best)]
    rel = _relation_claim(view, "", a, b, ops)
    if rel is not None:
        cands += list(rel.false)
    return _one(claim(f"op{op.id}:larger", stmt(best, other), cands))


def _kth_stmt(series: str, k: int, end: str, x: str) -> Statement:
    desc = "desc" if end == "highest" else "asc"
    return Statement(
        "RP_kth",
        {"k": ordinal(k), "end": end, "series": series, "x": x},
        pred("Eq", fn("Nth", fn("Order", lab(series), lab(desc)), num(k - 1)), lab(x)),
    )


def _ranked(view: ChartView, series: str, high: bool) -> list[str]:
    col = {x: view.value(series, x) for x in view.x_labels}
    return sorted(
        (x for x in view.x_labels if col[x] is not None), key=lambda x: col[x] or 0.0, reverse=high
    )


def _kth(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, k, best = str(op.args["series"]), int(str(op.args["k"])), str(op.value)
    end = "highest" if op.args["which"] == "max" else "lowest"
    ranked = _ranked(view, s, end == "highest")
    near = sorted((x for x in ranked if x != best), key=lambda x: abs(ranked.index(x) - (k - 1)))
    wrong = other_labels(best, near, foreign_labels(view))
    return _one(
        claim(
            f"op{op.id}:kth", _kth_stmt(s, k, end, best), (_kth_stmt(s, k, end, w) for w in wrong)
        )
    )


def _rank_of(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, x, r = str(op.args["series"]), str(op.args["x"]), int(op.number())
    end = "highest" if op.args["descending"] else "lowest"
    wrong = [m for m in (r + 1, r - 1, r + 2, r - 2, r + 3) if m >= 1 and m != r]
    return _one(
        claim(f"op{op.id}:rank", _kth_stmt(s, r, end, x), (_kth_stmt(s, m, end, x) for m in wrong))
    )


def _reorderings(items: list[str], foreign: list[str]) -> list[list[str]]:
    """Wrong orders: adjacent swaps, the reverse, one item replaced by a stranger."""
    out: list[list[str]] = []
    n = len(items)
    for i in sorted({0, n - 2, n // 2 - 1}):
        if 0 <= i < n - 1:
            swapped = list(items)
            swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
            out.append(swapped)
    out.append(items[::-1])
    for f in foreign[:2]:
        out.append([*items[:-1], f])
        out.append([f, *items[1:]])
    return [o for o in out if o != items]


def _sort(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, desc = str(op.args["series"]), bool(op.args["descending"])
    items = [str(v) for v in op.value] if isinstance(op.value, tuple) else []
    among_ref = ref_index(op.args.get("among"))
    extra: list[Logic] = []
    if among_ref is not None:
        src = ops[among_ref].value
        extra = [seq([lab(str(a)) for a in src])] if isinstance(src, tuple) else []
    direction = "highest to lowest" if desc else "lowest to highest"
    term = fn("Order", lab(s), lab("desc" if desc else "asc"), *extra)

    def stmt(order: list[str]) -> Statement:
        return Statement(
            "RP_order",
            {"series": s, "direction": direction, "items": ", ".join(order)},
            pred("SeqEq", term, seq([lab(i) for i in order])),
        )

    return _one(
        claim(
            f"op{op.id}:order",
            stmt(items),
            (stmt(o) for o in _reorderings(items, foreign_labels(view))),
        )
    )


def _order_series(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    x, desc = str(op.args["x"]), bool(op.args["descending"])
    items = [str(v) for v in op.value] if isinstance(op.value, tuple) else []
    direction = "highest to lowest" if desc else "lowest to highest"
    term = fn("OrderSeries", lab(x), lab("desc" if desc else "asc"))
    fill = [t for t in (view.x_title, view.y_title) if t and t not in items] + ["Other"]

    def stmt(order: list[str]) -> Statement:
        return Statement(
            "RP_order_series",
            {"x": x, "direction": direction, "items": ", ".join(order)},
            pred("SeqEq", term, seq([lab(i) for i in order])),
        )

    return _one(
        claim(f"op{op.id}:order_series", stmt(items), (stmt(o) for o in _reorderings(items, fill)))
    )


def _condition(view: ChartView, op: Op) -> tuple[str, str, list[Logic]]:
    s, cond = str(op.args["series"]), str(op.args["cond"])
    lo, hi = float(str(op.args["lo"])), op.args.get("hi")
    hi_f = None if hi is None else float(str(hi))
    args = [lab(s), lab(cond), num(lo)] + ([] if hi_f is None else [num(hi_f)])
    return s, condition_text(view, cond, lo, hi_f), args


def _select(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, text, args = _condition(view, op)
    members = [str(v) for v in op.value] if isinstance(op.value, tuple) else []
    outside = [x for x in view.x_labels if x not in members]
    term = fn("Select", *args)

    def stmt(items: list[str]) -> Statement:
        return Statement(
            "RP_members",
            {"series": s, "cond": text, "items": ", ".join(items), "x_title": view.x_label},
            pred("SetEq", term, seq([lab(i) for i in items])),
        )

    cands = []
    if outside:
        cands.append(stmt([*members, outside[0]]))
        cands.append(stmt([*members[:-1], outside[-1]]))
    if len(members) > 1:
        cands.append(stmt(members[1:]))
        cands.append(stmt(members[:-1]))
    cands += [stmt([*members, f]) for f in foreign_labels(view)[:2]]
    return _one(claim(f"op{op.id}:select", stmt(members), cands))


def _count(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, text, args = _condition(view, op)
    n = int(op.number())
    term = fn("Count", *args)

    def stmt(m: int) -> Statement:
        return Statement(
            "RP_count",
            {"series": s, "cond": text, "n": str(m), "x_title": view.x_label},
            pred("Eq", term, num(m), tol=0.0),
        )

    wrong = [m for m in (n + 1, n - 1, n + 2, n + 3) if m >= 0 and m != n]
    return _one(claim(f"op{op.id}:count", stmt(n), (stmt(m) for m in wrong)))


def _first_where(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, text, args = _condition(view, op)
    first = str(op.value)
    term = fn("FirstWhere", *args)

    def stmt(x: str) -> Statement:
        return Statement(
            "RP_first",
            {"series": s, "cond": text, "x": x, "x_title": view.x_label},
            pred("Eq", term, lab(x)),
        )

    wrong = other_labels(first, neighbours(view.x_labels, first), foreign_labels(view))
    return _one(claim(f"op{op.id}:first", stmt(first), (stmt(w) for w in wrong)))


def _forall_sum_gt(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    a, b, c = (str(op.args[k]) for k in ("first", "second", "third"))
    names = {"a": a, "b": b, "c": c}

    def body(x: Logic) -> Logic:
        total = fn("Add", fn("Value", x, lab(a)), fn("Value", x, lab(b)))
        return pred("Gt", total, fn("Value", x, lab(c)))

    every = Statement(
        "RP_forall_sum",
        {**names, "x_title": view.x_label},
        forall("x", fn("XTicks"), body(var("x"))),
    )

    def at(x: str, holds: bool) -> Statement:
        f = body(lab(x))
        return Statement(
            "RP_sum_at" if holds else "RP_sum_not_at", {**names, "x": x}, f if holds else neg(f)
        )

    ok = {
        x: (view.value(a, x) or 0.0) + (view.value(b, x) or 0.0) > (view.value(c, x) or 0.0)
        for x in view.x_labels
    }
    fails = [x for x in view.x_labels if not ok[x]]
    if op.value is True:
        return _one(claim(f"op{op.id}:forall", every, (at(x, False) for x in view.x_labels)))
    cands = [every, at(fails[0], True)]
    cands += [at(x, False) for x in view.x_labels if ok[x]][:1]
    cands += [at(x, True) for x in fails[1:]]
    return _one(claim(f"op{op.id}:forall", at(fails[0], False), cands))


_VERBS = {
    "increase": ("rises", "rise", "greater", "increasing"),
    "decrease": ("falls", "fall", "smaller", "decreasing"),
}


def _monotone_stmt(series: str, direction: str, holds: bool, x_title: str) -> Statement:
    verb, verb0, comparative, _ = _VERBS[direction]
    f = pred("Monotone", lab(series), lab(direction))
    return Statement(
        "RP_monotone" if holds else "RP_not_monotone",
        {
            "series": series,
            "verb": verb,
            "verb0": verb0,
            "comparative": comparative,
            "x_title": x_title,
        },
        f if holds else neg(f),
    )


def _step_stmt(series: str, direction: str, x1: str, x2: str) -> Statement:
    verb, _, _, word = _VERBS[direction]
    return Statement(
        "RP_step",
        {"series": series, "verb": verb, "x1": x1, "x2": x2},
        pred("Eq", fn("Trend", lab(series), lab(x1), lab(x2)), lab(word)),
    )


def _monotone(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, direction = str(op.args["series"]), str(op.args["direction"])
    other = "decrease" if direction == "increase" else "increase"
    up = direction == "increase"
    steps = []
    for xa, xb in itertools.pairwise(view.x_labels):
        va, vb = view.value(s, xa), view.value(s, xb)
        if va is None or vb is None:
            return []
        clear = view.distinct(va, vb)
        steps.append((xa, xb, clear and (vb > va) == up, clear and (vb > va) != up))
    if op.value is True:
        cands = [_monotone_stmt(s, direction, False, view.x_label)]
        cands += [_step_stmt(s, other, xa, xb) for xa, xb, _, _ in steps]
        return _one(
            claim(f"op{op.id}:monotone", _monotone_stmt(s, direction, True, view.x_label), cands)
        )
    cands = [_monotone_stmt(s, direction, True, view.x_label)]
    cands += [_step_stmt(s, direction, xa, xb) for xa, xb, _, against in steps if against]
    if any(along for _, _, along, _ in steps):
        cands.append(_monotone_stmt(s, other, True, view.x_label))
    return _one(
        claim(f"op{op.id}:monotone", _monotone_stmt(s, direction, False, view.x_label), cands)
    )


def _trend_stmt(series: str, start: str, end: str, word: str) -> Statement:
    return Statement(
        "RP_trend",
        {"series": series, "start": start, "end": end, "trend": word},
        pred("Eq", fn("Trend", lab(series), lab(start), lab(end)), lab(word)),
    )


def _trend_claim(
    view: ChartView, slot: str, s: str, start: str, end: str, word: str
) -> Claim | None:
    cands = [
        _trend_stmt(s, start, end, w) for w in ("increasing", "decreasing", "flat") if w != word
    ]
    for xa, xb in itertools.combinations(view.x_labels, 2):
        va, vb = view.value(s, xa), view.value(s, xb)
        if {xa, xb} == {start, end} or va is None or vb is None or not view.distinct(va, vb):
            continue
        cands.append(_trend_stmt(s, xa, xb, "decreasing" if vb > va else "increasing"))
        break
    return claim(slot, _trend_stmt(s, start, end, word), cands)


def _trend(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, start, end = str(op.args["series"]), str(op.args["start"]), str(op.args["end"])
    return _one(_trend_claim(view, f"op{op.id}:trend", s, start, end, str(op.value)))


def _trend_between(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s = str(op.args["series"])
    la, lb = str(_ref(op, "a", ops).value), str(_ref(op, "b", ops).value)
    start, end = sorted((la, lb), key=lambda x: view.xi(x) or 0)
    return _one(_trend_claim(view, f"op{op.id}:trend", s, start, end, str(op.value)))


def _largest_change(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, direction, best = str(op.args["series"]), str(op.args["direction"]), str(op.value)
    verb, noun = ("rises", "rise") if direction == "rise" else ("falls", "fall")
    term = fn("LargestStep", lab(s), lab(direction))

    def stmt(x1: str, x2: str) -> Statement:
        return Statement(
            "RP_largest_change",
            {"series": s, "verb": verb, "noun": noun, "x1": x1, "x2": x2, "x_title": view.x_label},
            pred("SeqEq", term, seq([lab(x1), lab(x2)])),
        )

    i = view.x_labels.index(best)
    prev = view.x_labels[i - 1]
    cands = [stmt(xa, xb) for xa, xb in itertools.pairwise(view.x_labels) if xb != best]
    cands.append(stmt(best, prev))
    cands += [stmt(view.x_labels[j], view.x_labels[j + 2]) for j in range(view.n - 2)]
    return _one(claim(f"op{op.id}:largest_change", stmt(prev, best), cands))


def _cross(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    a, b = str(op.args["first"]), str(op.args["second"])
    crossing = pred("Cross", lab(a), lab(b))

    def above(hi: str, lo: str) -> Statement:
        return Statement(
            "RP_above", {"a": hi, "b": lo, "x_title": view.x_label}, pred("Above", lab(hi), lab(lo))
        )

    yes = Statement("RP_cross", {"a": a, "b": b}, crossing)
    no = Statement("RP_no_cross", {"a": a, "b": b}, neg(crossing))
    if op.value is True:
        return _one(claim(f"op{op.id}:cross", yes, [no, above(a, b), above(b, a)]))
    va, vb = view.value(a, view.x_labels[0]), view.value(b, view.x_labels[0])
    upper, lower = (a, b) if (va or 0.0) > (vb or 0.0) else (b, a)
    cands = [yes, above(lower, upper)]
    for x in view.x_labels[:1]:
        cands.append(
            _rel(
                "gt",
                (f"the value of {lower} at {x}", fn("Value", lab(x), lab(lower))),
                (f"the value of {upper} at {x}", fn("Value", lab(x), lab(upper))),
                0.0,
            )
        )
    return _one(claim(f"op{op.id}:cross", no, cands))


def _band(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    from chartproof.questions.ops.shape import band_of, pearson

    s = str(op.args["series"])
    pts = view.points.get(s)
    r = pearson(pts) if pts else None
    actual = band_of(r) if r is not None else None
    if actual is None:
        return []

    def stmt(band: str) -> Statement:
        return Statement(
            "RP_band", {"series": s, "band": band}, pred("Eq", fn("CorrBand", lab(s)), lab(band))
        )

    made = claim(
        f"op{op.id}:band", stmt(actual), (stmt(b) for b in CORRELATION_BANDS if b != actual)
    )
    from chartproof.questions.premises.maths import pearson_claims

    return [*pearson_claims(view, op, s), *_one(made)]


def _equal_iqr(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    tol = 1e-9

    def same(x1: str, x2: str) -> Statement:
        return Statement(
            "RP_equal_iqr",
            {"x": x1, "x2": x2},
            pred("Eq", fn("IQR", lab(x1)), fn("IQR", lab(x2)), tol=tol),
        )

    pair_equal = {
        "and": [
            neg(pred("Eq", var("a"), var("b"))),
            pred("Eq", fn("IQR", var("a")), fn("IQR", var("b")), tol=tol),
        ]
    }
    none = Statement(
        "RP_no_equal_iqr",
        {"x_title": view.x_label},
        neg(exists("a", fn("XTicks"), exists("b", fn("XTicks"), pair_equal))),
    )
    spans = {x: round(b[3] - b[1], 9) for x, b in view.boxes.items()}
    pairs = list(itertools.combinations(view.boxes, 2))
    differing = [(p, q) for p, q in pairs if abs(spans[p] - spans[q]) > 1e-6]
    if op.value is True:
        p, q = next((p, q) for p, q in pairs if spans[p] == spans[q])
        return _one(
            claim(f"op{op.id}:equal_iqr", same(p, q), [none, *(same(a, b) for a, b in differing)])
        )
    return _one(claim(f"op{op.id}:equal_iqr", none, (same(a, b) for a, b in differing)))


_QUANTITY = {"aggregate": "total", "arith": "change", "iqr": "interquartile range"}


def _best_of(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    results = op.args["results"]
    assert isinstance(results, list)
    named: list[tuple[str, Op]] = []
    for r in results:
        assert isinstance(r, dict)
        named.append((str(r["label"]), ops[int(str(r["ref"]))]))
    subjects = {n: subject(view, o, ops) for n, o in named}
    if any(s is None for s in subjects.values()):
        return []
    high = op.args["which"] == "max"
    first_op = named[0][1]
    quantity = _QUANTITY.get(first_op.op, "result")
    if view.kind.data == "boxes":
        quantity = "interquartile range"
    labels = ", ".join(n for n, _ in named)

    def stmt(winner: str) -> Statement:
        tw = subjects[winner]
        assert tw is not None
        logic = {"and": [
            pred("Gt" if high else "Lt", tw[1], t[1])
            for n, t in subjects.items() if n != winner and t is not None
        ]}  # fmt: skip
        return Statement(
            "RP_best",
            {
                "items": labels,
                "label": winner,
                "word": "largest" if high else "smallest",
                "quantity": quantity,
                "comparative": "higher" if high else "lower",
            },
            logic,
        )

    best = str(op.value)
    cands = [stmt(n) for n, _ in named if n != best]
    runner = next(
        o for n, o in sorted(named, key=lambda p: p[1].number(), reverse=high) if n != best
    )
    rel = _relation_claim(view, "", dict(named)[best], runner, ops)
    if rel is not None:
        cands += list(rel.false)
    return _one(claim(f"op{op.id}:best_of", stmt(best), cands))


def _equal(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    return _one(
        _relation_claim(view, f"op{op.id}:relation", _ref(op, "a", ops), _ref(op, "b", ops), ops)
    )


REASONING_BUILDERS: dict[str, Builder] = {
    "compare": _compare,
    "equal": _equal,
    "larger": _larger,
    "kth": _kth,
    "rank_of": _rank_of,
    "sort": _sort,
    "order_series": _order_series,
    "select": _select,
    "count": _count,
    "first_where": _first_where,
    "forall_sum_gt": _forall_sum_gt,
    "monotone": _monotone,
    "trend": _trend,
    "trend_between": _trend_between,
    "largest_change": _largest_change,
    "cross": _cross,
    "corr_band": _band,
    "corr_class": _band,
    "equal_iqr": _equal_iqr,
    "best_of": _best_of,
}
"""Claim builders of the operations that produce reasoning premises, by operation name."""


@judged("RP_larger")
def _judge_larger(s: Slots, view: ChartView, rel: float) -> Ruling:
    series, x, x2 = series_named(s["series"], view), x_named(s["x"], view), x_named(s["x2"], view)
    if series is None or x is None or x2 is None:
        return None
    a, b = view.value(series, x), view.value(series, x2)
    if a is None or b is None:
        return None
    return a > b, f"{series} is {view.fmt(a)} at {x} and {view.fmt(b)} at {x2}"


_VALUE_OF = re.compile(r"^the value of (.+) at (.+)$", re.I)

_COMBINE: dict[str, Callable[[float, float], float | None]] = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "AbsDiff": lambda a, b: abs(a - b),
    "Div": lambda a, b: a / b if b else None,
    "Mean2": lambda a, b: (a + b) / 2,
    "Percent": lambda a, b: 100 * a / b if b else None,
}
"""The value of each arithmetic phrase `subject` writes (`_ARITH_TEXT`), by logic name."""

_PHRASES = sorted(
    [(text, _COMBINE[f]) for text, f in _ARITH_TEXT.values()]
    + [("the sum of {a} and {b}", _COMBINE["Add"])],
    key=lambda p: p[0].startswith("{"),  # phrases that open with words first
)


def _combined(t: str, view: ChartView, depth: int) -> float | None:
    """The value of "A minus B", "the difference between A and B", ... (the first place the
    joining words leave two readable halves splits the phrase)."""
    low = t.lower()
    for text, f in _PHRASES:
        pre, rest = text.split("{a}")
        mid, post = rest.split("{b}")
        if not (low.startswith(pre) and low.endswith(post)) or len(low) <= len(pre + post):
            continue
        body = t[len(pre) : len(t) - len(post)]
        for cut in [i.start() for i in re.finditer(re.escape(mid), body, re.I)]:
            a = _stated(body[:cut], view, depth + 1)
            b = _stated(body[cut + len(mid) :], view, depth + 1)
            if a is not None and b is not None:
                return f(a, b)
    return None


def _stated(text: str, view: ChartView, depth: int = 0) -> float | None:
    """The number a premise phrase stands for: a literal, "the value of S at X", or two such
    phrases combined as `subject` writes them ("A minus B", "A as a percentage of B")."""
    t = text.strip().rstrip(".")
    n = number(t)
    if n is not None or depth > 3:
        return n
    got = _combined(t, view, depth)
    if got is not None:
        return float(got)
    m = _VALUE_OF.match(t)
    if m:
        series, x = series_named(m.group(1), view), x_named(m.group(2), view)
        if series is not None and x is not None:
            return view.value(series, x)
    return None


def _numbers_judge(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> Ruling:
        a, b = _stated(s["a"], view), _stated(s["b"], view)
        if a is None or b is None:
            return None
        ok = {"less": a < b, "greater": a > b, "equal": close(a, b, rel)}[kind]
        return ok, f"{a:g} against {b:g}"

    return judge


judged("RP_less")(_numbers_judge("less"))
judged("RP_greater")(_numbers_judge("greater"))
judged("RP_equal")(_numbers_judge("equal"))


def _cond(text: str) -> Callable[[float], bool] | None:
    t = " ".join(text.lower().replace("−", "-").split())
    m = re.match(r"^(above|below|over|under|greater than|less than) ([-\d.,]+)$", t)
    if m:
        v = number(m.group(2))
        if v is None:
            return None
        up = m.group(1) in ("above", "over", "greater than")
        return (lambda x: x > v) if up else (lambda x: x < v)
    m = re.match(r"^between ([-\d.,]+) and ([-\d.,]+)$", t)
    if m:
        lo, hi = number(m.group(1)), number(m.group(2))
        if lo is None or hi is None:
            return None
        return lambda x: lo <= x <= hi
    return None


@judged("RP_count")
def _judge_count(s: Slots, view: ChartView, rel: float) -> Ruling:
    series, cond, n = series_named(s["series"], view), _cond(s["cond"]), number(s["n"])
    if series is None or cond is None or n is None:
        return None
    hits = [x for x, v in column(view, series) if cond(v)]
    return len(hits) == int(n), f"{len(hits)} values of {series} are {s['cond']}"


@judged("RP_members")
def _judge_members(s: Slots, view: ChartView, rel: float) -> Ruling:
    series, cond = series_named(s["series"], view), _cond(s["cond"])
    if series is None or cond is None:
        return None
    hits = sorted(norm(x) for x, v in column(view, series) if cond(v))
    said = sorted(norm(i) for i in listed(s["items"], view.x_labels))
    return hits == said, f"{series} is {s['cond']} at " + (", ".join(hits) or "no label")


@judged("RP_order")
def _judge_order(s: Slots, view: ChartView, rel: float) -> Ruling:
    series = series_named(s["series"], view)
    if series is None:
        return None
    desc = norm(s["direction"]).startswith("highest")
    order = [x for x, _ in sorted(column(view, series), key=lambda p: p[1], reverse=desc)]
    said = [norm(i) for i in listed(s["items"], view.x_labels)]
    return said == [norm(x) for x in order], "the order is " + ", ".join(order)
