"""ROSCOE formulas (hand-computed case table) and `RoscoeScorer` plumbing with fake scorers
whose outputs are known: pair order, deduplication, variants, not-computed notes."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chartproof.metrics.roscoe import (
    RoscoeItem,
    RoscoeOptions,
    RoscoeScorer,
    faithfulness_step,
    faithfulness_token,
    informativeness_chain,
    informativeness_step,
    perplexity_chain,
    perplexity_step,
    roscoe_summary,
    self_consistency,
    source_consistency,
    source_sentences,
    split_sentences,
)

CASES = json.loads((Path(__file__).parent / "cases" / "roscoe_formulas.json").read_text())


def _m(rows: Any) -> np.ndarray:
    return np.asarray(rows, dtype=np.float64).reshape(-1, 2) if len(rows) else np.zeros((0, 2))


@pytest.mark.parametrize("case", CASES["embedding"], ids=[c["name"] for c in CASES["embedding"]])
def test_embedding_formulas(case: dict[str, Any]) -> None:
    h, s = _m(case["steps"]), _m(case["source"])
    assert faithfulness_step(h, s) == pytest.approx(case["FS"])
    assert informativeness_step(h, s) == pytest.approx(case["IS"])
    ft = faithfulness_token(
        h, s, [_m(t) for t in case["step_tokens"]], [_m(t) for t in case["source_tokens"]]
    )
    assert ft == pytest.approx(case["FT"])


@pytest.mark.parametrize("case", CASES["chain"])
def test_informativeness_chain_variants(case: dict[str, Any]) -> None:
    chain, source = np.array(case["chain"], float), np.array(case["source"], float)
    assert informativeness_chain(chain, source, "paper") == pytest.approx(case["paper"])
    assert informativeness_chain(chain, source, "reference") == pytest.approx(case["reference"])


def test_consistency_formulas() -> None:
    for case in CASES["source_consistency"]:
        assert source_consistency(np.array(case["contradiction"])) == pytest.approx(case["SRC"])
    for case in CASES["self_consistency"]:
        matrix = np.array(case["contradiction"])
        assert self_consistency(matrix, "reference") == pytest.approx(case["reference"])
        assert self_consistency(matrix, "paper") == pytest.approx(case["paper"])


def test_perplexity_formulas() -> None:
    for case in CASES["perplexity"]:
        steps = [(ce, n) for ce, n in case["step_ce"]]
        assert perplexity_step(steps, "reference") == pytest.approx(case["PS_reference"])
        assert perplexity_step(steps, "paper") == pytest.approx(case["PS_paper"])
        assert perplexity_chain(case["chain_ce"]) == pytest.approx(case["PC"])


# ----------------------------------------------------------------------------- fakes


def _vector(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    v = np.random.default_rng(seed).normal(size=8)
    return v / np.linalg.norm(v)


class FakeEmbedder:
    name = "fake-embedder"

    def __init__(self) -> None:
        self.sentence_calls: list[list[str]] = []

    def embed_sentences(self, texts: Sequence[str]) -> np.ndarray:
        self.sentence_calls.append(list(texts))
        return np.stack([_vector(t) for t in texts])

    def embed_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        return [np.stack([_vector(w) for w in t.split()]) for t in texts]

    def embed_tokens_padded(self, groups: Sequence[Sequence[str]]) -> list[list[np.ndarray]]:
        return [self.embed_tokens(g) for g in groups]

    def embed_both(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        return self.embed_sentences(texts), self.embed_tokens(texts)


class FakeLM:
    """Token = word; NLL of a word = 1 + position/10 (context-length dependent)."""

    name = "fake-lm"

    def __init__(self) -> None:
        self.scored: list[tuple[int, ...]] = []
        self.vocab: dict[str, int] = {}

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [[self.vocab.setdefault(w, len(self.vocab)) for w in t.split()] for t in texts]

    def token_nll(self, sequences: Sequence[Sequence[int]]) -> list[np.ndarray]:
        self.scored.extend(tuple(s) for s in sequences)
        return [1.0 + np.arange(len(s)) / 10.0 for s in sequences]


class FakeNLI:
    name = "fake-nli"

    def __init__(self, table: dict[tuple[str, str], float]) -> None:
        self.table = table
        self.pairs: list[tuple[str, str]] = []

    def contradiction(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.pairs.extend(pairs)
        return np.array([self.table.get(p, 0.0) for p in pairs])


class FakeGrammar:
    name = "fake-grammar"

    def acceptability(self, sentences: Sequence[str]) -> np.ndarray:
        return np.array([0.0 if "bad" in s else 1.0 for s in sentences])


ITEM = RoscoeItem(
    id="s1",
    question="Which year is highest?",
    answer="2019",
    explanation="The bar for 2019 is tallest. It is a bad step. So the answer is 2019.",
)


def test_splitting_and_source() -> None:
    assert split_sentences("First step. Second step.\nThird step") == [
        "First step.",
        "Second step.",
        "Third step",
    ]
    item = RoscoeItem(
        instruction="Explain.", context="a,b\n1,2", question="Q?", answer=" 12 ", explanation="x"
    )
    assert source_sentences(item) == ["Explain.", "a,b", "1,2", "Q?", "12"]


def test_scorer_with_fakes_matches_formulas() -> None:
    steps = split_sentences(ITEM.explanation)
    source = source_sentences(ITEM)
    nli = FakeNLI(
        {(source[0], steps[1]): 0.8, (steps[2], steps[0]): 0.6, (steps[0], steps[2]): 0.3}
    )
    lm = FakeLM()
    scorer = RoscoeScorer(embedder=FakeEmbedder(), lm=lm, nli=nli, grammar=FakeGrammar())
    (result,) = scorer.score([ITEM])
    h = np.stack([_vector(s) for s in steps])
    s = np.stack([_vector(x) for x in source])
    assert result.faithfulness_step == pytest.approx(faithfulness_step(h, s))
    assert result.informativeness_step == pytest.approx(informativeness_step(h, s))
    chain = _vector(". ".join(steps))  # the reference joins the chain with ". "
    assert result.informativeness_chain == pytest.approx(
        informativeness_chain(chain, _vector(". ".join(source)), "reference")
    )
    assert result.source_consistency == pytest.approx(0.2)  # premise = source, hypothesis = step
    assert result.self_consistency == pytest.approx(0.4)  # all ordered pairs: max 0.6
    assert result.grammar_step == pytest.approx(2 / 3)
    # PS: steps of 6, 5, 5 words, each NLL 1 + pos/10 -> token-weighted mean of exp(mean NLL)
    ppl = {n: math.exp(1 + (n - 1) / 20) for n in (6, 5)}
    assert result.perplexity_step == pytest.approx(1 / ((6 * ppl[6] + 10 * ppl[5]) / 16))
    assert result.perplexity_chain == pytest.approx(1 / math.exp(1 + 15 / 20))
    assert result.notes == {}
    assert result.scorers["grammar"] == "fake-grammar"
    assert result.n_steps == 3 and result.n_source == 2


def test_paper_variant_changes_sfc_ic_and_chain_join() -> None:
    steps = split_sentences(ITEM.explanation)
    nli = FakeNLI({(steps[2], steps[0]): 0.6, (steps[0], steps[2]): 0.3})
    scorer = RoscoeScorer(
        embedder=FakeEmbedder(), lm=None, nli=nli, grammar=None,
        options=RoscoeOptions(variant="paper"),
    )  # fmt: skip
    (result,) = scorer.score([ITEM])
    assert result.self_consistency == pytest.approx(0.7)  # only earlier premises: max 0.3
    source = source_sentences(ITEM)
    expected = informativeness_chain(_vector(" ".join(steps)), _vector(" ".join(source)), "paper")
    assert result.informativeness_chain == pytest.approx(expected)


def test_first_step_is_read_from_the_chain_pass() -> None:
    lm = FakeLM()
    scorer = RoscoeScorer(embedder=None, lm=lm, nli=None, grammar=None)
    (shared,) = scorer.score([ITEM])
    first = tuple(lm.token_ids(["The bar for 2019 is tallest."])[0])
    assert first not in lm.scored  # its NLLs came from the chain, same context and positions
    assert len(lm.scored) == 3  # the chain and steps 2, 3
    assert shared.perplexity_step is not None


def test_each_distinct_sentence_is_embedded_once() -> None:
    embedder = FakeEmbedder()
    other = ITEM.model_copy(update={"explanation": "The bar for 2019 is tallest. Done."})
    RoscoeScorer(embedder=embedder, lm=None, nli=None, grammar=None).score([ITEM, other, ITEM])
    embedded = [t for call in embedder.sentence_calls for t in call]
    assert len(embedded) == len(set(embedded))


def test_not_computed_is_none_with_a_note_never_a_constant() -> None:
    (result,) = RoscoeScorer(embedder=FakeEmbedder(), lm=None, nli=None, grammar=None).score([ITEM])
    assert result.source_consistency is None and result.self_consistency is None
    assert "NLI" in result.notes["SRC"]
    assert result.perplexity_step is None and "language model" in result.notes["PS"]
    assert result.aggregate().value is None
    assert result.faithfulness_step is not None


def test_empty_explanation_is_not_scored() -> None:
    empty = ITEM.model_copy(update={"explanation": "  \n "})
    (result,) = RoscoeScorer(embedder=FakeEmbedder(), lm=FakeLM(), grammar=FakeGrammar()).score(
        [empty]
    )
    assert all(v is None for v in result.codes().values())
    assert "s1" in result.notes["FS"] and "empty explanation" in result.notes["FS"]


def test_tuples_are_items_and_summary_reports_table_scale() -> None:
    scorer = RoscoeScorer(
        embedder=FakeEmbedder(), lm=FakeLM(), nli=FakeNLI({}), grammar=FakeGrammar()
    )
    results = scorer.score([(None, ITEM.question, ITEM.answer, ITEM.explanation)] * 2)
    summary = {s.metric: s for s in roscoe_summary(results)}
    assert summary["roscoe_src"].value == pytest.approx(1.0)
    ps = results[0].perplexity_step
    assert ps is not None
    assert summary["roscoe_ps"].value == pytest.approx(1 - ps)  # ChartQA-X's 1 - 1/PPL
    assert summary["roscoe_as"].value == pytest.approx(results[0].aggregate().value)
    assert summary["roscoe_as"].n == 2


def test_summary_without_nli_says_why() -> None:
    results = RoscoeScorer(embedder=FakeEmbedder(), lm=None, nli=None, grammar=None).score([ITEM])
    summary = {s.metric: s for s in roscoe_summary(results)}
    assert summary["roscoe_sfc"].value is None
    assert summary["roscoe_sfc"].note is not None and "NLI" in summary["roscoe_sfc"].note
    assert summary["roscoe_as"].value is None


def test_token_batches_bound_rows_tokens_and_padding() -> None:
    from chartproof.metrics.roscoe._common import token_batches

    lengths = [400, 5, 31, 5, 6, 100, 7, 8, 30]
    # short rows share a batch (their few pads are free); 100 and 400 would be mostly pads
    assert list(token_batches(lengths, 64, 8192)) == [[1, 3, 4, 6, 7, 8, 2], [5], [0]]
    assert list(token_batches(lengths, 64, 8192, free_padding=0)) == [
        [1, 3], [4, 6], [7], [8, 2], [5], [0]
    ]  # fmt: skip
    assert list(token_batches([5] * 5, 2, 8192)) == [[0, 1], [2, 3], [4]]
    assert list(token_batches([50] * 3, 8, 100)) == [[0, 1], [2]]
