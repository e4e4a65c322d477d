"""Question programs: executable logic over a chart's table with paraphrase templates, and
the registry that holds them.

A program picks its arguments from a chart (`sample`), runs on any `ChartView` (`run`), and
renders its question from templates with named slots that `match_question` can invert.
"""

from __future__ import annotations

import random
import string
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar, TypeAlias

from chartproof.charts.kinds import kinds_where
from chartproof.numeric import parse_number
from chartproof.questions.chains import chain_problem
from chartproof.questions.describe import marks_of, ordinal, position_word
from chartproof.questions.trace import Ask, Op, TraceOp, Tracer
from chartproof.questions.view import ChartView, chart_view
from chartproof.types import (
    Answer,
    AnswerValue,
    ChartSpec,
    DataTable,
    Step,
    TaskType,
)
from chartproof.types.registry import Registry

if TYPE_CHECKING:
    from chartproof.questions.cues import Cue

__all__ = [
    "ALL_CHARTS",
    "DERIVED_SLOTS",
    "PROGRAMS",
    "SLOT_KINDS",
    "ArgValue",
    "Args",
    "Program",
    "ProgramResult",
    "coerce_args",
    "execute",
    "get_program",
    "list_programs",
    "program_for",
    "register",
    "replay",
    "slot_kinds",
]

ArgValue: TypeAlias = str | float | int | bool
"""One argument of a program: a label, a number, an ordinal or a flag."""

Args: TypeAlias = Mapping[str, ArgValue]
"""A program's arguments by slot name."""

ALL_CHARTS = kinds_where(lambda k: True)
"""Every chart type (registered ones included)."""

SLOT_KINDS = (
    "x", "series", "x_list", "series_list", "number", "ordinal", "color", "band", "numbers",
    "quantity",
)  # fmt: skip
"""Kinds of argument slots: an x label, a series name, one or more of either (passed as the
text that lists them, "A, B and C": `labels.labels_listed`), a number, an ordinal (1 →
"first"), a colour name, a correlation band, a list of numbers (passed as its text, "46, 43,
41"), a quantity (a phrase naming a number: "38", "Canada", "the median of the green bars",
passed as its text and answered as a question of its own when the program runs:
`Tracer.ask`)."""

DERIVED_SLOTS = ("y_title", "x_title", "marks", "mark", "side")
"""Slots filled from the chart rather than from arguments: the measured quantity, the x
dimension, the plural and singular mark word, and where positions are counted from."""


def slot_kinds(**kinds: str) -> Mapping[str, str]:
    """A program's argument slots, e.g. `slot_kinds(series="series", x="x")` (read-only)."""
    return MappingProxyType(kinds)


class Program:
    """Base of every question program; subclasses set the class attributes and implement
    `sample` and `run`, then register with `@register`."""

    name: ClassVar[str]
    """Registry name, unique."""
    family: ClassVar[str]
    """Module family, e.g. "extraction", "realcqa", "chain", "structure"."""
    task_type: ClassVar[TaskType | None]
    """ChartR task type of the question (None for dense chart-parsing queries)."""
    question_type: ClassVar[str]
    """ChartQA-X style label: "descriptive", "reasoning" or "structural"."""
    chart_types: ClassVar[Collection[str]]
    """Chart types the program applies to."""
    templates: ClassVar[tuple[str, ...]]
    """Paraphrases of the question; `{slot}` marks an argument or derived slot."""
    slots: ClassVar[Mapping[str, str]] = slot_kinds()
    """Argument slot name → kind (one of `SLOT_KINDS`)."""
    min_series: ClassVar[int] = 1
    """Fewest series the chart must show."""
    chain: ClassVar[bool] = False
    """Whether the program is a ChartR reasoning chain (4 to 10 sub-questions)."""
    fallback: ClassVar[bool] = False
    """Drawn only after the others of its family fail (a chain that fits almost any chart
    would otherwise crowd out the rest)."""
    cues: ClassVar[tuple[Cue, ...]] = ()
    """How a question no template fits signals this program (`questions.cues`)."""
    variants: ClassVar[tuple[str, ...]] = ()
    """Programs asking the same question narrowed by other arguments (`program_for`)."""

    def applies(self, view: ChartView) -> bool:
        """Whether the program can ask about this chart at all."""
        return view.chart_type in self.chart_types and len(view.series) >= self.min_series

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        """Pick arguments for this chart, or None when there are none to pick."""
        raise NotImplementedError

    def run(self, tr: Tracer, args: Args) -> Op | None:
        """Execute on `tr.view`, recording operations; return the final one (the answer),
        or None when the chart makes the answer ambiguous."""
        raise NotImplementedError

    def question(self, view: ChartView, args: Args, paraphrase: int) -> str:
        """The question text from template `paraphrase`."""
        template = self.templates[paraphrase % len(self.templates)]
        return template.format_map(render_slots(view, self, args))

    def __repr__(self) -> str:
        return f"<program {self.name} ({self.family}, {self.task_type})>"


def render_slots(view: ChartView, program: Program, args: Args) -> dict[str, str]:
    """Slot texts for a template: derived slots from the view, arguments by their kind."""
    out = {
        "y_title": view.y_label,
        "x_title": view.x_label,
        "marks": marks_of(view),
        "mark": view.mark,
        "side": position_word(view),
    }
    for name, kind in program.slots.items():
        if name not in args:
            raise KeyError(f"program {program.name}: argument {name!r} missing from {dict(args)}")
        v = args[name]
        if kind == "number":
            out[name] = view.fmt(float(v))
        elif kind == "ordinal":
            out[name] = ordinal(int(v))
        else:
            out[name] = str(v)
    return out


def template_slots(template: str) -> list[str]:
    """The slot names of a template, in order."""
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


PROGRAMS: Registry[Program] = Registry(
    "question program", modules=("chartproof.questions.programs",), group="chartproof.programs"
)
"""Question programs by name (`@register` adds one; importing the package registers every
program module; another package's through the ``chartproof.programs`` entry-point group)."""


def register(cls: type[Program]) -> type[Program]:
    """Class decorator: instantiate and register a program (its name must be new and every
    template slot must be declared)."""
    prog = cls()
    if prog.name in PROGRAMS:
        raise ValueError(f"duplicate program name {prog.name!r}")
    if len(prog.templates) < 3:
        raise ValueError(f"program {prog.name}: needs at least 3 paraphrase templates")
    for t in prog.templates:
        for slot in template_slots(t):
            if slot not in prog.slots and slot not in DERIVED_SLOTS:
                raise ValueError(f"program {prog.name}: template slot {slot!r} undeclared")
    for name, kind in prog.slots.items():
        if kind not in SLOT_KINDS:
            raise ValueError(f"program {prog.name}: slot {name!r} has unknown kind {kind!r}")
    PROGRAMS.register(prog.name, prog)
    return cls


def list_programs(
    *, families: Iterator[str] | tuple[str, ...] | None = None, chart_type: str | None = None
) -> tuple[Program, ...]:
    """Registered programs in name order, optionally restricted to families / a chart type."""
    fam = None if families is None else set(families)
    return tuple(
        p
        for _, p in sorted(PROGRAMS.items())
        if (fam is None or p.family in fam) and (chart_type is None or chart_type in p.chart_types)
    )


def get_program(name: str) -> Program:
    """The program registered as `name` (KeyError listing the names otherwise)."""
    found = PROGRAMS.get(name)
    if found is None:
        raise KeyError(f"no question program {name!r}; known: {sorted(PROGRAMS)}")
    return found


def program_for(name: str, args: Args) -> Program:
    """The program `name`, or the one of its `variants` whose slots are exactly the
    arguments given (a question naming a series as well asks the narrower variant)."""
    prog = get_program(name)
    if set(prog.slots) == set(args):
        return prog
    for other in map(get_program, prog.variants):
        if set(other.slots) == set(args):
            return other
    return prog


@dataclass(frozen=True, slots=True)
class ProgramResult:
    """One execution of a program on a chart: its operations and what they yield."""

    program: Program
    """The program run."""
    args: Mapping[str, ArgValue]
    """Its arguments."""
    view: ChartView
    """The chart it ran on."""
    ops: tuple[Op, ...]
    """Recorded operations; the last is the answer."""
    ask: Ask | None = None
    """How its sub-questions were answered (`Tracer.ask`; None: the one parser)."""

    @property
    def final(self) -> Op:
        """The operation whose result answers the question."""
        return self.ops[-1]

    @property
    def answer(self) -> Answer:
        """The typed answer."""
        answer = self.final.answer()
        if answer is None:  # execute() never returns such results
            raise ValueError(f"{self.program.name}: answer needs more precision than a reader has")
        return answer

    def question(self, paraphrase: int = 0) -> str:
        """The question text from one of the paraphrases."""
        return self.program.question(self.view, self.args, paraphrase)

    def trace(self) -> tuple[TraceOp, ...]:
        """The operations as public records."""
        return tuple(op.to_record() for op in self.ops)

    def chain(self) -> tuple[Step, ...]:
        """The ChartR sub-questions leading to the answer: every operation but the final one
        for a chain program; none for other programs (their operations stay in the trace)."""
        name = self.program.name
        steps: list[Step] = []
        if not self.program.chain:
            return ()
        for op in self.ops[:-1]:
            answer = op.answer()
            if answer is None or op.task_type is None:
                raise ValueError(f"{name}: step {op.id} ({op.op}) is no answerable sub-question")
            steps.append(
                Step(
                    id=op.id,
                    question=op.question,
                    depends_on=op.depends_on,
                    answer=answer,
                    task_type=op.task_type,
                    program=name,
                )
            )
        return tuple(steps)


def coerce_args(program: Program, args: Mapping[str, object]) -> dict[str, ArgValue]:
    """Arguments typed by their slot kinds (e.g. JSON-decoded `QuestionItem.args`): labels
    as text, numbers as floats, ordinals as ints. ValueError names a missing or bad one."""
    out: dict[str, ArgValue] = {}
    for name, kind in program.slots.items():
        if name not in args:
            raise ValueError(f"program {program.name}: argument {name!r} is missing")
        v = args[name]
        typed: ArgValue | None = None
        if kind == "number" and isinstance(v, (int, float)) and not isinstance(v, bool):
            typed = float(v)
        elif kind == "number" and isinstance(v, str):
            typed = parse_number(v)
        elif kind == "ordinal" and isinstance(v, (int, float)) and not isinstance(v, bool):
            typed = int(v) if float(v).is_integer() else None
        elif kind not in ("number", "ordinal") and isinstance(v, str):
            typed = v
        if typed is None:
            raise ValueError(
                f"program {program.name}: argument {name!r} must be of kind {kind!r}, got {v!r}"
            )
        out[name] = typed
    return out


def execute(
    program: str | Program,
    args: Mapping[str, object],
    chart: ChartSpec | ChartView | DataTable,
    *,
    ask: Ask | None = None,
) -> ProgramResult | None:
    """Run a program with given arguments on a chart: a spec, a view, or a bare table (read
    as a vertical bar chart of its first column; build a `ChartView` to say more). `ask`
    answers the sub-questions its `quantity` arguments ask (None: the one parser).

    Returns None when the chart makes the answer ambiguous (missing cells, ties, values too
    close to tell apart, a number no reader could get within tolerance). Raises ValueError
    for arguments that do not fit the program's slots.
    """
    prog = get_program(program) if isinstance(program, str) else program
    typed = coerce_args(prog, args)
    view = ChartView.from_table(chart) if isinstance(chart, DataTable) else chart_view(chart)
    if not prog.applies(view):
        return None
    tr = Tracer(view, ask=ask)
    final = prog.run(tr, typed)
    if final is None or final is not tr.ops[-1]:
        return None
    if any(op.answer() is None for op in tr.ops):
        return None
    if prog.chain and chain_problem(
        [op.task_type for op in tr.ops[:-1]],
        [op.depends_on for op in tr.ops[:-1]],
        final.depends_on,
    ):
        return None
    return ProgramResult(program=prog, args=typed, view=view, ops=tuple(tr.ops), ask=ask)


def replay(result: ProgramResult, overrides: Mapping[int, AnswerValue]) -> tuple[Op, ...]:
    """The program's operations again, with the results of the operations in `overrides`
    replaced as they are recorded: what every later step derives from those other earlier
    answers. When a step cannot be computed from them (a label not on the chart, a value
    no longer clear of a threshold) the program stops there and the operations recorded
    so far come back: fewer than `result.ops`.

    A dependency is real when replacing a step's answer changes (or stops) the steps that
    depend on it.
    """
    tr = Tracer(result.view, overrides, ask=result.ask)
    result.program.run(tr, result.args)
    return tuple(tr.ops)
