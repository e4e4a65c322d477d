"""BLEU-1..4 exactly as the COCO caption evaluation computes it (pycocoevalcap `Bleu(4)`):
clipped n-gram precision, "closest" reference length, per-sentence and corpus scores.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from chartproof.metrics.ngram._stats import NgramStats, lookup

__all__ = ["bleu_from_stats"]

# COCO's smoothing constants: a zero match count gives a tiny, not a zero, precision
_TINY = 1e-15
_SMALL = 1e-9


def bleu_from_stats(stats: NgramStats) -> tuple[tuple[float, ...], NDArray[np.float64]]:
    """Corpus BLEU-1..n and the per-sentence matrix (samples × n) of COCO's `BleuScorer`.

    Clipped matches use each n-gram's largest count in any one reference; the brevity
    penalty uses the reference length closest to the candidate's (COCO's "closest" option:
    ties go to the shorter reference).
    """
    n, size, width = stats.n, stats.size, max(stats.n_grams, 1)
    is_cand = stats.entry_unit < size
    # largest count of each gram over the references of each sample
    ref_unit = stats.entry_unit[~is_cand] - size
    ref_keys = stats.ref_owner[ref_unit] * width + stats.entry_gram[~is_cand]
    max_keys, inverse = np.unique(ref_keys, return_inverse=True)
    max_counts = np.zeros(len(max_keys), dtype=np.float64)
    np.maximum.at(max_counts, inverse, stats.entry_count[~is_cand])

    cand_sample = stats.entry_unit[is_cand]
    cand_gram = stats.entry_gram[is_cand]
    pos, found = lookup(max_keys, cand_sample * width + cand_gram)
    clipped = np.where(found, np.minimum(stats.entry_count[is_cand], max_counts[pos]), 0.0)
    correct = np.bincount(
        cand_sample * n + stats.gram_order[cand_gram], weights=clipped, minlength=size * n
    ).reshape(size, n)

    test_len = stats.unit_len[:size].astype(np.float64)
    guess = np.maximum(0.0, test_len[:, None] - np.arange(n)[None, :])
    ref_lengths = stats.unit_len[size:]
    distance = np.abs(ref_lengths - stats.unit_len[:size][stats.ref_owner])
    best = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, stats.ref_owner, distance * (1 << 31) + ref_lengths)
    ref_len = (best % (1 << 31)).astype(np.float64)

    # same operation order as COCO (running product, then the k-th root) so values match
    ratios = (correct + _TINY) / (guess + _SMALL)
    per_sentence = np.cumprod(ratios, axis=1) ** (1.0 / np.arange(1, n + 1))
    length_ratio = (test_len + _TINY) / (ref_len + _SMALL)
    penalty = np.array([math.exp(1 - 1 / r) if r < 1 else 1.0 for r in length_ratio.tolist()])
    per_sentence *= penalty[:, None]

    total_ratio = (correct.sum(axis=0) + _TINY) / (guess.sum(axis=0) + _SMALL)
    corpus = np.cumprod(total_ratio) ** (1.0 / np.arange(1, n + 1))
    ratio = (float(test_len.sum()) + _TINY) / (float(ref_len.sum()) + _SMALL)
    if ratio < 1:
        corpus = corpus * math.exp(1 - 1 / ratio)
    return tuple(float(v) for v in corpus), per_sentence
