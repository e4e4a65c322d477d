"""Data premises (DP) from the operations that read the chart: values, box statistics,
colours, positions, extremes and counts of chart elements."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from chartproof.charts.colors import NAMED_COLORS
from chartproof.questions.describe import (
    box_stat_name,
    marks_of,
    ordinal,
    ordinal_value,
    position_word,
)
from chartproof.questions.labels import best_label, norm
from chartproof.questions.premises.claims import (
    Claim,
    Statement,
    chart_numbers,
    claim,
    count_words,
    far_numbers,
    foreign_labels,
    neighbours,
    number_text,
    other_labels,
    tolerance,
)
from chartproof.questions.premises.judging import (
    Judge,
    Ruling,
    Slots,
    close,
    column,
    judged,
    number,
    series_named,
    x_named,
)
from chartproof.questions.premises.logic import fn, lab, num, pred, seq
from chartproof.questions.trace import Op, ref_index
from chartproof.questions.view import BOX_STATS, ChartView

__all__ = ["DATA_BUILDERS", "values_claim"]

Builder = Callable[[ChartView, Op, Sequence[Op]], list[Claim]]


def _value_stmt(view: ChartView, series: str, x: str, text: str, v: float, tol: float) -> Statement:
    return Statement(
        "DP_value",
        {"series": series, "x": x, "value": text},
        pred("Eq", fn("Value", lab(x), lab(series)), num(v), tol=tol),
    )


def _read_pool(view: ChartView, series: str, x: str) -> list[float]:
    """A neighbouring bar's value first, then other series at x, then the rest."""
    out: list[float] = []
    col = view.values.get(series, ())
    for near in neighbours(view.x_labels, x)[:2]:
        i = view.xi(near)
        if i is not None and col[i] is not None:
            out.append(float(col[i]))  # type: ignore[arg-type]
    for s in view.series:
        v = view.value(s, x)
        if s != series and v is not None:
            out.append(v)
    v0 = view.value(series, x)
    return out + chart_numbers(view, v0 if v0 is not None else 0.0)


def _read(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, x, v = str(op.args["series"]), str(op.args["x"]), op.number()
    tol = tolerance(view, v, op.err)
    text, stated = number_text(view, v)
    wrong = far_numbers(view, v, tol, _read_pool(view, s, x))
    made = claim(
        f"op{op.id}:read",
        _value_stmt(view, s, x, text, stated, tol),
        (_value_stmt(view, s, x, t, c, tol) for t, c in wrong),
    )
    return [made] if made else []


def _read_box(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    stat, x, v = str(op.args["stat"]), str(op.args["x"]), op.number()
    tol = tolerance(view, v, op.err)
    box = view.boxes[x]
    pool = [b for b in box if b != v] + [b[BOX_STATS.index(stat)] for b in view.boxes.values()]

    def stmt(t: str, c: float) -> Statement:
        return Statement(
            "DP_box",
            {"stat": box_stat_name(stat), "x": x, "value": t},
            pred("Eq", fn("Box", lab(stat), lab(x)), num(c), tol=tol),
        )

    text, stated = number_text(view, v)
    made = claim(
        f"op{op.id}:read_box",
        stmt(text, stated),
        (stmt(t, c) for t, c in far_numbers(view, v, tol, pool)),
    )
    return [made] if made else []


def _color_stmt(key: str, color: str) -> Statement:
    return Statement(
        "DP_color", {"key": key, "color": color}, pred("Eq", fn("Color", lab(key)), lab(color))
    )


def _other_colors(view: ChartView, color: str) -> list[str]:
    used = [c for c in view.colors.values() if c != color]
    unused = [c for c in NAMED_COLORS.values() if c not in view.colors.values()]
    return other_labels(color, used, unused[:6])


def _color_of(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    key, color = str(op.args["key"]), str(op.value)
    made = claim(
        f"op{op.id}:color",
        _color_stmt(key, color),
        (_color_stmt(key, c) for c in _other_colors(view, color)),
    )
    return [made] if made else []


def _key_of_color(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    key, color = str(op.value), str(op.args["color"])
    others = [k for k in view.colors if k != key]
    cands = [_color_stmt(k, color) for k in others]
    cands += [_color_stmt(key, c) for c in _other_colors(view, color)]
    made = claim(f"op{op.id}:color", _color_stmt(key, color), cands)
    return [made] if made else []


def _count_claim(
    slot: str, template: str, slots: dict[str, str], term: dict[str, object], n: int
) -> Claim | None:
    wrong = [m for m in (n + 1, n - 1, n + 2, n + 3) if m >= 0 and m != n]

    def stmt(m: int) -> Statement:
        return Statement(template, {**slots, "n": str(m)}, pred("Eq", term, num(m), tol=0.0))

    return claim(slot, stmt(n), (stmt(m) for m in wrong))


def _count_colors(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    made = _count_claim(
        f"op{op.id}:n_colors", "DP_n_colors", {"marks": marks_of(view)}, fn("NColors"),
        int(op.number()),
    )  # fmt: skip
    return [made] if made else []


def _label_stmt(view: ChartView, k: int, label: str) -> Statement:
    return Statement(
        "DP_label_at",
        {"k": ordinal(k), "mark": view.mark, "side": position_word(view), "label": label},
        pred("Eq", fn("LabelAt", num(k)), lab(label)),
    )


def _label_at(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    k, label = int(str(op.args["k"])), str(op.value)
    wrong = other_labels(label, neighbours(view.x_labels, label), foreign_labels(view))
    made = claim(
        f"op{op.id}:label_at", _label_stmt(view, k, label), (_label_stmt(view, k, w) for w in wrong)
    )
    return [made] if made else []


def _position_of(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    x, k = str(op.args["x"]), int(op.number())
    wrong = [m for m in (k + 1, k - 1, k + 2, k - 2, k + 3) if m >= 1 and m != k]
    made = claim(
        f"op{op.id}:position", _label_stmt(view, k, x), (_label_stmt(view, m, x) for m in wrong)
    )
    return [made] if made else []


def _find_value(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, x, v = str(op.args["series"]), str(op.value), float(str(op.args["value"]))
    tol = tolerance(view, v, view.read_error(v))
    text, stated = number_text(view, v)
    cands = []
    for other in neighbours(view.x_labels, x):
        ov = view.value(s, other)
        if ov is not None and abs(ov - stated) > 2 * tol:
            cands.append(_value_stmt(view, s, other, text, stated, tol))
    cands += [_value_stmt(view, s, x, t, c, tol) for t, c in far_numbers(view, v, tol, [])]
    made = claim(f"op{op.id}:find_value", _value_stmt(view, s, x, text, stated, tol), cands)
    return [made] if made else []


def _extreme(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, which, best = str(op.args["series"]), str(op.args["which"]), str(op.value)
    among_ref = ref_index(op.args.get("among"))
    among: list[str] | None = None
    if among_ref is not None:
        src = ops[among_ref].value
        among = [str(a) for a in src] if isinstance(src, tuple) else None
    high = which == "max"
    considered = among if among is not None else list(view.x_labels)
    col = {x: view.value(s, x) for x in considered}
    ranked = sorted(
        (x for x in considered if col[x] is not None), key=lambda x: col[x] or 0.0, reverse=high
    )
    if among is None:
        template = "DP_argmax" if high else "DP_argmin"
        term = fn("ArgMax" if high else "ArgMin", lab(s))
        extra: dict[str, str] = {}
    else:
        template = "DP_argmax_among" if high else "DP_argmin_among"
        term = fn("ArgMax" if high else "ArgMin", lab(s), seq([lab(a) for a in among]))
        extra = {"among": ", ".join(among)}

    def stmt(x: str) -> Statement:
        return Statement(template, {"series": s, "x": x, **extra}, pred("Eq", term, lab(x)))

    wrong = other_labels(best, ranked, foreign_labels(view))
    made = claim(f"op{op.id}:extreme", stmt(best), (stmt(w) for w in wrong))
    return [made] if made else []


def _extreme_value(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, high, v = str(op.args["series"]), op.args["which"] == "max", op.number()
    tol = tolerance(view, v, op.err)
    term = fn("Max" if high else "Min", lab(s))
    template = "DP_max_value" if high else "DP_min_value"
    col = sorted((c for c in view.values.get(s, ()) if c is not None), reverse=high)

    def stmt(t: str, c: float) -> Statement:
        return Statement(template, {"series": s, "value": t}, pred("Eq", term, num(c), tol=tol))

    text, stated = number_text(view, v)
    made = claim(
        f"op{op.id}:extreme_value",
        stmt(text, stated),
        (stmt(t, c) for t, c in far_numbers(view, v, tol, col)),
    )
    return [made] if made else []


def _extreme_series(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    x, high, best = str(op.args["x"]), op.args["which"] == "max", str(op.value)
    term = fn("ArgMaxSeries" if high else "ArgMinSeries", lab(x))
    template = "DP_top_series" if high else "DP_bottom_series"

    def stmt(s: str) -> Statement:
        return Statement(template, {"x": x, "series": s}, pred("Eq", term, lab(s)))

    fill = [t for t in (view.x_title, view.y_title) if t] + ["Other", "Total"]
    made = claim(
        f"op{op.id}:extreme_series",
        stmt(best),
        (stmt(s) for s in other_labels(best, view.series, fill)),
    )
    return [made] if made else []


def _box_extreme(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    stat, high, best = str(op.args["stat"]), op.args["which"] == "max", str(op.value)
    term = fn("BoxArgMax" if high else "BoxArgMin", lab(stat))
    template = "DP_box_argmax" if high else "DP_box_argmin"

    def stmt(x: str) -> Statement:
        return Statement(template, {"stat": box_stat_name(stat), "x": x}, pred("Eq", term, lab(x)))

    made = claim(
        f"op{op.id}:box_extreme",
        stmt(best),
        (stmt(x) for x in other_labels(best, list(view.boxes), foreign_labels(view))),
    )
    return [made] if made else []


def _count_items(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    what = str(op.args["what"])
    made = _count_claim(
        f"op{op.id}:count_items", "DP_count_items", {"what": count_words(what)},
        fn("CountItems", lab(what)), int(op.number()),
    )  # fmt: skip
    return [made] if made else []


def _kth_value(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    s, k, v = str(op.args["series"]), int(str(op.args["k"])), op.number()
    tol = tolerance(view, v, op.err)
    term = fn("KthLargest", lab(s), num(k))
    ranked = sorted((c for c in view.values.get(s, ()) if c is not None), reverse=True)
    pool = [ranked[i] for i in (k, k - 2, k + 1) if 0 <= i < len(ranked)]

    def stmt(t: str, c: float) -> Statement:
        return Statement(
            "DP_kth_value",
            {"k": ordinal(k), "series": s, "value": t},
            pred("Eq", term, num(c), tol=tol),
        )

    text, stated = number_text(view, v)
    made = claim(
        f"op{op.id}:kth_value",
        stmt(text, stated),
        (stmt(t, c) for t, c in far_numbers(view, v, tol, pool)),
    )
    return [made] if made else []


def values_claim(view: ChartView, op: Op, series: str) -> Claim | None:
    """DP over a whole series: its values in axis order; false lists change one value (a
    neighbouring value put in its place) or drop one."""
    col = view.column(series)
    if col is None or len(col) < 2:
        return None
    err = max(view.read_error(v) for v in col)
    tol = tolerance(view, max(abs(v) for v in col), err)
    texts = [number_text(view, v) for v in col]
    term = fn("Values", lab(series))

    def stmt(items: list[tuple[str, float]]) -> Statement:
        return Statement(
            "DP_values",
            {"series": series, "items": ", ".join(t for t, _ in items)},
            {"and": [
                pred("Eq", fn("Length", term), num(len(items)), tol=0.0),
                *(
                    pred("Eq", {"fn": "Nth", "args": [term, num(i)]}, num(c), tol=tol)
                    for i, (_, c) in enumerate(items)
                ),
            ]},
        )  # fmt: skip

    cands = []
    for i in (len(col) // 2, 0, len(col) - 1):
        wrong = far_numbers(view, col[i], tol, [c for j, c in enumerate(col) if j != i], k=1)
        if wrong:
            cands.append(stmt([*texts[:i], wrong[0], *texts[i + 1 :]]))
    cands.append(stmt(texts[:-1]))
    return claim(f"op{op.id}:values", stmt(texts), cands)


def _chart_fact(view: ChartView, op: Op, ops: Sequence[Op]) -> list[Claim]:
    from chartproof.questions.premises.structural import fact_claim

    made = fact_claim(view, str(op.args["fact"]))
    return [made] if made else []


DATA_BUILDERS: dict[str, Builder] = {
    "read": _read,
    "read_box": _read_box,
    "color_of": _color_of,
    "key_of_color": _key_of_color,
    "count_colors": _count_colors,
    "label_at": _label_at,
    "position_of": _position_of,
    "find_value": _find_value,
    "extreme": _extreme,
    "extreme_value": _extreme_value,
    "extreme_series": _extreme_series,
    "box_extreme": _box_extreme,
    "count_items": _count_items,
    "kth_value": _kth_value,
    "chart_fact": _chart_fact,
}
"""Claim builders of the operations that produce data premises, by operation name."""


@judged("DP_value")
def _judge_value(s: Slots, view: ChartView, rel: float) -> Ruling:
    series, x, v = series_named(s["series"], view), x_named(s["x"], view), number(s["value"])
    if series is None or x is None or v is None:
        return None
    shown = view.value(series, x)
    if shown is None:
        return None
    return close(shown, v, rel, s["value"]), f"{series} at {x} reads {view.fmt(shown)}"


@judged("DP_values")
def _judge_values(s: Slots, view: ChartView, rel: float) -> Ruling:
    series = series_named(s["series"], view)
    printed = [t for t in re.split(r",\s*|\s+and\s+", s["items"].strip().rstrip(".")) if t]
    said = [number(t) for t in printed]
    if series is None or any(v is None for v in said):
        return None
    col = [v for _, v in column(view, series)]
    ok = len(col) == len(said) and all(
        close(a, float(b or 0.0), rel, t) for a, b, t in zip(col, said, printed, strict=True)
    )
    return ok, f"{series} reads " + ", ".join(view.fmt(v) for v in col)


def _extreme_value_judge(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> Ruling:
        series, v = series_named(s["series"], view), number(s["value"])
        if series is None or v is None:
            return None
        col = [v for _, v in column(view, series)]
        if not col:
            return None
        m = max(col) if kind == "max" else min(col)
        word = "highest" if kind == "max" else "lowest"
        return close(m, v, rel, s["value"]), f"the {word} {series} is {view.fmt(m)}"

    return judge


def _argext_judge(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> Ruling:
        series, x = series_named(s["series"], view), x_named(s["x"], view)
        col = column(view, series) if series else []
        if series is None or x is None or not col:
            return None
        best = (max if kind == "max" else min)(col, key=lambda p: p[1])
        word = "highest" if kind == "max" else "lowest"
        return best[0] == x, f"the {word} {series} is at {best[0]}"

    return judge


@judged("DP_kth_value")
def _judge_kth_value(s: Slots, view: ChartView, rel: float) -> Ruling:
    series, v, k = series_named(s["series"], view), number(s["value"]), ordinal_value(s["k"])
    if series is None or v is None or k is None:
        return None
    col = sorted((v for _, v in column(view, series)), reverse=True)
    if not 1 <= k <= len(col):
        return None
    return close(col[k - 1], v, rel, s["value"]), f"value {k} from the top is {col[k - 1]:g}"


def _top_series_judge(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> Ruling:
        series, x = series_named(s["series"], view), x_named(s["x"], view)
        if series is None or x is None:
            return None
        vals = [(name, view.value(name, x)) for name in view.series]
        known = [(n, v) for n, v in vals if v is not None]
        if not known:
            return None
        best = (max if kind == "max" else min)(known, key=lambda p: p[1])
        return best[
            0
        ] == series, f"at {x} the {'largest' if kind == 'max' else 'smallest'} series is {best[0]}"

    return judge


judged("DP_max_value")(_extreme_value_judge("max"))
judged("DP_min_value")(_extreme_value_judge("min"))
judged("DP_argmax")(_argext_judge("max"))
judged("DP_argmin")(_argext_judge("min"))
judged("DP_top_series")(_top_series_judge("max"))
judged("DP_bottom_series")(_top_series_judge("min"))


@judged("DP_color")
def _judge_color(s: Slots, view: ChartView, rel: float) -> Ruling:
    key = best_label(s["key"], list(view.colors), 0.75)
    if key is None:
        return None
    shown = view.colors[key]
    return norm(shown) == norm(s["color"]), f"{key} is drawn in {shown}"


@judged("DP_label_at")
def _judge_label_at(s: Slots, view: ChartView, rel: float) -> Ruling:
    k = ordinal_value(s["k"])
    if k is None or not 1 <= k <= len(view.x_labels):
        return None
    side = norm(s["side"])
    labels = list(view.x_labels)
    if side in ("right", "bottom"):
        labels = labels[::-1]
    shown = labels[k - 1]
    return norm(shown) == norm(s["label"]), f"mark {k} from the {side} is {shown}"


_STATS = {"minimum": 0, "lower quartile": 1, "median": 2, "upper quartile": 3, "maximum": 4}


@judged("DP_box")
def _judge_box(s: Slots, view: ChartView, rel: float) -> Ruling:
    stat, x, v = _STATS.get(norm(s["stat"])), x_named(s["x"], view), number(s["value"])
    if stat is None or x is None or v is None or x not in view.boxes:
        return None
    shown = view.boxes[x][stat]
    return close(shown, v, rel, s["value"]), f"the {s['stat']} at {x} is {shown:g}"
