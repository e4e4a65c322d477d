"""Provenance records of the explanation-dataset pipeline: every candidate, its ROSCOE scores
and votes, and each sample's outcome; stored as run results and as dataset sample sources."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import Field, JsonValue

from chartproof.types import Record, Sample, SampleResult

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

CandidateStatus: TypeAlias = Literal["accepted", "rejected", "not_verified", "failed"]
"""What became of a candidate: accepted by the verifiers, rejected by them, never put to them
(a better-ranked candidate was accepted first), or failed (no usable explanation)."""

OutcomeStatus: TypeAlias = Literal["accepted", "rejected", "failed"]
"""A sample's outcome: an explanation was accepted; every candidate of every round was
rejected with all model calls answered; or none was accepted while some call failed (such a
sample is asked again when the run is resumed)."""


class Vote(Record):
    """One verifier's judgement of one candidate explanation."""

    verifier: str
    """Name of the verifying model."""
    verdict: bool | None
    """True = Correct, False = Incorrect, None = no verdict (failed call or unreadable reply);
    only True counts towards the majority."""
    reply: str = ""
    """The verifier's raw reply."""
    error: str | None = None
    """Why the call failed; None when the model answered."""


class Candidate(Record):
    """One model's candidate explanation in one round, with everything that decided its fate."""

    model: str
    """Name of the model that wrote it."""
    round: int
    """Generation round, from 1; a later round regenerates every candidate."""
    reply: str = ""
    """The model's raw reply."""
    explanation: str | None = None
    """The explanation parsed from the reply; None when the call failed or gave nothing."""
    error: str | None = None
    """Why there is no explanation (failed call or empty reply); None otherwise."""
    scores: dict[str, float | None] = Field(default_factory=dict)
    """The nine ROSCOE scores keyed FS … GS on ROSCOE's scale (PS/PC = 1/PPL); None = not
    computed. Empty when the candidate was not scored or the scorer gives only AS."""
    score_notes: dict[str, str] = Field(default_factory=dict)
    """Why a ROSCOE score is missing, keyed by code."""
    aggregate: float | None = None
    """The aggregate score AS used for ranking; None when it could not be computed."""
    aggregate_note: str | None = None
    """How AS was computed when not plainly (renormalised weights, custom scorer) or why it
    is missing."""
    rank: int | None = None
    """Position in its round's ranking (1 = highest AS); None for a failed candidate."""
    status: CandidateStatus = "not_verified"
    """What became of it."""
    reason: str | None = None
    """Why it was accepted, rejected, not verified or failed, in words."""
    votes: tuple[Vote, ...] = ()
    """The verifiers' votes, in verifier order (empty when not verified)."""
    correct: int = 0
    """Number of Correct votes."""
    needed: int | None = None
    """Correct votes it needed to be accepted; None when not verified."""


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
        steps=tuple(c.model_dump(mode="json") for c in outcome.candidates),
        error=outcome.error,
        cached=cached,
        calls=calls,
        latency_s=latency_s,
    )


def outcome_from_result(result: SampleResult) -> ExplainOutcome:
    """The outcome recorded in a run-folder result (inverse of `outcome_to_result`)."""
    if result.protocol != PROTOCOL:
        raise ValueError(f"sample {result.sample_id}: not an explain result ({result.protocol})")
    candidates = tuple(Candidate.model_validate(step) for step in result.steps)
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
        "candidates": [c.model_dump(mode="json") for c in outcome.candidates],
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
