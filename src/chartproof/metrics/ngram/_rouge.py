"""ROUGE-L as the COCO caption evaluation computes it: longest common subsequence against
each reference, best precision and best recall, F-measure with beta = 1.2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = ["lcs_length", "rouge_l_scores"]

BETA = 1.2
"""COCO's ROUGE-L beta (recall weighted 1.2 times precision)."""


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists.

    Bit-parallel (Allison-Dix): one big-integer update per token of `b` instead of the
    len(a) × len(b) table, same result as COCO's `my_lcs`.
    """
    if len(a) < len(b):
        a, b = b, a
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    row = full
    for token in b:
        match = masks.get(token)
        if match is None:
            continue
        u = row & match
        row = ((row + u) | (row - u)) & full
    return len(a) - row.bit_count()


def rouge_l_scores(
    candidates: Sequence[str], references: Sequence[Sequence[str]]
) -> NDArray[np.float64]:
    """Per-sample ROUGE-L of tokenised candidates (COCO splits on single spaces, so an empty
    candidate counts as one empty token, reproduced on purpose)."""
    scores = np.zeros(len(candidates), dtype=np.float64)
    beta2 = BETA**2
    for i, (cand, refs) in enumerate(zip(candidates, references, strict=True)):
        cand_tokens = cand.split(" ")
        best_prec = 0.0
        best_rec = 0.0
        for ref in refs:
            ref_tokens = ref.split(" ")
            lcs = lcs_length(ref_tokens, cand_tokens)
            best_prec = max(best_prec, lcs / float(len(cand_tokens)))
            best_rec = max(best_rec, lcs / float(len(ref_tokens)))
        if best_prec != 0 and best_rec != 0:
            scores[i] = ((1 + beta2) * best_prec * best_rec) / float(best_rec + beta2 * best_prec)
    return scores
