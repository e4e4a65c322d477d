"""Visual premise proving metrics of RealCQA-V2: per-premise accuracy by kind, Acc_VPP
(share of sequences with every premise right) and DCP (depth of correct premises).

Pure functions of per-premise correctness; sequences are the ordered premise lists of one
question each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.metrics.registry import Metric, RunInput, scorer
from chartproof.types import PremiseKind, PremiseStepRecord, Record, Sample, Score, StepRecord

__all__ = [
    "KIND_CODES",
    "KIND_ORDER",
    "PremiseOutcome",
    "acc_vpp",
    "dcp",
    "premise_accuracy",
    "premise_diagnostics",
    "premise_metrics",
    "premise_scores",
    "premise_step_scores",
]

KIND_ORDER: tuple[PremiseKind, ...] = ("structural", "data", "reasoning", "math")
"""Premise kinds in RealCQA-V2 order: SP, DP, RP, MP."""

KIND_CODES: dict[str, str] = {"structural": "SP", "data": "DP", "reasoning": "RP", "math": "MP"}
"""RealCQA-V2's short names of the premise kinds."""

DCP_ALL_RIGHT_NOTE = (
    "no sequence has a wrong premise: the seed's formula divides by zero; DCP is 0 by the "
    "SPEC §7 convention"
)


class PremiseOutcome(Record):
    """Whether one premise of a sequence was judged right."""

    kind: str
    """Premise kind: "structural", "data", "reasoning" or "math"."""
    correct: bool
    """The model's true/false verdict matched the premise's label."""


def _check(sequences: Sequence[Sequence[bool]]) -> None:
    for i, seq in enumerate(sequences):
        if len(seq) == 0:
            raise ValueError(f"premise sequence {i} is empty; every sequence needs a premise")


def acc_vpp(sequences: Sequence[Sequence[bool]]) -> float | None:
    """Share of sequences whose premises are all right (None without sequences)."""
    _check(sequences)
    if not sequences:
        return None
    return sum(1 for seq in sequences if all(seq)) / len(sequences)


def dcp(sequences: Sequence[Sequence[bool]]) -> float | None:
    """Mean fraction of right premises over the sequences that are not all right.

    RealCQA-V2: DCP = 1/(S − S_correct) · Σ over wrong sequences of (right premises / P_s).
    0 when every sequence is all right (the seed's ratio is 0/0 there; SPEC §7 sets 0);
    None without sequences.
    """
    _check(sequences)
    if not sequences:
        return None
    wrong = [seq for seq in sequences if not all(seq)]
    if not wrong:
        return 0.0
    return sum(sum(seq) / len(seq) for seq in wrong) / len(wrong)


def premise_accuracy(sequences: Sequence[Sequence[bool]]) -> float | None:
    """Share of all premises judged right (None without premises)."""
    _check(sequences)
    n = sum(len(seq) for seq in sequences)
    return None if n == 0 else sum(sum(seq) for seq in sequences) / n


def _by_kind(
    sequences: Sequence[Sequence[PremiseOutcome]],
) -> dict[str, list[list[bool]]]:
    """Per kind, each sequence restricted to that kind's premises (empty ones dropped)."""
    kinds = [k for k in KIND_ORDER] + sorted(
        {p.kind for seq in sequences for p in seq} - set(KIND_ORDER)
    )
    out: dict[str, list[list[bool]]] = {}
    for kind in kinds:
        sub = [[p.correct for p in seq if p.kind == kind] for seq in sequences]
        sub = [s for s in sub if s]
        if sub:
            out[kind] = sub
    return out


def premise_metrics(sequences: Sequence[Sequence[PremiseOutcome]]) -> dict[str, object]:
    """Accuracy, Acc_VPP, DCP and counts, overall and per kind (RealCQA-V2 Table 4 layout:
    per kind, sequences are restricted to that kind's premises)."""
    flat = [[p.correct for p in seq] for seq in sequences]
    out: dict[str, object] = {
        "accuracy": premise_accuracy(flat),
        "acc_vpp": acc_vpp(flat),
        "dcp": dcp(flat),
        "n": sum(len(s) for s in flat),
        "sequences": len(flat),
    }
    out["by_kind"] = {
        kind: {
            "code": KIND_CODES.get(kind, kind),
            "accuracy": premise_accuracy(sub),
            "acc_vpp": acc_vpp(sub),
            "dcp": dcp(sub),
            "n": sum(len(s) for s in sub),
            "sequences": len(sub),
        }
        for kind, sub in _by_kind(sequences).items()
    }
    return out


def premise_scores(sequences: Sequence[Sequence[PremiseOutcome]]) -> list[Score]:
    """The same numbers as `Score` records: premise_accuracy, acc_vpp, dcp overall and with
    group {"premise_kind": kind}."""
    flat = [[p.correct for p in seq] for seq in sequences]
    groups: list[tuple[dict[str, str], list[list[bool]]]] = [({}, flat)]
    groups += [({"premise_kind": k}, sub) for k, sub in _by_kind(sequences).items()]
    out: list[Score] = []
    for group, seqs in groups:
        n_premises = sum(len(s) for s in seqs)
        out.append(
            Score(
                metric="premise_accuracy", value=premise_accuracy(seqs), n=n_premises, group=group
            )
        )
        out.append(Score(metric="acc_vpp", value=acc_vpp(seqs), n=len(seqs), group=group))
        all_right = bool(seqs) and all(all(s) for s in seqs)
        out.append(
            Score(
                metric="dcp",
                value=dcp(seqs),
                n=sum(1 for s in seqs if not all(s)),
                group=group,
                note=DCP_ALL_RIGHT_NOTE if all_right else None,
            )
        )
    return out


# --------------------------------------------------------------------------- registry


def _premise_steps(steps: Sequence[StepRecord]) -> list[PremiseStepRecord]:
    out = [st for st in steps if isinstance(st, PremiseStepRecord)]
    if len(out) != len(steps):
        raise ValueError(f"not a premise step record: {next(s for s in steps if s not in out)!r}")
    return out


@scorer(
    kind="step",
    name="premise",
    protocols=("premise",),
    metrics=[
        Metric(
            "premise_accuracy",
            means_correct=True,
            headline={"premise": 0},
            description="share of a sample's premises judged right",
        ),
        Metric(
            "acc_vpp",
            "Acc_VPP",
            headline={"premise": 1},
            description="1 when every premise of the sample is judged right",
        ),
    ],
)
def premise_step_scores(
    sample: Sample, steps: Sequence[StepRecord], scores: Mapping[str, float | None]
) -> dict[str, float | None]:
    """Premise accuracy and Acc_VPP of one sample's premise sequence."""
    right = [[st.correct for st in _premise_steps(steps)]]
    return {"premise_accuracy": premise_accuracy(right), "acc_vpp": acc_vpp(right)}


@scorer(kind="run", name="premise_diagnostics", protocols=("premise",), section="premise")
def premise_diagnostics(run: RunInput) -> dict[str, Any] | None:
    """Accuracy, Acc_VPP and DCP overall and per premise kind over the answered samples."""
    if run.protocol != "premise":
        return None
    sequences = [
        [PremiseOutcome(kind=st.kind, correct=st.correct) for st in _premise_steps(r.steps)]
        for r in run.answered
    ]
    return dict(premise_metrics(sequences))
