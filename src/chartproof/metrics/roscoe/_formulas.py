"""The nine ROSCOE formulas of seed 000 Table 1 as pure functions of embeddings,
contradiction probabilities, cross-entropies and acceptability probabilities.

Embeddings are rows of unit length, so a cosine is a dot product; "scaled" cosine is
(1 + cos)/2 ∈ [0, 1], as in ROSCOE's `cosine_similarity_scaled`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from chartproof.metrics.roscoe._types import Variant

__all__ = [
    "alignment",
    "faithfulness_step",
    "faithfulness_token",
    "informativeness_chain",
    "informativeness_step",
    "perplexity_chain",
    "perplexity_step",
    "self_consistency",
    "source_consistency",
]

Matrix = NDArray[np.float64]


def alignment(hyp: Matrix, ref: Matrix) -> Matrix:
    """r-align(h_i → s) for each row h_i: the best scaled cosine to any row of `ref`
    (seed 000 eq. 1). Empty inputs give an empty vector."""
    if len(hyp) == 0 or len(ref) == 0:
        return np.zeros(0, dtype=np.float64)
    best = (np.asarray(hyp, dtype=np.float64) @ np.asarray(ref, dtype=np.float64).T).max(axis=1)
    return np.asarray((1.0 + best) / 2.0, dtype=np.float64)


def _mean(values: Matrix) -> float:
    # ROSCOE's al_mean: an empty alignment counts as 0
    return float(values.mean()) if len(values) else 0.0


def faithfulness_step(steps: Matrix, source: Matrix) -> float:
    """FS = mean_i r-align(h_i → s)."""
    return _mean(alignment(steps, source))


def faithfulness_token(
    steps: Matrix, source: Matrix, step_tokens: Sequence[Matrix], source_tokens: Sequence[Matrix]
) -> float:
    """FT = mean over the N step alignments and the alignments of every step token to all
    source tokens, (1/(N+M)) [Σ_i r-align(h_i → s) + Σ_ij r-align(h_ij → s)]."""
    hyp_tok = [t for t in step_tokens if len(t)]
    src_tok = [t for t in source_tokens if len(t)]
    token_align = (
        alignment(np.vstack(hyp_tok), np.vstack(src_tok))
        if hyp_tok and src_tok
        else np.zeros(0, dtype=np.float64)
    )
    return _mean(np.concatenate([alignment(steps, source), token_align]))


def informativeness_step(steps: Matrix, source: Matrix) -> float:
    """IS = (mean_t r-align(s_t → h) + mean_i r-align(h_i → s)) / 2."""
    return (_mean(alignment(source, steps)) + _mean(alignment(steps, source))) / 2.0


def informativeness_chain(chain: Matrix, source: Matrix, variant: Variant = "reference") -> float:
    """IC from the whole-chain and whole-source embeddings (unit vectors).

    Paper: (1 + cos(h, s))/2. Reference code: (1 + (1 + cos)/2)/2, because it scales a
    cosine that `cosine_similarity_scaled` had already scaled.
    """
    cos = float(np.dot(np.asarray(chain, dtype=np.float64), np.asarray(source, dtype=np.float64)))
    scaled = (1.0 + cos) / 2.0
    return (1.0 + scaled) / 2.0 if variant == "reference" else scaled


def source_consistency(contradiction: Matrix) -> float:
    """SRC = 1 − max_{i,j} p_contradicts(s_j ⇒ h_i); `contradiction[j, i]` holds the
    probability that step i contradicts source sentence j (premise s_j, hypothesis h_i, the
    reference code's pair order)."""
    return 1.0 - float(np.max(contradiction))


def self_consistency(contradiction: Matrix, variant: Variant = "reference") -> float:
    """SFC from `contradiction[j, i]` = p_contradicts(premise h_j, hypothesis h_i).

    Reference code: 1 − max over all ordered pairs, each step with itself included.
    Paper: 1 − max over j < i (each step against the earlier ones); one step gives 1.
    """
    matrix = np.asarray(contradiction, dtype=np.float64)
    if variant == "reference":
        return 1.0 - float(matrix.max())
    earlier = np.triu(np.ones(matrix.shape, dtype=bool), k=1)  # premise j < hypothesis i
    return 1.0 - float(matrix[earlier].max()) if earlier.any() else 1.0


def perplexity_step(step_ce: Sequence[tuple[float, int]], variant: Variant = "reference") -> float:
    """PS = 1 / mean step perplexity; `step_ce` holds each step's mean token cross-entropy
    (nats) and token count. Reference code: token-weighted mean; paper: plain mean."""
    ppl = [math.exp(ce) for ce, _ in step_ce]
    if variant == "reference":
        weights = [n for _, n in step_ce]
        mean = sum(p * n for p, n in zip(ppl, weights, strict=True)) / sum(weights)
    else:
        mean = sum(ppl) / len(ppl)
    return 1.0 / mean


def perplexity_chain(chain_ce: float) -> float:
    """PC = 1 / PPL(h) from the chain's mean token cross-entropy."""
    return 1.0 / math.exp(chain_ce)
