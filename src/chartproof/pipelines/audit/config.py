"""`AuditSettings`: what a bias audit is asked to do, the typed record `audit()` and `chartproof
audit` both build (unknown fields are errors), and the run config it is recorded as."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator

from chartproof.metrics.bias import OPINION_FALLBACKS
from chartproof.pipelines.audit.settings import CHOICES
from chartproof.pipelines.audit.tasks import chosen_tasks, setting_names
from chartproof.types import Record

__all__ = ["AuditSettings"]


class AuditSettings(Record):
    """A bias audit's settings (`pipelines.audit.audit`, `chartproof audit`)."""

    data: str | Path
    """Dataset folder or spec ("chartbias:/path", a generated suite)."""
    model: str = "builtin:reader"
    """Backend spec (recorded as the model unless a backend object is given)."""
    out: str | Path = "runs/audit"
    """Run folder (rerun to resume)."""
    attributes: tuple[str, ...] | None = None
    """Attributes of the lexicon to audit (None: all of them)."""
    settings: tuple[str, ...] = ("narrative", "hallucination", "polarity")
    """Audit settings (`tasks.setting_names()`: narrative, hallucination, polarity, cue)."""
    mitigate: bool = False
    """Add the multi-agent mitigation and its no-masking ablation."""
    mitigation_pairs: int | None = Field(default=None, ge=1)
    """Run the mitigation on the first N eligible chart–attribute pairs only (None: all);
    the report names the n."""
    causal: bool = True
    """Ask about trend-flipped counterfactuals of generated charts too."""
    lexicon_file: str | Path | None = None
    """Pair-list file (TOML/JSON) adding or replacing attributes."""
    prompts_file: str | Path | None = None
    """Prompt overrides (TOML/JSON)."""
    limit: int | None = None
    """Only the first `limit` charts."""
    cue_questions: int = Field(default=2, ge=0)
    """Questions per chart in the cue setting."""
    embedder: str | Path | None = "default"
    """Sentence-transformers folder, "default" (all-MiniLM-L6-v2 offline) or None
    (dissimilarities not computed). `audit(embedder=...)` also takes an embedder object."""
    ocr: bool = True
    """Read image text for eligibility."""
    max_tokens: int = Field(default=256, ge=1)
    """Largest narrative in tokens."""
    batch_size: int | None = Field(default=None, ge=1)
    """Work units per batch (default: enough to keep the backend busy)."""
    cache: bool | str | Path = True
    """Response cache: True for the default file, a path for that file, False for none."""
    strict: bool = False
    """Stop at the first bad dataset row."""
    choice: str = "generate"
    """How group selection is answered (`CHOICES`; "generate" is the paper's protocol)."""
    opinion_fallback: str = "none"
    """Opinion of an untagged output (`OPINION_FALLBACKS`; "none": it has none)."""

    @field_validator("choice")
    @classmethod
    def _known_choice(cls, value: str) -> str:
        if value not in CHOICES:
            raise ValueError(f"unknown choice {value!r}; choose from {list(CHOICES)}")
        return value

    @field_validator("opinion_fallback")
    @classmethod
    def _known_fallback(cls, value: str) -> str:
        if value not in OPINION_FALLBACKS:
            raise ValueError(
                f"unknown opinion fallback {value!r}; choose from {list(OPINION_FALLBACKS)}"
            )
        return value

    @field_validator("settings")
    @classmethod
    def _known_settings(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        known = setting_names()
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise ValueError(f"unknown audit settings {unknown}; choose from {known}")
        return value

    @model_validator(mode="after")
    def _something_to_do(self) -> AuditSettings:
        if not self.settings and not self.mitigate:
            raise ValueError("nothing to audit: give at least one setting or mitigate")
        return self

    def chosen(self) -> list[str]:
        """The chosen settings in registration (report) order."""
        return [s for s in setting_names() if s in self.settings]

    def run_config(
        self, model: str, attributes: Sequence[Any], embedder: str | None, prompts: list[str]
    ) -> dict[str, Any]:
        """The run folder's config (its identity: a rerun with the same config resumes).
        Options at their default that older runs did not record are left out, so those
        runs still resume."""
        return {
            "pipeline": "audit",
            "data": str(self.data),
            "model": model,
            "attributes": [a.model_dump(mode="json") for a in attributes],
            "settings": self.chosen(),
            "mitigate": self.mitigate,
            **({"mitigation_pairs": self.mitigation_pairs} if self.mitigation_pairs else {}),
            "causal": self.causal,
            "limit": self.limit,
            "cue_questions": self.cue_questions,
            "ocr": self.ocr,
            "max_tokens": self.max_tokens,
            "embedder": embedder,
            **({"choice": self.choice} if self.choice != "generate" else {}),
            **(
                {"opinion_fallback": self.opinion_fallback}
                if self.opinion_fallback != "none"
                else {}
            ),
            "prompts": prompts,
        }

    def asks_counterfactuals(self) -> bool:
        """Whether a chosen task asks about trend-flipped counterfactuals."""
        return self.causal and any(t.counterfactuals for t in chosen_tasks(self.settings, False))
