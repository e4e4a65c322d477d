"""A scripted answerer for chain sub-questions: answers each step from the true table with
pandas, given the answers it gave to the steps the step depends on (as the chain protocol
passes a model its own earlier answers)."""

from __future__ import annotations

from typing import Any

from question_oracle import frame
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


def answer_step(op: TraceOp, spec: ChartSpec, answers: dict[int, str]) -> str:
    """The answer text to one sub-question, computed from the table."""
    a = op.args
    df = frame(spec)
    name = op.op
    if spec.chart_type == "box":
        box = df.copy()
        box.columns = ["min", "q1", "median", "q3", "max"]
        if name == "read_box":
            return _text(float(box.loc[a["x"], a["stat"]]))
        if name == "iqr":
            return _text(float(box.loc[a["x"], "q3"] - box.loc[a["x"], "q1"]))
    if name == "read":
        return _text(float(df.loc[a["x"], a["series"]]))
    if name == "color_of":
        keys = list(df.index) if spec.chart_type == "pie" else list(spec.series_names())
        pal = spec.style.palette
        return color_name(pal[keys.index(a["key"]) % len(pal)])
    if name == "label_at":
        return str(df.index[int(a["k"]) - 1])
    if name == "select":
        col = df[a["series"]]
        lo, hi = a["lo"], a["hi"]
        keep = col > lo if a["cond"] == "above" else col < lo
        if a["cond"] == "between":
            keep = (col > lo) & (col < hi)
        return _text(list(col[keep].index))
    if name == "extreme":
        col = df[a["series"]]
        if a.get("among") is not None:
            col = col[[x.strip() for x in _dep(a["among"], answers).split(",")]]
        return str(col.idxmax() if a["which"] == "max" else col.idxmin())
    if name == "trend_between":
        la, lb = _dep(a["a"], answers), _dep(a["b"], answers)
        first, last = sorted((la, lb), key=list(df.index).index)
        col = df[a["series"]]
        return "increasing" if col[last] > col[first] else "decreasing"
    if name == "aggregate":
        col = df[a["series"]]
        fn = a["fn"]
        v = {"sum": col.sum(), "mean": col.mean(), "median": col.median()}.get(fn)
        return _text(float(col.max() - col.min() if v is None else v))
    if name == "best_of":
        scored = [(r["label"], _num(answers[int(r["ref"])])) for r in a["results"]]
        pick = max if a["which"] == "max" else min
        return pick(scored, key=lambda p: p[1])[0]
    if name == "sort":
        return _text(list(df[a["series"]].sort_values(ascending=not a["descending"]).index))
    if name == "kth_value":
        return _text(float(df[a["series"]].sort_values(ascending=False).iloc[int(a["k"]) - 1]))
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
    raise KeyError(f"no scripted answer for operation {name!r}")


def answer_final(program: str, args: dict[str, Any], spec: ChartSpec) -> str:
    """The answer text to the final question, recomputed from the table."""
    return _text(recompute_program(program, args, spec))
