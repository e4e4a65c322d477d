"""Records of the ROSCOE metrics: what is scored (`RoscoeItem`), how (`RoscoeOptions`) and
the nine scores of one explanation (`RoscoeScores`)."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import Field

from chartproof.metrics.weights import (
    CHARTQAX_WEIGHTS,
    ROSCOE_METRICS,
    AggregateScore,
    MissingPolicy,
    PerplexityTransform,
    WeightSet,
    aggregate_score,
)
from chartproof.types import Record

__all__ = ["ROSCOE_FIELDS", "RoscoeItem", "RoscoeOptions", "RoscoeScores", "Variant"]

Variant: TypeAlias = Literal["reference", "paper"]
"""Which definition to follow where ParlAI's ROSCOE code and the paper's equations differ."""

ROSCOE_FIELDS: dict[str, str] = {
    "FS": "faithfulness_step",
    "FT": "faithfulness_token",
    "IS": "informativeness_step",
    "IC": "informativeness_chain",
    "SRC": "source_consistency",
    "SFC": "self_consistency",
    "PS": "perplexity_step",
    "PC": "perplexity_chain",
    "GS": "grammar_step",
}
"""ROSCOE code (seed 000 Table 1) → field of `RoscoeScores`."""


class RoscoeItem(Record):
    """One explanation to score, with what it explains.

    The source context s is built from `instruction`, `context`, `question` and `answer`, in
    that order, each split into sentences (seed 000 §3.3: "the instruction followed by the
    question"; ChartQA-X generates explanations given the question *and* its answer, so the
    answer is the last source sentence, verbatim; pass the table as `context` when the
    explanation was generated with it).
    """

    explanation: str
    """The explanation; its sentences are the hypothesis steps h."""
    question: str
    """The question the explanation answers."""
    answer: str | None = None
    """The answer the explanation supports."""
    context: str | None = None
    """Extra source text, e.g. the chart's data table as CSV (split by lines, then sentences)."""
    instruction: str | None = None
    """The generation instruction, when it should be part of the source."""
    id: str | None = None
    """Sample id, used in error messages and notes."""


class RoscoeOptions(Record):
    """Choices where ROSCOE's reference code (facebookresearch/ParlAI projects/roscoe) and the
    paper's Table 1 differ. `variant="reference"` (default) computes what the code computes,
    which is what ChartQA-X's reported numbers came from:

    * IC: the code scales an already scaled cosine: (1 + (1 + cos)/2)/2 = (3 + cos)/4, range
      [0.5, 1]; the paper writes (1 + cos)/2. The code also embeds the chain as its steps
      joined by ". " (the paper: the chain h); the paper variant joins them with a space.
    * SFC: the code takes the max contradiction over *all* ordered step pairs, each step with
      itself included; the paper over j < i only (one step: nothing to contradict, SFC = 1).
    * PS: the code averages step perplexities weighted by their token counts; the paper
      takes the plain mean over steps. Both report 1 / that mean.

    `token_attention="reference_unmasked"` additionally reproduces a quirk of the code's
    token embeddings (FT): it pads the steps of one chain to a common length and runs the
    encoder without an attention mask, so padding changes shorter steps' token vectors. The
    default `"masked"` embeds each sentence on its own (what the definition means); the
    quirk exists to check equality with the reference in `bench/bench_roscoe.py`.
    """

    variant: Variant = "reference"
    """Reference-code definitions (default) or the paper's equations."""
    token_attention: Literal["masked", "reference_unmasked"] = "masked"
    """Token embeddings per sentence with an attention mask, or the reference's padded quirk."""


class RoscoeScores(Record):
    """The nine ROSCOE scores of one explanation (seed 000 Table 1); None = not computed.

    Perplexity scores are ROSCOE's 1/PPL (higher = more fluent); `normalised()` and
    `aggregate()` give ChartQA-X's table scale (1 − 1/PPL), see `chartproof.metrics.weights`.
    """

    faithfulness_step: float | None = None
    """FS: mean over steps of the best scaled cosine to a source sentence."""
    faithfulness_token: float | None = None
    """FT: mean of the FS alignments and every step token's best scaled cosine to a source
    token."""
    informativeness_step: float | None = None
    """IS: mean of step→source and source→step alignments."""
    informativeness_chain: float | None = None
    """IC: scaled cosine between the whole chain and the whole source."""
    source_consistency: float | None = None
    """SRC: 1 − max contradiction probability of a step given a source sentence (NLI)."""
    self_consistency: float | None = None
    """SFC: 1 − max contradiction probability between steps (NLI)."""
    perplexity_step: float | None = None
    """PS: 1 / mean perplexity of the steps, each scored on its own."""
    perplexity_chain: float | None = None
    """PC: 1 / perplexity of the whole chain."""
    grammar_step: float | None = None
    """GS: mean grammatical acceptability of the steps (scorer named in `scorers`)."""
    n_steps: int = 0
    """Number of hypothesis steps (sentences of the explanation)."""
    n_source: int = 0
    """Number of source sentences."""
    scorers: dict[str, str] = Field(default_factory=dict)
    """Which model produced which scores, e.g. {"grammar": "link-grammar (complete parse)"}."""
    notes: dict[str, str] = Field(default_factory=dict)
    """Why a score is missing, keyed by ROSCOE code."""

    def codes(self) -> dict[str, float | None]:
        """The nine values keyed by ROSCOE code (FS … GS), as `weights` functions take them."""
        return {code: getattr(self, field) for code, field in ROSCOE_FIELDS.items()}

    def aggregate(
        self,
        weights: WeightSet = CHARTQAX_WEIGHTS,
        perplexity: PerplexityTransform = "one_minus",
        missing: MissingPolicy = "not_computed",
    ) -> AggregateScore:
        """ChartQA-X's aggregate score AS of these values."""
        return aggregate_score(self.codes(), weights, perplexity, missing)


assert tuple(ROSCOE_FIELDS) == ROSCOE_METRICS
