"""Reasoning chains as DAGs (ChartR): validation and a JSON export of nodes and edges.

Node ids are the step ids; the final composite question is one more node after the last
step, and every step that no later step uses feeds it, so the final node is the only sink.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import JsonValue

from chartproof.questions.trace import TraceOp
from chartproof.types import Answer, Step, TaskType

__all__ = [
    "MAX_CHAIN_STEPS",
    "MIN_CHAIN_STEPS",
    "PERCEPTION",
    "REASONING",
    "ancestors",
    "chain_dag",
    "chain_problem",
    "check_chain",
]

MIN_CHAIN_STEPS = 4
"""ChartR chains have at least four sub-questions..."""

MAX_CHAIN_STEPS = 10
"""...and at most ten."""

PERCEPTION: frozenset[TaskType] = frozenset({"VE", "CI", "PR"})
"""ChartR's information-extraction tasks: value extraction, colour and position identification."""

REASONING: frozenset[TaskType] = frozenset({"VC", "CP", "TI", "SO", "NC"})
"""ChartR's reasoning tasks: value comparison, conditional processing, trend identification,
sequence ordering, numerical computation."""

MIN_TASK_TYPES = 3
"""Distinct task types a chain's sub-questions span at the least."""


def chain_problem(
    task_types: Sequence[TaskType | None],
    depends_on: Sequence[Sequence[int]],
    final_depends_on: Sequence[int],
) -> str | None:
    """Why sub-questions do not make a ChartR chain, None when they do: 4 to 10 steps, both
    task categories, at least three task types, and every step used by the final question
    (directly or through later steps)."""
    m = len(task_types)
    if not MIN_CHAIN_STEPS <= m <= MAX_CHAIN_STEPS:
        return f"{m} sub-questions, not {MIN_CHAIN_STEPS} to {MAX_CHAIN_STEPS}"
    types = {t for t in task_types if t is not None}
    if not types & PERCEPTION or not types & REASONING:
        return f"task types {sorted(types)} do not span perception and reasoning"
    if len(types) < MIN_TASK_TYPES:
        return f"only {len(types)} task types ({sorted(types)})"
    nodes = ancestors([*depends_on, final_depends_on])
    unused = sorted(set(range(m)) - nodes[-1])
    if unused:
        return f"steps {unused} feed nothing the final question uses"
    return None


def check_chain(steps: Sequence[Step]) -> None:
    """Raise ValueError when step ids are not 0..m-1 in order or a dependency points ahead
    (so the steps form a DAG listed in topological order)."""
    for i, s in enumerate(steps):
        if s.id != i:
            raise ValueError(f"chain step {i} has id {s.id}; ids must be 0..{len(steps) - 1}")
        bad = [d for d in s.depends_on if not 0 <= d < i]
        if bad:
            raise ValueError(f"chain step {i} depends on {bad}, which are not earlier steps")


def final_parents(steps: Sequence[Step], final_depends_on: Sequence[int] = ()) -> tuple[int, ...]:
    """The steps the final question hangs on: its own dependencies plus every sink step."""
    used = {d for s in steps for d in s.depends_on}
    sinks = {s.id for s in steps if s.id not in used}
    return tuple(sorted(sinks | set(final_depends_on)))


def ancestors(depends_on: Sequence[Sequence[int]]) -> list[frozenset[int]]:
    """For each node, every node it depends on directly or transitively."""
    out: list[frozenset[int]] = []
    for i, deps in enumerate(depends_on):
        acc: set[int] = set()
        for d in deps:
            if not 0 <= d < i:
                raise ValueError(f"node {i} depends on {d}, which is not an earlier node")
            acc.add(d)
            acc |= out[d]
        out.append(frozenset(acc))
    return out


def chain_dag(
    steps: Sequence[Step],
    question: str,
    answer: Answer,
    task_type: TaskType | None,
    trace: Sequence[TraceOp] = (),
) -> dict[str, JsonValue]:
    """JSON of the chain: {"nodes": [...], "edges": [[from, to], ...], "final": id}."""
    check_chain(steps)
    final_id = len(steps)
    final_deps: tuple[int, ...] = ()
    if trace and len(trace) == final_id + 1:
        final_deps = trace[-1].depends_on
    nodes: list[JsonValue] = [
        {
            "id": s.id,
            "question": s.question,
            "task_type": s.task_type,
            "answer": s.answer.text(),
            "answer_kind": s.answer.kind,
            "depends_on": list(s.depends_on),
            "final": False,
        }
        for s in steps
    ]
    parents = final_parents(steps, final_deps) if steps else ()
    nodes.append(
        {
            "id": final_id,
            "question": question,
            "task_type": task_type,
            "answer": answer.text(),
            "answer_kind": answer.kind,
            "depends_on": list(parents),
            "final": True,
        }
    )
    edges: list[JsonValue] = [[d, s.id] for s in steps for d in s.depends_on]
    edges.extend([p, final_id] for p in parents)
    return {"nodes": nodes, "edges": edges, "final": final_id}
