"""Explanation-quality metrics inside an evaluation: ROSCOE per answered sample (stored with
its result, so a resumed run never rescores), n-gram metrics over the whole run against the
samples' reference explanations (corpus statistics need every candidate at once)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.metrics.registry import Metric, scorer
from chartproof.types import Sample, SampleResult

__all__ = ["RoscoeStage", "ngram_summary", "roscoe_stage"]

_ROSCOE_CODES = ("FS", "FT", "IS", "IC", "SRC", "SFC", "PS", "PC", "GS", "AS")


class RoscoeStage:
    """Adds ChartQA-X's nine ROSCOE scores and AS (table scale: PS/PC as 1 − 1/PPL) to
    results that have an explanation; the scorer's models load on first use.

    Scores are stored as `roscoe_fs` … `roscoe_gs` and `roscoe_as` (the names of
    `metrics.roscoe.roscoe_summary`); None = not computed
    (SRC/SFC and therefore AS without an NLI model); `roscoe_as_renormalised` is AS with
    the weights renormalised over the scores that were computed, named as the stand-in it is.
    """

    def __init__(self, scorer: Any = None, *, with_table: bool = False) -> None:
        self._scorer = scorer
        self._with_table = with_table

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
            items.append(
                RoscoeItem(
                    explanation=r.explanation or "",
                    question=s.question,
                    answer=r.prediction,
                    context=table,
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
        Metric("roscoe_as_renormalised", "ROSCOE AS (renormalised)"),
    ],
)
def roscoe_stage(*, scorer: Any = None, with_table: bool = False) -> RoscoeStage:
    """The stage that adds ROSCOE scores to each batch of results (`scorer` overrides the
    offline default `RoscoeScorer()`)."""
    return RoscoeStage(scorer, with_table=with_table)


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
