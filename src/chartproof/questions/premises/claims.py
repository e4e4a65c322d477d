"""Claims: one fact of a chart stated truly once and falsely three times, with the pickers
that find false values among the chart's own (neighbouring values, other labels, legend
labels where an axis title belongs) and the noun phrases that name computed quantities."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from chartproof.numeric import parse_number
from chartproof.questions.describe import box_stat_name, ordinal
from chartproof.questions.ops.filter import condition_text
from chartproof.questions.premises.logic import Logic, fn, lab, num
from chartproof.questions.premises.templates import premise_kind
from chartproof.questions.trace import Op, ref_index
from chartproof.questions.view import ChartView
from chartproof.types import PremiseKind

__all__ = [
    "DISTRACTORS",
    "Claim",
    "Statement",
    "claim",
    "far_numbers",
    "foreign_labels",
    "number_text",
    "other_labels",
    "subject",
    "tolerance",
]

DISTRACTORS = 3
"""False premises per true one (RealCQA-V2's 1:3)."""

_GENERIC_LABELS = ("Other", "Total", "Unknown", "Average", "None of these")


@dataclass(frozen=True, slots=True)
class Statement:
    """A premise before rendering: template, slot texts and its logic."""

    template: str
    slots: dict[str, str]
    logic: Logic

    def key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """Identity of the statement: two statements with the same key read the same."""
        return self.template, tuple(sorted(self.slots.items()))


@dataclass(frozen=True, slots=True)
class Claim:
    """One fact: its true statement and exactly three false ones."""

    kind: PremiseKind
    slot: str
    true: Statement
    false: tuple[Statement, ...]


def claim(slot: str, true: Statement, candidates: Iterable[Statement]) -> Claim | None:
    """The claim with the first three distinct false candidates, None when fewer exist."""
    seen = {true.key()}
    chosen: list[Statement] = []
    for c in candidates:
        k = c.key()
        if k in seen:
            continue
        seen.add(k)
        chosen.append(c)
        if len(chosen) == DISTRACTORS:
            return Claim(
                kind=premise_kind(true.template), slot=slot, true=true, false=tuple(chosen)
            )
    return None


# ---------------------------------------------------------------------- numbers


def tolerance(view: ChartView, v: float, err: float, *, free: bool = False) -> float:
    """Absolute tolerance of a stated number: reading error, print rounding, float noise."""
    return err + view.print_error(v, free=free) + 1e-5 * abs(v) + 1e-9


def number_text(view: ChartView, v: float, *, free: bool = False) -> tuple[str, float]:
    """A number as a premise prints it, and the value of that text."""
    text = view.fmt(v, free=free)
    parsed = parse_number(text)
    return text, v if parsed is None else parsed


def far_numbers(
    view: ChartView,
    v: float,
    tol: float,
    pool: Iterable[float],
    k: int = DISTRACTORS,
    *,
    free: bool = False,
) -> list[tuple[str, float]]:
    """`k` numbers clearly different from `v` (beyond twice `tol`, printed differently):
    from `pool` first (the chart's other values, in order of preference), then made up
    around `v` when the chart has too few."""
    true_text, _ = number_text(view, v, free=free)
    out: list[tuple[str, float]] = []
    texts = {true_text}

    def offer(c: float) -> None:
        text, stated = number_text(view, c, free=free)
        if text in texts or abs(stated - v) <= 2 * tol:
            return
        texts.add(text)
        out.append((text, stated))

    for c in pool:
        if len(out) >= k:
            return out
        offer(c)
    step = (
        max(3 * tol, 0.1 * abs(v), 1e-3)
        if free
        else max(3 * tol, 0.12 * view.span, 0.1 * abs(v), 1e-3)
    )
    for mult in (1, -1, 2, -2, 3, 4, -3, 5):
        if len(out) >= k:
            break
        offer(v + mult * step)
    return out


def chart_numbers(view: ChartView, near: float) -> list[float]:
    """Every value shown in the chart, closest to `near` first (plausible distractors)."""
    vals = [v for col in view.values.values() for v in col if v is not None]
    vals += [v for b in view.boxes.values() for v in b]
    return sorted(set(vals), key=lambda c: abs(c - near))


# ---------------------------------------------------------------------- labels


def foreign_labels(view: ChartView) -> list[str]:
    """Plausible labels that are not x labels: ticks just outside a time axis, legend
    labels, axis titles, generic words."""
    xs = {x.lower() for x in view.x_labels}
    out: list[str] = []
    if view.x_labels and all(x.isdigit() for x in view.x_labels):
        first, last = int(view.x_labels[0]), int(view.x_labels[-1])
        step = 1 if last >= first else -1
        out += [str(last + step), str(first - step), str(last + 2 * step)]
    out += list(view.series)
    out += [t for t in (view.y_title, view.x_title, view.title) if t]
    out += list(_GENERIC_LABELS)
    seen: set[str] = set()
    keep = []
    for o in out:
        low = o.lower()
        if low in xs or low in seen or not o:
            continue
        seen.add(low)
        keep.append(o)
    return keep


def other_labels(true: str, preferred: Sequence[str], fill: Sequence[str]) -> list[str]:
    """Labels other than `true` (case-insensitively), preferred ones first."""
    out: list[str] = []
    seen = {true.lower()}
    for lab_ in (*preferred, *fill):
        low = lab_.lower()
        if low in seen or not lab_:
            continue
        seen.add(low)
        out.append(lab_)
    return out


def neighbours(labels: Sequence[str], at: str) -> list[str]:
    """Labels ordered by distance from `at` in display order (nearest first)."""
    if at not in labels:
        return list(labels)
    i = labels.index(at)
    return sorted((x for x in labels if x != at), key=lambda x: abs(labels.index(x) - i))


# ---------------------------------------------------------------------- subjects


def _ref(op: Op, key: str, ops: Sequence[Op]) -> Op | None:
    i = ref_index(op.args.get(key))
    return None if i is None else ops[i]


_ARITH_TEXT = {
    "add": ("{a} plus {b}", "Add"),
    "sub": ("{a} minus {b}", "Sub"),
    "absdiff": ("the difference between {a} and {b}", "AbsDiff"),
    "div": ("{a} divided by {b}", "Div"),
    "mean": ("the average of {a} and {b}", "Mean2"),
    "percent": ("{a} as a percentage of {b}", "Percent"),
}

_AGGREGATE_TEXT = {
    "sum": ("the total of {s}", "Sum"),
    "mean": ("the average of {s}", "Mean"),
    "median": ("the median of {s}", "Median"),
    "range": ("the range of {s}", "Range"),
}

_COUNT_WORDS = {
    "lines": "lines",
    "legend_labels": "legend labels",
    "series": "data series",
    "marks": "marks",
}


def count_words(what: str) -> str:
    """ "legend_labels" → "legend labels"."""
    return _COUNT_WORDS[what]


def subject(view: ChartView, op: Op, ops: Sequence[Op], depth: int = 0) -> tuple[str, Logic] | None:
    """A noun phrase naming the number an operation produced, and its logic term; None for
    operations whose result is not a chart quantity."""
    a = op.args
    name = op.op
    if name == "read":
        s, x = str(a["series"]), str(a["x"])
        return f"the value of {s} at {x}", fn("Value", lab(x), lab(s))
    if name == "read_box":
        stat, x = str(a["stat"]), str(a["x"])
        return f"the {box_stat_name(stat)} at {x}", fn("Box", lab(stat), lab(x))
    if name == "arith" and depth < 2:
        ra, rb = _ref(op, "a", ops), _ref(op, "b", ops)
        sa = subject(view, ra, ops, depth + 1) if ra else None
        sb = subject(view, rb, ops, depth + 1) if rb else None
        if sa is None or sb is None:
            return None
        text, f = _ARITH_TEXT[str(a["fn"])]
        return text.format(a=sa[0], b=sb[0]), fn(f, sa[1], sb[1])
    if name == "aggregate":
        s = str(a["series"])
        text, f = _AGGREGATE_TEXT[str(a["fn"])]
        return text.format(s=s), fn(f, lab(s))
    if name == "extreme_value":
        s = str(a["series"])
        high = a["which"] == "max"
        return (
            f"the {'highest' if high else 'lowest'} value of {s}",
            fn("Max" if high else "Min", lab(s)),
        )
    if name == "kth_value":
        s, k = str(a["series"]), int(str(a["k"]))
        return f"the {ordinal(k)} largest value of {s}", fn("KthLargest", lab(s), num(k))
    if name == "stack_total":
        x = str(a["x"])
        return f"the total of the {x} bar", fn("StackTotal", lab(x))
    if name == "iqr":
        x = str(a["x"])
        return f"the interquartile range of {x}", fn("IQR", lab(x))
    if name == "widest_gap":
        s = str(a["series"])
        ex = a["exclude"]
        assert isinstance(ex, list)
        x1, x2 = str(ex[0]), str(ex[1])
        return (
            f"the widest gap in {s} between other {view.x_label} values",
            fn("WidestGap", lab(s), lab(x1), lab(x2)),
        )
    if name == "count_items":
        what = str(a["what"])
        return f"the number of {count_words(what)}", fn("CountItems", lab(what))
    if name in ("sum_where", "count"):
        s, cond = str(a["series"]), str(a["cond"])
        lo, hi = float(str(a["lo"])), a.get("hi")
        text = condition_text(view, cond, lo, None if hi is None else float(str(hi)))
        args = [lab(s), lab(cond), num(lo)] + ([] if hi is None else [num(float(str(hi)))])
        if name == "sum_where":
            return f"the sum of the {s} values {text}", fn("SumWhere", *args)
        return f"the number of {view.x_label} values with {s} {text}", fn("Count", *args)
    return None
