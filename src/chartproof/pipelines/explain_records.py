"""Provenance records of the explanation-dataset pipeline: every candidate, its ROSCOE scores
and votes, and each sample's outcome; stored as run results and as dataset sample sources."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import JsonValue

from chartproof.types import (
    CandidateStatus,
    CandidateStepRecord,
    Record,
    Sample,
    SampleResult,
    VoteRecord,
)

__all__ = [
    "PROTOCOL",
    "Candidate",
    "CandidateStatus",
    "ExplainOutcome",
    "OutcomeStatus",
    "Vote",
    "explained_sample",
    "outcome_from_result",
    "outcome_to_result",
]

PROTOCOL = "explain"
"""The `SampleResult.protocol` of explain records in a run folder."""

Vote = VoteRecord
"""One verifier's judgement of one candidate (`types.VoteRecord`)."""

Candidate = CandidateStepRecord
"""One model's candidate explanation in one round (`types.CandidateStepRecord`, the step
record of an explain result)."""

OutcomeStatus: TypeAlias = Literal["accepted", "rejected", "failed"]
"""A sample's outcome: an explanation was accepted; every candidate of every round was
rejected with all model calls answered; or none was accepted while some call failed (such a
sample is asked again when the run is resumed)."""


class ExplainOutcome(Record):
    """One sample's outcome: the accepted explanation (if any) and every candidate behind it."""

    sample_id: str
    """The sample explained."""
    status: OutcomeStatus
    """Accepted, rejected or failed."""
    explanation: str | None = None
    """The accepted explanation; None when none was accepted."""
    model: str | None = None
    """Model whose candidate was accepted."""
    round: int | None = None
    """Round in which it was accepted."""
    rounds: int = 0
    """Rounds of candidates generated."""
    candidates: tuple[Candidate, ...] = ()
    """Every candidate of every round, round by round in model order."""
    error: str | None = None
    """Why the sample failed; None unless `status` is "failed"."""


def outcome_to_result(
    outcome: ExplainOutcome,
    model: str,
    *,
    groups: dict[str, str] | None = None,
    calls: int = 0,
    cached: int = 0,
    latency_s: float = 0.0,
) -> SampleResult:
    """The outcome as a run-folder result (candidates in `steps`; `model` names the model set)."""
    accepted = _accepted(outcome.candidates)
    return SampleResult(
        sample_id=outcome.sample_id,
        protocol=PROTOCOL,
        model=model,
        explanation=outcome.explanation,
        scores={"aggregate": accepted.aggregate if accepted is not None else None},
        groups=groups or {},
        steps=outcome.candidates,
        error=outcome.error,
        cached=cached,
        calls=calls,
        latency_s=latency_s,
    )


def outcome_from_result(result: SampleResult) -> ExplainOutcome:
    """The outcome recorded in a run-folder result (inverse of `outcome_to_result`)."""
    if result.protocol != PROTOCOL:
        raise ValueError(f"sample {result.sample_id}: not an explain result ({result.protocol})")
    candidates = tuple(_candidate(result.sample_id, step) for step in result.steps)
    accepted = _accepted(candidates)
    status: OutcomeStatus = (
        "accepted" if accepted is not None else "failed" if result.error else "rejected"
    )
    return ExplainOutcome(
        sample_id=result.sample_id,
        status=status,
        explanation=result.explanation,
        model=accepted.model if accepted is not None else None,
        round=accepted.round if accepted is not None else None,
        rounds=max((c.round for c in candidates), default=0),
        candidates=candidates,
        error=result.error,
    )


def explained_sample(
    sample: Sample, outcome: ExplainOutcome, settings: dict[str, JsonValue]
) -> Sample:
    """The sample with the accepted explanation and the full provenance in `source["explain"]`.

    The input sample's own reference explanation, if it had one, is kept there as
    `input_explanation`.
    """
    if outcome.explanation is None:
        raise ValueError(f"sample {sample.id}: no accepted explanation to write")
    provenance: dict[str, JsonValue] = {
        "status": outcome.status,
        "model": outcome.model,
        "round": outcome.round,
        "rounds": outcome.rounds,
        "candidates": [c.model_dump(mode="json", exclude={"type"}) for c in outcome.candidates],
        "input_explanation": sample.explanation,
        "settings": settings,
    }
    return sample.model_copy(
        update={
            "explanation": outcome.explanation,
            "source": {**sample.source, "explain": provenance},
        }
    )


def _accepted(candidates: tuple[Candidate, ...]) -> Candidate | None:
    return next((c for c in candidates if c.status == "accepted"), None)


def _candidate(sample_id: str, step: object) -> Candidate:
    if isinstance(step, CandidateStepRecord):
        return step
    raise ValueError(f"sample {sample_id}: an explain result step is not a candidate: {step!r}")
