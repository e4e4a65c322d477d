"""ChartQA-X's aggregate ROSCOE score (AS) and its weight-sensitivity analysis (seed 000
§3.3, Table 2, appendix A.3, Table 9): weighted sums of the nine ROSCOE scores.

How perplexity enters AS
------------------------
ROSCOE's perplexity scores are 1/PPL (higher = more fluent, ~0.01–0.05 for real text).
ChartQA-X §3.3 says perplexity scores "are inverted by subtracting them from 1", and its
tables show PS/PC near 0.99: they report 1 − 1/PPL. The weighted sum of the *reported*
columns reproduces the AS column of Table 2 to ±0.0005 on all six rows (pinned by
`tests/metrics/test_weights.py`), so AS = Σ w·value over the values as the tables show them.
`perplexity="one_minus"` (the default) applies that same 1 − x to raw ROSCOE PS/PC before
weighting, so chartproof's AS is on the paper's scale. Note the side effect, inherited from
the paper: 1 − 1/PPL grows with perplexity, so this term (weight 0.10 in all) slightly favours
*less* fluent text. `perplexity="as_is"` uses the values unchanged (ROSCOE's own direction,
or values already on the paper's scale, as in the Table 2 test).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeAlias

import numpy as np

from chartproof.types import Record

__all__ = [
    "CHARTQAX_WEIGHTS",
    "ROSCOE_METRICS",
    "AggregateScore",
    "MissingPolicy",
    "PerplexityTransform",
    "WeightSensitivity",
    "WeightSet",
    "aggregate_score",
    "normalised_scores",
    "rank_by_aggregate",
    "sensitivity_weight_sets",
    "weight_sensitivity",
]

ROSCOE_METRICS: tuple[str, ...] = ("FS", "FT", "IS", "IC", "SRC", "SFC", "PS", "PC", "GS")
"""The nine ROSCOE scores of seed 000 Table 1, in its column order."""

PerplexityTransform: TypeAlias = Literal["one_minus", "as_is"]
"""How PS/PC enter AS: ChartQA-X's 1 − value (its tables' ~0.99 scale) or unchanged."""
MissingPolicy: TypeAlias = Literal["not_computed", "renormalise"]
"""When a weighted score is missing (e.g. SRC/SFC without an NLI model): AS is not computed,
or the weights of the available scores are rescaled to sum to 1 (reported in the note)."""


class WeightSet(Record):
    """Weights of the nine ROSCOE scores for the aggregate score."""

    name: str
    """Short name, e.g. "original"."""
    weights: dict[str, float]
    """Weight of each ROSCOE code (FS … GS); they sum to 1."""
    description: str = ""
    """Where the weights come from."""

    def model_post_init(self, _context: object) -> None:
        """Check that every code has a non-negative weight and that they sum to 1."""
        if set(self.weights) != set(ROSCOE_METRICS):
            raise ValueError(
                f"weight set {self.name!r} must weight exactly {list(ROSCOE_METRICS)}, "
                f"got {sorted(self.weights)}"
            )
        if any(w < 0 for w in self.weights.values()):
            raise ValueError(f"weight set {self.name!r} has a negative weight")
        total = sum(self.weights.values())
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"weights of {self.name!r} sum to {total}, not 1")


def _weights(*values: float) -> dict[str, float]:
    return dict(zip(ROSCOE_METRICS, values, strict=True))


CHARTQAX_WEIGHTS = WeightSet(
    name="original",
    weights=_weights(0.20, 0.15, 0.15, 0.15, 0.10, 0.10, 0.05, 0.05, 0.05),
    description="ChartQA-X §3.3 (SPEC §7): faithfulness and informativeness weighted most",
)
"""AS = 0.20 FS + 0.15 FT + 0.15 IS + 0.15 IC + 0.10 SRC + 0.10 SFC + 0.05 PS + 0.05 PC + 0.05 GS."""


class AggregateScore(Record):
    """One explanation's aggregate score."""

    value: float | None
    """The weighted sum; None when a weighted score is missing and the policy says so."""
    weights: str
    """Name of the weight set."""
    used: tuple[str, ...]
    """ROSCOE codes that entered the sum."""
    note: str | None = None
    """Why the value is missing, or that the weights were renormalised."""


def normalised_scores(
    scores: Mapping[str, float | None], perplexity: PerplexityTransform = "one_minus"
) -> dict[str, float | None]:
    """The nine scores as ChartQA-X's tables show them (PS/PC mapped to 1 − value by default)."""
    out: dict[str, float | None] = {}
    for code in ROSCOE_METRICS:
        value = scores.get(code)
        if value is not None and code in ("PS", "PC") and perplexity == "one_minus":
            value = 1.0 - value
        out[code] = value
    return out


def aggregate_score(
    scores: Mapping[str, float | None],
    weights: WeightSet = CHARTQAX_WEIGHTS,
    perplexity: PerplexityTransform = "one_minus",
    missing: MissingPolicy = "not_computed",
) -> AggregateScore:
    """ChartQA-X's aggregate score of one explanation's ROSCOE scores (keyed FS … GS)."""
    unknown = set(scores) - set(ROSCOE_METRICS)
    if unknown:
        raise ValueError(f"unknown ROSCOE codes {sorted(unknown)}; use {list(ROSCOE_METRICS)}")
    values = normalised_scores(scores, perplexity)
    absent = [c for c in ROSCOE_METRICS if values[c] is None and weights.weights[c] > 0]
    used = tuple(c for c in ROSCOE_METRICS if values[c] is not None)
    if absent and missing == "not_computed":
        return AggregateScore(
            value=None,
            weights=weights.name,
            used=used,
            note=f"not computed: {', '.join(absent)} missing (use missing='renormalise')",
        )
    total_weight = sum(weights.weights[c] for c in used)
    if total_weight == 0:
        return AggregateScore(
            value=None, weights=weights.name, used=used, note="not computed: no weighted score"
        )
    value = sum(weights.weights[c] * float(values[c] or 0.0) for c in used)
    note = None
    if absent:
        value /= total_weight
        note = f"weights renormalised over {', '.join(used)} ({', '.join(absent)} missing)"
    return AggregateScore(value=value, weights=weights.name, used=used, note=note)


def rank_by_aggregate(
    candidates: Sequence[Mapping[str, float | None]],
    weights: WeightSet = CHARTQAX_WEIGHTS,
    perplexity: PerplexityTransform = "one_minus",
    missing: MissingPolicy = "not_computed",
) -> list[int]:
    """Candidate indices from the highest AS to the lowest (ChartQA-X's selection order:
    the best first, the next best on rejection). Ties keep input order; candidates whose AS
    is not computed come last, in input order."""
    values = [aggregate_score(c, weights, perplexity, missing).value for c in candidates]
    scored = sorted(
        (i for i, v in enumerate(values) if v is not None), key=lambda i: -(values[i] or 0.0)
    )
    return scored + [i for i, v in enumerate(values) if v is None]


def sensitivity_weight_sets(seed: int = 0) -> tuple[WeightSet, ...]:
    """The eight weight sets of seed 000 appendix A.3, in its order.

    The paper does not give its random draws: set 3 draws each weight from U(0, 1) and set 4
    from |N(0, 1)|, both with `seed`, then divides by their sum.
    """
    rng = np.random.default_rng(seed)
    uniform_draw = rng.uniform(0.0, 1.0, len(ROSCOE_METRICS))
    gauss_draw = np.abs(rng.normal(0.0, 1.0, len(ROSCOE_METRICS)))
    return (
        CHARTQAX_WEIGHTS,
        WeightSet(name="uniform", weights=_weights(*([1 / 9] * 9)), description="1/9 each"),
        WeightSet(
            name="random_uniform",
            weights=_weights(*(uniform_draw / uniform_draw.sum()).tolist()),
            description=f"U(0,1) draws, normalised, seed {seed}",
        ),
        WeightSet(
            name="random_gaussian",
            weights=_weights(*(gauss_draw / gauss_draw.sum()).tolist()),
            description=f"|N(0,1)| draws, normalised, seed {seed}",
        ),
        WeightSet(
            name="fluency",
            weights=_weights(0.08, 0.07, 0.10, 0.10, 0.10, 0.10, 0.15, 0.15, 0.15),
            description="A.3 set 5: fluency-focused",
        ),
        WeightSet(
            name="faithfulness",
            weights=_weights(0.30, 0.20, 0.15, 0.15, 0.05, 0.05, 0.04, 0.04, 0.02),
            description="A.3 set 6: faithfulness-focused",
        ),
        WeightSet(
            name="informativeness",
            weights=_weights(0.10, 0.10, 0.25, 0.25, 0.15, 0.05, 0.025, 0.025, 0.05),
            description="A.3 set 7: informativeness-focused",
        ),
        WeightSet(
            name="perturbed",
            weights=_weights(0.18, 0.17, 0.14, 0.16, 0.09, 0.10, 0.06, 0.05, 0.05),
            description="A.3 set 8: original weights with small noise",
        ),
    )


class WeightSensitivity(Record):
    """Agreement of best-explanation selections between weight sets (seed 000 Table 9)."""

    names: tuple[str, ...]
    """Weight-set names, in matrix order."""
    agreement: tuple[tuple[float, ...], ...]
    """agreement[a][b]: share of samples (0–1) where sets a and b select the same candidate."""
    all_agree: float
    """Share of samples where every set selects the same candidate."""
    n_samples: int
    """Samples compared."""
    selections: tuple[tuple[int, ...], ...]
    """selections[s][i]: index of the candidate weight set s selects for sample i."""


def weight_sensitivity(
    candidates: Sequence[Sequence[Mapping[str, float | None]]],
    weight_sets: Sequence[WeightSet] | None = None,
    perplexity: PerplexityTransform = "one_minus",
    missing: MissingPolicy = "not_computed",
) -> WeightSensitivity:
    """For each sample, each weight set picks the candidate with the highest AS (the first on
    ties); returns how often the sets agree.

    `candidates[i]` holds the ROSCOE scores (keyed FS … GS) of sample i's candidate
    explanations, e.g. one per model.
    """
    sets = tuple(weight_sets) if weight_sets is not None else sensitivity_weight_sets()
    if not candidates:
        raise ValueError("no samples to compare")
    picks = np.zeros((len(sets), len(candidates)), dtype=np.int64)
    for i, sample in enumerate(candidates):
        if not sample:
            raise ValueError(f"sample {i} has no candidates")
        for s, weight_set in enumerate(sets):
            values = []
            for c, scores in enumerate(sample):
                result = aggregate_score(scores, weight_set, perplexity, missing)
                if result.value is None:
                    raise ValueError(f"sample {i}, candidate {c}: AS {result.note}")
                values.append(result.value)
            picks[s, i] = int(np.argmax(values))
    same = picks[:, None, :] == picks[None, :, :]
    agreement = same.mean(axis=2)
    all_agree = float((picks == picks[0]).all(axis=0).mean())
    return WeightSensitivity(
        names=tuple(w.name for w in sets),
        agreement=tuple(tuple(float(v) for v in row) for row in agreement),
        all_agree=all_agree,
        n_samples=len(candidates),
        selections=tuple(tuple(int(v) for v in row) for row in picks),
    )
