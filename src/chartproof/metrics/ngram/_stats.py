"""N-gram statistics of a candidate/reference corpus, counted once with numpy and shared by
BLEU and CIDEr-D: every 1..n-gram gets a corpus-wide integer id, every sentence a sparse
(gram id, count) list.

Sentences are "units": the candidates first (unit i = sample i), then every reference in
sample order; `ref_owner` says which sample a reference unit belongs to.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["NgramStats", "lookup", "sorted_unique"]

IntArray = NDArray[np.int64]


def sorted_unique(values: IntArray) -> IntArray:
    """Sorted distinct values (sort-based: numpy's hash-based `unique` is slower here)."""
    ordered = np.sort(values)
    keep = np.ones(len(ordered), dtype=np.bool_)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def lookup(sorted_keys: IntArray, keys: IntArray) -> tuple[IntArray, NDArray[np.bool_]]:
    """Positions of `keys` in the sorted unique array `sorted_keys`, and which were found."""
    pos = np.searchsorted(sorted_keys, keys)
    pos = np.minimum(pos, max(len(sorted_keys) - 1, 0))
    found = sorted_keys[pos] == keys if len(sorted_keys) else np.zeros(len(keys), dtype=np.bool_)
    return pos, found


@dataclass(frozen=True)
class NgramStats:
    """Tokenised corpus as sparse n-gram counts (COCO splits sentences on whitespace)."""

    n: int
    """Highest n-gram order counted."""
    size: int
    """Number of samples (= candidate units)."""
    ref_owner: IntArray
    """Sample of each reference unit (reference unit j is unit `size + j`)."""
    unit_len: IntArray
    """Number of words of each unit."""
    entry_unit: IntArray
    """Unit of each (unit, gram) entry; entries are sorted by unit, then gram."""
    entry_gram: IntArray
    """Gram id of each entry."""
    entry_count: NDArray[np.float64]
    """How often the gram occurs in the unit."""
    gram_order: IntArray
    """Order minus one (0 = unigram) of each gram id."""

    @property
    def n_grams(self) -> int:
        """Number of distinct n-grams in the corpus."""
        return len(self.gram_order)

    @classmethod
    def build(
        cls, candidates: Sequence[str], references: Sequence[Sequence[str]], n: int = 4
    ) -> NgramStats:
        """Count the 1..n-grams of tokenised `candidates` and their `references`."""
        if len(candidates) != len(references):
            raise ValueError(
                f"{len(candidates)} candidates but {len(references)} reference lists: "
                "each candidate needs its own list of references"
            )
        for i, refs in enumerate(references):
            if isinstance(refs, str) or len(refs) == 0:
                raise ValueError(
                    f"sample {i}: references must be a non-empty list of strings, got {refs!r}"
                )
        texts = [*candidates, *(r for refs in references for r in refs)]
        words = [t.split() for t in texts]
        all_words = list(itertools.chain.from_iterable(words))
        vocab = dict(zip(dict.fromkeys(all_words), itertools.count()))
        token_ids = np.fromiter(
            map(vocab.__getitem__, all_words), dtype=np.int64, count=len(all_words)
        )
        unit_len = np.array([len(ws) for ws in words], dtype=np.int64)
        n_units = len(texts)
        unit_of_token = np.repeat(np.arange(n_units, dtype=np.int64), unit_len)
        starts = np.concatenate([[0], np.cumsum(unit_len)[:-1]]).astype(np.int64)
        pos_in_unit = np.arange(len(token_ids), dtype=np.int64) - starts[unit_of_token]
        remaining = unit_len[unit_of_token] - pos_in_unit  # tokens from here to unit end

        units: list[IntArray] = []
        grams: list[IntArray] = []
        orders: list[IntArray] = []
        offset = 0
        prefix = token_ids.copy()  # compact id of the k-gram starting at each position
        for k in range(1, n + 1):
            if k > 1:
                valid_next = np.arange(len(token_ids) - 1)
                code = np.full(len(token_ids), -1, dtype=np.int64)
                ok = remaining[valid_next] >= k
                idx = valid_next[ok]
                code[idx] = prefix[idx] * (len(vocab) + 1) + token_ids[idx + k - 1]
                prefix = code
            valid = remaining >= k
            if k == 1:  # token ids are already compact unigram ids
                compact, n_distinct = token_ids, len(vocab)
            else:
                uniq, compact = np.unique(prefix[valid], return_inverse=True)
                n_distinct = len(uniq)
                prefix = np.full(len(token_ids), -1, dtype=np.int64)
                prefix[valid] = compact
            units.append(unit_of_token[valid])
            grams.append(compact + offset)
            orders.append(np.full(n_distinct, k - 1, dtype=np.int64))
            offset += n_distinct

        all_units = np.concatenate(units) if units else np.zeros(0, dtype=np.int64)
        all_grams = np.concatenate(grams) if grams else np.zeros(0, dtype=np.int64)
        keys, counts = np.unique(all_units * max(offset, 1) + all_grams, return_counts=True)
        ref_owner = np.repeat(
            np.arange(len(references), dtype=np.int64), [len(refs) for refs in references]
        )
        return cls(
            n=n,
            size=len(candidates),
            ref_owner=ref_owner,
            unit_len=unit_len,
            entry_unit=keys // max(offset, 1),
            entry_gram=keys % max(offset, 1),
            entry_count=counts.astype(np.float64),
            gram_order=np.concatenate(orders) if orders else np.zeros(0, dtype=np.int64),
        )
