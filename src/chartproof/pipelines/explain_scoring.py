"""How explain ranks candidates: any ROSCOE scorer (or a custom callable) → the nine scores and
the aggregate score AS with ChartQA-X's weights, or the documented fallback when one is missing."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TypeAlias

from pydantic import JsonValue

from chartproof.metrics.roscoe import ROSCOE_FIELDS, RoscoeItem, RoscoeScores
from chartproof.metrics.weights import (
    MissingPolicy,
    PerplexityTransform,
    WeightSet,
    aggregate_score,
)

__all__ = [
    "CandidateScorer",
    "Ranking",
    "RoscoeLike",
    "ScoreValue",
    "Scored",
    "describe_scorer",
]

ScoreValue: TypeAlias = RoscoeScores | Mapping[str, float | None] | float | None
"""What a scorer returns per candidate: ROSCOE scores, the nine codes as a mapping, or AS."""

CandidateScorer: TypeAlias = Callable[[Sequence[RoscoeItem]], Sequence[ScoreValue]]
"""A custom scorer: one `ScoreValue` per item, in order."""


class RoscoeLike(Protocol):
    """Anything that scores explanations the way `RoscoeScorer` does."""

    def score(self, items: Sequence[RoscoeItem]) -> Sequence[RoscoeScores]:
        """The nine ROSCOE scores of each item, in order."""
        ...


class Scored(NamedTuple):
    """One candidate's scores."""

    scores: dict[str, float | None]
    """The nine ROSCOE scores (empty for a scorer that gives AS only)."""
    notes: dict[str, str]
    """Why ROSCOE scores are missing."""
    aggregate: float | None
    """AS, or None."""
    note: str | None
    """How AS was computed or why it is missing."""


@dataclass(frozen=True)
class Ranking:
    """How candidates are scored and ranked: a ROSCOE scorer (anything with
    ``score(items) -> list[RoscoeScores]``) or a `CandidateScorer`, and the AS settings."""

    scorer: RoscoeLike | CandidateScorer
    """`RoscoeScorer`-like object or `CandidateScorer` callable."""
    weights: WeightSet
    """Weights of AS."""
    perplexity: PerplexityTransform = "one_minus"
    """How PS/PC enter AS."""
    missing: MissingPolicy = "renormalise"
    """What AS does when a weighted ROSCOE score is missing."""

    def score(self, items: Sequence[RoscoeItem]) -> list[Scored]:
        """Scores of each item, in order."""
        if not items:
            return []
        method = getattr(self.scorer, "score", None)
        values: list[ScoreValue] = list(method(items) if callable(method) else self.scorer(items))  # type: ignore[operator]
        if len(values) != len(items):
            raise RuntimeError(
                f"scorer {describe_scorer(self.scorer)} returned {len(values)} scores for "
                f"{len(items)} candidates"
            )
        return [self._scored(v) for v in values]

    def _scored(self, value: ScoreValue) -> Scored:
        if value is None or isinstance(value, int | float):
            number = _finite(value)
            note = "from a custom scorer" if number is not None else "not computed by the scorer"
            return Scored({}, {}, number, note)
        if isinstance(value, RoscoeScores):
            codes, notes = value.codes(), dict(value.notes)
        else:
            codes, notes = {k: value.get(k) for k in ROSCOE_FIELDS}, {}
        codes = {k: _finite(v) for k, v in codes.items()}
        result = aggregate_score(codes, self.weights, self.perplexity, self.missing)
        return Scored(codes, notes, result.value, result.note)

    def describe(self) -> dict[str, JsonValue]:
        """The settings, as recorded in the run config and each sample's provenance."""
        return {
            "scorer": describe_scorer(self.scorer),
            "weights": {"name": self.weights.name, **self.weights.weights},
            "perplexity": self.perplexity,
            "missing": self.missing,
        }


def describe_scorer(scorer: Any) -> JsonValue:
    """What scores the candidates: the model of each ROSCOE family, or the callable's name."""
    families = ("embedder", "lm", "nli", "grammar")
    if all(hasattr(scorer, f) for f in families):
        described: dict[str, JsonValue] = {
            f: getattr(getattr(scorer, f), "name", None) for f in families
        }
        options = getattr(scorer, "options", None)
        if options is not None and hasattr(options, "model_dump"):
            described["options"] = options.model_dump(mode="json")
        return described
    name = getattr(scorer, "name", None)
    if isinstance(name, str):
        return name
    return str(getattr(scorer, "__qualname__", type(scorer).__qualname__))


def _finite(value: float | None) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None
