"""Fan a CPU-bound model out over an executor's workers: `FanOutBackend` holds one backend per
worker (loaded once there) and splits each `generate` batch into chunks the workers answer
in parallel; the caller sees one ordinary backend, so the run folder, resume and the response
cache stay in the driver."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

from chartproof.executors.base import Executor
from chartproof.models.base import (
    Backend,
    BackendIdentity,
    answering,
    backend_identity,
    current_tick,
    failed,
    in_flight,
    loading,
)
from chartproof.types import ImagePart, ModelRequest, ModelResponse

__all__ = ["FanOutBackend", "by_image", "fans_out", "load_backend_on"]

log = logging.getLogger(__name__)

_DEPTH = 8
"""Chunks per worker in one batch, for backends that answer one request at a time."""

_BATCHED_DEPTH = 2
"""Chunks per worker in one batch, for backends that batch (each chunk is already a model
batch: a slow text model's results then reach the run folder every few batches)."""

BackendSetup = Callable[[], Backend]
"""Builds one worker's backend; picklable (e.g. ``functools.partial(load_backend, spec)``)."""


@dataclass(frozen=True)
class FanOutSettings:
    """What `in_flight` reads: enough requests per batch to keep every worker busy."""

    batch_size: int
    """Requests the fanned-out backend works on at once (workers x chunk)."""


def _probe(
    backend: Backend, _: object
) -> tuple[str, BackendIdentity, int, Callable[[ModelRequest], str] | None, str | None]:
    # a backend whose replies depend on more than the messages says so through a picklable
    # `driver_context`, which the driver's response cache then reads (`cache_context`)
    context = getattr(backend, "driver_context", None)
    label = getattr(backend, "label", None)
    return (backend.name, backend_identity(backend), in_flight(backend), context,
            label if isinstance(label, str) else None)  # fmt: skip


# a worker's end of the queue its backend reports answered requests on (None: nobody
# listens, or the executor's workers cannot share a queue with the driver)
_REPORTS: Any = None


def _reporting(setup: BackendSetup, reports: Any) -> Backend:
    """A worker's backend built by `setup`, whose progress (`note_answered`: a local
    model's rows, the reader's requests) goes to the driver through `reports`."""
    global _REPORTS
    _REPORTS = reports
    return setup()


def _answer(backend: Backend, chunk: list[ModelRequest]) -> list[ModelResponse]:
    reports = _REPORTS
    try:
        with answering(reports.put) if reports is not None else nullcontext():
            return backend.generate(chunk)
    except Exception as e:  # the protocol says backends do not raise; keep the run going
        return [failed(r, backend.name, f"{type(e).__name__}: {e}") for r in chunk]


def _image_key(request: ModelRequest) -> str:
    return "|".join(
        part.sha256
        for message in request.messages
        for part in message.content
        if isinstance(part, ImagePart)
    )


def by_image(requests: Sequence[ModelRequest], size: int) -> list[list[ModelRequest]]:
    """Consecutive chunks of at most `size` requests that do not split a run of requests on
    the same image unless the run itself is longer than `size`: a chart is then read by one
    worker (its view cache), not by every worker its questions land on."""
    runs: list[list[ModelRequest]] = []
    for request in requests:
        key = _image_key(request)
        if runs and key and _image_key(runs[-1][0]) == key:
            runs[-1].append(request)
        else:
            runs.append([request])
    chunks: list[list[ModelRequest]] = []
    current: list[ModelRequest] = []
    for run in runs:
        if current and len(current) + len(run) > size:
            chunks.append(current)
            current = []
        while len(run) > size:
            chunks.append(run[:size])
            run = run[size:]
        current.extend(run)
    if current:
        chunks.append(current)
    return chunks


class FanOutBackend:
    """One backend per worker of `executor`, answering chunks of each batch in parallel.

    Responses come back in request order and are the same as one backend's (each request is
    answered by exactly one worker); a chunk lost with a worker is rerun by the executor, and
    one that cannot be answered gets error responses, as a failed call would. The workers'
    backends load when the pool starts, so a missing dependency fails here, not per sample.
    """

    def __init__(
        self,
        setup: BackendSetup,
        executor: Executor,
        *,
        chunk: int | None = None,
        owns_executor: bool = False,
    ) -> None:
        self._executor = executor
        self._owns = owns_executor
        self._reports = _report_queue(executor)
        if self._reports is not None:
            setup = partial(_reporting, setup, self._reports)
        self._pool = executor.pool(setup)
        self._lock = threading.Lock()
        try:
            probed = next(iter(self._pool.map(_probe, [None])))
            name, identity, per_worker, context, label = probed
        except BaseException:
            self.close()
            raise
        self._name = name
        self.label = label
        """What the worker backends' model sees, as they declare it ("text over table";
        None: the chart image)."""
        self.identity = identity
        self._context = context if callable(context) else None
        # contiguous chunks: a chart's questions usually land on one worker (its view cache)
        self._chunk = chunk if chunk is not None else max(4, per_worker)
        # callers wait for a whole batch, so a batch of one chunk per worker idles the workers
        # that finish first; several chunks per worker let the pool's queue balance them
        depth = _DEPTH if per_worker <= 1 else _BATCHED_DEPTH
        self.settings = FanOutSettings(batch_size=self._pool.workers * self._chunk * depth)

    @property
    def name(self) -> str:
        """The worker backends' name (what a single-process run records)."""
        return self._name

    @property
    def workers(self) -> int:
        """Workers answering requests."""
        return self._pool.workers

    def cache_context(self, request: ModelRequest) -> str:
        """The worker backends' cache context of `request` ("" when they have none), so a
        fanned-out model keeps the cache keys it has in one process."""
        return self._context(request) if self._context is not None else ""

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """Answer the batch on the workers (one response per request, same order)."""
        # a batch smaller than a chunk per worker is split evenly, so every worker gets some
        even = -(-len(requests) // self._pool.workers) if requests else 1
        chunks = by_image(requests, max(1, min(self._chunk, even)))
        out: list[ModelResponse] = []
        with self._lock:  # a pool runs one map at a time
            relay = _Relay(len(requests), current_tick(), self._reports)
            try:
                for chunk, answers in zip(chunks, self._pool.map(_answer, chunks), strict=True):
                    if [a.request_id for a in answers] != [r.id for r in chunk]:
                        answers = [
                            failed(r, self._name, "worker returned mismatched responses")
                            for r in chunk
                        ]
                    out.extend(answers)
                    relay.answered(len(out))
            except Exception as e:  # the pool gave up: the rest of the batch failed, not lost
                log.warning("fan-out of %s failed: %s", self._name, e)
                out.extend(
                    failed(r, self._name, f"executor: {type(e).__name__}: {e}")
                    for r in requests[len(out) :]
                )
            finally:
                relay.close()
        return out

    def close(self) -> None:
        """Stop the workers (and the executor when this backend opened it)."""
        self._pool.close()
        if self._reports is not None:
            self._reports.close()
        if self._owns:
            self._executor.close()


def _report_queue(executor: Executor) -> Any:
    """A queue the workers of `executor` report answered requests on, or None where they
    cannot share one with this process (a Ray cluster, or no worker processes)."""
    from chartproof.executors.local import LocalExecutor

    if not isinstance(executor, LocalExecutor) or executor.workers < 2:
        return None
    # a spawn context's lock can go to forked and spawned workers alike
    return multiprocessing.get_context("spawn").SimpleQueue()


class _Relay:
    """The caller's progress during one fanned-out batch: the larger of the responses back
    from the workers (chunk by chunk, in order) and those the workers reported ready (row by
    row, in any order), never past the batch. A thread reads the workers' reports while the
    batch runs; `close` reads what is left (so none is counted in a later batch)."""

    def __init__(self, size: int, tick: Callable[[int], None] | None, reports: Any) -> None:
        self._size = size
        self._tick = tick
        self._reports = reports
        self._lock = threading.Lock()
        self._back = self._reported = self._told = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if reports is not None:  # read even when nobody listens: a full pipe blocks workers
            self._thread = threading.Thread(
                target=self._read, name="chartproof-fanout-progress", daemon=True
            )
            self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            if not self._drain():
                self._stop.wait(0.05)

    def _drain(self) -> bool:
        got = 0
        while not self._reports.empty():
            got += int(self._reports.get())
        if got:
            with self._lock:
                self._reported += got
                self._move()
        return bool(got)

    def answered(self, n: int) -> None:
        """The first n responses of the batch are back."""
        with self._lock:
            self._back = n
            self._move()

    def _move(self) -> None:
        level = min(self._size, max(self._back, self._reported))
        if level > self._told:
            if self._tick is not None:
                self._tick(level - self._told)
            self._told = level

    def close(self) -> None:
        """Stop reading the workers' reports (those of this batch are all written by now)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._drain()


def fans_out(spec: str | os.PathLike[str]) -> bool:
    """Whether a model spec names a CPU-bound model worth one copy per worker, as its backend
    kind declares (`chartproof.models.registry.BackendNeeds`): the built-ins a fresh
    process can build by name, and ``hf:`` and ``text:`` models on the CPU (``device=cpu``,
    or the default ``auto`` where there is no accelerator). API models are I/O-bound (spread
    them over endpoints instead, `chartproof.executors.balance`), a GPU model stays one copy,
    and a kind or built-in registered at run time only cannot be rebuilt in a worker."""
    from chartproof.models.registry import backend_needs

    needs = backend_needs(spec)
    if needs.process_local:
        return False
    return needs.compute == "cpu" or (needs.compute == "auto" and not has_accelerator())


def has_accelerator() -> bool:
    """Whether ``device=auto`` would put a local model on an accelerator: the rule of
    `chartproof.models.hf.resolve_device_dtype` (CUDA when torch sees it; False when torch
    is not installed). Imports torch, which a local hf:/text: model needs anyway."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def load_backend_on(
    spec: str | os.PathLike[str], executor: str | Executor | None = None, *, fan_out: bool = True
) -> Backend:
    """The backend `spec` names, fanned out over `executor` when it is CPU-bound, the
    executor has more than one worker and `fan_out` is on; otherwise loaded in this process.
    The caller's announcer (`models.base.loading`) shows the load and how long it took."""
    with loading(_shown(spec)):
        if not fan_out:
            from chartproof.models.registry import load_backend

            return load_backend(spec)
        return _load_on(spec, executor)


def _shown(spec: str | os.PathLike[str]) -> str:
    """A spec as a status line shows it: without its query string (options, keys)."""
    return str(spec).split("?", 1)[0]


def _load_on(spec: str | os.PathLike[str], executor: str | Executor | None) -> Backend:
    from chartproof.executors import open_executor
    from chartproof.models.registry import backend_home, load_backend

    if executor is None or isinstance(executor, str):
        if not fans_out(spec):
            return load_backend(spec)
        opened = open_executor(executor)
        owns = True
    else:
        opened, owns = executor, False
    if opened.workers <= 1 or not fans_out(spec):
        if owns:
            opened.close()
        return load_backend(spec)
    setup: Any = partial(_worker_backend, str(spec), backend_home(spec))
    return FanOutBackend(setup, opened, owns_executor=owns)


def _worker_backend(spec: str, homes: Sequence[str]) -> Backend:
    # a worker process imports the module of a plug-in kind or built-in first (its entry
    # point or the module that registered it), then builds the backend by name
    import importlib

    from chartproof.models.registry import load_backend

    for home in homes:
        importlib.import_module(home)
    return load_backend(spec)
