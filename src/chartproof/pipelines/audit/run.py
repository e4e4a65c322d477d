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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chartproof.datasets import LoadResult, dataset_fingerprint, load_dataset
from chartproof.executors import Executor
from chartproof.metrics.bias import JudgeThresholds
from chartproof.metrics.bias_summary import (
    AttributeInfo,
    AuditDataset,
    AuditSummary,
    EligibilityCounts,
    SkippedPair,
)
from chartproof.models import load_prompts
from chartproof.models.base import Backend, in_flight
from chartproof.pipelines.audit.charts import (
    AuditChart,
    Eligibility,
    charts_of,
    decide_eligibility,
    spec_meta,
    spec_text,
)
from chartproof.pipelines.audit.config import AuditSettings
from chartproof.pipelines.audit.lexicon import DEFAULT_LEXICON, Attribute, Lexicon, load_lexicon
from chartproof.pipelines.audit.prompts import AUDIT_PROMPTS, audit_prompts
from chartproof.pipelines.audit.settings import AuditContext, Embedder, Scorer
from chartproof.pipelines.audit.summary import summarize_audit
from chartproof.pipelines.audit.tasks import AuditPlan, AuditTask, chosen_tasks
from chartproof.pipelines.engine import Stage, open_run
from chartproof.runs import RunFolder
from chartproof.types import RunRecord, SampleResult

__all__ = ["SETTINGS", "AuditSettings", "audit"]

log = logging.getLogger(__name__)

SETTINGS = ("narrative", "hallucination", "polarity", "cue")
"""The built-in audit settings in report order (`tasks.setting_names()` adds plug-ins')."""

ProgressHook = Callable[[int, int], None]
"""Called with (work units finished, work units to do)."""


class _Unset:
    """No embedder given to `audit`: the settings' one."""


_UNSET = _Unset()


def audit(
    data: str | Path | AuditSettings,
    model: str | None = None,
    out: str | Path | None = None,
    *,
    backend: Backend | None = None,
    executor: str | Executor | None = None,
    embedder: Embedder | str | Path | _Unset | None = _UNSET,
    progress: ProgressHook | None = None,
    **options: Any,
) -> RunRecord:
    """Audit `model` on the charts of `data` and write the run to `out`.

    `data` is an `AuditSettings` record, or the dataset with the record's other fields as
    keywords (`attributes`, `settings`, `mitigate`, ...; unknown ones are errors).
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
    opinion-based figures are computed on tagged outputs only). `mitigation_pairs` runs the
    mitigation on the first N eligible pairs only.
    """
    # an embedder object is handed over as it is; a spec (folder, "default", None) is a field
    spec = embedder is None or isinstance(embedder, str | Path)
    if isinstance(data, AuditSettings):
        if model is not None or out is not None or options or spec:
            raise TypeError(
                "audit() takes an AuditSettings record or its fields as keywords, not both"
            )
        s = data
    else:
        if spec:
            options["embedder"] = embedder
        given = {"model": model, "out": out}
        s = AuditSettings(data=data, **{k: v for k, v in given.items() if v is not None}, **options)
    embedding = s.embedder if spec or isinstance(embedder, _Unset) else embedder
    return _Audit(s, backend, executor, embedding, progress).run()


@dataclass
class _Audit:
    """One audit run: its settings, and the model and embedder it was handed."""

    s: AuditSettings
    backend: Backend | None
    executor: str | Executor | None
    embedder: Embedder | str | Path | None
    progress: ProgressHook | None
    reads: str | None = None
    """What the model sees, as its backend declares it (`label`; None: the image)."""

    def run(self) -> RunRecord:
        s = self.s
        loaded, lexicon, examples, attrs, charts = _inputs(s)
        tasks = chosen_tasks(s.settings, s.mitigate)
        model_name = self.backend.name if self.backend is not None else s.model
        prompts = audit_prompts(load_prompts(s.prompts_file) if s.prompts_file else None)
        embedder_name = _embedder_name(self.embedder)
        # the run's identity holds the prompts the audit asks with (its own), so a prompt
        # added to the built-ins for another pipeline never stops an audit from resuming
        own = {t.name for t in AUDIT_PROMPTS}
        used = sorted(i for i in prompts.ids() if i.rpartition("@")[0] in own)
        config = s.run_config(model_name, attrs, embedder_name, used)
        with open_run(s.out, executor=self.executor, cache=s.cache) as run:
            wrapped = run.backend(self.backend if self.backend is not None else s.model)
            inner = run.loaded(wrapped)
            scorer: Scorer | None = getattr(inner, "loglikelihoods", None)
            if s.choice != "generate" and scorer is None and any(t.chooses for t in tasks):
                raise ValueError(
                    f"--choice {s.choice} scores replies by likelihood, which {model_name} "
                    "cannot do: use a local causal LM (text:...) in this process "
                    "(--executor local:1)"
                )
            label = getattr(inner, "label", None)
            self.reads = label if isinstance(label, str) else None
            run.start(config, dataset_fingerprint(loaded.samples, loaded.root))
            if s.asks_counterfactuals():
                charts = charts + _flipped(charts, Path(s.out) / "charts")
            eligibility = _eligibility(charts, attrs, lexicon, run.folder, model_name, s.ocr)
            ctx = AuditContext(
                backend=wrapped, model=model_name, prompts=prompts, lexicon=lexicon,
                embedder=_embedder(self.embedder), sentiment=_vader(), max_tokens=s.max_tokens,
                thresholds=JudgeThresholds(), examples=examples, choice=s.choice,
                scorer=scorer, opinion_fallback=s.opinion_fallback,
            )  # fmt: skip
            ok = {(e.chart, e.attribute) for e in eligibility if e.eligible}
            plan = AuditPlan(charts, attrs, ok, s.cue_questions, s.mitigation_pairs)
            # batches of a fixed size, one at a time: a batch asks each shared request once
            size = s.batch_size or max(8, 2 * in_flight(wrapped))
            stages = [
                Stage(task.protocol, model_name, task.units(plan), _solver(task, ctx),
                      backend=wrapped, batch_size=size, overlap=False)
                for task in tasks
            ]  # fmt: skip
            run.execute(stages, progress=self.progress)
            results = [r for r in run.results() if r.protocol != "audit.text"]
            summary = self._summary(loaded, plan, eligibility, tasks, results, ctx, config)
            counts = {
                "charts": len(plan.originals),
                "units": sum(len(stage.units) for stage in stages),
                "results": len(results),
                "failed": sum(1 for r in results if r.error is not None),
            }
            return run.finish(summary.to_json(), counts)

    def _summary(
        self,
        loaded: LoadResult,
        plan: AuditPlan,
        eligibility: Sequence[Eligibility],
        tasks: Sequence[AuditTask],
        results: Sequence[SampleResult],
        ctx: AuditContext,
        config: dict[str, Any],
    ) -> AuditSummary:
        """The typed summary: what was audited, then every statistic of the tasks that ran."""
        s, attrs = self.s, plan.attributes
        return AuditSummary(
            pipeline="audit",
            model=ctx.model,
            model_reads=self.reads,
            dataset=AuditDataset(spec=str(s.data), root=str(loaded.root),
                                 samples=len(loaded.samples), bad_rows=loaded.n_bad),
            charts=len(plan.originals),
            counterfactual_charts=len(plan.charts) - len(plan.originals),
            polarity_sources=_count(c.polarity_source or "unknown" for c in plan.originals),
            eligibility=_eligibility_summary(eligibility, attrs),
            skipped=tuple(SkippedPair.model_validate(e.model_dump(mode="json"))
                          for e in eligibility if not e.eligible),
            attributes=tuple(AttributeInfo(name=a.name, groups=a.labels) for a in attrs),
            settings=tuple(config["settings"]),
            mitigate=s.mitigate,
            selection=s.choice,
            opinion_fallback=s.opinion_fallback,
            embedder=config["embedder"] if ctx.embedder is not None else None,
            sentiment="vaderSentiment" if ctx.sentiment is not None else None,
            calls=sum(r.calls for r in results),
            cached_calls=sum(r.cached for r in results),
            model_seconds=round(sum(r.latency_s for r in results), 2),
            **summarize_audit(results, attrs, {t.protocol for t in tasks}),
        )  # fmt: skip


def _solver(task: AuditTask, ctx: AuditContext) -> Callable[[Sequence[Any]], list[SampleResult]]:
    """The task's solve function with the audit's context, for the engine's `Stage`."""
    return lambda batch: task.solve(batch, ctx, task.protocol)


def _inputs(
    s: AuditSettings,
) -> tuple[LoadResult, Lexicon, dict[str, tuple[str, ...]], list[Attribute], list[AuditChart]]:
    """The dataset, the lexicon (income terms from a ChartBias folder's country lists), the
    example names per group, the audited attributes and the charts."""
    loaded = load_dataset(s.data, strict=s.strict)
    if loaded.errors:
        log.warning("%s", loaded.summary())
    if (several := loaded.first_chart_only("the audit")) is not None:
        log.warning("%s", several)
    lexicon = load_lexicon(s.lexicon_file) if s.lexicon_file else DEFAULT_LEXICON
    examples: dict[str, tuple[str, ...]] = {}
    from chartproof.datasets.loaders.chartbias import income_lists

    lists = income_lists(loaded.root)
    if lists and "income" in lexicon.attributes:
        for group in lexicon["income"].labels:
            if lists.get(group):
                examples[group] = lists[group]
                lexicon = lexicon.with_terms("income", group, lists[group])
    attrs = list(lexicon.select(list(s.attributes) if s.attributes else None))
    charts = charts_of(loaded.samples, loaded.root)
    charts = charts[: s.limit] if s.limit else charts
    if not charts:
        raise ValueError(f"no charts to audit in {s.data}")
    return loaded, lexicon, examples, attrs, charts


# ------------------------------------------------------------------------------ helpers


def _count(items: Iterator[str] | Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in items:
        out[i] = out.get(i, 0) + 1
    return out


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
) -> dict[str, EligibilityCounts]:
    out: dict[str, EligibilityCounts] = {}
    for a in attrs:
        rows = [e for e in eligibility if e.attribute == a.name]
        out[a.name] = EligibilityCounts(
            eligible=sum(1 for e in rows if e.eligible),
            skipped=sum(1 for e in rows if not e.eligible),
            unchecked=sum(1 for e in rows if e.source == "unchecked"),
        )
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
