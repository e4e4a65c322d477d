"""A scripted answerer for chain sub-questions: answers each step from the true table with
pandas, given the answers it gave to the steps the step depends on (as the chain protocol
passes a model its own earlier answers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from question_oracle import frame, points
from question_oracle import recompute as recompute_program

from chartproof.charts.colors import color_name
from chartproof.numeric import format_number, parse_number
from chartproof.questions.trace import TraceOp
from chartproof.types import ChartSpec

__all__ = ["answer_final", "answer_step"]


def _num(text: str) -> float:
    v = parse_number(text)
    if v is None:
        raise ValueError(f"not a number: {text!r}")
    return v


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "Yes" if v else "No"
    if isinstance(v, float):
        return format_number(round(v, 6))
    if isinstance(v, (list, tuple)):
        return ", ".join(_text(x) for x in v)
    return str(v)


def _dep(arg: Any, answers: dict[int, str]) -> str:
    return answers[int(arg["ref"])]


def _colors(spec: ChartSpec, df: Any) -> dict[str, str]:
    keys = list(df.index) if spec.chart_type == "pie" else list(spec.series_names())
    pal = spec.style.palette
    return {k: color_name(pal[i % len(pal)]) for i, k in enumerate(keys)}


def _label(a: dict[str, Any], key: str, answers: dict[int, str], spec: ChartSpec, df: Any) -> str:
    """A label argument: taken from the answer of the step it refers to when it has one (a
    colour answer names the series drawn in it)."""
    ref = a.get(f"{key}_ref")
    if ref is None:
        return str(a[key])
    given = _dep(ref, answers)
    by_colour = {c: k for k, c in _colors(spec, df).items()}
    return by_colour.get(given, given)


def _list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _holds(cond: str, v: float, lo: float, hi: float | None) -> bool:
    if cond == "above":
        return v > lo
    if cond == "below":
        return v < lo
    return lo < v < (hi if hi is not None else lo)


def _pearson(spec: ChartSpec, series: str) -> float:
    pts = points(spec, series)
    return float(pts["x"].corr(pts["y"]))


def answer_step(
    op: TraceOp, spec: ChartSpec, answers: dict[int, str], trace: Sequence[TraceOp] = ()
) -> str:
    """The answer text to one sub-question, computed from the table and, for a step that
    depends on earlier ones, from the answers given to those (`trace` names the labels of
    the reads a filter or sum works on)."""
    a = op.args
    name = op.op
    if spec.chart_type == "scatter":
        return _scatter_step(op, spec, answers)
    df = frame(spec)
    if spec.chart_type == "box":
        box = df.copy()
        box.columns = ["min", "q1", "median", "q3", "max"]
        if name == "read_box":
            return _text(float(box.loc[_label(a, "x", answers, spec, df), a["stat"]]))
        if name == "iqr":
            x = _label(a, "x", answers, spec, df)
            return _text(float(box.loc[x, "q3"] - box.loc[x, "q1"]))
        if name == "box_extreme":
            col = box[a["stat"]]
            return str(col.idxmax() if a["which"] == "max" else col.idxmin())
    if name == "read":
        x, s = _label(a, "x", answers, spec, df), _label(a, "series", answers, spec, df)
        return _text(float(df.loc[x, s]))
    if name == "color_of":
        return _colors(spec, df)[_label(a, "key", answers, spec, df)]
    if name == "key_of_color":
        return {c: k for k, c in _colors(spec, df).items()}[a["color"]]
    if name == "label_at":
        return str(df.index[int(a["k"]) - 1])
    if name == "position_of":
        return _text(float(list(df.index).index(_label(a, "x", answers, spec, df)) + 1))
    if name == "select":
        lo, hi = a["lo"], a["hi"]
        if "values" in a:  # filtering the values read in earlier steps
            reads = [int(r["ref"]) for r in a["values"]]
            kept = [
                str(trace[i].args["x"])
                for i in reads
                if _holds(a["cond"], _num(answers[i]), lo, hi)
            ]
            return _text(kept)
        col = df[_label(a, "series", answers, spec, df)]
        keep = col > lo if a["cond"] == "above" else col < lo
        if a["cond"] == "between":
            keep = (col > lo) & (col < hi)
        return _text(list(col[keep].index))
    if name == "total_of":
        reads = [int(r["ref"]) for r in a["values"]]
        keep = set(_list(_dep(a["among"], answers))) if a.get("among") else None
        vals = [_num(answers[i]) for i in reads if keep is None or str(trace[i].args["x"]) in keep]
        return _text(sum(vals))
    if name == "extreme":
        col = df[a["series"]]
        if a.get("among") is not None:
            col = col[_list(_dep(a["among"], answers))]
        return str(col.idxmax() if a["which"] == "max" else col.idxmin())
    if name == "kth":
        col = df[a["series"]].sort_values(ascending=a["which"] != "max")
        return str(col.index[int(a["k"]) - 1])
    if name == "nth_of":
        return _list(_dep(a["ranking"], answers))[int(a["k"]) - 1]
    if name == "trend_between":
        la, lb = _dep(a["a"], answers), _dep(a["b"], answers)
        first, last = sorted((la, lb), key=list(df.index).index)
        col = df[a["series"]]
        return "increasing" if col[last] > col[first] else "decreasing"
    if name == "trend_of":
        pa, pb = _num(_dep(a["pos_a"], answers)), _num(_dep(a["pos_b"], answers))
        va, vb = _num(_dep(a["val_a"], answers)), _num(_dep(a["val_b"], answers))
        first, last = (va, vb) if pa < pb else (vb, va)
        return "increasing" if last > first else "decreasing"
    if name == "aggregate":
        col = df[_label(a, "series", answers, spec, df)]
        fn = a["fn"]
        v = {"sum": col.sum(), "mean": col.mean(), "median": col.median()}.get(fn)
        return _text(float(col.max() - col.min() if v is None else v))
    if name == "sort":
        return _text(list(df[a["series"]].sort_values(ascending=not a["descending"]).index))
    if name == "kth_value":
        return _text(float(df[a["series"]].sort_values(ascending=False).iloc[int(a["k"]) - 1]))
    return _combine(op, answers)


def _combine(op: TraceOp, answers: dict[int, str]) -> str:
    """Steps computed from earlier answers alone."""
    a, name = op.args, op.op
    if name == "best_of":
        # a name an earlier step found is that step's answer
        scored = [
            (
                _dep(r["label_ref"], answers) if "label_ref" in r else r["label"],
                _num(answers[int(r["ref"])]),
            )
            for r in a["results"]
        ]
        pick = max if a["which"] == "max" else min
        return pick(scored, key=lambda p: p[1])[0]
    if name == "arith":
        x, y = _num(_dep(a["a"], answers)), _num(_dep(a["b"], answers))
        v = {
            "add": x + y,
            "sub": x - y,
            "absdiff": abs(x - y),
            "mean": (x + y) / 2,
        }.get(a["fn"])
        if v is None:
            v = x / y if a["fn"] == "div" else 100 * x / y
        return _text(v)
    if name == "compare":
        x, y = _num(_dep(a["a"], answers)), _num(_dep(a["b"], answers))
        return _text(x < y if a["rel"] == "lt" else x > y)
    if name in ("slope_agrees", "extent_slope"):
        dx, dy = _num(_dep(a["dx"], answers)), _num(_dep(a["dy"], answers))
        positive = _dep(a["band"], answers).endswith("positive")
        if name == "extent_slope":
            return _text((1.0 if positive else -1.0) * dy / dx)
        return _text(((dx > 0) == (dy > 0)) == positive)
    raise KeyError(f"no scripted answer for operation {name!r}")


def _scatter_step(op: TraceOp, spec: ChartSpec, answers: dict[int, str]) -> str:
    a, name = op.args, op.op
    if name in ("color_of", "key_of_color"):
        colors = _colors(spec, None)
        if name == "key_of_color":
            return {c: k for k, c in colors.items()}[a["color"]]
        return colors[str(a["key"])]
    if name not in ("point_extreme", "point_spread", "corr_class", "corr_direction"):
        return _combine(op, answers)
    ref = a.get("series_ref")
    series = str(a["series"])
    if ref is not None:
        given = _dep(ref, answers)
        series = {c: k for k, c in _colors(spec, None).items()}.get(given, given)
    pts = points(spec, series)
    if name == "point_extreme":
        by = a.get("by", "y")
        row = pts.loc[pts[by].idxmax() if a["which"] == "max" else pts[by].idxmin()]
        return _text(float(row[a["axis"]]))
    if name == "point_spread":
        col = pts[a["axis"]]
        return _text(float(col.max() - col.min()))
    r = _pearson(spec, series)
    if name == "corr_direction":
        return "positive" if r > 0 else "negative"
    if r < -0.5:
        return "high negative"
    if r < 0:
        return "low negative"
    return "low positive" if r <= 0.5 else "high positive"


def answer_final(program: str, args: dict[str, Any], spec: ChartSpec) -> str:
    """The answer text to the final question, recomputed from the table."""
    return _text(recompute_program(program, args, spec))
