"""Result records: metric values, one sample's outcome in a run, and a run's identity card."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, JsonValue

from chartproof.types.data import Record

__all__ = [
    "RunRecord",
    "SampleResult",
    "Score",
]


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
    steps: tuple[dict[str, JsonValue], ...] = ()
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
