"""N-gram explanation metrics with the COCO caption-evaluation definitions: BLEU-4, METEOR,
ROUGE-L and CIDEr-D, values equal to pycocoevalcap's on the same inputs (seed 000, Table 6).

Usage::

    from chartproof.metrics.ngram import ngram_scores
    report = ngram_scores(candidates, references)          # references: one str or a list each
    report.corpus["cider_d"], report.per_sample["bleu4"]

Tokenisation follows COCO (PTB tokens, lower-cased, punctuation dropped): `tokenizer="ptb"` is
chartproof's pure-Python copy of the Stanford tokenizer, `"java"` runs pycocoevalcap's jar
itself, `"none"` takes inputs already tokenised. BLEU, ROUGE-L and CIDEr-D are chartproof's own
code; METEOR runs the COCO jar (Java) and is reported as not computed when it cannot run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import NDArray
from pydantic import Field

from chartproof.metrics.ngram._bleu import bleu_from_stats
from chartproof.metrics.ngram._cider import SIGMA, cider_d_from_stats
from chartproof.metrics.ngram._meteor import MeteorUnavailable, meteor_scores
from chartproof.metrics.ngram._ptb import COCO_PUNCTUATION, ptb_tokenize, ptb_tokenize_line
from chartproof.metrics.ngram._rouge import lcs_length, rouge_l_scores
from chartproof.metrics.ngram._stats import NgramStats
from chartproof.types import Record, Score

__all__ = [
    "COCO_PUNCTUATION",
    "NGRAM_METRICS",
    "MeteorUnavailable",
    "NgramMetric",
    "NgramReport",
    "NgramStats",
    "Tokenizer",
    "bleu",
    "cider_d",
    "java_ptb_tokenize",
    "lcs_length",
    "meteor_scores",
    "ngram_scores",
    "ptb_tokenize",
    "ptb_tokenize_line",
    "rouge_l",
    "tokenize",
]

NgramMetric: TypeAlias = Literal["bleu4", "meteor", "rouge_l", "cider_d"]
"""Names of the n-gram metrics (seed 000, Table 6: BLEU-4, METEOR, ROUGE-L, CIDEr)."""
Tokenizer: TypeAlias = Literal["ptb", "java", "none"]
"""How raw text becomes COCO tokens: Python PTB copy, the Stanford jar, or already done."""

NGRAM_METRICS: tuple[NgramMetric, ...] = ("bleu4", "meteor", "rouge_l", "cider_d")
"""All n-gram metrics, in the order of seed 000 Table 6."""

References: TypeAlias = Sequence[str | Sequence[str]]


class NgramReport(Record):
    """Corpus and per-sample n-gram scores of a set of candidate texts."""

    corpus: dict[str, float | None]
    """Corpus value of each requested metric (None = not computed, see `notes`). BLEU is
    corpus-level BLEU (pooled counts), the others are means of the per-sample values."""
    per_sample: dict[str, tuple[float, ...]]
    """Per-sample values of each computed metric, in input order."""
    notes: dict[str, str] = Field(default_factory=dict)
    """Why a metric was not computed."""
    tokenizer: Tokenizer = "ptb"
    """Tokenisation used."""
    n: int = 0
    """Number of samples."""

    def scores(self, prefix: str = "") -> list[Score]:
        """The corpus values as `Score` records (metric names prefixed with `prefix`)."""
        return [
            Score(metric=f"{prefix}{name}", value=value, n=self.n, note=self.notes.get(name))
            for name, value in self.corpus.items()
        ]


def _reference_lists(references: References, size: int) -> list[list[str]]:
    """Each sample's references as a list (a bare string is one reference)."""
    if len(references) != size:
        raise ValueError(f"{size} candidates but {len(references)} references")
    out: list[list[str]] = []
    for i, refs in enumerate(references):
        refs_list = [refs] if isinstance(refs, str) else list(refs)
        if not refs_list or not all(isinstance(r, str) for r in refs_list):
            raise ValueError(f"sample {i}: references must be strings, got {refs!r}")
        out.append(refs_list)
    return out


def java_ptb_tokenize(texts: Sequence[str]) -> list[str]:
    """Tokenise with pycocoevalcap's own Stanford tokenizer (Java), COCO punctuation dropped."""
    try:
        from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError(
            "the Java tokenizer needs pycocoevalcap: pip install 'chartproof[coco]'"
        ) from exc
    if not texts:
        return []
    result = PTBTokenizer().tokenize({i: [{"caption": t}] for i, t in enumerate(texts)})
    return [result[i][0] for i in range(len(texts))]


def tokenize(texts: Sequence[str], tokenizer: Tokenizer = "ptb") -> list[str]:
    """COCO tokens of each text, space-joined."""
    if tokenizer == "ptb":
        return ptb_tokenize(list(texts))
    if tokenizer == "java":
        return java_ptb_tokenize(texts)
    if tokenizer == "none":
        return list(texts)
    raise ValueError(f"unknown tokenizer {tokenizer!r}; use 'ptb', 'java' or 'none'")


def _tokenized(
    candidates: Sequence[str], references: References, tokenizer: Tokenizer
) -> tuple[list[str], list[list[str]]]:
    refs = _reference_lists(references, len(candidates))
    # two tokenizer calls, references then candidates, as pycocoevalcap makes them: the
    # lexer reads one line into the next, so the calls' contents matter (`ptb_tokenize`)
    rest = tokenize([r for rs in refs for r in rs], tokenizer)
    cands = tokenize(list(candidates), tokenizer)
    out: list[list[str]] = []
    pos = 0
    for rs in refs:
        out.append(rest[pos : pos + len(rs)])
        pos += len(rs)
    return cands, out


def bleu(
    candidates: Sequence[str], references: References, tokenizer: Tokenizer = "ptb", n: int = 4
) -> tuple[tuple[float, ...], NDArray[np.float64]]:
    """Corpus BLEU-1..n and per-sample BLEU (samples × n), as COCO's `Bleu(n)`."""
    cands, refs = _tokenized(candidates, references, tokenizer)
    return bleu_from_stats(NgramStats.build(cands, refs, n))


def rouge_l(
    candidates: Sequence[str], references: References, tokenizer: Tokenizer = "ptb"
) -> NDArray[np.float64]:
    """Per-sample ROUGE-L (COCO's `Rouge`); the corpus score is the mean."""
    cands, refs = _tokenized(candidates, references, tokenizer)
    return rouge_l_scores(cands, refs)


def cider_d(
    candidates: Sequence[str],
    references: References,
    tokenizer: Tokenizer = "ptb",
    sigma: float = SIGMA,
) -> NDArray[np.float64]:
    """Per-sample CIDEr-D (COCO's `Cider`); the corpus score is the mean. The idf comes from
    the references of this corpus, so a sample's value depends on the whole set."""
    cands, refs = _tokenized(candidates, references, tokenizer)
    return cider_d_from_stats(NgramStats.build(cands, refs, 4), sigma)


def ngram_scores(
    candidates: Sequence[str],
    references: References,
    metrics: Sequence[NgramMetric] = NGRAM_METRICS,
    tokenizer: Tokenizer = "ptb",
) -> NgramReport:
    """Score candidate explanations against references with the COCO definitions.

    Tokenises once and counts n-grams once for BLEU and CIDEr-D. METEOR that cannot run
    (no Java or no pycocoevalcap) is None with a note; the others always run.
    """
    unknown = [m for m in metrics if m not in NGRAM_METRICS]
    if unknown:
        raise ValueError(f"unknown n-gram metrics {unknown}; choose from {list(NGRAM_METRICS)}")
    if not candidates:
        raise ValueError("no candidates to score")
    cands, refs = _tokenized(candidates, references, tokenizer)
    corpus: dict[str, float | None] = {}
    per_sample: dict[str, tuple[float, ...]] = {}
    notes: dict[str, str] = {}
    stats = NgramStats.build(cands, refs, 4) if {"bleu4", "cider_d"} & set(metrics) else None
    for metric in metrics:
        if metric == "bleu4" and stats is not None:
            corpus_bleu, sentence_bleu = bleu_from_stats(stats)
            corpus["bleu4"] = corpus_bleu[3]
            per_sample["bleu4"] = tuple(sentence_bleu[:, 3].tolist())
        elif metric == "cider_d" and stats is not None:
            values = cider_d_from_stats(stats)
            corpus["cider_d"] = float(np.mean(values))
            per_sample["cider_d"] = tuple(values.tolist())
        elif metric == "rouge_l":
            values = rouge_l_scores(cands, refs)
            corpus["rouge_l"] = float(np.mean(values))
            per_sample["rouge_l"] = tuple(values.tolist())
        elif metric == "meteor":
            try:
                corpus_meteor, meteor_values = meteor_scores(cands, refs)
            except MeteorUnavailable as exc:
                corpus["meteor"] = None
                notes["meteor"] = f"not computed: {exc}"
            else:
                corpus["meteor"] = corpus_meteor
                per_sample["meteor"] = tuple(meteor_values)
    return NgramReport(
        corpus=corpus, per_sample=per_sample, notes=notes, tokenizer=tokenizer, n=len(cands)
    )
