"""`evaluate`: ask a model every sample of a dataset under a protocol and score it, in a
resumable run folder (config, append-only results, summary)."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any

from chartproof.datasets import dataset_fingerprint, load_dataset
from chartproof.executors import Executor, load_backend_on
from chartproof.metrics.registry import explanation_scorers
from chartproof.models import load_prompts
from chartproof.models.base import Backend, accepts_overlap, in_flight
from chartproof.models.cache import with_cache
from chartproof.pipelines.protocols import PROTOCOLS, RunContext, applies, run_protocol
from chartproof.pipelines.summarize import summarize
from chartproof.runs import RunFolder
from chartproof.types import (
    GenerationConfig,
    ModelRequest,
    ModelResponse,
    RunRecord,
    Sample,
    SampleResult,
)

__all__ = ["evaluate"]

log = logging.getLogger(__name__)

ProgressHook = Callable[[int, int], None]
"""Called with (samples finished so far, samples to do) after every batch."""


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
    backend: Backend | None = None,
    executor: str | Executor | None = None,
    progress: ProgressHook | None = None,
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
    reference explanations). `batch_size` samples go to the model at a time and are recorded
    together (default: four times the backend's concurrency, at least 16, so an API
    backend's request slots stay full). Pass `backend` to use an already-built backend (its
    `name` is recorded as the model; it is not closed). A CPU-bound `model` (the built-in
    reader, an ``hf:`` model on the CPU) is fanned out over `executor` ("local": one copy per
    core, the default; "local:1": this process; "ray[:ADDRESS]"), each worker loading it
    once; the results do not depend on the executor and only this process writes the run.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {list(PROTOCOLS)}")
    if batch_size is not None and batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    explainers = explanation_scorers()
    unknown = sorted(set(metrics) - set(explainers))
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; choose from {list(explainers)}")
    loaded = load_dataset(data, strict=strict)
    if loaded.errors:
        log.warning("%s", loaded.summary())
    samples = loaded.samples
    if where:
        samples = [s for s in samples if _matches(s, where)]
    samples = samples[:limit] if limit is not None else samples
    if not samples:
        raise ValueError(f"no samples to evaluate in {data}" + (f" where {where}" if where else ""))
    prompts = load_prompts(prompts_file) if prompts_file else None
    prompt_id = (prompts or _default_prompts()).get(prompt).id
    model_name = backend.name if backend is not None else model
    gen = GenerationConfig(max_tokens=max_tokens)
    config: dict[str, Any] = {
        "data": str(data),
        "model": model_name,
        "protocol": protocol,
        "prompt": prompt_id if protocol == "direct" else _protocol_prompt(protocol, prompts),
        "limit": limit,
        "where": dict(sorted(where.items())) if where else None,
        "metrics": sorted(set(metrics)),
        "with_table": with_table,
        "generation": gen.model_dump(),
    }
    fingerprint = dataset_fingerprint(samples, loaded.root)
    todo_all = [s for s in samples if applies(protocol, s)]
    inner = backend if backend is not None else load_backend_on(model, executor)
    wrapped, store = with_cache(_Borrowed(inner) if backend is not None else inner, cache)
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
            done = len(todo_all) - len(todo)
            if progress:
                progress(done, len(todo_all))
            by_id = {s.id: s for s in samples}
            # explanation scorers without a summary section score each batch as it finishes
            # (stored with the results, so a resumed run never rescores)
            models = {"roscoe": roscoe_scorer}
            stages = [
                explainers[m].fn(scorer=models.get(m), with_table=with_table)
                for m in explainers
                if m in metrics and explainers[m].section is None
            ]
            # samples per batch: enough to keep every request slot of an API backend busy,
            # small enough to record often
            size = batch_size or max(16, 4 * in_flight(wrapped))
            for batch, results in _answered(protocol, _batches(todo, size), ctx, wrapped):
                for stage in stages:
                    results = stage(results, by_id)
                run.append(results)
                done += len(batch)
                if progress:
                    progress(done, len(todo_all))
            results = [r for r in run.results() if r.protocol == protocol]
            summary = summarize(results, protocol=protocol, samples=samples)
            for m, entry in explainers.items():
                if m in metrics and entry.section is not None:
                    summary[entry.section] = entry.fn(results, by_id)
            summary["model"] = model_name
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
            return run.finish(summary, counts)
    finally:
        wrapped.close()
        if store is not None:
            store.close()


def _matches(sample: Sample, where: dict[str, str]) -> bool:
    labels = sample.group_labels()
    return all(labels.get(k) == v for k, v in where.items())


class _Borrowed:
    """A caller's backend: used, not closed (the caller may evaluate more with it)."""

    def __init__(self, backend: Backend) -> None:
        self.inner = backend
        self.identity = getattr(backend, "identity", None)

    @property
    def name(self) -> str:
        return self.inner.name

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        return self.inner.generate(requests)

    def close(self) -> None:
        pass


def _default_prompts() -> Any:
    from chartproof.models import default_prompts

    return default_prompts()


def _protocol_prompt(protocol: str, prompts: Any) -> str:
    name = {"chain": "chain_step", "premise": "premise"}[protocol]
    return str((prompts or _default_prompts()).get(name).id)


def _answered(
    protocol: str, batches: Sequence[Sequence[Sample]], ctx: RunContext, backend: Backend
) -> Iterator[tuple[Sequence[Sample], list[SampleResult]]]:
    """Each batch with its results, in batch order.

    An API backend (one that takes concurrent calls, `accepts_overlap`) gets the next batch
    while the current one finishes, so its request slots do not drain empty at every batch
    boundary; other backends (local models) get one batch at a time. Results are recorded
    in batch order either way.
    """
    if len(batches) < 2 or not accepts_overlap(backend):
        for batch in batches:
            yield batch, run_protocol(protocol, batch, ctx)
        return
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="chartproof-eval")
    pending: deque[tuple[Sequence[Sample], Future[list[SampleResult]]]] = deque()
    queue = iter(batches)
    try:
        for batch in islice(queue, 2):
            pending.append((batch, pool.submit(run_protocol, protocol, batch, ctx)))
        while pending:
            batch, future = pending.popleft()
            results = future.result()
            following = next(queue, None)
            if following is not None:
                pending.append((following, pool.submit(run_protocol, protocol, following, ctx)))
            yield batch, results
    finally:
        # on an error or interrupt, the batch still running finishes (its replies reach the
        # response cache) but no new batch starts
        pool.shutdown(wait=True, cancel_futures=True)


def _batches(samples: Sequence[Sample], size: int) -> list[Sequence[Sample]]:
    return [samples[i : i + size] for i in range(0, len(samples), size)]
