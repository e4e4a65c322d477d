"""ROSCOE step-by-step reasoning scores for explanations (seed 000 §3.3, Table 1): FS, FT,
IS, IC, SRC, SFC, PS, PC, GS with pluggable embedding, LM, NLI and grammar scorers.

Usage::

    from chartproof.metrics.roscoe import RoscoeItem, RoscoeScorer, roscoe_summary
    scorer = RoscoeScorer()                       # offline defaults; SRC/SFC need nli=...
    scores = scorer.score([RoscoeItem(question=q, answer=a, explanation=e, context=table)])
    scores[0].faithfulness_step, scores[0].aggregate().value      # AS (None without NLI)
    roscoe_summary(scores)                        # Table-5 style means as Score records

Definitions follow ROSCOE's reference code (ParlAI projects/roscoe) by default; see
`RoscoeOptions` for where it differs from the paper and how to pick the paper's equations.
"""

from chartproof.metrics.roscoe._formulas import (
    alignment,
    faithfulness_step,
    faithfulness_token,
    informativeness_chain,
    informativeness_step,
    perplexity_chain,
    perplexity_step,
    self_consistency,
    source_consistency,
)
from chartproof.metrics.roscoe._scorer import DEFAULT, RoscoeScorer, roscoe_summary
from chartproof.metrics.roscoe._text import source_sentences, split_sentences
from chartproof.metrics.roscoe._types import (
    ROSCOE_FIELDS,
    RoscoeItem,
    RoscoeOptions,
    RoscoeScores,
    Variant,
)
from chartproof.metrics.roscoe.scorers import (
    CausalLMPerplexity,
    CoLAGrammar,
    Embedder,
    GrammarScorer,
    LanguageModel,
    LinkGrammar,
    NLIContradiction,
    NLIScorer,
    SentenceEmbedder,
    smollm2_path,
)

__all__ = [
    "DEFAULT",
    "ROSCOE_FIELDS",
    "CausalLMPerplexity",
    "CoLAGrammar",
    "Embedder",
    "GrammarScorer",
    "LanguageModel",
    "LinkGrammar",
    "NLIContradiction",
    "NLIScorer",
    "RoscoeItem",
    "RoscoeOptions",
    "RoscoeScorer",
    "RoscoeScores",
    "SentenceEmbedder",
    "Variant",
    "alignment",
    "faithfulness_step",
    "faithfulness_token",
    "informativeness_chain",
    "informativeness_step",
    "perplexity_chain",
    "perplexity_step",
    "roscoe_summary",
    "self_consistency",
    "smollm2_path",
    "source_consistency",
    "source_sentences",
    "split_sentences",
]
