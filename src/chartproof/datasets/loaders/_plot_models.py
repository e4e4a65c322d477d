"""Data tables from the plot annotations FigureQA and PlotQA ship (`annotations.json`): each
figure lists its `models` (one per series, with `name`, `x` and `y` lists) and axis labels
in `general_figure_info`; and the figure index each of their questions points at."""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import RowError, RowLog
from chartproof.datasets.loaders._json import json_records, read_json

__all__ = ["annotation_table", "image_index", "plot_annotations"]


def _axis_title(info: JsonValue, axis: str) -> str | None:
    if not isinstance(info, dict):
        return None
    block = info.get(axis)
    label = block.get("label") if isinstance(block, dict) else None
    text = label.get("text") if isinstance(label, dict) else None
    return text.strip() if isinstance(text, str) and text.strip() else None


def _half(values: JsonValue) -> list[JsonValue]:
    """An axis's label list (the annotations repeat it twice, the second copy dropped)."""
    if not isinstance(values, list):
        return []
    n = len(values)
    if n % 2 == 0 and values[: n // 2] == values[n // 2 :]:
        return values[: n // 2]
    return values


def _category_labels(info: JsonValue, xs: list[JsonValue]) -> list[JsonValue]:
    """The x axis's tick labels when the series' x values are only the positions 0..n-1 (PlotQA's
    line plots), else the x values themselves."""
    if xs != list(range(len(xs))) or not isinstance(info, dict):
        return xs
    axis = info.get("x_axis")
    labels = axis.get("major_labels") if isinstance(axis, dict) else None
    values = _half(labels.get("values") if isinstance(labels, dict) else None)
    return values if len(values) == len(xs) else xs


def _pie_table(models: list[JsonValue]) -> JsonValue:
    """A pie's slices as {label, share in percent} (each model is one slice whose `span` is its
    angle in radians)."""
    rows: list[JsonValue] = []
    for model in models:
        if not isinstance(model, dict):
            return None
        name, span = model.get("name"), model.get("span")
        if not isinstance(name, str) or not isinstance(span, int | float) or isinstance(span, bool):
            return None
        rows.append([name, round(span / (2 * math.pi) * 100, 6)])
    names = [r[0] for r in rows if isinstance(r, list)]
    if len(set(names)) != len(names):
        return None
    return {"columns": ["slice", "share (%)"], "rows": rows}


def annotation_table(annotation: dict[str, JsonValue]) -> JsonValue:
    """The figure's data as {"columns", "rows"} (category column, then one column per series),
    or None when its series do not share one list of categories (scatter-like lines).

    Vertical bars and lines keep their categories in each model's `x` and values in `y`;
    horizontal bars the other way round (`y` the categories, `x` the values); line plots whose
    `x` is only 0..n-1 take their categories from the x axis's tick labels; pies list one model
    per slice with its angle (`span`), which becomes its share in percent.
    """
    models = annotation.get("models")
    if not isinstance(models, list) or not models:
        return None
    kind = annotation.get("type")
    if kind == "pie":
        return _pie_table(models)
    horizontal = kind == "hbar_categorical"
    cats: list[JsonValue] | None = None
    names: list[str] = []
    columns: list[list[JsonValue]] = []
    for model in models:
        if not isinstance(model, dict):
            return None
        x, y, name = model.get("x"), model.get("y"), model.get("name")
        if horizontal:
            x, y = y, x
        if not isinstance(x, list) or not isinstance(y, list) or len(x) != len(y) or not x:
            return None
        if cats is None:
            cats = x
        elif x != cats:
            return None
        names.append(name if isinstance(name, str) and name else f"series {len(names) + 1}")
        columns.append(y)
    assert cats is not None
    info = annotation.get("general_figure_info")
    if not horizontal:
        cats = _category_labels(info, cats)
    x_title = _axis_title(info, "y_axis" if horizontal else "x_axis") or "x"
    header = [x_title, *names]
    if len(set(header)) != len(header):
        return None
    rows: list[JsonValue] = [[cv, *(col[i] for col in columns)] for i, cv in enumerate(cats)]
    cols: list[JsonValue] = list(header)
    return {"columns": cols, "rows": rows}


def image_index(item: dict[str, JsonValue], file: Path, pos: int, log: RowLog) -> int | None:
    """The question's `image_index` (its figure's number), or None after a row error."""
    index = item.get("image_index")
    if isinstance(index, int):
        return index
    log.error(
        RowError(file=str(file), line=pos, field="image_index", message="image_index is missing")
    )
    return None


def plot_annotations(folder: Path, log: RowLog) -> dict[int, tuple[str | None, JsonValue]]:
    """Plot type and data table (from the series data) of each figure, by image index."""
    file = folder / "annotations.json"
    if not file.is_file():
        return {}
    out: dict[int, tuple[str | None, JsonValue]] = {}
    for pos, item in json_records(read_json(file), file, log):
        index = item.get("image_index", pos - 1)
        kind = item.get("type")
        if isinstance(index, int):
            out[index] = (kind if isinstance(kind, str) else None, annotation_table(item))
    return out
