"""Data tables from the plot annotations FigureQA and PlotQA ship (`annotations.json`): each
figure lists its `models` (one per series, with `name`, `x` and `y` lists) and axis labels
in `general_figure_info`; and the figure index each of their questions points at."""

from __future__ import annotations

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


def annotation_table(annotation: dict[str, JsonValue]) -> JsonValue:
    """The figure's data as {"columns", "rows"} (x column, then one column per series), or
    None when its series do not share one list of x values (pies, scatter-like lines)."""
    models = annotation.get("models")
    if not isinstance(models, list) or not models:
        return None
    xs: list[JsonValue] | None = None
    names: list[str] = []
    columns: list[list[JsonValue]] = []
    for model in models:
        if not isinstance(model, dict):
            return None
        x, y, name = model.get("x"), model.get("y"), model.get("name")
        if not isinstance(x, list) or not isinstance(y, list) or len(x) != len(y) or not x:
            return None
        if xs is None:
            xs = x
        elif x != xs:
            return None
        names.append(name if isinstance(name, str) and name else f"series {len(names) + 1}")
        columns.append(y)
    assert xs is not None
    horizontal = annotation.get("type") == "hbar_categorical"
    info = annotation.get("general_figure_info")
    x_title = _axis_title(info, "y_axis" if horizontal else "x_axis") or "x"
    header = [x_title, *names]
    if len(set(header)) != len(header):
        return None
    rows: list[JsonValue] = [[xv, *(col[i] for col in columns)] for i, xv in enumerate(xs)]
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
