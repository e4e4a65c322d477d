"""Dataset records: tables, chart specs and samples (with their answers, steps and premises).

The records every stage exchanges are split by concern: this module (what a dataset holds),
`chartproof.types.model_io` (what goes to and comes from a model) and
`chartproof.types.results` (scores, per-sample results, runs). `chartproof.types`
re-exports all of them.
"""

from __future__ import annotations

import csv
import functools
import importlib
import io
import math
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from chartproof.numeric import format_number, parse_number
from chartproof.types.registry import Registry

__all__ = [
    "Answer",
    "AnswerKind",
    "AnswerValue",
    "Cell",
    "ChartSpec",
    "ChartType",
    "Column",
    "ColumnKind",
    "DataTable",
    "Encoding",
    "ImageRef",
    "Premise",
    "PremiseKind",
    "Record",
    "Sample",
    "Step",
    "Style",
    "TaskType",
    "Transform",
    "chart_type_names",
]

_KINDS_HOME = "chartproof.charts.kinds"
"""The module of the chart-kind registry (`CHART_KINDS`), loaded by name on first use: the
table sits above this layer and fills in the names."""


@functools.cache
def _chart_kinds() -> Registry[Any]:
    registry: Registry[Any] = importlib.import_module(_KINDS_HOME).CHART_KINDS
    return registry


def chart_type_names() -> tuple[str, ...]:
    """Every registered chart type, in registration order."""
    return tuple(_chart_kinds())


def _check_chart_type(name: str) -> str:
    if name not in _chart_kinds():
        raise ValueError(
            f"unknown chart type {name!r}; known: {', '.join(_chart_kinds())} "
            "(a new one is registered with chartproof.charts.kinds.register_chart_kind)"
        )
    return name


ChartType: TypeAlias = Annotated[str, AfterValidator(_check_chart_type)]
"""A registered chart type: "vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area",
"pie", "scatter", "box" are shipped (`chartproof.charts.kinds` describes each). Grouped and
stacked bars and box plots take `Style.orientation`; `vbar` / `hbar` are the single-series
bar charts of ChartQA-X."""

TaskType: TypeAlias = Literal["VE", "CI", "PR", "VC", "CP", "TI", "SO", "NC"]
"""ChartR task types: value extraction, colour identification, position identification,
value comparison, conditional processing, trend identification, sequence ordering,
numerical computation."""

PremiseKind: TypeAlias = Literal["structural", "data", "reasoning", "math"]
"""VPP premise kinds (SP, DP, RP, MP)."""

AnswerKind: TypeAlias = Literal["number", "text", "bool", "list", "ranked_list", "choice"]
"""How an answer is compared: numbers with a relative tolerance, text case-insensitively,
booleans exactly, lists as sets, ranked lists in order, and a multiple-choice option by
its text (so the gold stays right when the options are shown in another order)."""

ColumnKind: TypeAlias = Literal["category", "number", "time"]
"""A table column holds category labels, numbers, or time labels (years, months, dates)."""

Cell: TypeAlias = float | str | None
"""One table cell: a finite number for number columns, a label otherwise, None when missing."""

AnswerValue: TypeAlias = bool | float | str | tuple[str | float, ...]
"""The value of a typed answer; its Python type follows `Answer.kind`."""


class Record(BaseModel):
    """Base of every chartproof record: immutable and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


# --------------------------------------------------------------------------- tables


class Column(Record):
    """One column of a data table."""

    name: str = Field(min_length=1)
    """Header text, unique within the table."""
    kind: ColumnKind = "number"
    """What the column holds."""
    unit: str | None = None
    """Unit of the numbers, e.g. "%", "million USD", "°C"; None when unitless or not numeric."""


class DataTable(Record):
    """A chart's data: named, typed columns and rectangular rows.

    The first column usually holds the x labels (categories or times) and the others one
    series each; `Encoding` says which column plays which role.
    """

    columns: tuple[Column, ...] = Field(min_length=1)
    """The columns, in display order."""
    rows: tuple[tuple[Cell, ...], ...]
    """Rows of cells, each exactly as long as `columns`."""

    @model_validator(mode="after")
    def _check(self) -> DataTable:
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"duplicate column names: {dup}")
        width = len(self.columns)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise ValueError(
                    f"ragged table: row {i} has {len(row)} cells, the header has {width}"
                )
            for col, cell in zip(self.columns, row, strict=True):
                if cell is None:
                    continue
                if col.kind == "number":
                    if isinstance(cell, str):
                        raise ValueError(
                            f"row {i}, column {col.name!r}: expected a number, got {cell!r}"
                        )
                    if not math.isfinite(cell):
                        raise ValueError(f"row {i}, column {col.name!r}: {cell} is not finite")
                elif not isinstance(cell, str):
                    raise ValueError(
                        f"row {i}, column {col.name!r} ({col.kind}): expected text, got {cell!r}"
                    )
        return self

    @property
    def names(self) -> tuple[str, ...]:
        """Column names in order."""
        return tuple(c.name for c in self.columns)

    def index(self, name: str) -> int:
        """Position of the column called `name` (KeyError naming the columns if absent)."""
        for i, c in enumerate(self.columns):
            if c.name == name:
                return i
        raise KeyError(f"no column {name!r}; columns are {list(self.names)}")

    def col(self, name: str) -> Column:
        """The column record called `name`."""
        return self.columns[self.index(name)]

    def values(self, name: str) -> tuple[Cell, ...]:
        """All cells of one column, top to bottom."""
        i = self.index(name)
        return tuple(r[i] for r in self.rows)

    def numbers(self, name: str) -> tuple[float | None, ...]:
        """Cells of a number column (None where missing)."""
        if self.col(name).kind != "number":
            raise TypeError(f"column {name!r} is not numeric")
        return tuple(None if v is None else float(v) for v in self.values(name))

    def labels(self, name: str) -> tuple[str, ...]:
        """Cells of a column as display text (missing cells become "")."""
        return tuple("" if v is None else _cell_text(v) for v in self.values(name))

    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return len(self.rows)

    def to_csv(self) -> str:
        """The table as CSV text with a header row (numbers in shortest round-trip form)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.names)
        for row in self.rows:
            w.writerow(["" if c is None else _cell_text(c) for c in row])
        return buf.getvalue()

    @classmethod
    def from_csv(cls, text: str, *, units: dict[str, str] | None = None) -> DataTable:
        """Parse CSV text; a column becomes numeric when every non-empty cell parses as a number.

        The first column stays a label column (category, or time when it looks like years).
        Raises ValueError naming the line of a ragged row.
        """
        reader = csv.reader(io.StringIO(text))
        lines = [r for r in reader if r]
        if not lines:
            raise ValueError("empty CSV: no header row")
        header = [h.strip() for h in lines[0]]
        body = lines[1:]
        for n, r in enumerate(body, start=2):
            if len(r) != len(header):
                raise ValueError(
                    f"ragged CSV: line {n} has {len(r)} cells, the header has {len(header)}"
                )
        columns: list[Column] = []
        parsed_cols: list[list[Cell]] = []
        for j, name in enumerate(header):
            raw = [r[j].strip() for r in body]
            nums = [parse_number(v) for v in raw]
            numeric = j > 0 and all(
                v == "" or x is not None for v, x in zip(raw, nums, strict=True)
            )
            numeric = numeric and any(v != "" for v in raw)
            if numeric:
                kind: ColumnKind = "number"
                cells: list[Cell] = [x for x in nums]
            else:
                kind = "time" if raw and all(_looks_like_year(v) for v in raw if v) else "category"
                cells = [v if v != "" else None for v in raw]
            columns.append(
                Column(name=name or f"column {j + 1}", kind=kind, unit=(units or {}).get(name))
            )
            parsed_cols.append(cells)
        rows = tuple(tuple(col[i] for col in parsed_cols) for i in range(len(body)))
        return cls(columns=tuple(columns), rows=rows)


def _cell_text(v: float | str) -> str:
    if isinstance(v, str):
        return v
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _looks_like_year(v: str) -> bool:
    return len(v) == 4 and v.isdigit() and 1000 <= int(v) <= 2999


# --------------------------------------------------------------------------- charts


class Encoding(Record):
    """Which table columns a chart maps to which visual channel."""

    x: str
    """Column of x positions: category or time labels (bars, lines, pie wedges, box groups)
    or numbers (scatter)."""
    y: tuple[str, ...] = Field(min_length=1)
    """Value columns, one series each; for box plots the five-number summary columns in the
    order min, q1, median, q3, max."""
    series: str | None = None
    """Long-format grouping column (scatter): rows with the same value form one series."""


class Style(Record):
    """How a chart looks. Every option changes pixels deterministically."""

    palette: tuple[str, ...] = (
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    )  # fmt: skip
    """Series (or wedge) colours as #rrggbb, used in order."""
    value_labels: bool = False
    """Print each mark's value next to it."""
    value_format: str = "{:g}"
    """Python format string for value labels."""
    legend: bool = True
    """Draw a legend when there are several series (or for pie charts)."""
    legend_loc: Literal[
        "upper right", "upper left", "lower left", "lower right", "center left",
        "center right", "lower center", "upper center", "outside right", "outside bottom",
    ] = "upper right"  # fmt: skip
    """Legend position; the "outside" positions put it beside or below the axes."""
    gridlines: Literal["none", "x", "y", "both"] = "none"
    """Which axes get gridlines."""
    title: str | None = None
    """Chart title, None for no title."""
    x_title: str | None = None
    """Axis title of the x (category) axis."""
    y_title: str | None = None
    """Axis title of the y (value) axis."""
    x_scale: Literal["linear", "log"] = "linear"
    """Scale of a numeric x axis (scatter)."""
    y_scale: Literal["linear", "log"] = "linear"
    """Scale of the value axis."""
    tick_rotation: float = 0.0
    """Rotation of category tick labels in degrees."""
    tick_labels: bool = True
    """Draw tick labels (label removal can turn them off)."""
    orientation: Literal["vertical", "horizontal"] = "vertical"
    """Direction of bars and boxes for grouped, stacked and box charts."""
    markers: bool = True
    """Draw a marker at each line vertex."""
    width: float = Field(default=6.4, gt=0, le=40)
    """Figure width in inches."""
    height: float = Field(default=4.8, gt=0, le=40)
    """Figure height in inches."""
    dpi: int = Field(default=100, ge=20, le=600)
    """Dots per inch: image pixels = inches × dpi."""
    font_size: float = Field(default=10.0, gt=0)
    """Base font size in points."""


class Transform(Record):
    """One change applied to a chart or image: a perturbation, counterfactual edit or
    reconstruction, recorded HELM-style on what it produced."""

    kind: Literal["perturbation", "counterfactual", "reconstruction"]
    """What sort of change this is."""
    name: str
    """Registry name, e.g. "blur", "noise", "watermark", "label_removal", "jitter"."""
    params: dict[str, float | int | str | bool] = Field(default_factory=dict)
    """Parameters that, with the seed, reproduce the change exactly."""
    seed: int = 0
    """Random seed, derived from the sample or chart id."""
    level: int | None = None
    """Intensity level in a sweep (1 = mildest), None when not part of a sweep."""
    answer_preserved: bool | None = None
    """Whether answers of the original still hold; None when unknown."""


class ChartSpec(Record):
    """A chart's ground truth: rendering it is deterministic."""

    id: str
    """Stable chart id."""
    chart_type: ChartType
    """Which kind of chart."""
    table: DataTable
    """The data the chart shows."""
    encoding: Encoding
    """Which columns map to which channel."""
    style: Style = Style()
    """Look of the chart."""
    seed: int = 0
    """Seed the spec was generated with."""
    domain: str | None = None
    """Topical domain of a synthetic chart, e.g. "energy"."""
    parent_id: str | None = None
    """Id of the spec this one was derived from (counterfactual or perturbation)."""
    transforms: tuple[Transform, ...] = ()
    """Changes applied on the way from the parent, in order."""

    @model_validator(mode="after")
    def _check_encoding(self) -> ChartSpec:
        names = set(self.table.names)
        used = [self.encoding.x, *self.encoding.y]
        if self.encoding.series is not None:
            used.append(self.encoding.series)
        missing = [c for c in used if c not in names]
        if missing:
            raise ValueError(f"encoding names columns {missing} absent from the table")
        for y in self.encoding.y:
            if self.table.col(y).kind != "number":
                raise ValueError(f"value column {y!r} must be numeric")
        return self

    def series_names(self) -> tuple[str, ...]:
        """Names of the plotted series, in legend order."""
        if self.encoding.series is not None:
            seen: dict[str, None] = {}
            for v in self.table.labels(self.encoding.series):
                seen.setdefault(v, None)
            return tuple(seen)
        return self.encoding.y


# --------------------------------------------------------------------------- samples


class Answer(Record):
    """A typed gold answer."""

    kind: AnswerKind
    """How it is compared."""
    value: AnswerValue
    """The value: float for numbers, str for text, bool, or a tuple for lists."""
    unit: str | None = None
    """Unit of a number, e.g. "%"; not part of the comparison."""
    tolerance: float = Field(default=0.05, ge=0)
    """Relative tolerance for numbers (0.05 = ChartQA's relaxed 5 %)."""

    @model_validator(mode="after")
    def _check_kind(self) -> Answer:
        v, k = self.value, self.kind
        ok = {
            "number": isinstance(v, float) and not isinstance(v, bool) and math.isfinite(v),
            "text": isinstance(v, str),
            "bool": isinstance(v, bool),
            "list": isinstance(v, tuple),
            "ranked_list": isinstance(v, tuple),
            "choice": isinstance(v, str) and bool(v.strip()),
        }[k]
        if not ok:
            raise ValueError(f"answer of kind {k!r} cannot hold {v!r}")
        return self

    def text(self) -> str:
        """The answer as a model would write it: "12.5", "Yes", "A, B, C"."""
        v = self.value
        if isinstance(v, bool):
            return "Yes" if v else "No"
        if isinstance(v, tuple):
            return ", ".join(_cell_text(x) for x in v)
        if isinstance(v, float):
            return format_number(v)
        return v

    @classmethod
    def number(cls, value: float, unit: str | None = None, tolerance: float = 0.05) -> Answer:
        """A numeric answer."""
        return cls(kind="number", value=float(value), unit=unit, tolerance=tolerance)

    @classmethod
    def of_text(cls, value: str) -> Answer:
        """A text answer."""
        return cls(kind="text", value=value)

    @classmethod
    def boolean(cls, value: bool) -> Answer:
        """A yes/no answer."""
        return cls(kind="bool", value=value)

    @classmethod
    def option(cls, text: str) -> Answer:
        """A multiple-choice answer: the text of the right option (see `Sample.choices`)."""
        return cls(kind="choice", value=text)


class Step(Record):
    """One sub-question of a reasoning chain (ChartR)."""

    id: int = Field(ge=0)
    """Position in the chain; `depends_on` refers to these ids."""
    question: str
    """The sub-question text."""
    depends_on: tuple[int, ...] = ()
    """Ids of earlier steps whose answers this step needs."""
    answer: Answer
    """Gold answer of the step."""
    task_type: TaskType
    """ChartR task type of the step."""
    program: str | None = None
    """Name of the question program that produced the step."""

    @model_validator(mode="after")
    def _check_deps(self) -> Step:
        if any(d >= self.id for d in self.depends_on):
            raise ValueError(f"step {self.id} depends on a later or equal step {self.depends_on}")
        return self


class Premise(Record):
    """One premise of a VPP sequence: a statement about the chart with a true/false label."""

    id: str
    """Stable id within the sample."""
    kind: PremiseKind
    """Structural, data, reasoning or math premise."""
    text: str
    """The statement shown to the model."""
    truth: bool
    """Whether the statement holds for this chart."""
    template: str
    """Name of the premise template."""
    paraphrase: int = 0
    """Which paraphrase of the template was used."""
    slot: str
    """The fact tested; a true premise and its three false distractors share a slot."""
    logic: JsonValue = None
    """The premise as a first-order-logic AST (JSON), None when not exported."""


class ImageRef(Record):
    """Where a sample's image lives."""

    path: str
    """Path relative to the dataset folder (POSIX separators)."""
    sha256: str | None = None
    """Hex SHA-256 of the image bytes, None when not computed."""
    width: int | None = None
    """Width in pixels, when known."""
    height: int | None = None
    """Height in pixels, when known."""

    @field_validator("path")
    @classmethod
    def _relative(cls, v: str) -> str:
        p = v.replace("\\", "/")
        if p.startswith("/") or any(part == ".." for part in p.split("/")):
            raise ValueError(f"image path {v!r} escapes its dataset folder")
        return p


class Sample(Record):
    """One chart question with everything needed to check an answer and its reasoning."""

    id: str
    """Stable id, unique within a dataset."""
    image: ImageRef
    """The chart image (the first one when the question has several: see `images`)."""
    more_images: tuple[ImageRef, ...] = ()
    """The question's other images after `image`, in order (multi-chart questions); empty
    for a one-chart question, and then left out of the serialised record, so files of
    one-chart samples read and hash exactly as before. `Sample(images=[...])` fills both."""
    question: str
    """The question (for chains: the final composite question)."""
    answer: Answer
    """Typed gold answer."""
    table: DataTable | None = None
    """The chart's data table, when known."""
    spec: ChartSpec | None = None
    """The chart's spec, for synthetic charts."""
    chart_type: str | None = None
    """Chart type label, e.g. "vbar" or "line"; None when the source does not say."""
    question_type: str | None = None
    """Question family label, e.g. "descriptive", "reasoning", "human", "augmented"."""
    task_type: TaskType | None = None
    """ChartR task type of the question, when it has one."""
    program: str | None = None
    """Name of the question program that produced the sample."""
    chain: tuple[Step, ...] = ()
    """Sub-questions of the reasoning chain, in dependency order."""
    premises: tuple[Premise, ...] = ()
    """The ordered VPP premise sequence for this question."""
    explanation: str | None = None
    """Reference explanation (at most four sentences)."""
    split: str | None = None
    """Dataset split, e.g. "train", "val", "test"."""
    groups: dict[str, str] = Field(default_factory=dict)
    """Extra group labels for breakdowns (domain, attribute, polarity, ...)."""
    transforms: tuple[Transform, ...] = ()
    """Perturbations or edits applied to produce this sample's image."""
    parent_id: str | None = None
    """Id of the sample this one is a variant of (shares its question)."""
    family_id: str | None = None
    """Id of the counterfactual family the sample belongs to."""
    pair_id: str | None = None
    """Id of the pair the sample belongs to (bias audits, preference pairs)."""
    source: dict[str, JsonValue] = Field(default_factory=dict)
    """Source metadata: dataset name, original ids, provenance."""
    choices: tuple[str, ...] = ()
    """Answer options in display order (lettered A, B, ...) for a multiple-choice question;
    empty otherwise. The gold answer is then a "choice" answer holding one option's text."""

    @model_validator(mode="before")
    @classmethod
    def _split_images(cls, data: Any) -> Any:
        """Accept `images=[first, second, ...]` as `image` + `more_images`."""
        if not isinstance(data, dict) or "images" not in data:
            return data
        data = dict(data)
        images = list(data.pop("images") or ())
        if not images:
            raise ValueError("images must hold at least one image")
        if "image" in data or "more_images" in data:
            raise ValueError("give either images or image (+ more_images), not both")
        data["image"], data["more_images"] = images[0], tuple(images[1:])
        return data

    @model_serializer(mode="wrap")
    def _drop_no_more_images(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not self.more_images:
            out.pop("more_images", None)
        return out

    @property
    def images(self) -> tuple[ImageRef, ...]:
        """Every image of the question in order; `image` is the first."""
        return (self.image, *self.more_images)

    @model_validator(mode="after")
    def _check_choices(self) -> Sample:
        if not self.choices:
            if self.answer.kind == "choice":
                raise ValueError("a multiple-choice answer needs the sample's choices")
            return self
        if len(self.choices) < 2:
            raise ValueError(
                f"a multiple-choice question needs two or more options, got {self.choices}"
            )
        if any(not c.strip() for c in self.choices):
            raise ValueError(f"empty answer option in {self.choices}")
        if len(set(self.choices)) != len(self.choices):
            raise ValueError(f"duplicate answer options in {self.choices}")
        if self.answer.kind != "choice":
            raise ValueError(
                f"a sample with choices needs a 'choice' answer, not {self.answer.kind!r}"
            )
        if self.answer.value not in self.choices:
            raise ValueError(f"gold option {self.answer.value!r} is not one of {self.choices}")
        return self

    def group_labels(self) -> dict[str, str]:
        """All labels a metric can be broken down by."""
        labels: dict[str, str] = {}
        if self.chart_type:
            labels["chart_type"] = self.chart_type
        if self.question_type:
            labels["question_type"] = self.question_type
        if self.task_type:
            labels["task_type"] = self.task_type
        if self.program:
            labels["program"] = self.program
        perturbations = [t for t in self.transforms if t.kind == "perturbation"]
        labels["perturbation"] = (
            "+".join(t.name for t in perturbations) if perturbations else "original"
        )
        if perturbations and perturbations[-1].level is not None:
            labels["level"] = str(perturbations[-1].level)
        edits = [
            "reconstruction" if t.kind == "reconstruction" else t.name
            for t in self.transforms
            if t.kind != "perturbation"
        ]
        if self.family_id is not None:
            labels["family_member"] = edits[-1] if edits else "original"
        if self.split:
            labels["split"] = self.split
        if self.choices and isinstance(self.answer.value, str):
            # where the gold sits: position bias shows up as accuracy by gold letter
            labels["gold_position"] = chr(ord("A") + self.choices.index(self.answer.value))
        labels.update(self.groups)
        return labels
