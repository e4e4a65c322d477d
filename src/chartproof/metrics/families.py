"""Counterfactual-family metrics (Chartographer): accuracy on originals and on their variants,
consistency across a family, and which data edits break which task types.

A family holds one original chart and its variants; each question asked of the original is
asked of every variant, with the answer re-derived. One `FamilyOutcome` records whether a
model got one (question, member) right.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from chartproof.metrics.registry import RunInput, correct_value, scorer
from chartproof.types import Record, Sample, Score

__all__ = [
    "FamilyOutcome",
    "edit_breakage",
    "families",
    "family_scores",
    "outcomes_from_samples",
]

Role = Literal["original", "reconstruction", "counterfactual"]


class FamilyOutcome(Record):
    """Whether a model answered one question on one member of a family correctly."""

    family_id: str
    """The family (usually the original chart's id)."""
    question: str
    """Key of the question, shared by all members (e.g. the original sample's id)."""
    role: Role
    """Which member: the original, its reconstruction from code, or a counterfactual edit."""
    edit: str | None = None
    """Edit kind of a counterfactual ("jitter", "reorder", ...); None otherwise."""
    task_type: str | None = None
    """ChartR task type of the question."""
    correct: bool | None
    """Whether the answer was right; None when it could not be scored."""


def outcomes_from_samples(
    samples: Iterable[Sample], correct: Mapping[str, bool | None]
) -> list[FamilyOutcome]:
    """Outcomes of samples that belong to a family (`family_id` set), given correctness by
    sample id. A sample's role and edit come from its transforms; its question key is its
    `parent_id` (the original sample) or, for the original, its own id."""
    out: list[FamilyOutcome] = []
    for s in samples:
        if s.family_id is None:
            continue
        role: Role = "original"
        edit = None
        for t in s.transforms:
            if t.kind == "counterfactual":
                role, edit = "counterfactual", t.name
            elif t.kind == "reconstruction" and role == "original":
                role = "reconstruction"
        out.append(
            FamilyOutcome(
                family_id=s.family_id,
                question=s.parent_id if role != "original" and s.parent_id else s.id,
                role=role,
                edit=edit,
                task_type=s.task_type,
                correct=correct.get(s.id),
            )
        )
    return out


def _share(metric: str, flags: list[bool], note: str | None = None, **group: str) -> Score:
    if not flags:
        return Score(metric=metric, value=None, n=0, group=group, note=note or "no items")
    return Score(metric=metric, value=sum(flags) / len(flags), n=len(flags), group=group, note=note)


def family_scores(
    outcomes: Iterable[FamilyOutcome], *, reconstruction_is_variant: bool = False
) -> list[Score]:
    """Family-level scores, unscored outcomes left out:

    - `family_accuracy_original`: accuracy over the originals' questions;
    - `family_accuracy_variants`: accuracy over the counterfactual members' questions;
    - `family_accuracy_reconstruction`: accuracy on the reconstructions (should match the
      originals: the image is the same chart);
    - `family_consistency`: share of (family, question) whose original was answered right
      and whose scored variants were all answered right too, among those whose original was
      right and that have at least one scored variant.

    With `reconstruction_is_variant`, reconstructions also count as variants.
    """
    items = [o for o in outcomes if o.correct is not None]
    variant_roles = (
        {"counterfactual", "reconstruction"} if reconstruction_is_variant else {"counterfactual"}
    )
    orig = [bool(o.correct) for o in items if o.role == "original"]
    var = [bool(o.correct) for o in items if o.role in variant_roles]
    rec = [bool(o.correct) for o in items if o.role == "reconstruction"]
    by_question: dict[tuple[str, str], dict[str, list[bool]]] = defaultdict(
        lambda: {"original": [], "variants": []}
    )
    for o in items:
        key = (o.family_id, o.question)
        if o.role == "original":
            by_question[key]["original"].append(bool(o.correct))
        elif o.role in variant_roles:
            by_question[key]["variants"].append(bool(o.correct))
    consistent = [
        all(g["variants"])
        for g in by_question.values()
        if g["original"] and all(g["original"]) and g["variants"]
    ]
    return [
        _share("family_accuracy_original", orig),
        _share("family_accuracy_variants", var),
        _share("family_accuracy_reconstruction", rec),
        _share(
            "family_consistency",
            consistent,
            note="share of originals answered right whose variants are all right",
        ),
    ]


def edit_breakage(outcomes: Iterable[FamilyOutcome]) -> list[Score]:
    """Which edits break which task types: for each (edit kind, task type), the share of
    counterfactual answers that are wrong although the same question on the original was
    answered right (`edit_break_rate`); groups sorted by edit, then task type."""
    items = [o for o in outcomes if o.correct is not None]
    original_right: dict[tuple[str, str], bool] = {}
    for o in items:
        if o.role == "original":
            key = (o.family_id, o.question)
            original_right[key] = original_right.get(key, True) and bool(o.correct)
    cells: dict[tuple[str, str], list[bool]] = defaultdict(list)
    for o in items:
        if o.role != "counterfactual" or not original_right.get((o.family_id, o.question)):
            continue
        cells[(o.edit or "unknown", o.task_type or "none")].append(not o.correct)
    return [
        _share("edit_break_rate", flags, edit=edit, task_type=task)
        for (edit, task), flags in sorted(cells.items())
    ]


@scorer(kind="run", name="families", section="families")
def families(run: RunInput) -> dict[str, Any] | None:
    """Family metrics over the unperturbed members of the run's counterfactual families:
    accuracy on originals and on edits, consistency, and edit × task-type break rates."""
    members = [
        s
        for s in run.samples
        if s.family_id is not None and not any(t.kind == "perturbation" for t in s.transforms)
    ]
    if not members:
        return None
    right: dict[str, bool | None] = {}
    for r in run.results:
        value = correct_value(r.scores)
        right[r.sample_id] = None if value is None else value == 1.0
    outcomes = outcomes_from_samples(members, right)
    return {
        "scores": [s.model_dump(exclude_defaults=False) for s in family_scores(outcomes)],
        "edit_break_rate": [s.model_dump(exclude_defaults=False) for s in edit_breakage(outcomes)],
    }
