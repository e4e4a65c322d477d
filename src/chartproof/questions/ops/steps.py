"""Step questions that operations declare: the template an operation writes its question
with, the kinds of its slots and how to run it, so a solver maps a chain's sub-question back
to the operation through the same template parser as whole questions. A step that combines
earlier answers ("Is the answer to step 2 less than the answer to step 3?") runs on those
answers recorded as operations (`recall`), the way the chain recorded them."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from pydantic import JsonValue

from chartproof.numeric import parse_number
from chartproof.questions.program import ArgValue
from chartproof.questions.trace import STEP_REF, Op, Tracer

__all__ = [
    "STEP_QUESTIONS",
    "StepQuestion",
    "StepRun",
    "combining",
    "given",
    "name_steps",
    "named_steps",
    "read_label",
    "recall",
    "refers_to_steps",
    "step_question",
    "step_slot",
]

StepRun = Callable[[Tracer, Mapping[str, ArgValue]], Op | None]
"""An operation run on a step question's resolved arguments."""


@dataclass(frozen=True)
class StepQuestion:
    """A sub-question an operation writes, and how to answer it by running the operation."""

    op: str
    """The operation's name."""
    template: str
    """What it asks, with `{slot}`s (slots not in `slots` are derived text, e.g. x_title)."""
    slots: Mapping[str, str]
    """Argument slot → kind (x, series, ordinal, ...), resolved on the chart."""
    run: StepRun
    """The operation, run on the resolved arguments."""


STEP_QUESTIONS: list[StepQuestion] = []
"""Every declared step question, in declaration order."""


def step_question(
    op: str,
    template: str,
    run: StepRun,
    **slots: str,
) -> str:
    """Declare the question an operation writes; returns the template for it to fill."""
    STEP_QUESTIONS.append(StepQuestion(op, template, MappingProxyType(slots), run))
    return template


def step_slot(name: str) -> str:
    """A template's reference to an earlier step whose number fills slot `name` ("the
    answer to step {a}"; declare the slot as a "number")."""
    return STEP_REF.format(n=f"{{{name}}}")


_NAMED = re.compile(
    r"\s*((?:(?!\(step \d).)+?)\s+\(step (\d+)\)(?:,?\s+or\s+|,\s*|\s*$)", re.I | re.S
)


def name_steps(named: Sequence[tuple[str, int]]) -> str:
    """Results named with their steps, as a step question lists its candidates: "Berlin
    (step 3), Amsterdam (step 6) or Vienna (step 9)" (`named_steps` reads it back)."""
    parts = [f"{label} (step {n})" for label, n in named]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" or {parts[-1]}"


def named_steps(text: str) -> list[tuple[str, int]] | None:
    """The (name, step) pairs a list written by `name_steps` holds; None unless the whole
    text is such a list of at least two."""
    out, pos, text = [], 0, text.strip()
    while pos < len(text):
        m = _NAMED.match(text, pos)
        if m is None:
            return None
        out.append((m.group(1).strip(), int(m.group(2))))
        pos = m.end()
    return out if len(out) >= 2 else None


_REFERS = re.compile(
    STEP_REF.format(n=r"\d+") + r"|\b(?:from|in) steps \d|\(step \d+\)(?:,|\s+or\b)", re.I
)


def refers_to_steps(question: str) -> bool:
    """Whether a question combines earlier chain steps' answers, as the step questions
    write them: "the answer to step 2", "from steps 1, 2 and 3", "Berlin (step 3) or
    Vienna (step 9)" (a solver answers it from those answers alone)."""
    return _REFERS.search(question) is not None


_LABEL = re.compile(r"\bin (.+?)\?*$")


def read_label(question: str) -> str | None:
    """The label a read names: "What is the value of 2019 in France?" → France."""
    m = _LABEL.search(question.strip())
    return m.group(1).strip() if m else None


def recall(tr: Tracer, answers: Mapping[int, tuple[str, str]]) -> None:
    """Record the (question, answer) each earlier step gave as an operation, step k as
    operation k - 1, before a step question that combines them runs: numbers as exact
    numbers, comma-separated answers as lists, other answers as text, with the label the
    step's question read at ("in France"). Steps not given are recorded without an answer
    (`given` refuses them)."""
    for k in range(1, max(answers, default=0) + 1):
        question, answer = answers.get(k, ("", ""))
        text = answer.strip().rstrip(".")
        x = parse_number(text)
        label = read_label(question)
        args: dict[str, JsonValue] = {"given": k in answers}
        if label:
            args["x"] = label
        if x is not None:
            tr.add("recall", None, question, x, "number", args=args, exact=True)
        elif "," in text:
            items = tuple(t.strip() for t in text.split(","))
            tr.add("recall", None, question, items, "list", args=args)
        else:
            tr.add("recall", None, question, text, "text", args=args)


def given(
    tr: Tracer, args: Mapping[str, ArgValue], *slots: str, kind: str = "number"
) -> tuple[Op, ...] | None:
    """The recalled answers of the steps the slots name, each noted ("step 2 gave 12") for
    the explanation; None when one was not given or is not of `kind` ("number", "list")."""
    out = []
    for slot in slots:
        n = args.get(slot)
        k = int(n) if isinstance(n, (int, float)) and float(n).is_integer() else 0
        op = tr.ops[k - 1] if 1 <= k <= len(tr.ops) else None
        if op is None or op.op != "recall" or not op.args.get("given") or op.kind != kind:
            return None
        op.note = f"step {k} gave {op.text()}"
        out.append(op)
    return tuple(out)


def combining(fn: Callable[[Tracer, Op, Op], Op | None]) -> StepRun:
    """The run of a step question combining the answers of steps `a` and `b` with `fn`."""

    def run(tr: Tracer, args: Mapping[str, ArgValue]) -> Op | None:
        ops = given(tr, args, "a", "b")
        return None if ops is None else fn(tr, *ops)

    return run
