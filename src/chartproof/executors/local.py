"""The local executor: this process (``local:1``) or a pool of worker processes on this
machine (``local``, ``local:N``). Results come back in input order, so the output never
depends on the worker count; a worker process that dies is replaced and its items rerun.
Workers end when the process that started them dies, even by SIGKILL (a watchdog thread in
each sees its parent change), and with them multiprocessing's resource tracker, which
exits once no process holds its pipe."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from chartproof.executors.base import Setup, Stateless, build_state, chunked, run_chunk

__all__ = ["MAX_RESTARTS", "LocalExecutor", "LocalPool", "process_context"]

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

MAX_RESTARTS = 3
"""Pool restarts one map tolerates before it gives up (an item that kills its worker every
time would otherwise loop forever)."""

# the state this worker process built with its pool's setup (one pool per process)
_STATE: Any = None


_WATCH_S = 0.25


def _watch_parent(parent: int) -> None:
    """End this worker as soon as `parent` is no longer its parent (it died and the worker
    was re-parented): a killed CLI must not leave its pool running."""
    while os.getppid() == parent:
        time.sleep(_WATCH_S)
    os._exit(1)


def _init_worker(setup: Setup | None, parent: int | None = None) -> None:
    global _STATE
    if parent is not None:
        if os.getppid() != parent:  # the parent died while this worker started
            os._exit(1)
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    # Ctrl-C reaches the whole process group: the parent stops the run, says what is kept
    # and shuts the pool down; a worker prints no traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # one thread per worker: the pool itself is the parallelism
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    _STATE = build_state(setup)


def _call(fn: Callable[[Any, Any], Any], chunk: list[Any]) -> list[Any]:
    return run_chunk(_STATE, fn, chunk)


def process_context() -> Any:
    """The multiprocessing context for a new worker process: fork where it is safe, else
    spawn."""
    # fork is fastest and needs no `if __name__ == "__main__"` guard in the caller's script,
    # but forking a process that runs other threads (a progress bar's) can copy a held lock
    # into the child; then spawn clean workers (a forkserver would outlive this process)
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _succeeded(future: Future[list[Any]] | None) -> bool:
    return (
        future is not None
        and future.done()
        and not future.cancelled()
        and future.exception() is None
    )


class LocalPool:
    """Worker processes (or this process when `workers` is 1) holding `setup()`'s state."""

    def __init__(self, workers: int, setup: Setup | None = None) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self._workers = workers
        self._setup = setup
        self._state: Any = None
        self._built = False
        self._pool: ProcessPoolExecutor | None = None
        self.restarts = 0
        """Times a dead worker forced a restart of the pool (for tests and logs)."""

    @property
    def workers(self) -> int:
        """Worker processes (1: this process)."""
        return self._workers

    def map(
        self, fn: Callable[[Any, T], R], items: Iterable[T], *, chunksize: int = 1
    ) -> Iterator[R]:
        """``fn(state, item)`` for every item, in input order (see `WorkerPool.map`)."""
        chunks = chunked(items, chunksize)
        if self._workers == 1:
            if not self._built:
                self._state, self._built = build_state(self._setup), True
            for chunk in chunks:
                yield from run_chunk(self._state, fn, chunk)
            return
        yield from self._map_pool(fn, chunks)

    def _start(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=process_context(),
                initializer=_init_worker,
                initargs=(self._setup, os.getpid()),
            )
        return self._pool

    def _restart(self) -> ProcessPoolExecutor:
        if self._pool is not None:
            # a broken pool's threads end at once; waiting for them lets the new pool fork
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self.restarts += 1
        return self._start()

    def _map_pool(
        self, fn: Callable[[Any, Any], Any], chunks: Iterator[list[Any]]
    ) -> Iterator[Any]:
        # chunks running or queued: every worker busy, one queued each. Results are yielded
        # in input order, but a slot freed by any finished chunk is refilled at once (a slow
        # oldest chunk must not leave the other workers idle); finished results wait in
        # `pending`, at most `buffered` chunks in all
        window = 2 * self._workers
        buffered = 8 * self._workers
        pending: deque[tuple[list[Any], Future[list[Any]] | None]] = deque()
        restarts = 0
        exhausted = False
        self._start()
        while True:
            try:
                while not exhausted and len(pending) < buffered:
                    if sum(1 for _, f in pending if f is None or not f.done()) >= window:
                        break
                    chunk = next(chunks, None)
                    if chunk is None:
                        exhausted = True
                        break
                    pending.append((chunk, None))
                # submit what is not running; a worker that died while the pool sat idle
                # breaks the submit, and the chunk stays queued for the restarted pool
                for i in range(len(pending)):
                    c, f = pending[i]
                    if f is None:
                        pending[i] = (c, self._start().submit(_call, fn, c))
                if not pending:
                    return
                head = pending[0][1]
                assert head is not None
                if not head.done() and not exhausted and len(pending) < buffered:
                    running = [f for _, f in pending if f is not None and not f.done()]
                    wait(running, return_when=FIRST_COMPLETED)
                    if not head.done():
                        continue  # another chunk finished: refill its slot first
                result = head.result()
            except BrokenProcessPool:
                restarts += 1
                if restarts > MAX_RESTARTS:
                    first = pending[0][0][0] if pending else None
                    raise RuntimeError(
                        f"worker processes died {restarts} times in one map; giving up "
                        f"(the oldest unfinished chunk starts with item {first!r:.80})"
                    ) from None
                log.warning("a worker process died; restarting the pool and rerunning its items")
                self._restart()
                # rerun every chunk whose result did not arrive; finished ones are kept
                pending = deque((c, f if _succeeded(f) else None) for c, f in pending)
                continue
            pending.popleft()
            yield from result

    def close(self) -> None:
        """Stop the worker processes."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class LocalExecutor:
    """``local[:N]``: N worker processes on this machine (default: one per core)."""

    def __init__(self, workers: int | None = None) -> None:
        self._workers = workers if workers is not None else max(1, os.cpu_count() or 1)
        if self._workers < 1:
            raise ValueError("workers must be at least 1")

    @property
    def name(self) -> str:
        """``local:N``."""
        return f"local:{self._workers}"

    @property
    def workers(self) -> int:
        """Worker processes (1: this process)."""
        return self._workers

    def pool(self, setup: Setup | None = None) -> LocalPool:
        """A pool whose workers each run `setup()` once."""
        return LocalPool(self._workers, setup)

    def map(self, fn: Callable[[T], R], items: Iterable[T], *, chunksize: int = 1) -> Iterator[R]:
        """``fn(item)`` for every item, in input order."""
        pool = self.pool()
        try:
            yield from pool.map(Stateless(fn), items, chunksize=chunksize)
        finally:
            pool.close()

    def close(self) -> None:
        """Nothing held between maps."""
