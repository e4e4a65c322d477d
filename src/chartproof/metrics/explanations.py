"""Explanation-quality metrics inside an evaluation: ROSCOE per answered sample (stored with
its result, so a resumed run never rescores), n-gram metrics over the whole run against the
samples' reference explanations (corpus statistics need every candidate at once)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from chartproof.metrics.aggregations import aggregation
from chartproof.metrics.breakdown import mean_score
from chartproof.metrics.registry import Metric, RunInput, scorer
from chartproof.types import Sample, SampleResult, Score

__all__ = [
    "RoscoeStage",
    "ngram_summary",
    "renormalised_as",
    "roscoe_as_label",
    "roscoe_stage",
]

_ROSCOE_CODES = ("FS", "FT", "IS", "IC", "SRC", "SFC", "PS", "PC", "GS", "AS")
_NINE = _ROSCOE_CODES[:-1]

RoscoeSource = Literal["paper", "answer"]
"""What ROSCOE's source context s holds: "paper" (ChartQA-X §3.3: the instruction followed by
the question; the chart's table too under ``with_table``, as in its Table 10) or "answer"
(the question and the model's own answer, chartproof's earlier default)."""


class RoscoeStage:
    """Adds ChartQA-X's nine ROSCOE scores and AS (table scale: PS/PC as 1 − 1/PPL) to
    results that have an explanation; the scorer's models load on first use.

    Scores are stored as `roscoe_fs` … `roscoe_gs` and `roscoe_as` (the names of
    `metrics.roscoe.roscoe_summary`); None = not computed
    (SRC/SFC and therefore AS without an NLI model); `roscoe_as_renormalised` is AS with
    the weights renormalised over the scores that were computed, which the summary labels
    "AS over N of 9 scores" (its aggregation, `renormalised_as`). The source context is the paper's by default
    (`RoscoeSource`): the run's prompt instruction and the question.
    """

    def __init__(
        self,
        scorer: Any = None,
        *,
        with_table: bool = False,
        instruction: str | None = None,
        source: RoscoeSource = "paper",
    ) -> None:
        self._scorer = scorer
        self._with_table = with_table
        self._instruction = instruction
        self._source = source

    def _get(self) -> Any:
        if self._scorer is None:
            from chartproof.metrics.roscoe import RoscoeScorer

            self._scorer = RoscoeScorer()
        return self._scorer

    def __call__(
        self, results: Sequence[SampleResult], samples: Mapping[str, Sample]
    ) -> list[SampleResult]:
        from chartproof.metrics.roscoe import RoscoeItem
        from chartproof.metrics.weights import normalised_scores

        todo = [i for i, r in enumerate(results) if r.error is None and r.explanation]
        if not todo:
            return list(results)
        items = []
        for i in todo:
            r = results[i]
            s = samples[r.sample_id]
            table = s.table.to_csv() if self._with_table and s.table is not None else None
            paper = self._source == "paper"
            items.append(
                RoscoeItem(
                    explanation=r.explanation or "",
                    question=s.question,
                    answer=None if paper else r.prediction,
                    context=table,
                    instruction=self._instruction if paper else None,
                    id=s.id,
                )
            )
        scored = self._get().score(items)
        out = list(results)
        for i, sc in zip(todo, scored, strict=True):
            table_scale = normalised_scores(sc.codes())
            extra: dict[str, float | None] = {
                f"roscoe_{k.lower()}": v for k, v in table_scale.items()
            }
            extra["roscoe_as"] = sc.aggregate().value
            # clearly named stand-in when SRC/SFC are missing: AS over the scores that exist
            extra["roscoe_as_renormalised"] = sc.aggregate(missing="renormalise").value
            out[i] = out[i].model_copy(update={"scores": {**out[i].scores, **extra}})
        return out


@scorer(
    kind="explanation",
    name="roscoe",
    metrics=[
        *(Metric(f"roscoe_{c.lower()}", f"ROSCOE {c}") for c in _ROSCOE_CODES),
        Metric(
            "roscoe_as_renormalised",
            "ROSCOE AS over the computed scores",
            description="AS with the weights renormalised over the scores computed: not the "
            "paper's AS when any is missing (the summary says over how many of 9)",
            aggregation="renormalised_as",
        ),
    ],
)
def roscoe_stage(
    *,
    scorer: Any = None,
    with_table: bool = False,
    instruction: str | None = None,
    source: RoscoeSource = "paper",
) -> RoscoeStage:
    """The stage that adds ROSCOE scores to each batch of results (`scorer` overrides the
    offline default `RoscoeScorer()`; `instruction` is the prompt's instruction, part of the
    paper's source context)."""
    return RoscoeStage(scorer, with_table=with_table, instruction=instruction, source=source)


def roscoe_as_label(results: Sequence[SampleResult]) -> str | None:
    """ "AS over N of 9 scores (missing: ...)" for the explanations scored, where AS was
    renormalised over fewer than nine; None when every scored explanation had all nine."""
    counts: set[int] = set()
    missing: set[str] = set()
    for r in results:
        if r.scores.get("roscoe_as_renormalised") is None:
            continue
        have = [c for c in _NINE if r.scores.get(f"roscoe_{c.lower()}") is not None]
        counts.add(len(have))
        missing.update(c for c in _NINE if c not in have)
    if not counts or counts == {9}:
        return None
    n = str(min(counts)) if len(counts) == 1 else f"{min(counts)}–{max(counts)}"
    order = [c for c in _NINE if c in missing]
    return f"AS over {n} of 9 scores (not computed: {', '.join(order)}): not the paper's AS"


@aggregation("renormalised_as")
def renormalised_as(
    metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
) -> Score:
    """The mean of `roscoe_as_renormalised`, labelled "AS over N of 9 scores" in every row
    (headline, breakdown cell, grid) when the run's AS is not the paper's nine-score AS."""
    score = mean_score(metric, [r.scores.get(metric) for r in results], group)
    label = roscoe_as_label(run.results)
    return score if label is None else score.model_copy(update={"note": label})


@scorer(kind="explanation", name="ngram", section="ngram")
def ngram_summary(
    results: Sequence[SampleResult],
    samples: Mapping[str, Sample],
    *,
    generator: str | None = None,
) -> dict[str, Any]:
    """BLEU-4, METEOR, ROUGE-L and CIDEr-D (COCO definitions) of the models' explanations
    against the samples' reference explanations; a missing explanation counts as empty.

    `generator` is the backend's declared explanation generator
    (`chartproof.models.base.explanation_generator`): when references were written by the
    same code (their `source["explanation_generator"]`), the summary says so under
    "self_template" and the report keeps the run out of explanation rankings."""
    from chartproof.metrics.ngram import ngram_scores

    pairs = [
        (r.explanation or "", samples[r.sample_id].explanation or "")
        for r in results
        if r.sample_id in samples and samples[r.sample_id].explanation
    ]
    if not pairs:
        return {"note": "no sample has a reference explanation", "n": 0}
    report = ngram_scores([c for c, _ in pairs], [[ref] for _, ref in pairs])
    out: dict[str, Any] = {
        "corpus": report.corpus,
        "notes": report.notes,
        "n": report.n,
        "missing_explanations": sum(1 for c, _ in pairs if not c),
    }
    if generator is not None:
        shared = sum(
            1
            for r in results
            if r.explanation
            and r.sample_id in samples
            and samples[r.sample_id].explanation
            and samples[r.sample_id].source.get("explanation_generator") == generator
        )
        if shared:
            out["self_template"] = {"generator": generator, "shared": shared, "of": len(pairs)}
    return out
