"""An independent re-derivation of every program's answer with pandas/numpy, straight from a
spec's table (the property tests compare it with the programs).

Written without calling chartproof's question code: only the table, the style (value labels
change the shown numbers) and the palette's colour names are used.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from chartproof.charts.colors import color_name
from chartproof.numeric import parse_number
from chartproof.types import ChartSpec

__all__ = ["frame", "points", "recompute", "same"]

_NAMES = {
    "vbar": "vertical bar chart",
    "hbar": "horizontal bar chart",
    "grouped_bar": "grouped bar chart",
    "stacked_bar": "stacked bar chart",
    "line": "line chart",
    "area": "area chart",
    "pie": "pie chart",
    "scatter": "scatter plot",
    "box": "box plot",
}


def _shown(spec: ChartSpec, v: float) -> float:
    if not spec.style.value_labels:
        return float(v)
    p = parse_number(spec.style.value_format.format(v))
    return float(v) if p is None else p


_FRAMES: dict[int, tuple[ChartSpec, pd.DataFrame]] = {}


def frame(spec: ChartSpec) -> pd.DataFrame:
    """Shown values: one row per x label, one column per series (cached per spec object)."""
    hit = _FRAMES.get(id(spec))
    if hit is not None and hit[0] is spec:
        return hit[1]
    df = _frame(spec)
    if len(_FRAMES) > 64:
        _FRAMES.clear()
    _FRAMES[id(spec)] = (spec, df)
    return df


def _frame(spec: ChartSpec) -> pd.DataFrame:
    t = spec.table
    data = {
        y: [None if v is None else _shown(spec, v) for v in t.numbers(y)] for y in spec.encoding.y
    }
    return pd.DataFrame(data, index=list(t.labels(spec.encoding.x)), dtype=float)


def _colors(spec: ChartSpec) -> dict[str, str]:
    pal = spec.style.palette
    keys = list(frame(spec).index) if spec.chart_type == "pie" else list(spec.series_names())
    return {k: color_name(pal[i % len(pal)]) for i, k in enumerate(keys)}


def _pearson(spec: ChartSpec, series: str) -> float:
    t, enc = spec.table, spec.encoding
    df = pd.DataFrame({"x": t.numbers(enc.x)}, dtype=float)
    if enc.series is not None:
        df["y"] = pd.Series(t.numbers(enc.y[0]), dtype=float)
        df = df[[g == series for g in t.labels(enc.series)]]
    else:
        df["y"] = pd.Series(t.numbers(series), dtype=float)
    df = df.dropna()
    return float(np.corrcoef(df["x"].to_numpy(), df["y"].to_numpy())[0, 1])


def _band(r: float) -> str:
    if r < -0.5:
        return "high negative"
    if r < 0:
        return "low negative"
    if r <= 0.5:
        return "low positive"
    return "high positive"


def _box(spec: ChartSpec) -> pd.DataFrame:
    df = frame(spec)
    df.columns = ["min", "q1", "median", "q3", "max"]
    return df


def as_drawn(spec: ChartSpec) -> ChartSpec:
    """The spec with every name, label and title as the chart draws it (mathtext converted
    cell by cell), which is how questions and answers name them."""
    from chartproof.charts.mathtext import display_text as d

    t = spec.table
    columns = tuple(
        c.model_copy(update={"name": d(c.name), "unit": d(c.unit) if c.unit else c.unit})
        for c in t.columns
    )
    rows = tuple(tuple(d(v) if isinstance(v, str) else v for v in row) for row in t.rows)
    enc = spec.encoding
    encoding = enc.model_copy(
        update={
            "x": d(enc.x),
            "y": tuple(d(y) for y in enc.y),
            "series": d(enc.series) if enc.series else None,
        }
    )
    st = spec.style
    style = st.model_copy(
        update={k: d(getattr(st, k)) for k in ("title", "x_title", "y_title") if getattr(st, k)}
    )
    table = t.model_copy(update={"columns": columns, "rows": rows})
    return spec.model_copy(update={"table": table, "encoding": encoding, "style": style})


def recompute(name: str, args: dict[str, Any], spec: ChartSpec) -> Any:
    """The answer value of program `name` with `args` on `spec`, recomputed from the table
    as drawn (`as_drawn`)."""
    spec = as_drawn(spec)
    if name.startswith("structure_"):
        return _structure(name[len("structure_") :], spec)
    if spec.chart_type == "box":
        return _box_program(name, args, _box(spec))
    if spec.chart_type == "scatter":
        r = _pearson(spec, args["series"]) if "series" in args else None
        if name == "correlation_band":
            return _band(r) == args["band"]  # type: ignore[arg-type]
        if name == "correlation_kind":
            return _band(r)  # type: ignore[arg-type]
        if name.startswith("chain_"):
            return _scatter_chain(name, args, spec)
        return _colors_program(name, args, spec)
    df = frame(spec)
    s = args.get("series", df.columns[0])
    col = df[s] if s in df.columns else None
    x, x2 = args.get("x"), args.get("x2")
    t = args.get("threshold")
    if name in ("value_at", "pie_value"):
        return df.loc[x, s if name == "value_at" else df.columns[0]]
    if name == "value_of_color":
        series = {c: k for k, c in _colors(spec).items()}[args["color"]]
        return df.loc[x, series]
    if name in ("color_of_series", "color_of_wedge", "series_of_color", "count_colors"):
        return _colors_program(name, args, spec)
    if name == "color_of_max_series":
        return _colors(spec)[df.loc[x].idxmax()]
    if name == "label_at_position":
        return df.index[args["k"] - 1]
    if name == "position_of_label":
        return float(list(df.index).index(x) + 1)
    if name == "value_at_position":
        return df.iloc[args["k"] - 1, 0]
    if name == "x_with_value":
        return col[col == args["value"]].index[0]  # type: ignore[index]
    if name == "argmax_x":
        return col.idxmax()  # type: ignore[union-attr]
    if name == "argmin_x":
        return col.idxmin()  # type: ignore[union-attr]
    if name == "max_value":
        return col.max()  # type: ignore[union-attr]
    if name == "min_value":
        return col.min()  # type: ignore[union-attr]
    if name == "compare_less":
        return bool(df.loc[x, s] < df.loc[x2, s])
    if name == "larger_of_two":
        return x if df.loc[x, s] > df.loc[x2, s] else x2
    if name == "argmax_series_at_x":
        return df.loc[x].idxmax()
    if name == "diff_two":
        return abs(df.loc[x, s] - df.loc[x2, s])
    if name == "ratio_two":
        return df.loc[x, s] / df.loc[x2, s]
    if name == "sum_two":
        return df.loc[x, s] + df.loc[x2, s]
    if name == "average_of_two":
        return (df.loc[x, s] + df.loc[x2, s]) / 2
    if name == "average":
        return col.mean()  # type: ignore[union-attr]
    if name == "total":
        return col.sum()  # type: ignore[union-attr]
    if name == "median_series":
        return col.median()  # type: ignore[union-attr]
    if name == "max_minus_min":
        return col.max() - col.min()  # type: ignore[union-attr]
    if name == "diff_series_at_x":
        return abs(df.loc[x, s] - df.loc[x, args["series2"]])
    if name == "stack_total":
        return df.loc[x].sum()
    if name == "count_above":
        return float((col > t).sum())  # type: ignore[operator]
    if name == "count_below":
        return float((col < t).sum())  # type: ignore[operator]
    if name == "count_above_average":
        return float((col > col.mean()).sum())  # type: ignore[union-attr,operator]
    if name == "labels_above":
        return tuple(col[col > t].index)  # type: ignore[index,operator]
    if name == "labels_between":
        return tuple(col[(col > args["lo"]) & (col < args["hi"])].index)  # type: ignore[index,operator]
    if name == "sum_above":
        return col[col > t].sum()  # type: ignore[index,operator]
    if name == "first_above":
        return col[col > t].index[0]  # type: ignore[index,operator]
    if name in ("monotone_increase", "monotone_decrease"):
        d = np.diff(col.to_numpy())  # type: ignore[union-attr]
        return bool((d > 0).all() if name == "monotone_increase" else (d < 0).all())
    if name == "trend_from_to":
        return "increasing" if df.loc[x2, s] > df.loc[x, s] else "decreasing"
    if name in ("largest_rise", "largest_fall"):
        d = col.diff()  # type: ignore[union-attr]
        return d.idxmax() if name == "largest_rise" else d.idxmin()
    if name == "lines_cross":
        diff = df[s] - df[args["series2"]]
        return bool((diff > 0).any() and (diff < 0).any())
    if name in ("sort_descending", "sort_ascending"):
        return tuple(col.sort_values(ascending=name == "sort_ascending").index)  # type: ignore[union-attr]
    if name == "kth_largest_label":
        return col.sort_values(ascending=False).index[args["k"] - 1]  # type: ignore[union-attr]
    if name == "second_largest_value":
        return col.sort_values(ascending=False).iloc[1]  # type: ignore[union-attr]
    if name == "rank_of_label":
        return float(list(col.sort_values(ascending=False).index).index(x) + 1)  # type: ignore[union-attr]
    if name == "order_series_at_x":
        return tuple(df.loc[x].sort_values(ascending=False).index)
    if name == "ratio_max_min":
        return col.max() / col.min()  # type: ignore[union-attr]
    if name == "top_two_gap":
        top = col.sort_values(ascending=False)  # type: ignore[union-attr]
        return top.iloc[0] - top.iloc[1]
    if name == "pie_share":
        return 100 * df.loc[x].iloc[0] / df.iloc[:, 0].sum()
    if name == "diff_vs_any_two":
        d = abs(df.loc[x, s] - df.loc[x2, s])
        others = [
            abs(a - b)
            for i, (la, a) in enumerate(col.items())  # type: ignore[union-attr]
            for lb, b in list(col.items())[i + 1 :]  # type: ignore[union-attr]
            if {la, lb} != {x, x2}
        ]
        return bool(d > max(others))
    if name == "sum_vs_max":
        return bool(df.loc[x, s] + df.loc[x2, s] > col.max())  # type: ignore[union-attr]
    if name == "series_diff_compare":
        a = abs(df.loc[x, s] - df.loc[x2, s])
        b = abs(df.loc[x, args["series2"]] - df.loc[x2, args["series2"]])
        return bool(a > b)
    if name == "sum_two_series_vs_third":
        return bool((df[s] + df[args["series2"]] > df[args["series3"]]).all())
    if name == "lines_vs_legend":
        n_legend = len(df.columns) if spec.style.legend and len(df.columns) > 1 else 0
        return len(df.columns) == n_legend
    if name in _COMPUTED:
        return _computed_program(name, args, spec, df)
    if name.startswith("figure_"):
        return _figure_program(name, args, df)
    return _chain_program(name, args, spec, df)


_COMPUTED = frozenset({
    "count_equal", "count_equal_all", "missing_value", "gap_of_maxima", "gap_of_minima",
    "count_totals_above", "count_totals_below", "total_excluding",
    "series_of_max",
    "series_of_min", "closest_value", "closest_value_in", "closest_series_at", "count_labels",
    "color_of_value_is", "value_is", "series_color_is", "wedge_color_is",
    "quantity_greater", "quantity_less", "quantity_times",
})  # fmt: skip

_STATS = {"highest value": "max", "lowest value": "min", "median": "median", "total": "sum"}


def _quantity(phrase: str, df: pd.DataFrame) -> float:
    """The number a drawn quantity phrase names, from the table."""
    n = parse_number(phrase)
    if n is not None:
        return n
    m = re.fullmatch(r"the value of (.+) in (.+)", phrase)
    if m and m.group(1) in df.columns:
        return float(df.loc[m.group(2), m.group(1)])
    m = re.fullmatch(r"the (highest value|lowest value|median|total) of (.+)", phrase)
    if m and m.group(2) in df.columns:
        return float(df[m.group(2)].agg(_STATS[m.group(1)]))
    return float(df.loc[phrase, df.columns[0]])  # a label of a one-series chart


def _listed(text: str, labels: Any) -> list[str]:
    """The labels a list such as "A, B and C" names (each between commas or "and")."""
    sep = r"(?:, and |, | and )"
    return [lab for lab in labels if re.search(rf"(?:^|{sep}){re.escape(lab)}(?:$|{sep})", text)]


def _computed_program(name: str, args: dict[str, Any], spec: ChartSpec, df: pd.DataFrame) -> Any:
    """The human questions of the "computed" family."""
    s, x, v, t = args.get("series"), args.get("x"), args.get("value"), args.get("threshold")
    if name in ("count_equal", "count_equal_all"):
        cells = df[_listed(s, df.columns)].stack() if name == "count_equal" else df.stack()
        return float(((cells - v).abs() <= 1e-9 + 0.005 * abs(v)).sum())
    if name == "missing_value":
        listed = [parse_number(p) for p in args["values"].split(", ")]
        for col in df.columns:
            rest = list(df[col].dropna())
            for p in listed:
                if p not in rest:
                    break
                rest.remove(p)
            else:
                if len(rest) == 1:
                    return rest[0]
        raise AssertionError(f"no series leaves one value out of {listed}")
    if name in ("gap_of_maxima", "gap_of_minima"):
        pick = "max" if name == "gap_of_maxima" else "min"
        return abs(df[s].agg(pick) - df[args["series2"]].agg(pick))
    if name in ("count_totals_above", "count_totals_below"):
        totals = df.sum(axis=1, min_count=1).dropna()
        return float((totals > t if name == "count_totals_above" else totals < t).sum())
    if name == "total_excluding":
        return df[s].drop(index=_listed(x, df.index)).sum()
    if name == "series_of_max":
        return df.max().idxmax()
    if name == "series_of_min":
        return df.min().idxmin()
    if name == "closest_value":
        return (df - v).abs().min(axis=1).idxmin()
    if name == "closest_value_in":
        return (df[s] - v).abs().idxmin()
    if name == "closest_series_at":
        return (df.loc[x] - v).abs().idxmin()
    if name == "count_labels":
        return float(len(df.index))
    if name in ("series_color_is", "wedge_color_is"):  # the key's colour or another family's
        return _colors(spec)[args.get("series", args.get("x"))] == args["color"]
    if name.startswith("quantity_"):
        a, b = _quantity(args["a"], df), _quantity(args["b"], df)
        if name == "quantity_times":
            return bool(abs(a / b - args["k"]) <= 0.05 * args["k"])
        return bool(a > b if name == "quantity_greater" else a < b)
    if name == "value_is":  # within 5 % of the claim, at least 0.5
        return bool(abs(df.loc[x, s] - v) <= max(0.05 * abs(v), 0.5))
    # color_of_value_is: the question names the mark's own colour or one of another family
    stacked = df.stack()
    (row, col), *_ = stacked[(stacked - v).abs() <= 1e-9].index
    return _colors(spec)[row if spec.chart_type == "pie" else col] == args["color"]


def _colors_program(name: str, args: dict[str, Any], spec: ChartSpec) -> Any:
    colors = _colors(spec)
    if name == "color_of_series":
        return colors[args["series"]]
    if name == "color_of_wedge":
        return colors[args["x"]]
    if name == "series_of_color":
        return {c: k for k, c in colors.items()}[args["color"]]
    if name == "count_colors":
        return float(len(set(colors.values())))
    raise KeyError(name)


def _chain_program(name: str, args: dict[str, Any], spec: ChartSpec, df: pd.DataFrame) -> Any:
    s = args.get("series", df.columns[0])
    col = df[s] if s in df.columns else df.iloc[:, 0]
    by_pos = col.reset_index(drop=True)
    if name == "chain_range_trend":
        band = col[(col > args["lo"]) & (col < args["hi"])]
        lo_x, hi_x = band.idxmin(), band.idxmax()
        pos = list(df.index)
        first, last = sorted((lo_x, hi_x), key=pos.index)
        return "increasing" if col[last] > col[first] else "decreasing"
    if name == "chain_color_total":
        return _colors(spec)[df.sum().idxmax()]
    if name == "chain_threshold_share":
        return 100 * col[col > args["threshold"]].sum() / col.sum()
    if name == "chain_top_gaps":
        top = col.sort_values(ascending=False).to_numpy()
        return bool(top[0] - top[1] > top[1] - top[2])
    if name in ("chain_position_average", "chain_series_average"):
        k, k2, k3 = (int(args[n]) - 1 for n in ("k", "k2", "k3"))
        return bool(by_pos[k] > (by_pos[k2] + by_pos[k3]) / 2)
    if name == "chain_position_share":
        return 100 * (by_pos[int(args["k"]) - 1] + by_pos[int(args["k2"]) - 1]) / col.sum()
    if name == "chain_growth":
        return _colors(spec)[(df.loc[args["x2"]] - df.loc[args["x"]]).idxmax()]
    if name == "chain_pie_top_share":
        ranked = col.sort_values(ascending=False)
        return 100 * (ranked.iloc[0] + ranked.iloc[1]) / col.sum()
    raise KeyError(f"oracle has no recomputation for {name!r}")


def points(spec: ChartSpec, series: str) -> pd.DataFrame:
    t, enc = spec.table, spec.encoding
    df = pd.DataFrame({"x": t.numbers(enc.x)}, dtype=float)
    if enc.series is not None:
        df["y"] = pd.Series(t.numbers(enc.y[0]), dtype=float)
        df = df[[g == series for g in t.labels(enc.series)]]
    else:
        df["y"] = pd.Series(t.numbers(series), dtype=float)
    return df.dropna()


def _scatter_chain(name: str, args: dict[str, Any], spec: ChartSpec) -> Any:
    if name == "chain_scatter_groups":
        groups = list(_colors(spec))
        best = max(groups, key=lambda g: points(spec, g)["y"].max())
        return _band(_pearson(spec, best))
    pts = points(spec, args["series"])
    r = _pearson(spec, args["series"])
    if name == "chain_scatter_extent":
        sign = 1.0 if r > 0 else -1.0
        return sign * (pts["y"].max() - pts["y"].min()) / (pts["x"].max() - pts["x"].min())
    by = "y" if name == "chain_scatter_slope" else "x"
    hi, lo = pts.loc[pts[by].idxmax()], pts.loc[pts[by].idxmin()]
    rising = (hi["x"] - lo["x"] > 0) == (hi["y"] - lo["y"] > 0)
    return bool(rising == (r > 0))


def _box_program(name: str, args: dict[str, Any], df: pd.DataFrame) -> Any:
    x, x2 = args.get("x"), args.get("x2")
    stat = {
        "box_median_less": "median",
        "box_q3_less": "q3",
        "box_q1_less": "q1",
        "box_max_less": "max",
        "box_min_less": "min",
    }
    if name in stat:
        return bool(df.loc[x, stat[name]] < df.loc[x2, stat[name]])
    iqr = df["q3"] - df["q1"]
    if name == "box_equal_iqr":
        return bool(iqr.round(9).duplicated().any())
    if name == "box_highest_median":
        return df["median"].idxmax()
    if name == "box_median_value":
        return df.loc[x, "median"]
    if name in ("box_iqr",):
        return iqr[x]
    if name == "chain_box_iqr":
        return abs(iqr[df["median"].idxmax()] - iqr[df["median"].idxmin()])
    if name in ("chain_box_width", "chain_box_reach"):
        span = iqr if name == "chain_box_width" else df["max"] - df["min"]
        return bool(span[df["median"].idxmax()] > span[df["median"].idxmin()])
    if name == "chain_box_positions":
        by_pos = iqr.reset_index(drop=True)
        return bool(by_pos[int(args["k"]) - 1] > by_pos[int(args["k2"]) - 1])
    if name in ("chain_box_skew", "chain_box_whiskers"):
        low, high = ("q1", "q3") if name == "chain_box_skew" else ("min", "max")
        box = df.iloc[int(args["k"]) - 1]
        return bool(box[high] - box["median"] < box["median"] - box[low])
    if name.startswith("structure_"):
        raise KeyError("structure queries of box plots go through _structure")
    raise KeyError(f"oracle has no box recomputation for {name!r}")


def _structure(fact: str, spec: ChartSpec) -> Any:
    st = spec.style
    series = spec.series_names() if spec.chart_type != "box" else ()
    if fact == "chart_type":
        return _NAMES[spec.chart_type]
    if fact == "y_title":
        return st.y_title
    if fact == "x_title":
        return st.x_title
    if fact == "categorical":
        return spec.table.col(spec.encoding.x).kind != "number"
    if fact == "log_scale":
        return st.y_scale == "log"
    legend = st.legend and (len(series) > 1 or spec.chart_type == "pie")
    if fact == "legend":
        return legend
    if fact == "n_series":
        return float(len(series))
    if fact == "legend_labels":
        return tuple(frame(spec).index) if spec.chart_type == "pie" else tuple(series)
    if fact == "x_ticks":
        return tuple(spec.table.labels(spec.encoding.x))
    if fact == "y_range":
        if spec.chart_type == "box":
            b = _box(spec)
            return (float(b["min"].min()), float(b["max"].max()))
        if spec.chart_type == "scatter":
            ys = pd.Series(spec.table.numbers(spec.encoding.y[0]), dtype=float).dropna()
            return (float(ys.min()), float(ys.max()))
        vals = frame(spec).to_numpy().ravel()
        vals = vals[~np.isnan(vals)]
        return (float(vals.min()), float(vals.max()))
    raise KeyError(f"oracle has no structure fact {fact!r}")


def same(got: Any, want: Any) -> bool:
    """Whether a program's value equals the recomputed one (numbers to the six significant
    digits answers keep)."""
    if isinstance(want, (np.bool_, bool)):
        return got is bool(want)
    if isinstance(want, (float, np.floating, int)) and not isinstance(want, bool):
        w = float(want)
        return isinstance(got, float) and math.isclose(got, w, rel_tol=1e-5, abs_tol=1e-9)
    if isinstance(want, tuple):
        if not isinstance(got, tuple) or len(got) != len(want):
            return False
        return all(same(g, w) for g, w in zip(got, want, strict=True))
    return bool(got == want)


def _figure_program(name: str, args: dict[str, Any], df: pd.DataFrame) -> Any:
    """FigureQA's yes/no questions: things are the series, or the labels of one series."""
    what = name.removeprefix("figure_").removesuffix("_label")
    several = len(df.columns) > 1
    things = {c: df[c].dropna().to_numpy() for c in df.columns} if several else {
        x: np.array([v]) for x, v in df.iloc[:, 0].dropna().items()
    }  # fmt: skip
    if what.startswith("curve_"):
        both = df[[args["series"], args["series2"]]].dropna()
        diff = both.iloc[:, 0] - both.iloc[:, 1]
        return bool((diff > 0).all() if what == "curve_greater" else (diff < 0).all())
    if what.startswith("intersect"):
        start = list(df.index).index(args["x"]) if "x" in args else 0
        diff = (df[args["series"]] - df[args["series2"]]).iloc[start:].dropna().to_numpy()
        signs = np.sign(diff[diff != 0])
        return bool((signs[1:] != signs[:-1]).any() or ((diff == 0).any() and len(signs) > 0))
    if what in ("smoothest", "roughest"):
        score = {k: float(np.abs(np.diff(v, 2)).mean()) for k, v in things.items() if len(v) > 2}
        pick = (min if what == "smoothest" else max)(score, key=score.__getitem__)
        return pick == args["name"]
    if what in ("max_value", "min_value", "max_area", "min_area"):
        if what.endswith("area"):
            score = {k: float(((v[1:] + v[:-1]) / 2).sum()) if len(v) > 1 else float(v[0])
                     for k, v in things.items() if len(v)}  # fmt: skip
        else:
            score = {
                k: float(v.max() if what == "max_value" else v.min()) for k, v in things.items()
            }
        pick = (max if what.startswith("max") else min)(score, key=score.__getitem__)
        return pick == args["name"]
    level = {k: float(v.mean()) for k, v in things.items() if len(v)}
    order = sorted(level, key=level.__getitem__)
    k = len(order)
    ranks = {"maximum": -1, "minimum": 0, "low_median": (k - 1) // 2, "high_median": k // 2}
    return order[ranks[what]] == args["name"]
