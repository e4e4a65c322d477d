"""`RoscoeScorer`: the nine ROSCOE scores of many explanations at once, batching every model
call across the whole set (each distinct sentence embedded once, NLI pairs and LM texts
deduplicated and batched by length), then the pure formulas per explanation."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import Final, TypeVar

import numpy as np

from chartproof.metrics.roscoe import _formulas as f
from chartproof.metrics.roscoe._text import source_sentences, split_sentences
from chartproof.metrics.roscoe._types import ROSCOE_FIELDS, RoscoeItem, RoscoeOptions, RoscoeScores
from chartproof.metrics.roscoe.scorers import (
    CausalLMPerplexity,
    Embedder,
    GrammarScorer,
    LanguageModel,
    LinkGrammar,
    Matrix,
    NLIScorer,
    SentenceEmbedder,
)
from chartproof.metrics.weights import (
    CHARTQAX_WEIGHTS,
    MissingPolicy,
    PerplexityTransform,
    WeightSet,
    normalised_scores,
)
from chartproof.types import Score

__all__ = ["DEFAULT", "RoscoeScorer", "roscoe_summary"]


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Final = _Default()
"""Sentinel: use chartproof's offline default scorer for this family."""

_NOT_COMPUTED = {
    "embeddings": "not computed: no embedder (pass embedder=SentenceEmbedder(path))",
    "lm": "not computed: no language model (pass lm=CausalLMPerplexity(path))",
    "nli": "not computed: no NLI model available offline (pass nli=NLIContradiction(path))",
    "grammar": "not computed: no grammar scorer (pass grammar=LinkGrammar() or CoLAGrammar(path))",
}
_FAMILY_CODES = {
    "embeddings": ("FS", "FT", "IS", "IC"),
    "nli": ("SRC", "SFC"),
    "lm": ("PS", "PC"),
    "grammar": ("GS",),
}


T = TypeVar("T", bound=Hashable)


def _unique(values: Iterable[T]) -> list[T]:
    """Distinct values in first-seen order."""
    return list(dict.fromkeys(values))


class RoscoeScorer:
    """Scores explanations with ROSCOE's nine metrics and pluggable model scorers.

    Each family argument takes a scorer, `DEFAULT` (chartproof's offline default: MiniLM
    embeddings, SmolLM2 perplexity, link-grammar) or None (its scores are not computed).
    There is no default NLI model: SRC and SFC are reported as not computed unless `nli` is
    given. Models load on first use.
    """

    def __init__(
        self,
        embedder: Embedder | _Default | None = DEFAULT,
        lm: LanguageModel | _Default | None = DEFAULT,
        nli: NLIScorer | None = None,
        grammar: GrammarScorer | _Default | None = DEFAULT,
        options: RoscoeOptions | None = None,
    ) -> None:
        self.embedder: Embedder | None = (
            SentenceEmbedder() if isinstance(embedder, _Default) else embedder
        )
        self.lm: LanguageModel | None = CausalLMPerplexity() if isinstance(lm, _Default) else lm
        self.nli = nli
        self.grammar: GrammarScorer | None = (
            LinkGrammar() if isinstance(grammar, _Default) else grammar
        )
        self.options = options or RoscoeOptions()

    def _names(self) -> dict[str, str]:
        names = {
            "embeddings": self.embedder,
            "lm": self.lm,
            "nli": self.nli,
            "grammar": self.grammar,
        }
        return {k: v.name for k, v in names.items() if v is not None}

    def score(
        self, items: Sequence[RoscoeItem | tuple[str | None, str, str | None, str]]
    ) -> list[RoscoeScores]:
        """ROSCOE scores of each item; a tuple is (context, question, answer, explanation)."""
        records = [
            it if isinstance(it, RoscoeItem)
            else RoscoeItem(context=it[0], question=it[1], answer=it[2], explanation=it[3])
            for it in items
        ]  # fmt: skip
        steps = [split_sentences(it.explanation) for it in records]
        sources = [source_sentences(it) for it in records]
        valid = [i for i in range(len(records)) if steps[i] and sources[i]]
        chain_join = ". " if self.options.variant == "reference" else " "
        values: list[dict[str, float | None]] = [dict.fromkeys(ROSCOE_FIELDS) for _ in records]
        notes: list[dict[str, str]] = [{} for _ in records]

        if self.embedder is not None and valid:
            self._embedding_scores(valid, steps, sources, chain_join, values)
        if self.nli is not None and valid:
            self._nli_scores(valid, steps, sources, values)
        if self.lm is not None and valid:
            self._perplexity_scores(valid, steps, values)
        if self.grammar is not None and valid:
            distinct = _unique(s for i in valid for s in steps[i])
            accept = dict(zip(distinct, self.grammar.acceptability(distinct), strict=True))
            for i in valid:
                values[i]["GS"] = float(np.mean([accept[s] for s in steps[i]]))

        families = {
            "embeddings": self.embedder,
            "lm": self.lm,
            "nli": self.nli,
            "grammar": self.grammar,
        }
        out: list[RoscoeScores] = []
        for i, record in enumerate(records):
            if not steps[i] or not sources[i]:
                what = "explanation" if not steps[i] else "source (question and answer)"
                label = f"sample {record.id}: " if record.id else ""
                notes[i] = {code: f"not computed: {label}empty {what}" for code in ROSCOE_FIELDS}
            else:
                for family, scorer in families.items():
                    if scorer is None:
                        for code in _FAMILY_CODES[family]:
                            notes[i][code] = _NOT_COMPUTED[family]
            out.append(
                RoscoeScores(
                    **{ROSCOE_FIELDS[c]: v for c, v in values[i].items()},
                    n_steps=len(steps[i]),
                    n_source=len(sources[i]),
                    scorers=self._names(),
                    notes=notes[i],
                )
            )
        return out

    def _embedding_scores(
        self,
        valid: list[int],
        steps: list[list[str]],
        sources: list[list[str]],
        chain_join: str,
        values: list[dict[str, float | None]],
    ) -> None:
        assert self.embedder is not None
        chains = {i: (chain_join.join(steps[i]), chain_join.join(sources[i])) for i in valid}
        sentences = _unique(s for i in valid for s in (*steps[i], *sources[i]))
        known = set(sentences)
        chain_texts = _unique(c for pair in chains.values() for c in pair if c not in known)
        step_tokens: dict[int, list[Matrix]] = {}
        source_tokens: dict[int, list[Matrix]] = {}
        if self.options.token_attention == "masked":
            sentence_vectors, token_list = self.embedder.embed_both(sentences)
            token_vectors = dict(zip(sentences, token_list, strict=True))
            for i in valid:
                step_tokens[i] = [token_vectors[s] for s in steps[i]]
                source_tokens[i] = [token_vectors[s] for s in sources[i]]
        else:
            groups = [g for i in valid for g in (steps[i], sources[i])]
            combined = getattr(self.embedder, "embed_sentences_and_padded", None)
            if combined is not None:  # one padded pass also gives most sentence vectors
                sentence_vectors, padded = combined(sentences + chain_texts, groups)
                sentences, chain_texts = sentences + chain_texts, []
            else:
                sentence_vectors = self.embedder.embed_sentences(sentences)
                padded = self.embedder.embed_tokens_padded(groups)
            for k, i in enumerate(valid):
                step_tokens[i], source_tokens[i] = padded[2 * k], padded[2 * k + 1]
        texts = sentences + chain_texts
        vectors = sentence_vectors
        if chain_texts:
            vectors = np.vstack([vectors, self.embedder.embed_sentences(chain_texts)])
        row = {t: k for k, t in enumerate(texts)}

        def sent(xs: Sequence[str]) -> Matrix:
            return vectors[[row[x] for x in xs]]

        for i in valid:
            h, s = sent(steps[i]), sent(sources[i])
            values[i]["FS"] = f.faithfulness_step(h, s)
            values[i]["FT"] = f.faithfulness_token(h, s, step_tokens[i], source_tokens[i])
            values[i]["IS"] = f.informativeness_step(h, s)
            chain_vec, source_vec = sent(chains[i])
            values[i]["IC"] = f.informativeness_chain(chain_vec, source_vec, self.options.variant)

    def _nli_scores(
        self,
        valid: list[int],
        steps: list[list[str]],
        sources: list[list[str]],
        values: list[dict[str, float | None]],
    ) -> None:
        assert self.nli is not None
        pairs: list[tuple[str, str]] = []
        for i in valid:
            pairs.extend((src, h) for src in sources[i] for h in steps[i])
            pairs.extend((a, b) for a in steps[i] for b in steps[i])
        distinct = _unique(pairs)
        probs = dict(zip(distinct, self.nli.contradiction(distinct).tolist(), strict=True))
        for i in valid:
            src = np.array([[probs[(s, h)] for h in steps[i]] for s in sources[i]])
            self_m = np.array([[probs[(a, b)] for b in steps[i]] for a in steps[i]])
            values[i]["SRC"] = f.source_consistency(src)
            values[i]["SFC"] = f.self_consistency(self_m, self.options.variant)

    def _perplexity_scores(
        self, valid: list[int], steps: list[list[str]], values: list[dict[str, float | None]]
    ) -> None:
        """PS and PC from one LM pass per distinct token sequence. The first step's tokens
        open the chain with exactly the same context (BOS + that step), so when its token ids
        are a prefix of the chain's, its NLLs are read from the chain pass, not recomputed."""
        assert self.lm is not None
        chains = {i: " ".join(steps[i]) for i in valid}  # the reference joins with a space here
        texts = _unique([s for i in valid for s in steps[i]] + list(chains.values()))
        ids = dict(zip(texts, self.lm.token_ids(texts), strict=True))
        shared = {
            i for i in valid
            if len(steps[i]) > 1 and ids[chains[i]][: len(ids[steps[i][0]])] == ids[steps[i][0]]
        }  # fmt: skip
        needed = _unique(
            [tuple(ids[chains[i]]) for i in valid]
            + [tuple(ids[s]) for i in valid for k, s in enumerate(steps[i]) if k or i not in shared]
        )
        nll = dict(zip(needed, self.lm.token_nll(needed), strict=True))
        for i in valid:
            chain_nll = nll[tuple(ids[chains[i]])]
            step_ce: list[tuple[float, int]] = []
            for k, s in enumerate(steps[i]):
                seq = ids[s]
                if not seq:
                    continue
                values_k = chain_nll[: len(seq)] if k == 0 and i in shared else nll[tuple(seq)]
                step_ce.append((float(np.mean(values_k)), len(seq)))
            if step_ce and len(chain_nll):
                values[i]["PS"] = f.perplexity_step(step_ce, self.options.variant)
                values[i]["PC"] = f.perplexity_chain(float(np.mean(chain_nll)))


def roscoe_summary(
    scores: Sequence[RoscoeScores],
    weights: WeightSet = CHARTQAX_WEIGHTS,
    perplexity: PerplexityTransform = "one_minus",
    missing: MissingPolicy = "not_computed",
    prefix: str = "roscoe_",
) -> list[Score]:
    """Means of the nine scores and of AS over explanations, as `Score` records, on
    ChartQA-X's table scale (PS/PC as 1 − 1/PPL by default): the rows of seed 000 Table 5.
    A score no explanation has is None with the first note that says why."""
    out: list[Score] = []
    for code in (*ROSCOE_FIELDS, "AS"):
        vals: list[float] = []
        note = None
        for s in scores:
            if code == "AS":
                agg = s.aggregate(weights, perplexity, missing)
                value, why = agg.value, agg.note
            else:
                value, why = normalised_scores(s.codes(), perplexity)[code], s.notes.get(code)
            if value is None:
                note = note or why
            else:
                vals.append(value)
        n = len(vals)
        mean = float(np.mean(vals)) if vals else None
        stderr = float(np.std(vals, ddof=1) / math.sqrt(n)) if n > 1 else None
        out.append(
            Score(metric=f"{prefix}{code.lower()}", value=mean, n=n, stderr=stderr,
                  note=None if n == len(scores) else note)
        )  # fmt: skip
    return out
