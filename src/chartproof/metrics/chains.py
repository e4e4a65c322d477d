"""Reasoning-chain metrics of ChartR: ISA, CSA, FAA, CFA per chain and over a set, step error
rate and first-error ratio per task type (the robustness metric ARM is in
`chartproof.metrics.robustness`).

Pure functions of per-step correctness, dependencies and final correctness. What "correct"
means is ChartR's: ACC is exact match, so a step or final answer is right when it is the gold
answer under the typed rules of `chartproof.answers.matches` with no numeric tolerance
(`exact_answer`: 9.39 is not 9.4, "9.40" is). The chain protocol records both verdicts per
step; ISA/CSA/FAA/CFA use the exact one, and `isa_tol`... beside them use the gold's own
tolerance (5 % relative), named as such wherever they appear (`MATCHING`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import model_validator

from chartproof.answers import matches
from chartproof.metrics.registry import Metric, RunInput, scorer
from chartproof.types import Answer, ChainStepRecord, Record, Sample, Step, StepRecord

__all__ = [
    "MATCHING",
    "ChainOutcome",
    "chain_scores",
    "chain_step_scores",
    "error_analysis",
    "exact_answer",
    "first_error_ratio",
    "outcome_from_steps",
    "step_error_rate",
    "step_right",
]

MATCHING = {
    "exact": "exact match (ChartR's ACC): typed answers, no numeric tolerance",
    "tolerance": "the gold's tolerance (5 % relative for numbers, ChartQA's relaxed rule)",
}
"""The two step-matching rules, as every summary names them: `isa`... use exact,
`isa_tol`... use tolerance."""

FINAL = "final"
"""Task-type label of the final question when the outcome does not give one."""


class ChainOutcome(Record):
    """How one chain was answered: each sub-question right or wrong, and the final one."""

    correct: tuple[bool, ...]
    """Per sub-question, in step order: answered right."""
    depends_on: tuple[tuple[int, ...], ...]
    """Per sub-question, the earlier steps it depends on (indices into `correct`)."""
    task_types: tuple[str, ...]
    """Per sub-question, its ChartR task type (VE, CI, PR, VC, CP, TI, SO, NC)."""
    final_correct: bool
    """Whether the final composite question was answered right."""
    final_depends_on: tuple[int, ...] | None = None
    """Steps the final question depends on; None means every step (ChartR's final question
    aggregates all sub-answers)."""
    final_task_type: str | None = None
    """Task type of the final question; when given, the final question also counts in the
    step error rate under this type."""

    @model_validator(mode="after")
    def _check(self) -> ChainOutcome:
        m = len(self.correct)
        if len(self.depends_on) != m or len(self.task_types) != m:
            raise ValueError(
                f"chain outcome has {m} correctness flags, {len(self.depends_on)} dependency "
                f"lists and {len(self.task_types)} task types; they must match"
            )
        for i, deps in enumerate(self.depends_on):
            bad = [d for d in deps if not 0 <= d < i]
            if bad:
                raise ValueError(f"step {i} depends on {bad}: dependencies must be earlier steps")
        if self.final_depends_on is not None:
            bad = [d for d in self.final_depends_on if not 0 <= d < m]
            if bad:
                raise ValueError(f"final question depends on {bad}, which are not steps")
        return self

    @classmethod
    def from_steps(
        cls,
        steps: Sequence[Step],
        correct: Sequence[bool],
        final_correct: bool,
        *,
        final_task_type: str | None = None,
    ) -> ChainOutcome:
        """Outcome of a `Sample.chain` given each step's correctness."""
        if len(steps) != len(correct):
            raise ValueError(f"{len(steps)} steps but {len(correct)} correctness flags")
        return cls(
            correct=tuple(bool(c) for c in correct),
            depends_on=tuple(s.depends_on for s in steps),
            task_types=tuple(s.task_type for s in steps),
            final_correct=final_correct,
            final_task_type=final_task_type,
        )

    def chained(self) -> tuple[bool, ...]:
        """Per item (steps, then the final question): right together with all its ancestors."""
        ok: list[bool] = []
        for i, deps in enumerate(self.depends_on):
            ok.append(self.correct[i] and all(ok[d] for d in deps))
        final_deps = (
            range(len(self.correct)) if self.final_depends_on is None else self.final_depends_on
        )
        ok.append(self.final_correct and all(ok[d] for d in final_deps))
        return tuple(ok)


def chain_scores(outcome: ChainOutcome) -> dict[str, float]:
    """ISA, CSA, FAA and CFA of one chain; a set's values are their means over chains.

    ISA and CSA average over the m sub-questions plus the final question (m + 1 items);
    CSA counts an item only when it and all its ancestors are right; CFA is 1 only when
    every step and the final answer are right.
    """
    items = (*outcome.correct, outcome.final_correct)
    chained = outcome.chained()
    return {
        "isa": sum(items) / len(items),
        "csa": sum(chained) / len(chained),
        "faa": 1.0 if outcome.final_correct else 0.0,
        "cfa": 1.0 if all(items) else 0.0,
    }


def _final_type(o: ChainOutcome) -> str:
    return o.final_task_type or FINAL


def step_error_rate(outcomes: Sequence[ChainOutcome]) -> dict[str, float]:
    """Per task type, the share of its steps answered wrong (SER); the final question
    counts only when its task type is given."""
    wrong: dict[str, int] = {}
    total: dict[str, int] = {}
    for o in outcomes:
        pairs = list(zip(o.task_types, o.correct, strict=True))
        if o.final_task_type is not None:
            pairs.append((o.final_task_type, o.final_correct))
        for t, ok in pairs:
            total[t] = total.get(t, 0) + 1
            wrong[t] = wrong.get(t, 0) + (0 if ok else 1)
    return {t: wrong[t] / total[t] for t in sorted(total)}


def first_error_ratio(outcomes: Sequence[ChainOutcome]) -> dict[str, float]:
    """Per task type, the share of erring chains whose first wrong item (in step order,
    the final question last) has that type (FER); chains without an error are left out."""
    first: dict[str, int] = {}
    erring = 0
    for o in outcomes:
        kind = next((t for t, ok in zip(o.task_types, o.correct, strict=True) if not ok), None)
        if kind is None and not o.final_correct:
            kind = _final_type(o)
        if kind is None:
            continue
        erring += 1
        first[kind] = first.get(kind, 0) + 1
    return {t: first[t] / erring for t in sorted(first)}


def error_analysis(outcomes: Sequence[ChainOutcome]) -> dict[str, object]:
    """Step error rate and first-error ratio per task type, with the counts behind them."""
    steps: dict[str, int] = {}
    for o in outcomes:
        for t in o.task_types:
            steps[t] = steps.get(t, 0) + 1
    erring = sum(1 for o in outcomes if not all(o.correct) or not o.final_correct)
    return {
        "step_error_rate": step_error_rate(outcomes),
        "first_error_ratio": first_error_ratio(outcomes),
        "steps_per_task_type": dict(sorted(steps.items())),
        "chains": len(outcomes),
        "chains_with_error": erring,
    }


# --------------------------------------------------------------------------- registry


def outcome_from_steps(steps: Sequence[StepRecord], final_correct: bool) -> ChainOutcome:
    """A chain's outcome from the step records a chain result stores (raises ValueError
    naming a step that is not a chain step)."""
    chain = [st for st in steps if isinstance(st, ChainStepRecord)]
    if len(chain) != len(steps):
        raise ValueError(
            f"not a chain step record: {next(st for st in steps if st not in chain)!r}"
        )
    return ChainOutcome(
        correct=tuple(st.correct for st in chain),
        depends_on=tuple(st.depends_on for st in chain),
        task_types=tuple(st.task_type for st in chain),
        final_correct=final_correct,
    )


def exact_answer(gold: Answer) -> Answer:
    """The gold answer with no numeric tolerance (ChartR's exact match)."""
    return gold if gold.tolerance == 0 else gold.model_copy(update={"tolerance": 0.0})


def step_right(prediction: str, gold: Answer, rule: str = "exact") -> bool:
    """Whether a prediction is `gold` under a `MATCHING` rule."""
    if rule not in MATCHING:
        raise ValueError(f"step matching {rule!r}: expected one of {sorted(MATCHING)}")
    return matches(prediction, exact_answer(gold) if rule == "exact" else gold)


@scorer(
    kind="sample",
    name="chain_final",
    protocols=("chain",),
    metrics=[
        Metric(
            "final_exact",
            "final answer, exact",
            description="the composite question's answer by exact match (ChartR's FAA rule)",
        )
    ],
)
def chain_final(prediction: str, gold: Answer) -> dict[str, float | None]:
    """The final answer under exact match (FAA/CFA use it; `accuracy` keeps the tolerance)."""
    return {"final_exact": float(step_right(prediction, gold, "exact"))}


def _with_tolerance(steps: Sequence[StepRecord]) -> list[StepRecord]:
    """The records with `correct` set to the tolerant verdict (records from before the
    exact rule hold only `correct`, which was the tolerant one)."""
    out: list[StepRecord] = []
    for st in steps:
        if isinstance(st, ChainStepRecord) and st.correct_with_tolerance is not None:
            st = st.model_copy(update={"correct": st.correct_with_tolerance})
        out.append(st)
    return out


@scorer(
    kind="step",
    name="chain",
    protocols=("chain",),
    metrics=[
        Metric("isa", "ISA", headline={"chain": 0}, description="intermediate step accuracy"),
        Metric("csa", "CSA", headline={"chain": 1}, description="chained step accuracy"),
        Metric("faa", "FAA", headline={"chain": 2}, description="final answer accuracy"),
        Metric("cfa", "CFA", headline={"chain": 3}, description="chain-faithful accuracy"),
        *(
            Metric(
                f"{m}_tol",
                f"{m.upper()} (5 % tolerance)",
                description=f"{m.upper()} with steps matched within the gold's tolerance",
            )
            for m in ("isa", "csa", "faa", "cfa")
        ),
    ],
)
def chain_step_scores(
    sample: Sample, steps: Sequence[StepRecord], scores: Mapping[str, float | None]
) -> dict[str, float | None]:
    """Per-chain ISA/CSA/FAA/CFA (ChartR) by exact match, and the same within the gold's
    tolerance as `*_tol`: the run's values are their means over chains."""
    final_exact = scores.get("final_exact", scores.get("accuracy")) == 1.0
    out: dict[str, float | None] = dict(chain_scores(outcome_from_steps(steps, final_exact)))
    tolerant = outcome_from_steps(_with_tolerance(steps), scores.get("accuracy") == 1.0)
    out.update({f"{k}_tol": v for k, v in chain_scores(tolerant).items()})
    return out


@scorer(kind="run", name="chain_diagnostics", protocols=("chain",), section="chain")
def chain_diagnostics(run: RunInput) -> dict[str, Any] | None:
    """Step error rate and first-error ratio per task type over the answered chains (steps
    matched exactly), and the matching rule of each chain figure."""
    if run.protocol != "chain":
        return None
    outcomes = [outcome_from_steps(r.steps, r.scores.get("faa") == 1.0) for r in run.answered]
    out = dict(error_analysis(outcomes))
    out["matching"] = {"isa, csa, faa, cfa": MATCHING["exact"], "*_tol": MATCHING["tolerance"]}
    rescued = [
        st
        for r in run.answered
        for st in r.steps
        if isinstance(st, ChainStepRecord) and st.correct_with_tolerance and not st.correct
    ]
    out["steps_right_only_within_tolerance"] = len(rescued)
    return out
