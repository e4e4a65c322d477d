"""`audit`: ChartBias's bias audit of one model on a dataset's charts, in a resumable run
folder beside `eval`'s (same loaders, backends, response cache, run records and report).

Settings: ``narrative`` (narrative shift), ``hallucination`` (two-stage group selection in
both option orders), ``polarity`` (the same selections split by chart polarity, plus the
causal trend-flip test on generated charts), ``cue`` (the user states a group; accuracy
on executable gold answers, and the narratives written for a user of each group compared
as the narrative setting compares its pairs). ``mitigate`` adds the multi-agent
mitigation and its no-masking ablation, measured by the same narrative-shift statistics.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from chartproof.datasets import dataset_fingerprint, load_dataset
from chartproof.executors import Executor, load_backend_on
from chartproof.metrics.bias import OPINION_FALLBACKS, JudgeThresholds
from chartproof.metrics.bias_summary import AuditSummary
from chartproof.models import load_prompts
from chartproof.models.base import Backend, Borrowed, in_flight
from chartproof.models.cache import with_cache
from chartproof.pipelines.audit.charts import (
    AuditChart,
    Eligibility,
    charts_of,
    decide_eligibility,
    spec_meta,
    spec_text,
)
from chartproof.pipelines.audit.lexicon import DEFAULT_LEXICON, Attribute, Lexicon, load_lexicon
from chartproof.pipelines.audit.prompts import audit_prompts
from chartproof.pipelines.audit.settings import (
    CHOICES,
    AuditContext,
    CueUnit,
    Embedder,
    PairUnit,
    Scorer,
    SelectUnit,
    run_cue,
    run_cue_narrative,
    run_mitigation,
    run_narrative,
    run_selection,
)
from chartproof.pipelines.audit.summary import summarize_audit
from chartproof.runs import RunFolder, recording
from chartproof.types import RunRecord, SampleResult

__all__ = ["SETTINGS", "audit"]

log = logging.getLogger(__name__)

SETTINGS = ("narrative", "hallucination", "polarity", "cue")
"""Audit settings in report order."""

ProgressHook = Callable[[int, int], None]
"""Called with (work units finished, work units to do)."""

T = TypeVar("T")


def audit(
    data: str | Path,
    model: str = "builtin:reader",
    out: str | Path = "runs/audit",
    *,
    attributes: Sequence[str] | None = None,
    settings: Sequence[str] = ("narrative", "hallucination", "polarity"),
    mitigate: bool = False,
    causal: bool = True,
    lexicon_file: str | Path | None = None,
    prompts_file: str | Path | None = None,
    limit: int | None = None,
    cue_questions: int = 2,
    embedder: Embedder | str | Path | None = "default",
    ocr: bool = True,
    max_tokens: int = 256,
    batch_size: int | None = None,
    cache: bool | str | Path = True,
    strict: bool = False,
    backend: Backend | None = None,
    executor: str | Executor | None = None,
    choice: str = "generate",
    opinion_fallback: str = "none",
    progress: ProgressHook | None = None,
) -> RunRecord:
    """Audit `model` on the charts of `data` and write the run to `out`.

    `attributes` picks attributes of the lexicon (default: all six of seed 003 Table 7;
    `lexicon_file` adds or replaces pairs). A chart that names a group or cue word of an
    attribute (spec text for generated charts, OCR text for images unless `ocr` is off,
    the dataset's `eligibility` override first) is skipped for it and the reason recorded.
    `limit` keeps the first charts; `cue_questions` questions per chart enter the cue
    setting. `embedder` is a sentence embedder, a sentence-transformers folder, "default"
    (all-MiniLM-L6-v2 offline) or None (dissimilarities "not computed"). Rerunning resumes.
    A CPU-bound model (``text:...?device=cpu``, ``hf:...?device=cpu``, the built-ins) is
    fanned out over `executor` (a `chartproof.executors` spec or an open executor; None:
    every local core, as `eval` does), one copy per worker; every batch comes back to
    this process, which alone writes the run folder, so the results do not depend on it.
    `choice` answers the group-selection question by generation (the paper's protocol,
    the default) or, for a local causal LM in this process, by the likelihood of each
    allowed reply ("likelihood": summed log-probability, "likelihood-norm": per character).
    `opinion_fallback` "last-sentence" takes an untagged output's last sentence as its
    opinion (labelled in the report; off by default: such an output has no opinion and the
    opinion-based figures are computed on tagged outputs only).
    """
    if choice not in CHOICES:
        raise ValueError(f"unknown choice {choice!r}; choose from {list(CHOICES)}")
    if opinion_fallback not in OPINION_FALLBACKS:
        raise ValueError(
            f"unknown opinion fallback {opinion_fallback!r}; choose from {list(OPINION_FALLBACKS)}"
        )
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ValueError(f"unknown audit settings {unknown}; choose from {list(SETTINGS)}")
    if not settings and not mitigate:
        raise ValueError("nothing to audit: give at least one setting or mitigate")
    loaded = load_dataset(data, strict=strict)
    if loaded.errors:
        log.warning("%s", loaded.summary())
    lexicon = load_lexicon(lexicon_file) if lexicon_file else DEFAULT_LEXICON
    examples: dict[str, tuple[str, ...]] = {}
    from chartproof.datasets.loaders.chartbias import income_lists

    lists = income_lists(loaded.root)
    if lists and "income" in lexicon.attributes:
        for group in lexicon["income"].labels:
            if lists.get(group):
                examples[group] = lists[group]
                lexicon = lexicon.with_terms("income", group, lists[group])
    attrs = lexicon.select(list(attributes) if attributes else None)
    charts = (
        charts_of(loaded.samples, loaded.root)[:limit]
        if limit
        else charts_of(loaded.samples, loaded.root)
    )
    if not charts:
        raise ValueError(f"no charts to audit in {data}")
    model_name = backend.name if backend is not None else model
    config: dict[str, Any] = {
        "pipeline": "audit",
        "data": str(data),
        "model": model_name,
        "attributes": [a.model_dump(mode="json") for a in attrs],
        "settings": [s for s in SETTINGS if s in settings],
        "mitigate": mitigate,
        "causal": causal,
        "limit": limit,
        "cue_questions": cue_questions,
        "ocr": ocr,
        "max_tokens": max_tokens,
        "embedder": _embedder_name(embedder),
        # the paper's protocol leaves the run identity as it always was
        **({"choice": choice} if choice != "generate" else {}),
        **({"opinion_fallback": opinion_fallback} if opinion_fallback != "none" else {}),
        "prompts": sorted(
            audit_prompts(load_prompts(prompts_file) if prompts_file else None).ids()
        ),
    }
    fingerprint = dataset_fingerprint(loaded.samples, loaded.root)
    inner = backend if backend is not None else load_backend_on(model, executor)
    scorer: Scorer | None = getattr(inner, "loglikelihoods", None)
    if (
        choice != "generate"
        and scorer is None
        and any(s in settings for s in ("hallucination", "polarity"))
    ):
        if backend is None:
            inner.close()
        raise ValueError(
            f"--choice {choice} scores replies by likelihood, which {model_name} cannot do: "
            "use a local causal LM (text:...) in this process (--executor local:1)"
        )
    wrapped, store = with_cache(Borrowed(inner) if backend is not None else inner, cache)
    try:
        with RunFolder.open(out, config, fingerprint) as run:
            if causal and ("hallucination" in settings or "polarity" in settings):
                charts = charts + _flipped(charts, Path(out) / "charts")
            eligibility = _eligibility(charts, attrs, lexicon, run, model_name, ocr)
            ok = {(e.chart, e.attribute) for e in eligibility if e.eligible}
            ctx = AuditContext(
                backend=wrapped,
                model=model_name,
                prompts=audit_prompts(load_prompts(prompts_file) if prompts_file else None),
                lexicon=lexicon,
                embedder=_embedder(embedder),
                sentiment=_vader(),
                max_tokens=max_tokens,
                thresholds=JudgeThresholds(),
                examples=examples,
                choice=choice,
                scorer=scorer,
                opinion_fallback=opinion_fallback,
            )
            originals = [c for c in charts if c.family is None]
            pair_units = [PairUnit(c, a) for c in originals for a in attrs if (c.id, a.name) in ok]
            work: list[
                tuple[str, Sequence[Any], Callable[[Sequence[Any]], list[SampleResult]]]
            ] = []
            if "narrative" in settings:
                work.append(("audit.narrative", pair_units,
                             lambda b: run_narrative(b, ctx, "audit.narrative")))  # fmt: skip
            if "hallucination" in settings or "polarity" in settings:
                select = [
                    SelectUnit(c, a, order)
                    for c in charts
                    for a in attrs
                    if (c.family or c.id, a.name) in ok
                    for order in ("ab", "ba")
                ]
                work.append(("audit.hallucination", select,
                             lambda b: run_selection(b, ctx, "audit.hallucination")))  # fmt: skip
            if "cue" in settings:
                cue = [
                    CueUnit(c, s, a)
                    for c in originals
                    for s in c.questions[:cue_questions]
                    for a in attrs
                ]
                work.append(("audit.cue", cue, lambda b: run_cue(b, ctx, "audit.cue")))
                # the narrative side: the same chart and task written for a user of each group
                work.append(("audit.cue_narrative", pair_units,
                             lambda b: run_cue_narrative(b, ctx, "audit.cue_narrative")))  # fmt: skip
            if mitigate:
                work.append(
                    (
                        "audit.mitigation",
                        pair_units,
                        lambda b: run_mitigation(b, ctx, "audit.mitigation", masked=True),
                    )
                )
                work.append(("audit.mitigation_nomask", pair_units,
                             lambda b: run_mitigation(b, ctx, "audit.mitigation_nomask",
                                                      masked=False)))  # fmt: skip
            total = sum(len(units) for _, units, _ in work)
            done = sum(1 for p, units, _ in work for u in units if run.is_done(u.id, p, model_name))
            size = batch_size or max(8, 2 * in_flight(wrapped))
            with recording(run, total, done=done, progress=progress) as recorder:
                for protocol, units, fn in work:
                    todo = [u for u in units if not run.is_done(u.id, protocol, model_name)]
                    for batch in _batches(todo, size):
                        recorder.add(fn(batch))
            results = [r for r in run.results() if r.protocol != "audit.text"]
            summary = AuditSummary(**{
                "pipeline": "audit",
                "model": model_name,
                "dataset": {"spec": str(data), "root": str(loaded.root),
                            "samples": len(loaded.samples), "bad_rows": loaded.n_bad},
                "charts": len(originals),
                "counterfactual_charts": len(charts) - len(originals),
                "polarity_sources": _count(c.polarity_source or "unknown" for c in originals),
                "eligibility": _eligibility_summary(eligibility, attrs),
                "skipped": [e.model_dump(mode="json") for e in eligibility if not e.eligible],
                "attributes": [
                    {"name": a.name, "groups": list(a.labels)} for a in attrs
                ],
                "settings": config["settings"],
                "mitigate": mitigate,
                "selection": choice,
                "opinion_fallback": opinion_fallback,
                "embedder": config["embedder"] if ctx.embedder is not None else None,
                "sentiment": "vaderSentiment" if ctx.sentiment is not None else None,
                "calls": sum(r.calls for r in results),
                "cached_calls": sum(r.cached for r in results),
                "model_seconds": round(sum(r.latency_s for r in results), 2),
                **summarize_audit(results, attrs, config["settings"]),
            })  # fmt: skip
            counts = {
                "charts": len(originals),
                "units": total,
                "results": len(results),
                "failed": sum(1 for r in results if r.error is not None),
            }
            return run.finish(summary.to_json(), counts)
    finally:
        wrapped.close()
        if store is not None:
            store.close()


# ------------------------------------------------------------------------------ helpers


def _count(items: Iterator[str] | Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


def _batches(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _flipped(charts: Sequence[AuditChart], folder: Path) -> list[AuditChart]:
    """The trend-flipped counterfactual of every generated chart with a computed trend
    polarity (positive or negative), rendered into the run folder."""
    from chartproof.charts import render
    from chartproof.charts.suites.bias import spec_polarity
    from chartproof.variants.counterfactual import counterfactual

    out = []
    for c in charts:
        if c.spec is None or c.polarity not in ("positive", "negative"):
            continue
        member = counterfactual(c.spec, 0, kinds=("trend_flip",))
        if member is None:
            continue
        polarity = spec_polarity(member.spec)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{member.id.replace('/', '_')}.png"
        if not path.exists():
            path.write_bytes(render(member.spec).png)
        out.append(
            AuditChart(
                id=member.id,
                image=path.resolve(),
                chart_type=c.chart_type,
                polarity=polarity,
                polarity_source="computed" if polarity else None,
                spec=member.spec,
                family=c.id,
                text_meta=spec_meta(member.spec),
            )
        )
    return out


def _eligibility(
    charts: Sequence[AuditChart],
    attrs: Sequence[Attribute],
    lexicon: Lexicon,
    run: RunFolder,
    model: str,
    ocr: bool,
) -> list[Eligibility]:
    """Each (chart, attribute)'s eligibility; OCR text is read once per image and kept in
    the run folder (protocol "audit.text") so a resumed run does not read it again."""
    texts: dict[str, tuple[str | None, str]] = {}
    need_ocr = []
    for c in charts:
        if c.spec is not None:
            texts[c.id] = (spec_text(c.spec), "spec")
        elif run.is_done(c.id, "audit.text", model):
            found = next(
                r for r in run.results() if r.sample_id == c.id and r.protocol == "audit.text"
            )
            texts[c.id] = (found.output, "ocr")
        elif ocr and not all(a.name in c.overrides for a in attrs):
            need_ocr.append(c)
        else:
            texts[c.id] = (None, "unchecked")
    if need_ocr:
        read = _ocr_texts(need_ocr)
        if read is None:
            texts.update({c.id: (None, "unchecked") for c in need_ocr})
        else:
            run.append(
                SampleResult(sample_id=c.id, protocol="audit.text", model=model, output=t)
                for c, t in zip(need_ocr, read, strict=True)
            )
            texts.update({c.id: (t, "ocr") for c, t in zip(need_ocr, read, strict=True)})
    out = []
    for c in charts:
        text, source = texts.get(c.id, (None, "unchecked"))
        for a in attrs:
            out.append(decide_eligibility(c, a, lexicon, text, source))  # type: ignore[arg-type]
    return out


def _ocr_texts(charts: Sequence[AuditChart]) -> list[str] | None:
    """OCR text of each image (None, with a warning, when the OCR extra is missing)."""
    try:
        from PIL import Image

        from chartproof.ocr import get_engine

        engine = get_engine()
        out = []
        for c in charts:
            import numpy as np

            with Image.open(c.image) as im:
                pixels = np.asarray(im.convert("RGB"))
            out.append(" ".join(t.text for t in engine.read(pixels)))
        return out
    except ImportError as exc:
        log.warning("eligibility unchecked for images: %s", exc)
        return None


def _eligibility_summary(
    eligibility: Sequence[Eligibility], attrs: Sequence[Attribute]
) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for a in attrs:
        rows = [e for e in eligibility if e.attribute == a.name]
        out[a.name] = {
            "eligible": sum(1 for e in rows if e.eligible),
            "skipped": sum(1 for e in rows if not e.eligible),
            "unchecked": sum(1 for e in rows if e.source == "unchecked"),
        }
    return out


def _embedder_name(embedder: Embedder | str | Path | None) -> str | None:
    if embedder is None:
        return None
    if isinstance(embedder, str | Path):
        return "all-MiniLM-L6-v2" if str(embedder) == "default" else str(embedder)
    return str(getattr(embedder, "name", type(embedder).__name__))


def _embedder(embedder: Embedder | str | Path | None) -> Embedder | None:
    """The sentence embedder (the ROSCOE one, MiniLM by default); None when unavailable,
    with a warning: dissimilarities are then recorded as not computed."""
    if embedder is None or not isinstance(embedder, str | Path):
        return embedder
    from chartproof.metrics.roscoe import SentenceEmbedder

    path = None if str(embedder) == "default" else Path(embedder)
    model = SentenceEmbedder(path)
    try:
        model.embed_sentences(["probe"])
    except (ImportError, OSError, ValueError) as exc:
        log.warning("narrative dissimilarity not computed: %s", exc)
        return None
    return model


def _vader() -> Callable[[str], float] | None:
    try:
        from vaderSentiment.vaderSentiment import (  # type: ignore[import-untyped]
            SentimentIntensityAnalyzer,
        )
    except ImportError:
        log.warning("mitigation judge not run: pip install 'chartproof[bias]'")
        return None
    analyzer = SentimentIntensityAnalyzer()
    return lambda text: float(analyzer.polarity_scores(text)["compound"])
