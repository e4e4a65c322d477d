"""Data tables as real datasets store them — CSV text, {"columns": [...], "rows": [...]}
(names or {"name", "unit"} records), or a list of rows whose first row is the header
(PlotQA, DVQA) — read into one `DataTable` with the same column typing as CSV."""

from __future__ import annotations

import csv
import io

from pydantic import JsonValue

from chartproof.types import DataTable

__all__ = ["read_table"]


def _cell(value: JsonValue) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, int | float | str):
        return str(value)
    raise ValueError(f"table cell {value!r} is not text or a number")


def _csv(header: list[str], rows: list[list[str]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def _rows(value: JsonValue, width: int) -> list[list[str]]:
    if not isinstance(value, list):
        raise ValueError(f"table rows must be a list of rows, got {type(value).__name__}")
    out: list[list[str]] = []
    for i, row in enumerate(value):
        if isinstance(row, dict):
            raise ValueError(f"table row {i} is a mapping; give rows as lists of cells")
        if not isinstance(row, list):
            raise ValueError(f"table row {i} is {row!r}, not a list of cells")
        if len(row) != width:
            raise ValueError(f"table row {i} has {len(row)} cells, the header has {width}")
        out.append([_cell(c) for c in row])
    return out


def read_table(value: JsonValue) -> DataTable | None:
    """The table a record's table field holds; None for null or empty text.

    ValueError says why the value is not a table (the loader keeps it in the sample's
    source and reports a warning: a table is never dropped silently).
    """
    if value is None:
        return None
    if isinstance(value, str):
        return DataTable.from_csv(value) if value.strip() else None
    units: dict[str, str] = {}
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"columns", "rows", "header", "data"})
        if unknown:
            raise ValueError(f"table mapping has keys {unknown}; expected 'columns' and 'rows'")
        columns = value.get("columns", value.get("header"))
        if not isinstance(columns, list) or not columns:
            raise ValueError("table mapping needs a non-empty 'columns' list")
        header: list[str] = []
        for j, col in enumerate(columns):
            if isinstance(col, dict):
                name = col.get("name")
                if not isinstance(name, str) or not name.strip():
                    raise ValueError(f"table column {j} has no 'name'")
                unit = col.get("unit")
                if isinstance(unit, str) and unit:
                    units[name.strip()] = unit
                header.append(name.strip())
            else:
                header.append(_cell(col).strip())
        body = _rows(value.get("rows", value.get("data", [])), len(header))
    elif isinstance(value, list):
        if not value or not isinstance(value[0], list):
            raise ValueError("a table given as a list needs a header row of cells first")
        header = [_cell(c).strip() for c in value[0]]
        # PlotQA / DVQA write "None" above the row labels of multi-row tables
        if header and header[0] in ("None", "none", ""):
            header[0] = "label"
        body = _rows(value[1:], len(header))
    else:
        raise ValueError(f"a table must be CSV text, a mapping or a list of rows, not {value!r}")
    return DataTable.from_csv(_csv(header, body), units=units or None)
