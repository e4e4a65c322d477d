"""The trace of a question program: every operation it executed, with the cells it touched.

Operations are recorded by `chartproof.questions.ops`; the trace then yields the answer, the
reasoning chain, the premises and the reference explanation of the question.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from pydantic import Field, JsonValue

from chartproof.numeric import format_number
from chartproof.questions.view import ChartView, round_sig
from chartproof.types import Answer, AnswerKind, AnswerValue, Record, TaskType

__all__ = ["MAX_TOLERANCE", "STEP_REF", "Ask", "Op", "TraceOp", "Tracer", "ref", "ref_index"]

MAX_TOLERANCE = 0.25
"""Largest relative tolerance a numeric answer may need; a question whose answer a reader
cannot get closer than this is ambiguous and skipped."""

STEP_REF = "the answer to step {n}"
"""How a sub-question refers to the result of an earlier step ({n}: its number)."""


class TraceOp(Record):
    """One executed operation of a question program."""

    id: int = Field(ge=0)
    """Position in the trace; `depends_on` refers to these ids."""
    op: str
    """Operation name, e.g. "read", "extreme", "arith" (see `chartproof.questions.ops`)."""
    task_type: TaskType | None
    """ChartR task type of the operation (None for chart-structure facts)."""
    question: str
    """The operation as a sub-question."""
    answer: Answer
    """What the operation produced."""
    depends_on: tuple[int, ...] = ()
    """Operations whose results it used."""
    cells: tuple[tuple[str, str], ...] = ()
    """Table cells it touched, as (x label, column name)."""
    args: dict[str, JsonValue] = Field(default_factory=dict)
    """Arguments; {"ref": i} stands for the result of operation i."""
    note: str = ""
    """What was done, as an explanation clause naming the visual elements."""


@dataclass(slots=True)
class Op:
    """An operation while a program runs (turned into a `TraceOp` at the end)."""

    id: int
    op: str
    task_type: TaskType | None
    question: str
    value: AnswerValue
    kind: AnswerKind
    depends_on: tuple[int, ...] = ()
    cells: tuple[tuple[str, str], ...] = ()
    args: dict[str, JsonValue] = field(default_factory=dict)
    note: str = ""
    err: float = 0.0
    """Absolute uncertainty of a numeric value read from the chart."""
    exact: bool = False
    """An integer result (count, position) compared without tolerance."""
    unit: str | None = None
    free: bool = False
    """A number not in the value axis' units (ratio, percentage), printed on its own."""

    def number(self) -> float:
        """The numeric value (TypeError for non-numeric operations)."""
        if isinstance(self.value, bool) or not isinstance(self.value, float):
            raise TypeError(f"operation {self.op} produced {self.value!r}, not a number")
        return self.value

    def text(self) -> str:
        """The value as a sentence prints it."""
        return value_text(self.value)

    def answer(self) -> Answer | None:
        """The typed answer, None when a number cannot be read precisely enough."""
        v = self.value
        if self.kind == "number":
            x = self.number()
            if self.exact:
                return Answer(kind="number", value=x, unit=self.unit, tolerance=0.0)
            tol = 0.05
            if self.err > 0:
                if x == 0:
                    return None
                tol = max(tol, self.err / abs(x))
            if tol > MAX_TOLERANCE:
                return None
            return Answer(kind="number", value=round_sig(x, 6), unit=self.unit, tolerance=tol)
        return Answer(kind=self.kind, value=v)

    def to_record(self) -> TraceOp:
        """The public record of this operation."""
        answer = self.answer()
        if answer is None:
            raise ValueError(f"operation {self.id} ({self.op}) has no usable answer")
        return TraceOp(
            id=self.id,
            op=self.op,
            task_type=self.task_type,
            question=self.question,
            answer=answer,
            depends_on=self.depends_on,
            cells=self.cells,
            args=self.args,
            note=self.note,
        )


def ref(op: Op) -> dict[str, JsonValue]:
    """The argument that stands for an earlier operation's result."""
    return {"ref": op.id}


def ref_index(arg: JsonValue) -> int | None:
    """The operation id an argument made by `ref` points at, None for other arguments."""
    if isinstance(arg, dict):
        i = arg.get("ref")
        if isinstance(i, int):
            return i
    return None


def value_text(v: AnswerValue) -> str:
    """A value as text: numbers in short form, booleans as yes/no, lists comma-joined."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return format_number(round_sig(v, 6))
    if isinstance(v, tuple):
        return ", ".join(value_text(x) for x in v)
    return v


def _shifted(arg: JsonValue, by: int) -> JsonValue:
    """An argument with every reference (`ref`) moved `by` operations on."""
    i = ref_index(arg)
    if i is not None:
        return {"ref": i + by}
    if isinstance(arg, list):
        return [_shifted(a, by) for a in arg]
    return arg


Ask = Callable[[str, ChartView], Sequence[Op] | None]
"""How a sub-question is answered on a chart: the operations of its answer, the last one
the answer, or None when nothing answers it (`questions.matching.answer_ops` by default; a
solver passes its own, e.g. the offline reader's order of readings)."""


class OpDetails(TypedDict, total=False):
    """The optional fields of an operation `Tracer.add` records (see `Op`)."""

    cells: tuple[tuple[str, str], ...]
    args: dict[str, JsonValue]
    note: str
    err: float
    exact: bool
    unit: str | None
    free: bool


class Tracer:
    """Records operations while a program runs on one chart view.

    `overrides` replace the result of the operations with those ids as they are recorded,
    so a program replayed with them shows what its later steps derive from other earlier
    answers (the dependency check of `chartproof.questions.chains.replay`). `ask` answers
    the sub-questions a program asks as its arguments (`Ask`; None: the one parser's).
    """

    __slots__ = ("ask", "ops", "overrides", "view")

    def __init__(
        self,
        view: ChartView,
        overrides: Mapping[int, AnswerValue] | None = None,
        *,
        ask: Ask | None = None,
    ) -> None:
        self.view = view
        self.ops: list[Op] = []
        self.overrides: Mapping[int, AnswerValue] = overrides or {}
        self.ask = ask

    def add(
        self,
        op: str,
        task_type: TaskType | None,
        question: str,
        value: AnswerValue,
        kind: AnswerKind,
        *,
        depends_on: tuple[Op, ...] = (),
        **details: Unpack[OpDetails],
    ) -> Op:
        """Record one operation and return it (its value is `.value`); `details` are the
        optional fields of `Op`."""
        rec = Op(
            id=len(self.ops),
            op=op,
            task_type=task_type,
            question=question,
            value=value,
            kind=kind,
            depends_on=tuple(d.id for d in depends_on),
            **details,
        )
        rec.args = rec.args or {}  # no args (or None, untyped callers): a fresh dict
        if rec.id in self.overrides:
            rec.value = self.overrides[rec.id]
        self.ops.append(rec)
        return rec

    def graft(self, ops: Sequence[Op]) -> Op | None:
        """Record another trace's operations (a sub-question's answer, from `ask`) as steps
        of this one, their dependencies and references renumbered; returns the last (the
        sub-question's answer), None for no operations."""
        by = len(self.ops)
        last = None
        for op in ops:
            last = self.add(
                op.op,
                op.task_type,
                op.question,
                op.value,
                op.kind,
                depends_on=tuple(self.ops[by + d] for d in op.depends_on),
                cells=op.cells,
                args={k: _shifted(v, by) for k, v in op.args.items()},
                note=op.note,
                err=op.err,
                exact=op.exact,
                unit=op.unit,
                free=op.free,
            )
        return last

    def link(self, op: Op | None, *deps: Op) -> Op | None:
        """Make `op` depend on earlier operations too (e.g. a read that needs the series a
        colour lookup found); passes None through."""
        if op is not None:
            extra = tuple(d.id for d in deps if d.id < op.id and d.id not in op.depends_on)
            op.depends_on = tuple(sorted(op.depends_on + extra))
        return op

    def step_ref(self, op: Op) -> str:
        """How a later sub-question refers to the result of `op`."""
        return STEP_REF.format(n=op.id + 1)

    def named(self, op: Op, noun: str) -> str:
        """How a later sub-question names a label an earlier step found: "the year from
        step 3"."""
        return f"the {noun} from step {op.id + 1}"
