"""Result records: metric values, the step records of a result, one sample's outcome in a
run, and a run's identity card."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from pydantic import Discriminator, Field, JsonValue, Tag

from chartproof.types.data import Record

__all__ = [
    "ChainStepRecord",
    "PremiseStepRecord",
    "RunRecord",
    "SampleResult",
    "Score",
    "StepRecord",
]


class ChainStepRecord(Record):
    """One sub-question of a chain, as the chain protocol asked and scored it."""

    type: Literal["chain"] = "chain"
    """Discriminator."""
    id: int
    """Step id within the chain."""
    task_type: str
    """ChartR task type of the step."""
    depends_on: tuple[int, ...] = ()
    """Ids of the steps whose answers this one uses."""
    question: str
    """The sub-question."""
    gold: str
    """The gold answer as text."""
    prediction: str | None = None
    """The model's parsed answer (None when it gave none)."""
    output: str = ""
    """The model's raw reply."""
    correct: bool
    """Whether the prediction matches the gold answer."""


class PremiseStepRecord(Record):
    """One premise of a VPP sequence, as the premise protocol asked and scored it."""

    type: Literal["premise"] = "premise"
    """Discriminator."""
    id: str
    """Premise id within the sample."""
    kind: str
    """Premise kind (structural, data, reasoning, math)."""
    slot: str | None = None
    """Template slot the premise fills, when known."""
    statement: str
    """The premise as asked."""
    truth: bool
    """Whether the premise holds."""
    prediction: bool | None = None
    """The model's verdict (None when unreadable)."""
    output: str = ""
    """The model's raw reply."""
    correct: bool
    """Whether the verdict equals the truth."""


def _step_kind(value: Any) -> str:
    """Tag of a step record: its `type`; records written before steps were typed are told
    apart by their fields; anything else is a pipeline's own record (kept as a dict)."""
    if isinstance(value, ChainStepRecord | PremiseStepRecord):
        return value.type
    if isinstance(value, dict):
        kind = value.get("type")
        if kind in ("chain", "premise"):
            return str(kind)
        if kind is None and "statement" in value and "truth" in value:
            return "premise"
        if kind is None and "task_type" in value and "depends_on" in value:
            return "chain"
    return "other"


StepRecord: TypeAlias = Annotated[
    Annotated[ChainStepRecord, Tag("chain")]
    | Annotated[PremiseStepRecord, Tag("premise")]
    | Annotated[dict[str, JsonValue], Tag("other")],
    Discriminator(_step_kind),
]
"""A step of a result: a chain step, a premise verdict, or a pipeline's own record (the
derender status, explanation candidates) as a plain dict."""


class Score(Record):
    """One metric value, optionally for one group."""

    metric: str
    """Metric name, e.g. "relaxed_accuracy"."""
    value: float | None
    """The value; None when it could not be computed (see `note`)."""
    n: int = 0
    """Number of items behind the value."""
    stderr: float | None = None
    """Standard error of the mean, when defined."""
    group: dict[str, str] = Field(default_factory=dict)
    """Group labels this value is restricted to; empty for the whole set."""
    note: str | None = None
    """Why the value is missing or how it was computed."""


class SampleResult(Record):
    """One sample's outcome in a run: appended to the run's results file once finished."""

    sample_id: str
    """The sample scored."""
    protocol: str
    """Evaluation protocol: "direct", "chain" or "premise"."""
    model: str
    """Backend spec string."""
    prediction: str | None = None
    """Parsed final answer (None when missing or failed)."""
    output: str = ""
    """Raw model text of the final answer."""
    explanation: str | None = None
    """Parsed explanation."""
    scores: dict[str, float | None] = Field(default_factory=dict)
    """Per-sample metric values (None = not computed)."""
    groups: dict[str, str] = Field(default_factory=dict)
    """The sample's group labels."""
    steps: tuple[StepRecord, ...] = ()
    """Per-step (chain) or per-premise records: prediction, correctness and raw output."""
    error: str | None = None
    """Why the sample failed, None when it was answered."""
    cached: int = 0
    """How many of its model calls came from the cache."""
    calls: int = 0
    """How many model calls it made."""
    latency_s: float = 0.0
    """Total model time."""


class RunRecord(Record):
    """A run's identity card, written to `run.json` in the run folder."""

    id: str
    """Run id (folder name by default)."""
    created: str
    """ISO-8601 creation time."""
    config: dict[str, Any]
    """Everything needed to reproduce the run: data, model, protocol, prompt, metrics."""
    dataset_fingerprint: str
    """Hash of the dataset's sample ids and image hashes."""
    code_version: str
    """chartproof version (and git commit when known)."""
    status: Literal["running", "done", "failed"] = "running"
    """Where the run stands."""
    counts: dict[str, int] = Field(default_factory=dict)
    """Samples total, done, failed, skipped."""
    summary: dict[str, Any] = Field(default_factory=dict)
    """Headline metrics once done."""
