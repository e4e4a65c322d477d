"""Step records of the explanation-dataset and derender pipelines (members of the
`StepRecord` union of `SampleResult.steps`): every explanation candidate with its scores and
votes, and what became of one chart's redraw."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from pydantic import Field, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from chartproof.types.data import Record

__all__ = [
    "CandidateStatus",
    "CandidateStepRecord",
    "DerenderStatus",
    "DerenderStepRecord",
    "SandboxStep",
    "VoteRecord",
]

CandidateStatus: TypeAlias = Literal["accepted", "rejected", "not_verified", "failed"]
"""What became of a candidate: accepted by the verifiers, rejected by them, never put to them
(a better-ranked candidate was accepted first), or failed (no usable explanation)."""

DerenderStatus: TypeAlias = Literal["ok", "model_error", "no_code", "sandbox_failed", "no_image"]
"""Where a redraw stopped: "ok" means the code ran and drew an image."""


class VoteRecord(Record):
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


class CandidateStepRecord(Record):
    """One model's candidate explanation in one round, with everything that decided its fate
    (the steps of an explain result, one per candidate of every round)."""

    type: Literal["explain_candidate"] = "explain_candidate"
    """Discriminator."""
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
    votes: tuple[VoteRecord, ...] = ()
    """The verifiers' votes, in verifier order (empty when not verified)."""
    correct: int = 0
    """Number of Correct votes."""
    needed: int | None = None
    """Correct votes it needed to be accepted; None when not verified."""


class SandboxStep(Record):
    """The sandbox run of a redraw's script, as recorded with the result."""

    status: str
    """The sandbox's status (ok, timeout, memory, forbidden, error)."""
    reason: str | None = None
    """Why it did not finish cleanly."""
    duration_s: float | None = None
    """Wall time of the run."""
    isolation: tuple[str, ...] = ()
    """The isolation layers it ran under."""


class DerenderStepRecord(Record):
    """What became of one chart's redraw (the single step of a derender result); its code,
    image and spec are files beside the run folder."""

    type: Literal["derender"] = "derender"
    """Discriminator."""
    status: DerenderStatus
    """Where the pipeline stopped."""
    reason: str | None = None
    """Why it stopped early (model error, sandbox status and reason, ...)."""
    sandbox: SandboxStep | None = None
    """The sandbox run, when the reply had code to run."""
    spec: str | None = None
    """The rebuilt spec's file, relative to the output folder (a faithful redraw only)."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        # written as the records were before they were typed: no sandbox or spec key when
        # there is none (readers test for the key)
        data = handler(self)
        for key in ("sandbox", "spec"):
            if isinstance(data, dict) and data.get(key) is None:
                data.pop(key, None)
        return data


def legacy_step_kind(value: dict[str, Any]) -> str | None:
    """The tag of a step record written before it had a `type`, told by its fields; None
    for a pipeline's own record (an audit step)."""
    if "statement" in value and "truth" in value:
        return "premise"
    if "task_type" in value and "depends_on" in value:
        return "chain"
    if {"model", "round", "status", "votes"} <= value.keys():
        return "explain_candidate"
    if {"status", "reason"} <= value.keys() and value.keys() <= {
        "status",
        "reason",
        "sandbox",
        "spec",
    }:
        return "derender"
    return None
