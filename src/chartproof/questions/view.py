"""What a reader of a chart can know: labels, series, values as shown, colours, titles.

Question programs run on a `ChartView`, built once per chart from a full `ChartSpec` or from a
bare `DataTable` (e.g. one the offline reader recovered from pixels).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from chartproof.charts.colors import NAMED_COLORS
from chartproof.charts.kinds import ChartKind, chart_kind, kinds_where
from chartproof.numeric import format_number, parse_number
from chartproof.types import ChartSpec, ChartType, DataTable, Style

__all__ = ["BOX_STATS", "CATEGORY_CHARTS", "ChartView", "chart_view", "round_sig"]

BOX_STATS: tuple[str, ...] = ("min", "q1", "median", "q3", "max")
"""The five-number summary of a box, in the order of `Encoding.y` for box plots."""

CATEGORY_CHARTS = kinds_where(lambda k: k.data == "category")
"""Chart types whose x axis (or wedges) holds category or time labels and whose y columns
each form one series."""

_READ_ERROR = 0.015
"""Reading error of an unlabelled mark as a share of the value axis span: about a third of
the gap between matplotlib's default ticks (5 to 8 ticks per axis)."""

_LOG_READ_ERROR = 0.04
"""Relative reading error of an unlabelled mark on a log axis."""


def round_sig(x: float, digits: int = 4) -> float:
    """`x` rounded to `digits` significant digits (0 stays 0)."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


@dataclass(frozen=True, slots=True)
class ChartView:
    """The facts a question program may use, precomputed once per chart.

    Values are the values *as shown*: when value labels are printed they are the printed
    numbers, otherwise the table's numbers (a reader estimates them within `read_error`).
    """

    chart_type: ChartType
    """Kind of chart; decides which programs apply and how marks are named."""
    x_name: str
    """Name of the x column (category, time or, for scatter, number)."""
    x_labels: tuple[str, ...]
    """Tick (or wedge, or box) labels in display order; empty for scatter."""
    series: tuple[str, ...]
    """Series names in legend order (value columns, or groups of a long-format scatter)."""
    values: Mapping[str, tuple[float | None, ...]]
    """Per series, the shown value at each x label (None where the cell is missing)."""
    points: Mapping[str, tuple[tuple[float, float], ...]] = field(default_factory=dict)
    """Scatter only: per series, its (x, y) points."""
    boxes: Mapping[str, tuple[float, float, float, float, float]] = field(default_factory=dict)
    """Box plots only: per x label, (min, q1, median, q3, max)."""
    colors: Mapping[str, str] = field(default_factory=dict)
    """Colour name of each series (pie: of each wedge label); empty when names would be
    ambiguous (two marks with the same colour name)."""
    x_title: str | None = None
    """Title of the independent axis as drawn, None when absent."""
    y_title: str | None = None
    """Title of the dependent axis as drawn, None when absent."""
    title: str | None = None
    """Chart title, None when absent."""
    unit: str | None = None
    """Unit of the values, when all series share one."""
    x_kind: str = "category"
    """"category", "time" or "number"."""
    value_labels: bool = True
    """Whether each mark's value is printed (values then are exact as shown)."""
    legend: bool = False
    """Whether a legend is drawn."""
    y_scale: str = "linear"
    """Scale of the value axis."""
    x_scale: str = "linear"
    """Scale of a numeric x axis (scatter)."""
    orientation: str = "vertical"
    """Direction of bars and boxes."""
    span: float = 1.0
    """Extent of the value axis the marks occupy, for reading errors."""

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_spec(cls, spec: ChartSpec) -> ChartView:
        """The view of a full chart spec (what a reader of the rendered image can know).

        Names and titles are the text the chart shows: mathtext labels ("Loss
        $\\mathcal{L}$") read as drawn ("Loss ℒ", `chartproof.charts.mathtext`), so the
        questions, answers and premises built on the view name them as a reader sees them."""
        return _displayed(cls._from_spec(spec))

    @classmethod
    def _from_spec(cls, spec: ChartSpec) -> ChartView:
        enc, st, table = spec.encoding, spec.style, spec.table
        x_col = table.col(enc.x)
        units = {table.col(y).unit for y in enc.y}
        unit = units.pop() if len(units) == 1 else None
        kind = chart_kind(spec.chart_type)
        orientation = kind.orientation or st.orientation
        common: dict[str, object] = {
            "x_title": st.x_title,
            "y_title": st.y_title,
            "title": st.title,
            "unit": unit,
            "value_labels": st.value_labels,
            "y_scale": st.y_scale,
            "x_scale": st.x_scale,
            "orientation": orientation,
        }
        if kind.data == "points":
            return _scatter_view(spec, common)
        labels = table.labels(enc.x)
        x_kind = x_col.kind
        if kind.data == "boxes":
            boxes: dict[str, tuple[float, float, float, float, float]] = {}
            cols = [table.numbers(y) for y in enc.y]
            for i, lab in enumerate(labels):
                five = [c[i] for c in cols]
                if lab in boxes or any(v is None for v in five) or len(five) != 5:
                    continue
                boxes[lab] = tuple(_shown(v, st) for v in five if v is not None)  # type: ignore[assignment]
            return cls(
                chart_type=spec.chart_type,
                x_name=enc.x,
                x_labels=labels,
                series=(),
                values={},
                boxes=boxes,
                colors={},
                x_kind=x_kind,
                legend=False,
                span=_span([v for b in boxes.values() for v in b], bars=False),
                **common,  # type: ignore[arg-type]
            )
        values = {
            y: tuple(None if v is None else _shown(v, st) for v in table.numbers(y)) for y in enc.y
        }
        series = tuple(enc.y)
        colors = _name_colors(labels if kind.color_keys == "x" else series, st.palette)
        legend = st.legend and (len(series) > 1 or kind.color_keys == "x")
        flat = [v for col in values.values() for v in col if v is not None]
        if kind.stacks and kind.zero_based:  # stacked bars: each bar's total is a mark end
            flat = flat + [
                sum(v for v in (values[s][i] for s in series) if v is not None)
                for i in range(len(labels))
            ]
        return cls(
            chart_type=spec.chart_type,
            x_name=enc.x,
            x_labels=labels,
            series=series,
            values=values,
            colors=colors,
            x_kind=x_kind,
            legend=legend,
            span=_span(flat, bars=kind.zero_based),
            **common,  # type: ignore[arg-type]
        )

    @classmethod
    def from_table(
        cls,
        table: DataTable,
        *,
        chart_type: ChartType = "vbar",
        x: str | None = None,
        y: Sequence[str] | None = None,
        series: str | None = None,
        colors: Mapping[str, str] | None = None,
        x_title: str | None = None,
        y_title: str | None = None,
        value_labels: bool = True,
        legend: bool | None = None,
    ) -> ChartView:
        """A view of a bare table: the x column defaults to the first column, the series to
        every other numeric column; `colors` maps series (pie: wedge labels) to colour names.

        Used when only a table is known, e.g. the table the offline reader recovered.
        """
        from chartproof.types import Encoding

        x = x or table.names[0]
        if y is None:
            if chart_kind(chart_type).data == "boxes":
                y = BOX_STATS
            else:
                y = tuple(
                    c.name
                    for c in table.columns
                    if c.kind == "number" and c.name not in (x, series)
                )
        if not y:
            raise ValueError(f"table has no numeric column besides x={x!r}: {list(table.names)}")
        spec = ChartSpec(
            id="view",
            chart_type=chart_type,
            table=table,
            encoding=Encoding(x=x, y=tuple(y), series=series),
            style=Style(value_labels=value_labels, x_title=x_title, y_title=y_title),
        )
        view = cls.from_spec(spec)
        n_series = len(view.series)
        draw_legend = (
            (n_series > 1 or chart_kind(chart_type).color_keys == "x") if legend is None else legend
        )
        names = dict(colors) if colors is not None else {}
        if names and len(set(names.values())) != len(names):
            names = {}
        return _replace(view, colors=names, legend=draw_legend)

    # ------------------------------------------------------------------ queries

    @property
    def n(self) -> int:
        """Number of x labels."""
        return len(self.x_labels)

    @property
    def x_unique(self) -> bool:
        """Whether every x label is distinct (programs that name a label need it)."""
        return len(set(self.x_labels)) == len(self.x_labels) and all(self.x_labels)

    def xi(self, label: str) -> int | None:
        """Position of an x label, None when absent or not unique."""
        if self.x_labels.count(label) != 1:
            return None
        return self.x_labels.index(label)

    def value(self, series: str, x: str) -> float | None:
        """The shown value of `series` at `x`; None when missing or ambiguous."""
        i = self.xi(x)
        col = self.values.get(series)
        if i is None or col is None:
            return None
        return col[i]

    def column(self, series: str) -> tuple[float, ...] | None:
        """All shown values of a series, None when any is missing."""
        col = self.values.get(series)
        if col is None or any(v is None for v in col):
            return None
        return tuple(v for v in col if v is not None)

    def read_error(self, v: float) -> float:
        """Absolute error a careful reader makes reading value `v` (0 when labels are shown)."""
        if self.value_labels:
            return 0.0
        if self.y_scale == "log":
            return _LOG_READ_ERROR * abs(v)
        return _READ_ERROR * self.span

    def distinct(self, a: float, b: float, *, err_a: float = 0.0, err_b: float = 0.0) -> bool:
        """Whether a reader can tell `a` and `b` apart (their reading errors do not overlap)."""
        if self.value_labels and err_a == 0.0 and err_b == 0.0:
            return a != b
        margin = self.read_error(a) + self.read_error(b) + err_a + err_b
        return abs(a - b) > max(margin, 1e-12)

    @property
    def digits(self) -> int:
        """Decimals an unlabelled value is printed with: about four significant digits of
        the axis span (a reader cannot do better), e.g. 1 on a 0-100 axis."""
        return 3 - math.floor(math.log10(self.span))

    def print_error(self, v: float, *, free: bool = False) -> float:
        """Largest difference between `v` and its printed form `fmt(v, free=free)`."""
        if self.value_labels:
            return 0.0
        if free:
            return 0.0 if v == 0 else 0.5 * 10.0 ** (math.floor(math.log10(abs(v))) - 3)
        if self.y_scale == "log":
            return 0.0 if v == 0 else 0.5 * 10.0 ** (math.floor(math.log10(abs(v))) - 2)
        return 0.5 * 10.0**-self.digits

    def fmt(self, v: float, *, free: bool = False) -> str:
        """A value as a question or premise prints it: as labelled, or rounded to the
        precision a reader of the axis can reach (three significant digits on a log axis,
        about four digits of the axis span on a linear one). `free` values are not in axis
        units (ratios, percentages, x coordinates) and keep four significant digits."""
        if self.value_labels:
            return format_number(v)
        if free:
            return format_number(round_sig(v, 4) + 0.0)
        if self.y_scale == "log":
            return format_number(round_sig(v, 3) + 0.0)
        return format_number(round(v, self.digits) + 0.0)

    @property
    def y_label(self) -> str:
        """How questions name the measured quantity: the y title, the single series name,
        or "value"."""
        if self.y_title:
            return self.y_title
        if len(self.series) == 1:
            return self.series[0]
        return "value"

    @property
    def x_label(self) -> str:
        """How questions name the x dimension: the x title or the x column name."""
        return self.x_title or self.x_name

    @property
    def kind(self) -> ChartKind:
        """What this chart type is and shows (`chartproof.charts.kinds`)."""
        return chart_kind(self.chart_type)

    @property
    def mark(self) -> str:
        """The word for one mark of this chart: bar, point, wedge, box."""
        return self.kind.mark


def chart_view(chart: ChartSpec | ChartView) -> ChartView:
    """The view of a spec (or the view itself)."""
    return chart if isinstance(chart, ChartView) else ChartView.from_spec(chart)


# ---------------------------------------------------------------------- helpers


def _replace(view: ChartView, **changes: object) -> ChartView:
    from dataclasses import replace

    return replace(view, **changes)  # type: ignore[arg-type]


def _displayed(view: ChartView) -> ChartView:
    """The view with every name and title as drawn (mathtext converted)."""
    from chartproof.charts.mathtext import display_text, has_mathtext

    texts = [view.x_name, *view.x_labels, *view.series, view.x_title, view.y_title, view.title]
    texts += [view.unit, *view.points, *view.boxes, *view.colors]
    if not any(t is not None and has_mathtext(t) for t in texts):
        return view

    def d(t: str) -> str:
        return display_text(t)

    def opt(t: str | None) -> str | None:
        return None if t is None else display_text(t)

    return _replace(
        view,
        x_name=d(view.x_name),
        x_labels=tuple(d(x) for x in view.x_labels),
        series=tuple(d(s) for s in view.series),
        values={d(k): v for k, v in view.values.items()},
        points={d(k): v for k, v in view.points.items()},
        boxes={d(k): v for k, v in view.boxes.items()},
        colors={d(k): v for k, v in view.colors.items()},
        x_title=opt(view.x_title),
        y_title=opt(view.y_title),
        title=opt(view.title),
        unit=opt(view.unit),
    )


def _shown(v: float, style: Style) -> float:
    """The value a reader gets from the printed label, or the value itself."""
    if not style.value_labels:
        return float(v)
    try:
        text = style.value_format.format(v)
    except (ValueError, IndexError, KeyError):
        return float(v)
    parsed = parse_number(text)
    return float(v) if parsed is None else parsed


def _span(values: Sequence[float], *, bars: bool) -> float:
    if not values:
        return 1.0
    lo, hi = min(values), max(values)
    if bars:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    span = hi - lo
    return span if span > 0 else max(abs(hi), 1.0)


def _name_colors(keys: Sequence[str], palette: Sequence[str]) -> dict[str, str]:
    """Colour names of keys drawn in palette order; empty when a colour has no name of its
    own (only a nearest one) or two keys share a name, so colour questions stay exact."""
    if not palette or len(set(keys)) != len(keys):
        return {}
    hexes = [palette[i % len(palette)].strip().lower() for i in range(len(keys))]
    if any(h not in NAMED_COLORS for h in hexes):
        return {}
    names = {k: NAMED_COLORS[h] for k, h in zip(keys, hexes, strict=True)}
    if len(set(names.values())) != len(names):
        return {}
    return names


def _scatter_view(spec: ChartSpec, common: dict[str, object]) -> ChartView:
    enc, table = spec.encoding, spec.table
    xs = table.numbers(enc.x) if table.col(enc.x).kind == "number" else None
    points: dict[str, list[tuple[float, float]]] = {}
    if xs is None:
        raise ValueError(f"scatter chart {spec.id!r}: x column {enc.x!r} is not numeric")
    if enc.series is not None:
        groups = table.labels(enc.series)
        ys = table.numbers(enc.y[0])
        for g, x, y in zip(groups, xs, ys, strict=True):
            if x is not None and y is not None:
                points.setdefault(g, []).append((x, y))
    else:
        for col in enc.y:
            for x, y in zip(xs, table.numbers(col), strict=True):
                if x is not None and y is not None:
                    points.setdefault(col, []).append((x, y))
    series = spec.series_names()
    all_y = [p[1] for pts in points.values() for p in pts]
    colors = _name_colors(series, spec.style.palette)
    return ChartView(
        chart_type=spec.chart_type,
        x_name=enc.x,
        x_labels=(),
        series=series,
        values={},
        points={k: tuple(v) for k, v in points.items()},
        colors=colors,
        x_kind="number",
        legend=spec.style.legend and len(series) > 1,
        span=_span(all_y, bars=False),
        **common,  # type: ignore[arg-type]
    )
