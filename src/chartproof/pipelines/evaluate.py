"""`evaluate`: ask a model every sample of a dataset under a protocol and score it, in a
resumable run folder (config, append-only results, summary)."""

from __future__ import annotations

import logging
import string
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import nullcontext
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from chartproof.datasets import dataset_fingerprint, load_dataset
from chartproof.executors import Executor, load_backend_on
from chartproof.metrics.conventions import check_conventions
from chartproof.metrics.registry import explanation_scorers
from chartproof.models import load_prompts
from chartproof.models.base import (
    Backend,
    Borrowed,
    accepts_overlap,
    answering,
    explanation_generator,
    in_flight,
)
from chartproof.models.cache import ResponseCache, with_cache
from chartproof.models.prompts import PromptTemplate
from chartproof.models.registry import run_identity
from chartproof.pipelines.protocols import PROTOCOLS, RunContext, applies, run_protocol
from chartproof.pipelines.summarize import summarize
from chartproof.runs import RunFolder, check_run_folder, recording
from chartproof.types import (
    GenerationConfig,
    Record,
    RunRecord,
    RunSummary,
    Sample,
    SampleResult,
)
from chartproof.types.names import UnknownNameError, unknown_name

__all__ = ["EvalSettings", "evaluate", "run_evaluation"]

log = logging.getLogger(__name__)

ProgressHook = Callable[[int, int], None]
"""Called with (samples finished so far, samples to do) as each is recorded."""


class EvalSettings(Record):
    """What an evaluation is asked to do: the typed run configuration `evaluate` and
    `chartproof eval` share (unknown fields are errors)."""

    data: str
    """Dataset folder or spec ("chartqa:/path", a JSONL file, ...)."""
    model: str = "builtin:reader"
    """Backend spec (recorded as the model unless a backend object is given)."""
    out: Path = Path("runs/latest")
    """Run folder (rerun to resume)."""
    protocol: str = "direct"
    """Evaluation protocol (`PROTOCOLS`)."""
    prompt: str = "chartqax"
    """Prompt of the direct protocol (name or name@version)."""
    prompts_file: Path | None = None
    """Extra prompt templates (TOML/JSON)."""
    limit: int | None = None
    """Only the first `limit` samples."""
    where: dict[str, str] | None = None
    """Keep samples whose group labels match."""
    metrics: tuple[str, ...] = ()
    """Opt-in explanation scorers (`metrics.registry.explanation_scorers`)."""
    batch_size: int | None = None
    """Samples per unit of work, recorded together (default: 1 for an API backend, the
    model's own batch size for a local one)."""
    max_tokens: int = 256
    """Largest reply in tokens."""
    with_table: bool = False
    """Give the model the gold data table."""
    cache: bool | Path = True
    """Response cache: True for the default file, a path for that file, False for none."""
    strict: bool = False
    """Stop at the first bad dataset row."""
    shuffle_choices: int = Field(default=0, ge=0)
    """Seeded option-order shuffles added per multiple-choice sample."""
    rotate_choices: bool = False
    """Also ask every circular rotation of a multiple-choice sample's options."""
    executor: str | None = None
    """Where a CPU-bound model runs (`chartproof.executors` spec; None: every local core)."""
    judge: str | None = None
    """Backend spec of a judge that grades every answer against the gold (`pipelines.judge`);
    None: no judge."""
    judge_prompt: str = "judge_answer"
    """The judge's prompt (name or name@version)."""

    @field_validator("protocol")
    @classmethod
    def _known_protocol(cls, value: str) -> str:
        if value not in PROTOCOLS:
            raise UnknownNameError(unknown_name("protocol", value, PROTOCOLS))
        return value

    @field_validator("batch_size")
    @classmethod
    def _positive_batch(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("batch_size must be at least 1")
        return value

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        explainers = explanation_scorers()
        unknown = sorted(set(value) - set(explainers))
        if unknown:
            raise ValueError(f"unknown metrics {unknown}; choose from {list(explainers)}")
        return value


def evaluate(
    data: str | Path,
    model: str = "builtin:reader",
    out: str | Path = "runs/latest",
    *,
    protocol: str = "direct",
    prompt: str = "chartqax",
    prompts_file: str | Path | None = None,
    limit: int | None = None,
    where: dict[str, str] | None = None,
    metrics: Sequence[str] = (),
    roscoe_scorer: Any = None,
    batch_size: int | None = None,
    max_tokens: int = 256,
    with_table: bool = False,
    cache: bool | str | Path = True,
    strict: bool = False,
    shuffle_choices: int = 0,
    rotate_choices: bool = False,
    backend: Backend | None = None,
    executor: str | Executor | None = None,
    progress: ProgressHook | None = None,
    judge: str | Backend | None = None,
    judge_prompt: str = "judge_answer",
) -> RunRecord:
    """Evaluate `model` on the dataset `data` and write the run to `out`.

    `data` is a dataset spec (a chartproof folder, "chartqa:/path", a JSONL file, ...);
    `model` a backend spec ("builtin:reader", "openai:gpt-4o@http://host/v1", "hf:/ckpt").
    Rerunning with the same arguments resumes: finished samples are skipped, failed ones are
    asked again, nothing is counted twice. `cache` (default on) stores deterministic replies
    in the response cache (True: the default file; a path: that file; False: off). `where`
    keeps only samples whose group labels match, e.g. {"perturbation": "original"}.
    `metrics` adds explanation metrics to the accuracy family: "roscoe" (ChartQA-X's nine
    ROSCOE scores and AS per answered sample; `roscoe_scorer` overrides the offline default
    `RoscoeScorer()`) and "ngram" (BLEU-4, METEOR, ROUGE-L, CIDEr-D against the samples'
    reference explanations). Each result is appended to the run folder (and fsynced) as
    soon as it is finished: an API backend answers samples one by one, as many at once as
    it has request slots; a local model answers `batch_size` samples at a time (default: its
    own batch size), recorded together. Ctrl-C raises `runs.Interrupted` with the number of
    results kept. Pass `backend` to use an already-built backend (its
    `name` is recorded as the model; it is not closed). `shuffle_choices` adds that many
    seeded option-order shuffles of every multiple-choice sample and `rotate_choices` its
    circular rotations (`chartproof.variants.choice_order`), so the summary's robustness
    section and `gold_position` breakdown measure position bias. A CPU-bound `model` (the
    built-in reader, an ``hf:`` model on the CPU) is fanned out over `executor` ("local": one
    copy per core, the default; "local:1": this process; "ray[:ADDRESS]"), each worker
    loading it once; the results do not depend on the executor and only this process writes
    the run. `judge` (a backend spec, or a built backend) grades every answer against the
    gold with `judge_prompt` (`pipelines.judge`); the summary's `judge` section gives its
    agreement with the rule-based scores.
    """
    settings = EvalSettings(
        data=str(data),
        model=model,
        out=Path(out),
        protocol=protocol,
        prompt=prompt,
        prompts_file=Path(prompts_file) if prompts_file is not None else None,
        limit=limit,
        where=where,
        metrics=tuple(metrics),
        batch_size=batch_size,
        max_tokens=max_tokens,
        with_table=with_table,
        cache=cache if isinstance(cache, bool) else Path(cache),
        strict=strict,
        shuffle_choices=shuffle_choices,
        rotate_choices=rotate_choices,
        executor=executor if isinstance(executor, str) else None,
        judge=judge if isinstance(judge, str) else None,
        judge_prompt=judge_prompt,
    )
    return run_evaluation(
        settings,
        backend=backend,
        progress=progress,
        roscoe_scorer=roscoe_scorer,
        executor=None if isinstance(executor, str) else executor,
        judge_backend=None if judge is None or isinstance(judge, str) else judge,
    )


def run_evaluation(
    settings: EvalSettings,
    *,
    backend: Backend | None = None,
    progress: ProgressHook | None = None,
    roscoe_scorer: Any = None,
    executor: Executor | None = None,
    judge_backend: Backend | None = None,
) -> RunRecord:
    """Run the evaluation `settings` describe (see `evaluate`); an open `executor` (shared
    by several runs, as the demo does) overrides `settings.executor`, and a built
    `judge_backend` (not closed) grades the answers in place of `settings.judge`."""
    cfg = settings
    data, model, out, protocol, prompt = cfg.data, cfg.model, cfg.out, cfg.protocol, cfg.prompt
    prompts_file, limit, where, metrics = cfg.prompts_file, cfg.limit, cfg.where, cfg.metrics
    batch_size, max_tokens, with_table = cfg.batch_size, cfg.max_tokens, cfg.with_table
    cache = cfg.cache
    shuffle_choices, rotate_choices = cfg.shuffle_choices, cfg.rotate_choices
    explainers = explanation_scorers()
    loaded = load_dataset(data, strict=cfg.strict)
    if loaded.errors:
        log.warning("%s", loaded.summary())
    samples = loaded.samples
    if samples and all(s.source.get("audit_only") for s in samples):
        raise ValueError(
            f"{data} holds charts without questions (ChartBias layout): there is nothing to "
            f"score; audit them with `chartproof audit --data {data}`"
        )
    if where:
        samples = [s for s in samples if _matches(s, where)]
    samples = samples[:limit] if limit is not None else samples
    if shuffle_choices or rotate_choices:
        from chartproof.variants.choice_order import choice_order_variants

        samples = choice_order_variants(samples, shuffles=shuffle_choices, rotations=rotate_choices)
    if not samples:
        raise ValueError(f"no samples to evaluate in {data}" + (f" where {where}" if where else ""))
    check_conventions(samples)
    prompts = load_prompts(prompts_file) if prompts_file else None
    template = (prompts or _default_prompts()).get(prompt)
    prompt_id = template.id
    if protocol == "direct" and "options" in template.fields():
        bare = [s.id for s in samples if not s.choices]
        if bare:
            raise ValueError(
                f"prompt {prompt_id} lists answer options, but {len(bare)} of {len(samples)} "
                f"samples have none (first: {bare[0]!r}); select the multiple-choice samples "
                "(--where) or use a prompt such as chartqax, which shows the options of the "
                "samples that have them"
            )
    # transport options (?concurrency=, timeouts, retries) are not part of the run's identity
    model_name = backend.name if backend is not None else run_identity(model)
    gen = GenerationConfig(max_tokens=max_tokens)
    config: dict[str, Any] = {
        "data": str(data),
        "model": model_name,
        "protocol": protocol,
        "prompt": _protocol_prompt(protocol, prompts) or prompt_id,
        "limit": limit,
        "where": dict(sorted(where.items())) if where else None,
        "metrics": sorted(set(metrics)),
        "with_table": with_table,
        **({"shuffle_choices": shuffle_choices} if shuffle_choices else {}),
        **({"rotate_choices": True} if rotate_choices else {}),
        "generation": gen.model_dump(),
    }
    judge_id = _judge_identity(cfg, judge_backend, prompts)
    if judge_id is not None:
        config["judge"] = judge_id
    judging: tuple[Backend, ResponseCache | None] | None = None
    fingerprint = dataset_fingerprint(samples, loaded.root)
    todo_all = [s for s in samples if applies(protocol, s)]
    check_run_folder(out)  # before a model loads
    where_to_run = executor if executor is not None else cfg.executor
    inner = backend if backend is not None else load_backend_on(model, where_to_run)
    wrapped, store = with_cache(Borrowed(inner) if backend is not None else inner, cache)
    try:
        with RunFolder.open(out, config, fingerprint) as run:
            todo = [s for s in todo_all if not run.is_done(s.id, protocol, model_name)]
            ctx = RunContext(
                root=loaded.root,
                backend=wrapped,
                model=model_name,
                prompt=prompt_id,
                config=gen,
                with_table=with_table,
                prompts=prompts if prompts is not None else _default_prompts(),
            )
            by_id = {s.id: s for s in samples}
            # explanation scorers without a summary section score each batch as it finishes
            # (stored with the results, so a resumed run never rescores)
            models = {"roscoe": roscoe_scorer}
            # ROSCOE's source context is the paper's: the prompt's instruction + the question
            extra = {"roscoe": {"instruction": prompt_instruction(template)}}
            stages = [
                explainers[m].fn(scorer=models.get(m), with_table=with_table, **extra.get(m, {}))
                for m in explainers
                if m in metrics and explainers[m].section is None
            ]
            if judge_id is not None:
                judging = _judge_backend(cfg, judge_backend)
                stages.append(_judge_stage(judging[0], judge_id["prompt"], prompts))
            # samples per unit of work: one for an API backend (each recorded as it
            # finishes, `in_flight` of them at once), the model's own batch for a local one
            # (whose samples finish together)
            overlap = accepts_overlap(wrapped)
            size = batch_size or (1 if overlap else in_flight(wrapped))
            units = _batches(todo, size)
            done = len(todo_all) - len(todo)
            with (
                recording(run, len(todo_all), done=done, progress=progress) as recorder,
                # a fanned-out model's chunks move the bar inside its batch (one request a
                # sample: the direct protocol)
                answering(recorder.tick) if protocol == "direct" else nullcontext(),
            ):
                for results in _answered(protocol, units, ctx, wrapped, overlap):
                    for stage in stages:
                        results = stage(results, by_id)
                    recorder.add(results)
            results = [r for r in run.results() if r.protocol == protocol]
            summary = summarize(results, protocol=protocol, samples=samples)
            for m, entry in explainers.items():
                if m in metrics and entry.section is not None:
                    # section scorers learn whether the backend wrote its explanations with
                    # the references' own generator (n-gram scores against itself)
                    summary[entry.section] = entry.fn(
                        results, by_id, generator=explanation_generator(inner)
                    )
            if judge_id is not None and isinstance(summary.get("judge"), dict):
                summary["judge"] |= judge_id
            # what the model saw, for every table of the report ("text over table" backends)
            label = getattr(inner, "label", None)
            summary["model"] = f"{model_name} ({label})" if isinstance(label, str) else model_name
            summary["prompt"] = config["prompt"]
            summary["dataset"] = {
                "spec": str(data),
                "root": str(loaded.root),
                "samples": len(samples),
                "bad_rows": loaded.n_bad,
                "not_applicable": len(samples) - len(todo_all),
            }
            counts = {
                "samples": len(samples),
                "applicable": len(todo_all),
                "answered": summary["counts"]["answered"],
                "failed": summary["counts"]["failed"],
                "bad_rows": loaded.n_bad,
            }
            # the typed summary is the format's definition: a malformed section is a bug here,
            # not a report that fails later
            RunSummary.model_validate(summary)
            return run.finish(summary, counts)
    finally:
        wrapped.close()
        if store is not None:
            store.close()
        if judging is not None:
            judging[0].close()
            if judging[1] is not None:
                judging[1].close()


def _judge_identity(
    cfg: EvalSettings, given: Backend | None, prompts: Any
) -> dict[str, str] | None:
    """The judge's recorded name and prompt id (part of the run's configuration)."""
    if given is None and cfg.judge is None:
        return None
    prompt_id = (prompts or _default_prompts()).get(cfg.judge_prompt).id
    name = given.name if given is not None else run_identity(str(cfg.judge))
    return {"model": name, "prompt": prompt_id}


def _judge_backend(
    cfg: EvalSettings, given: Backend | None
) -> tuple[Backend, ResponseCache | None]:
    """The judge behind the run's response cache (a given backend is borrowed: not closed)."""
    if given is not None:
        return with_cache(Borrowed(given), cfg.cache)
    from chartproof.models import load_backend

    return with_cache(load_backend(str(cfg.judge)), cfg.cache)


def _judge_stage(backend: Backend, prompt: str, prompts: Any) -> Any:
    from chartproof.pipelines.judge import judge_stage

    return judge_stage(backend, prompts=prompts or _default_prompts(), prompt=prompt)


def prompt_instruction(template: PromptTemplate) -> str:
    """The instruction of a prompt without its filled-in parts: the template's lines with
    each field left empty, dropping lines that held only a short label and a field
    ("Question: {question}"), so the question is not counted twice in ROSCOE's source."""
    keep: list[str] = []
    for line in template.text.splitlines():
        fields = [f for _, f, _, _ in string.Formatter().parse(line) if f]
        literal = "".join(t for t, _, _, _ in string.Formatter().parse(line))
        if fields and len(literal.strip()) <= 24:
            continue
        keep.append(line.format_map(defaultdict(str)) if fields else line)
    return "\n".join(keep).strip()


def _matches(sample: Sample, where: dict[str, str]) -> bool:
    labels = sample.group_labels()
    return all(labels.get(k) == v for k, v in where.items())


def _default_prompts() -> Any:
    from chartproof.models import default_prompts

    return default_prompts()


def _protocol_prompt(protocol: str, prompts: Any) -> str | None:
    name = PROTOCOLS[protocol].prompt  # None: the run's own prompt
    return None if name is None else str((prompts or _default_prompts()).get(name).id)


def _answered(
    protocol: str,
    units: Sequence[Sequence[Sample]],
    ctx: RunContext,
    backend: Backend,
    overlap: bool,
) -> Iterator[list[SampleResult]]:
    """The results of each unit of samples, as each finishes.

    An API backend (one that takes concurrent calls, `accepts_overlap`) works on enough
    units at once to fill its request slots, and each unit's results come back as soon as it
    is done (completion order), so a slow request holds up no other; other backends (local
    models) get one unit at a time, in order.
    """
    if len(units) < 2 or not overlap:
        for unit in units:
            yield run_protocol(protocol, unit, ctx)
        return
    size = max(len(u) for u in units)
    width = max(2, -(-in_flight(backend) // size))
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="chartproof-eval")
    queue = iter(units)
    running: set[Future[list[SampleResult]]] = set()
    try:
        for unit in islice(queue, width):
            running.add(pool.submit(run_protocol, protocol, unit, ctx))
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for _ in finished:
                following = next(queue, None)
                if following is not None:
                    running.add(pool.submit(run_protocol, protocol, following, ctx))
            # the units that finished together are recorded together (one fsync)
            yield [result for future in finished for result in future.result()]
    finally:
        # on an error or interrupt, the units still running finish (their replies reach the
        # response cache) but no new unit starts
        pool.shutdown(wait=True, cancel_futures=True)


def _batches(samples: Sequence[Sample], size: int) -> list[Sequence[Sample]]:
    return [samples[i : i + size] for i in range(0, len(samples), size)]
