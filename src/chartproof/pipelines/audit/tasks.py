"""The audit's tasks: each a protocol with its work units and its solve function, registered
in `AUDIT_TASKS` and run when one of the audit settings it declares is chosen.

A task is one `AuditTask`: `units(plan)` lists its work units (each with an `id`, the result
id) from the audit's plan (charts, attributes, eligibility), and `solve(units, ctx,
protocol)` asks the model about one batch of them and returns one `SampleResult` per unit.
The built-in tasks are registered below; a new one is one `AUDIT_TASKS.register` call in any
module (its setting names become valid `settings`). The statistics that read a protocol's
results are registered apart (`metrics.bias_summary.AUDIT_STATISTICS`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from chartproof.pipelines.audit.charts import AuditChart
from chartproof.pipelines.audit.lexicon import Attribute
from chartproof.pipelines.audit.settings import (
    AuditContext,
    CueUnit,
    PairUnit,
    SelectUnit,
    run_cue,
    run_cue_narrative,
    run_mitigation,
    run_narrative,
    run_selection,
)
from chartproof.types import SampleResult
from chartproof.types.registry import Registry

__all__ = [
    "AUDIT_TASKS",
    "MITIGATE",
    "AuditPlan",
    "AuditTask",
    "Unit",
    "chosen_tasks",
    "setting_names",
]

MITIGATE = "mitigate"
"""The pseudo-setting of the tasks that run when the mitigation is asked for (`mitigate`)."""


class Unit(Protocol):
    """A work unit: anything with a result id."""

    @property
    def id(self) -> str: ...


@dataclass(frozen=True)
class AuditPlan:
    """What the tasks build their work units from."""

    charts: Sequence[AuditChart]
    """Every chart asked about: the dataset's, then the trend-flipped counterfactuals."""
    attributes: Sequence[Attribute]
    """The audited attributes."""
    eligible: Collection[tuple[str, str]]
    """(chart id, attribute name) pairs to audit (the chart names no group or cue word)."""
    cue_questions: int = 2
    """Questions per chart in the cue setting."""
    mitigation_pairs: int | None = None
    """Eligible chart–attribute pairs the mitigation runs on (the first ones; None: all)."""

    @property
    def originals(self) -> list[AuditChart]:
        """The dataset's charts (not the counterfactuals)."""
        return [c for c in self.charts if c.family is None]

    def pairs(self) -> list[PairUnit]:
        """Every eligible (chart, attribute) pair of the dataset's charts."""
        return [
            PairUnit(c, a)
            for c in self.originals
            for a in self.attributes
            if (c.id, a.name) in self.eligible
        ]


Solve = Callable[[Sequence[Any], AuditContext, str], list[SampleResult]]


@dataclass(frozen=True)
class AuditTask:
    """A registered audit task: one protocol, its units and how they are solved."""

    protocol: str
    """Protocol of its results (`SampleResult.protocol`), and its name in the registry."""
    settings: tuple[str, ...]
    """The audit settings that run it (any one chosen; "mitigate": the mitigation flag)."""
    units: Callable[[AuditPlan], Sequence[Any]]
    """Its work units, each with an `id`."""
    solve: Solve
    """One batch of units → one result per unit (`protocol` passed as the third argument)."""
    counterfactuals: bool = False
    """Asks about the trend-flipped counterfactuals of generated charts too (when `causal`)."""
    chooses: bool = False
    """Asks the group-selection question, so a likelihood `choice` needs a scoring model."""


AUDIT_TASKS: Registry[AuditTask] = Registry(
    "audit task", modules=("chartproof.pipelines.audit.tasks",), group="chartproof.audit_tasks"
)
"""Audit tasks by protocol, in run order (built-ins first)."""


def setting_names() -> list[str]:
    """Every audit setting a registered task declares, in registration order (the
    mitigation flag apart)."""
    names = (s for task in AUDIT_TASKS.values() for s in task.settings if s != MITIGATE)
    return list(dict.fromkeys(names))


def chosen_tasks(settings: Collection[str], mitigate: bool) -> list[AuditTask]:
    """The tasks the chosen settings (and the mitigation flag) run, in run order."""
    chosen = set(settings) | ({MITIGATE} if mitigate else set())
    return [t for t in AUDIT_TASKS.values() if chosen & set(t.settings)]


def _selections(plan: AuditPlan) -> list[SelectUnit]:
    """Both option orders per eligible pair, counterfactual charts included (eligible as
    their original)."""
    return [
        SelectUnit(c, a, order)
        for c in plan.charts
        for a in plan.attributes
        if (c.family or c.id, a.name) in plan.eligible
        for order in ("ab", "ba")
    ]


def _cue_units(plan: AuditPlan) -> list[CueUnit]:
    return [
        CueUnit(c, s, a)
        for c in plan.originals
        for s in c.questions[: plan.cue_questions]
        for a in plan.attributes
    ]


def _mitigated(plan: AuditPlan) -> list[PairUnit]:
    pairs = plan.pairs()
    return pairs if plan.mitigation_pairs is None else pairs[: plan.mitigation_pairs]


for _task in (
    AuditTask("audit.narrative", ("narrative",), AuditPlan.pairs, run_narrative),
    AuditTask(
        "audit.hallucination",
        ("hallucination", "polarity"),
        _selections,
        run_selection,
        counterfactuals=True,
        chooses=True,
    ),
    AuditTask("audit.cue", ("cue",), _cue_units, run_cue),
    # the narrative side of the cue: the same chart and task written for a user of each group
    AuditTask("audit.cue_narrative", ("cue",), AuditPlan.pairs, run_cue_narrative),
    AuditTask("audit.mitigation", (MITIGATE,), _mitigated, partial(run_mitigation, masked=True)),
    AuditTask(
        "audit.mitigation_nomask",
        (MITIGATE,),
        _mitigated,
        partial(run_mitigation, masked=False),
    ),
):
    AUDIT_TASKS.register(_task.protocol, _task)
