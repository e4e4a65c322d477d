"""CIDEr-D as the COCO caption evaluation computes it (pycocoevalcap `Cider`): tf-idf n-gram
vectors with idf from the references, clipped cosine, Gaussian length penalty (sigma 6), × 10.

Vectorised with numpy over sparse (gram id, weight) entries: every reference vector is built once (COCO rebuilds it for
each comparison). COCO's quirks are kept on purpose so values match: the "length" in the
penalty counts bigrams, not words, and the idf uses log(number of samples).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from chartproof.metrics.ngram._stats import NgramStats, lookup, sorted_unique

__all__ = ["cider_d_from_stats"]

SIGMA = 6.0
"""Standard deviation of CIDEr-D's length penalty, in tokens."""


def cider_d_from_stats(stats: NgramStats, sigma: float = SIGMA) -> NDArray[np.float64]:
    """Per-sample CIDEr-D (the corpus score is their mean)."""
    n, size, width = stats.n, stats.size, max(stats.n_grams, 1)
    is_cand = stats.entry_unit < size
    ref_unit = stats.entry_unit[~is_cand] - size
    ref_gram = stats.entry_gram[~is_cand]

    # document frequency: in how many samples' reference sets each n-gram occurs
    sample_gram = sorted_unique(stats.ref_owner[ref_unit] * width + ref_gram)
    df = np.bincount(sample_gram % width, minlength=width).astype(np.float64)
    idf = np.log(float(size)) - np.log(np.maximum(1.0, df))
    weight = stats.entry_count * idf[stats.entry_gram]
    order = stats.gram_order[stats.entry_gram]
    n_units = len(stats.unit_len)
    norm = np.sqrt(
        np.bincount(stats.entry_unit * n + order, weights=weight**2, minlength=n_units * n)
    ).reshape(n_units, n)

    # pair every candidate entry with each reference of its sample, match grams by key
    refs_per_sample = np.bincount(stats.ref_owner, minlength=size)
    first_ref = np.concatenate([[0], np.cumsum(refs_per_sample)[:-1]])
    cand_sample = stats.entry_unit[is_cand]
    repeats = refs_per_sample[cand_sample]
    pair_ref = np.repeat(first_ref[cand_sample], repeats) + (
        np.arange(int(repeats.sum())) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    )
    pair_gram = np.repeat(stats.entry_gram[is_cand], repeats)
    pair_weight = np.repeat(weight[is_cand], repeats)
    ref_keys = ref_unit * width + ref_gram  # sorted: entries are sorted by unit, then gram
    pos, found = lookup(ref_keys, pair_ref * width + pair_gram)
    ref_weight = weight[~is_cand][pos]
    contrib = np.where(found, np.minimum(pair_weight, ref_weight) * ref_weight, 0.0)
    n_refs_total = len(stats.ref_owner)
    dots = (
        np.bincount(
            pair_ref * n + stats.gram_order[pair_gram], weights=contrib, minlength=n_refs_total * n
        )
        .reshape(n_refs_total, n)
        .astype(np.float64)
    )

    hyp_norm = norm[:size][stats.ref_owner]
    ref_norm = norm[size:]
    nonzero = (hyp_norm != 0) & (ref_norm != 0)
    dots = np.where(nonzero, dots / np.where(nonzero, hyp_norm * ref_norm, 1.0), dots)

    # COCO's "length" is the bigram count: a 1-word sentence has length 0
    bigrams = np.maximum(stats.unit_len - 1, 0).astype(np.float64)
    delta = bigrams[:size][stats.ref_owner] - bigrams[size:]
    dots *= (math.e ** (-(delta**2) / (2 * sigma**2)))[:, None]

    per_sample = np.stack(
        [np.bincount(stats.ref_owner, weights=dots[:, k], minlength=size) for k in range(n)],
        axis=1,
    )
    return np.asarray(per_sample.mean(axis=1) / refs_per_sample * 10.0, dtype=np.float64)
