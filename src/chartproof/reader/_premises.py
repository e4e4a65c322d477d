"""True/false verdicts on premise statements (visual premise proving): the statement is
matched to a premise template, its slots resolved on the chart, and the claim checked."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from chartproof.numeric import parse_number
from chartproof.questions import ChartView
from chartproof.questions.describe import ordinal_value
from chartproof.questions.ops.structure import CHART_TYPE_NAMES
from chartproof.questions.premises.templates import PREMISE_TEMPLATES
from chartproof.reader._templates import template_regex
from chartproof.reader._text import best_label, norm, numbers_written

__all__ = ["Verdict", "judge_premise"]


@dataclass(frozen=True)
class Verdict:
    """A checked premise."""

    truth: bool
    """Whether the statement holds for the chart."""
    template: str
    """The premise template it matched."""
    reason: str
    """What was compared, as an explanation sentence."""


Slots = Mapping[str, str]
Judge = Callable[[Slots, ChartView, float], tuple[bool, str] | None]


def _close(a: float, b: float, rel: float, printed: str = "") -> bool:
    """Equal within the relative tolerance and the rounding of the printed number."""
    step = 0.0
    m = re.search(r"\.(\d+)", printed)
    if printed:
        step = 0.5 * 10.0 ** (-len(m.group(1))) if m else 0.5
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), step, 1e-9)


def _num(text: str) -> float | None:
    return parse_number(text.strip().rstrip("."))


def _series(text: str, view: ChartView) -> str | None:
    found = best_label(text, view.series, 0.75)
    if found is None and len(view.series) == 1:
        return view.series[0]
    return found


def _x(text: str, view: ChartView) -> str | None:
    return best_label(text, view.x_labels, 0.75)


def _items(text: str, known: Sequence[str] = ()) -> list[str]:
    """A written list split into items: at commas, and at " and " unless a known label
    contains it ("Bed and breakfast")."""
    labels = {norm(k) for k in known}
    out: list[str] = []
    for part in re.split(r",\s*", text.strip().rstrip(".")):
        part = re.sub(r"^and\s+", "", part.strip())
        if part and norm(part) not in labels and " and " in part:
            out.extend(p.strip() for p in part.split(" and ") if p.strip())
        elif part:
            out.append(part)
    return out


def _column(view: ChartView, series: str) -> list[tuple[str, float]]:
    vals = view.values.get(series, ())
    return [(x, v) for x, v in zip(view.x_labels, vals, strict=False) if v is not None]


def _sp0(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    name = CHART_TYPE_NAMES.get(view.chart_type, view.chart_type)
    return norm(s["chart_type"]) == norm(name), f"the chart is a {name}"


def _title(key: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
        shown = view.y_title if key == "y" else view.x_title
        if not shown:
            return None
        return norm(s["title"]) == norm(shown), f"the axis title reads {shown}"

    return judge


def _sp6(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    hit = any(norm(s["tick"]) == norm(x) for x in view.x_labels)
    return hit, "the independent axis shows the ticks " + ", ".join(view.x_labels)


def _sp8(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    n = _num(s["n"])
    if n is None:
        return None
    count = len(view.series)
    return int(n) == count, f"{count} series are drawn"


def _sp9(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    if not view.legend:
        return False, "there is no legend"
    names = view.x_labels if view.kind.color_keys == "x" else view.series
    said = sorted(norm(i) for i in _items(s["labels"], names))
    shown = sorted(norm(i) for i in names)
    return said == shown, "the legend lists " + ", ".join(names)


def _sp9_none(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    return not view.legend, "a legend is drawn" if view.legend else "no legend is drawn"


def _dp_value(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    series, x, v = _series(s["series"], view), _x(s["x"], view), _num(s["value"])
    if series is None or x is None or v is None:
        return None
    shown = view.value(series, x)
    if shown is None:
        return None
    return _close(shown, v, rel, s["value"]), f"{series} at {x} reads {view.fmt(shown)}"


def _dp_values(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    series = _series(s["series"], view)
    printed = [t for t in re.split(r",\s*|\s+and\s+", s["items"].strip().rstrip(".")) if t]
    said = [_num(t) for t in printed]
    if series is None or any(v is None for v in said):
        return None
    col = [v for _, v in _column(view, series)]
    ok = len(col) == len(said) and all(
        _close(a, float(b or 0.0), rel, t) for a, b, t in zip(col, said, printed, strict=True)
    )
    return ok, f"{series} reads " + ", ".join(view.fmt(v) for v in col)


def _extreme_value(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
        series, v = _series(s["series"], view), _num(s["value"])
        if series is None or v is None:
            return None
        col = [v for _, v in _column(view, series)]
        if not col:
            return None
        m = max(col) if kind == "max" else min(col)
        word = "highest" if kind == "max" else "lowest"
        return _close(m, v, rel, s["value"]), f"the {word} {series} is {view.fmt(m)}"

    return judge


def _argext(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
        series, x = _series(s["series"], view), _x(s["x"], view)
        col = _column(view, series) if series else []
        if series is None or x is None or not col:
            return None
        best = (max if kind == "max" else min)(col, key=lambda p: p[1])
        word = "highest" if kind == "max" else "lowest"
        return best[0] == x, f"the {word} {series} is at {best[0]}"

    return judge


def _kth_value(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    series, v, k = _series(s["series"], view), _num(s["value"]), ordinal_value(s["k"])
    if series is None or v is None or k is None:
        return None
    col = sorted((v for _, v in _column(view, series)), reverse=True)
    if not 1 <= k <= len(col):
        return None
    return _close(col[k - 1], v, rel, s["value"]), f"value {k} from the top is {col[k - 1]:g}"


def _top_series(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
        series, x = _series(s["series"], view), _x(s["x"], view)
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


def _color(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    key = best_label(s["key"], list(view.colors), 0.75)
    if key is None:
        return None
    shown = view.colors[key]
    return norm(shown) == norm(s["color"]), f"{key} is drawn in {shown}"


def _arith(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    a, b, v = _num(s["a"]), _num(s["b"]), _num(s["value"])
    op = norm(s["op"])
    if a is None or b is None or v is None:
        return None
    ops: dict[str, Callable[[float, float], float]] = {
        "plus": lambda p, q: p + q,
        "minus": lambda p, q: p - q,
        "times": lambda p, q: p * q,
        "multiplied by": lambda p, q: p * q,
        "divided by": lambda p, q: p / q if q else math.nan,
        "over": lambda p, q: p / q if q else math.nan,
    }
    f = ops.get(op)
    if f is None and norm(s["b"]).startswith("by "):
        f, op = ops.get(op + " by"), op + " by"
        b = _num(s["b"].strip()[3:])
    if f is None or b is None:
        return None
    r = f(a, b)
    return _close(r, v, rel, s["value"]), f"{s['a']} {op} {s['b']} is {r:.6g}"


def _aggregate(fn: Callable[[list[float]], float], word: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
        # The items must be a plain list of numbers ("42, 33 and 9"), nothing else.
        if re.sub(r"[\d.,%$\s-]|\band\b", "", s["items"]):
            return None
        xs, v = numbers_written(s["items"]), _num(s["value"])
        if not xs or v is None:
            return None
        r = fn(xs)
        return _close(r, v, rel, s["value"]), f"the {word} is {r:.6g}"

    return judge


def _dp_label_at(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    k = ordinal_value(s["k"])
    if k is None or not 1 <= k <= len(view.x_labels):
        return None
    side = norm(s["side"])
    labels = list(view.x_labels)
    if side in ("right", "bottom"):
        labels = labels[::-1]
    shown = labels[k - 1]
    return norm(shown) == norm(s["label"]), f"mark {k} from the {side} is {shown}"


def _rp_larger(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    series, x, x2 = _series(s["series"], view), _x(s["x"], view), _x(s["x2"], view)
    if series is None or x is None or x2 is None:
        return None
    a, b = view.value(series, x), view.value(series, x2)
    if a is None or b is None:
        return None
    return a > b, f"{series} is {view.fmt(a)} at {x} and {view.fmt(b)} at {x2}"


_VALUE_OF = re.compile(r"^the value of (.+) at (.+)$", re.I)
_DIFF_OF = re.compile(r"^the difference between (.+) and (.+)$", re.I)
_SUM_OF = re.compile(r"^the sum of (.+) and (.+)$", re.I)
_PLUS = re.compile(r"^(.+) plus (.+)$", re.I)


def _subject(text: str, view: ChartView, depth: int = 0) -> float | None:
    """The number a premise phrase stands for: a literal, "the value of S at X", or the
    difference or sum of two such phrases."""
    t = text.strip().rstrip(".")
    n = _num(t)
    if n is not None or depth > 3:
        return n
    combine: tuple[tuple[re.Pattern[str], Callable[[float, float], float]], ...] = (
        (_DIFF_OF, lambda a, b: abs(a - b)),
        (_SUM_OF, lambda a, b: a + b),
    )
    for pattern, fn in combine:
        m = pattern.match(t)
        if m:
            # The first " and " that leaves two readable halves splits the phrase.
            words = m.group(0)[len(m.group(0)) - len(m.group(1)) - len(m.group(2)) - 5 :]
            for cut in [i.start() for i in re.finditer(r" and ", words)]:
                a = _subject(words[:cut], view, depth + 1)
                b = _subject(words[cut + 5 :], view, depth + 1)
                if a is not None and b is not None:
                    return float(fn(a, b))
            return None
    m = _PLUS.match(t)
    if m:
        a, b = _subject(m.group(1), view, depth + 1), _subject(m.group(2), view, depth + 1)
        return None if a is None or b is None else a + b
    m = _VALUE_OF.match(t)
    if m:
        series, x = _series(m.group(1), view), _x(m.group(2), view)
        if series is not None and x is not None:
            return view.value(series, x)
    return None


def _cond(text: str, view: ChartView) -> Callable[[float], bool] | None:
    t = " ".join(text.lower().replace("−", "-").split())
    m = re.match(r"^(above|below|over|under|greater than|less than) ([-\d.,]+)$", t)
    if m:
        v = _num(m.group(2))
        if v is None:
            return None
        up = m.group(1) in ("above", "over", "greater than")
        return (lambda x: x > v) if up else (lambda x: x < v)
    m = re.match(r"^between ([-\d.,]+) and ([-\d.,]+)$", t)
    if m:
        lo, hi = _num(m.group(1)), _num(m.group(2))
        if lo is None or hi is None:
            return None
        return lambda x: lo <= x <= hi
    return None


def _rp_count(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    series, cond, n = _series(s["series"], view), _cond(s["cond"], view), _num(s["n"])
    if series is None or cond is None or n is None:
        return None
    hits = [x for x, v in _column(view, series) if cond(v)]
    return len(hits) == int(n), f"{len(hits)} values of {series} are {s['cond']}"


def _rp_members(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    series, cond = _series(s["series"], view), _cond(s["cond"], view)
    if series is None or cond is None:
        return None
    hits = sorted(norm(x) for x, v in _column(view, series) if cond(v))
    said = sorted(norm(i) for i in _items(s["items"], view.x_labels))
    return hits == said, f"{series} is {s['cond']} at " + (", ".join(hits) or "no label")


def _rp_order(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    series = _series(s["series"], view)
    if series is None:
        return None
    desc = norm(s["direction"]).startswith("highest")
    order = [x for x, _ in sorted(_column(view, series), key=lambda p: p[1], reverse=desc)]
    said = [norm(i) for i in _items(s["items"], view.x_labels)]
    return said == [norm(x) for x in order], "the order is " + ", ".join(order)


_STATS = {"minimum": 0, "lower quartile": 1, "median": 2, "upper quartile": 3, "maximum": 4}


def _dp_box(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
    stat, x, v = _STATS.get(norm(s["stat"])), _x(s["x"], view), _num(s["value"])
    if stat is None or x is None or v is None or x not in view.boxes:
        return None
    shown = view.boxes[x][stat]
    return _close(shown, v, rel, s["value"]), f"the {s['stat']} at {x} is {shown:g}"


def _rp_numbers(kind: str) -> Judge:
    def judge(s: Slots, view: ChartView, rel: float) -> tuple[bool, str] | None:
        a, b = _subject(s["a"], view), _subject(s["b"], view)
        if a is None or b is None:
            return None
        ok = {"less": a < b, "greater": a > b, "equal": _close(a, b, rel)}[kind]
        return ok, f"{a:g} against {b:g}"

    return judge


_JUDGES: dict[str, Judge] = {
    "SP0": _sp0,
    "SP1": _title("y"),
    "SP2": _title("x"),
    "SP6": _sp6,
    "SP8": _sp8,
    "SP9": _sp9,
    "SP9_none": _sp9_none,
    "DP_value": _dp_value,
    "DP_values": _dp_values,
    "DP_max_value": _extreme_value("max"),
    "DP_min_value": _extreme_value("min"),
    "DP_argmax": _argext("max"),
    "DP_argmin": _argext("min"),
    "DP_kth_value": _kth_value,
    "DP_top_series": _top_series("max"),
    "DP_bottom_series": _top_series("min"),
    "DP_color": _color,
    "DP_label_at": _dp_label_at,
    "RP_larger": _rp_larger,
    "RP_less": _rp_numbers("less"),
    "RP_greater": _rp_numbers("greater"),
    "RP_equal": _rp_numbers("equal"),
    "MP_arith": _arith,
    "RP_count": _rp_count,
    "RP_members": _rp_members,
    "RP_order": _rp_order,
    "DP_box": _dp_box,
    "MP_sum": _aggregate(sum, "sum"),
    "MP_mean": _aggregate(statistics.fmean, "mean"),
    "MP_median": _aggregate(statistics.median, "median"),
    "MP_range": _aggregate(lambda v: max(v) - min(v), "range"),
}


def judge_premise(statement: str, view: ChartView, rel: float = 0.0005) -> Verdict | None:
    """The verdict on a premise statement, or None when no checkable template fits it."""
    best: tuple[int, Verdict] | None = None
    for key, judge in _JUDGES.items():
        for template in PREMISE_TEMPLATES.get(key, ()):
            slots = tuple(f for f in _fields(template))
            pattern, literal = template_regex(template, slots)
            m = pattern.match(statement)
            if m is None:
                continue
            got = judge(m.groupdict(), view, rel)
            if got is None:
                continue
            if best is None or literal > best[0]:
                best = (literal, Verdict(truth=got[0], template=key, reason=got[1]))
    return best[1] if best else None


def _fields(template: str) -> list[str]:
    import string

    return [f for _, f, _, _ in string.Formatter().parse(template) if f]
