"""Charts as text, for models that cannot see: the data table, chart type, title and axis titles.

A pipeline puts `chart_metadata(sample)` into a request's metadata (the gold table and spec of
a generated chart); the text-over-table backend renders it with `render_chart_text` in place
of the image. Pure Python: no model code is imported here.
"""

from __future__ import annotations

import csv
import hashlib
import io
from typing import Literal

from pydantic import JsonValue, ValidationError

from chartproof.charts.kinds import kind_titles
from chartproof.types import DataTable, Record, Sample

__all__ = [
    "CHART_KEY",
    "ChartText",
    "chart_metadata",
    "chart_text_from_metadata",
    "chart_text_of",
    "render_chart_text",
    "table_csv",
]

CHART_KEY = "chart"
"""The request-metadata key that holds a `ChartText` (as a JSON object)."""


class ChartText(Record):
    """What a text-only model is told about a chart in place of its image."""

    table: str
    """The data table as CSV with a header row; a column's unit follows its name in
    parentheses ("Share (%)")."""
    chart_type: str | None = None
    """chartproof chart type ("vbar", "pie", ...), None when unknown."""
    title: str | None = None
    """Chart title, None when the chart has none."""
    x_title: str | None = None
    """Title of the x (category) axis."""
    y_title: str | None = None
    """Title of the y (value) axis."""
    source: Literal["gold", "reader"] = "gold"
    """Where the table came from: the chart's own data (gold) or the built-in reader's
    recovery from the image."""

    def fingerprint(self) -> str:
        """Short hash of everything rendered, for the response cache."""
        return hashlib.sha256(render_chart_text(self).encode("utf-8")).hexdigest()[:16]


def table_csv(table: DataTable) -> str:
    """The table as CSV with each column's unit after its name (\"Share (%)\")."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([f"{c.name} ({c.unit})" if c.unit else c.name for c in table.columns])
    body = table.to_csv().splitlines()[1:]  # DataTable's own number formatting
    buf.write("\n".join(body) + ("\n" if body else ""))
    return buf.getvalue()


def chart_text_of(sample: Sample) -> ChartText | None:
    """The gold chart text of a sample: its spec when it has one (table, type, titles), else
    its table; None when the sample carries neither."""
    spec = sample.spec
    if spec is not None:
        st = spec.style
        return ChartText(
            table=table_csv(spec.table),
            chart_type=spec.chart_type,
            title=st.title,
            x_title=st.x_title,
            y_title=st.y_title,
        )
    if sample.table is not None:
        return ChartText(table=table_csv(sample.table), chart_type=sample.chart_type)
    return None


def chart_metadata(sample: Sample) -> dict[str, JsonValue]:
    """``{"chart": ...}`` for a request's metadata, or {} when the sample has no table."""
    text = chart_text_of(sample)
    return {} if text is None else {CHART_KEY: text.model_dump(mode="json")}


def chart_text_from_metadata(metadata: dict[str, JsonValue]) -> ChartText | None:
    """The `ChartText` a request carries, else one from a with-table CSV in
    ``metadata["table"]``, else None. A malformed entry is a ValueError naming the key."""
    raw = metadata.get(CHART_KEY)
    if raw is not None:
        try:
            return ChartText.model_validate(raw)
        except ValidationError as e:
            raise ValueError(f"metadata[{CHART_KEY!r}] is not a chart text: {e}") from None
    table = metadata.get("table")
    if isinstance(table, str) and table.strip():
        chart_type = metadata.get("chart_type")
        return ChartText(
            table=table, chart_type=chart_type if isinstance(chart_type, str) else None
        )
    return None


def render_chart_text(chart: ChartText) -> str:
    """The text that replaces the chart image in a prompt."""
    kind = kind_titles().get(
        chart.chart_type or "", (chart.chart_type or "chart").replace("_", " ")
    )
    origin = (
        "its data table"
        if chart.source == "gold"
        else "a data table read from the image, which may contain reading errors"
    )
    lines = [f"The chart is given as text ({origin}) instead of an image.", f"Chart type: {kind}"]
    for label, value in (
        ("Title", chart.title),
        ("X-axis title", chart.x_title),
        ("Y-axis title", chart.y_title),
    ):
        if value:
            lines.append(f"{label}: {value}")
    lines.append("Data table (CSV):")
    lines.append(chart.table.strip())
    return "\n".join(lines)
