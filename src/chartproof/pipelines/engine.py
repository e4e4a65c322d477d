"""The run engine: one loop for every pipeline that asks models about units of work and
records one result per unit in a resumable run folder (evaluate, explain, derender, audit).

The model is inspect_ai's Task → solver → scorer → log. A pipeline builds its units (samples,
charts, pairs), opens a `Run` (`open_run`), asks it for its backends (loaded once, fanned out
over the executor, behind the response cache), starts the folder with its configuration and
hands `Run.execute` one `Stage` per protocol: the stage's `solve` answers and scores a batch
of units. The engine owns what each pipeline used to repeat: resume (units already done are
skipped), batch sizes, overlapping batches for API backends, per-batch post-stages (a judge,
explanation scorers), durable recording with progress and Ctrl-C (`runs.recording`), the
final `finish` and closing every backend, cache and executor it opened, in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from chartproof.models.base import accepts_overlap, answering, in_flight
from chartproof.runs import RunFolder, check_run_folder, recording
from chartproof.runs.recording import ProgressHook
from chartproof.types import RunRecord, SampleResult

if TYPE_CHECKING:
    from chartproof.executors import Executor
    from chartproof.models.base import Backend
    from chartproof.models.cache import ResponseCache

__all__ = ["After", "Run", "Stage", "Unit", "open_run"]


class Unit(Protocol):
    """What a stage works on: anything with an `id` (the result's `sample_id`)."""

    @property
    def id(self) -> str:
        """The id its result is recorded under."""
        ...


U = TypeVar("U", bound=Unit)

After = Callable[[list[SampleResult]], list[SampleResult]]
"""A post-stage: scores (or grades) a finished batch's results before they are recorded, so
a resumed run never scores a result twice (a judge, an explanation scorer)."""


@dataclass(frozen=True)
class Stage(Generic[U]):
    """One protocol of a run: its units and how a batch of them is answered and scored.

    Give `solve` (a batch of units → their results) or, for a pipeline that streams results
    as they finish (derender's executor pipeline), `answers` (every unit to do → lists of
    results, in any grouping). Each result must carry the stage's `protocol` and `model`: that
    is how a resumed run knows the unit is done."""

    protocol: str
    """The results' `protocol`."""
    model: str
    """The results' `model` (the resume key with the unit id and protocol)."""
    units: Sequence[U]
    """Every unit of the stage, done ones included (they are skipped and counted as done)."""
    solve: Callable[[Sequence[U]], list[SampleResult]] | None = None
    """Answers and scores one batch of units, one result each."""
    answers: Callable[[Sequence[U]], Iterable[list[SampleResult]]] | None = None
    """Streaming form of `solve`: given every unit still to do, yields results as they
    finish; the engine does no batching."""
    backend: Backend | None = None
    """The backend `solve` asks: its `in_flight` sets the default batch size, and an API
    backend (`accepts_overlap`) gets several batches at once."""
    batch_size: int | None = None
    """Units per batch, recorded together (None: 1 for an overlapping backend, else its
    `in_flight`; 1 without a backend)."""
    overlap: bool | None = None
    """Whether batches run at once on threads, recorded in completion order (None: when the
    backend `accepts_overlap`)."""
    after: tuple[After, ...] = ()
    """Post-stages applied in order to each finished batch before it is recorded."""
    ticks: bool = False
    """A fanned-out backend reports each answered chunk (`models.base.answering`), so the
    progress bar moves inside a long batch (one request a unit)."""

    def __post_init__(self) -> None:
        if (self.solve is None) == (self.answers is None):
            raise ValueError(f"stage {self.protocol}: give exactly one of solve or answers")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError(f"stage {self.protocol}: batch_size must be at least 1")


class Run:
    """An open run: the backends, response cache and executor it loaded, and its run folder
    once `start`ed. Made by `open_run`, which closes all of it."""

    def __init__(
        self, out: Path, stack: ExitStack, executor: str | Executor | None, cache: bool | Path
    ) -> None:
        self.out = out
        self._stack = stack
        self._executor_arg = executor
        self._pool: Executor | None = executor if not isinstance(executor, str | None) else None
        self._cache = cache
        self._store: ResponseCache | None = None
        # (wrapper, as loaded) by the wrapper's id; the pair keeps the wrapper alive, so an
        # id is never reused for another object while the run is open
        self._loaded: dict[int, tuple[Backend, Backend]] = {}
        self._folder: RunFolder | None = None

    # -- what the run uses ------------------------------------------------------------

    @property
    def executor(self) -> Executor:
        """The executor (opened on first use from the spec given to `open_run`, and closed
        with the run; a given open executor is used, not closed)."""
        if self._pool is None:
            from chartproof.executors import open_executor

            self._pool = open_executor(self._executor_arg)
            self._stack.callback(self._pool.close)
        return self._pool

    def backend(
        self, model: str | Backend, *, cached: bool = True, fan_out: bool = True
    ) -> Backend:
        """The backend `model` names, loaded once per call (a CPU-bound model fanned out over
        the run's executor unless `fan_out` is off) and behind the run's response cache when
        `cached` and the run caches; a given `Backend` is used, never closed. Every backend
        the run loaded is closed when it ends."""
        if isinstance(model, str):
            from chartproof.executors import load_backend_on

            where = self._pool if self._pool is not None else self._executor_arg
            inner = load_backend_on(model, where, fan_out=fan_out)
            owned = True
        else:
            inner, owned = model, False
        wrapped = inner
        try:
            store = self._response_cache() if cached else None
        except BaseException:
            if owned:
                inner.close()
            raise
        if store is not None:
            from chartproof.models.cache import CachedBackend

            wrapped = CachedBackend(inner, store)
        if owned:
            # closing the wrapper closes the backend it wraps (the shared cache stays open)
            self._stack.callback(wrapped.close)
        self._loaded[id(wrapped)] = (wrapped, inner)
        return wrapped

    def loaded(self, backend: Backend) -> Backend:
        """The backend as loaded (or given), without the cache wrapper `backend` returned."""
        pair = self._loaded.get(id(backend))
        return pair[1] if pair is not None and pair[0] is backend else backend

    def _response_cache(self) -> ResponseCache | None:
        if self._cache is False:
            return None
        if self._store is None:
            from chartproof.models.cache import ResponseCache

            self._store = ResponseCache(None if self._cache is True else Path(self._cache))
            # backends are closed before the cache they share (the stack unwinds in reverse)
            self._stack.callback(self._store.close)
        return self._store

    # -- the run folder ---------------------------------------------------------------

    def start(self, config: dict[str, Any], fingerprint: str, *, run_id: str | None = None) -> Run:
        """Create the run folder, or reopen it to resume (`runs.RunFolder.open`: a different
        `config` or dataset `fingerprint` is refused)."""
        if self._folder is not None:
            raise RuntimeError(f"run {self.out} is started already")
        self._folder = self._stack.enter_context(
            RunFolder.open(self.out, config, fingerprint, run_id=run_id)
        )
        return self

    @property
    def folder(self) -> RunFolder:
        """The open run folder (after `start`)."""
        if self._folder is None:
            raise RuntimeError(f"run {self.out} is not started: call start(config, fingerprint)")
        return self._folder

    def is_done(self, unit_id: str, protocol: str, model: str) -> bool:
        """Whether the unit has a result already (a failed one is asked again)."""
        return self.folder.is_done(unit_id, protocol, model)

    def results(self, protocol: str | None = None, model: str | None = None) -> list[SampleResult]:
        """Every recorded result (this session's and earlier ones'), in the order first
        recorded; only those of `protocol` and `model` when given."""
        return [
            r
            for r in self.folder.results()
            if (protocol is None or r.protocol == protocol) and (model is None or r.model == model)
        ]

    def finish(
        self, summary: dict[str, Any], counts: dict[str, int], status: str = "done"
    ) -> RunRecord:
        """Write the summary and the run's final status and counts."""
        return self.folder.finish(summary, counts, status=status)

    # -- the loop ---------------------------------------------------------------------

    def execute(self, stages: Sequence[Stage[Any]], *, progress: ProgressHook | None = None) -> int:
        """Run the stages in order under one progress total (every unit of every stage; those
        done already count as done), recording each finished batch before the next is taken.
        Returns the number of units asked in this call."""
        folder = self.folder
        todos = [
            [u for u in s.units if not folder.is_done(u.id, s.protocol, s.model)] for s in stages
        ]
        total = sum(len(s.units) for s in stages)
        done = total - sum(len(t) for t in todos)
        with recording(folder, total, done=done, progress=progress) as recorder:
            for stage, todo in zip(stages, todos, strict=True):
                if not todo:
                    continue
                with answering(recorder.tick) if stage.ticks else nullcontext():
                    for results in _finished(stage, todo):
                        for post in stage.after:
                            results = post(results)
                        _check_keys(stage, results)
                        recorder.add(results)
        return total - done


@contextmanager
def open_run(
    out: str | Path, *, executor: str | Executor | None = None, cache: bool | str | Path = True
) -> Iterator[Run]:
    """An open `Run` writing to the folder `out` (refused at once, before any model loads,
    when `out` holds files that are not a run). `executor` is where CPU-bound models and
    `Run.executor` work (a spec, or an open executor that stays open); `cache` the response
    cache of every backend (True: the default file; a path: that file; False: none). On
    leaving, the run folder, then the backends, the cache and the executor are closed."""
    root = Path(out)
    check_run_folder(root)
    with ExitStack() as stack:
        yield Run(root, stack, executor, cache if isinstance(cache, bool) else Path(cache))


# ------------------------------------------------------------------------- batching


def _finished(stage: Stage[Any], todo: Sequence[Any]) -> Iterator[list[SampleResult]]:
    """The stage's results as they finish: streamed, one batch at a time, or overlapped."""
    if stage.answers is not None:
        yield from stage.answers(todo)
        return
    assert stage.solve is not None
    backend = stage.backend
    overlap = stage.overlap
    if overlap is None:
        overlap = backend is not None and accepts_overlap(backend)
    size = stage.batch_size or (1 if overlap or backend is None else in_flight(backend))
    units = [todo[i : i + size] for i in range(0, len(todo), size)]
    if len(units) < 2 or not overlap:
        for unit in units:
            yield stage.solve(unit)
        return
    width = max(2, -(-in_flight(backend) // size))
    yield from _overlapped(stage.solve, units, width)


def _overlapped(
    solve: Callable[[Sequence[Any]], list[SampleResult]],
    units: Sequence[Sequence[Any]],
    width: int,
) -> Iterator[list[SampleResult]]:
    """Up to `width` batches at once on threads (enough to fill an API backend's request
    slots), each batch's results coming back as soon as it is done (completion order), so a
    slow request holds up no other; what finished together is recorded together (one fsync)."""
    pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="chartproof-run")
    queue = iter(units)
    running: set[Future[list[SampleResult]]] = set()
    try:
        for unit in islice(queue, width):
            running.add(pool.submit(solve, unit))
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for _ in finished:
                following = next(queue, None)
                if following is not None:
                    running.add(pool.submit(solve, following))
            yield [result for future in finished for result in future.result()]
    finally:
        # on an error or interrupt, the batches still running finish (their replies reach
        # the response cache) but no new batch starts
        pool.shutdown(wait=True, cancel_futures=True)


def _check_keys(stage: Stage[Any], results: Sequence[SampleResult]) -> None:
    """A result under another protocol or model would never count as done: a resumed run
    would ask its unit again forever."""
    for r in results:
        if r.protocol != stage.protocol or r.model != stage.model:
            raise RuntimeError(
                f"stage {stage.protocol} returned a result for {r.sample_id} recorded as "
                f"protocol {r.protocol!r}, model {r.model!r}; expected {stage.protocol!r}, "
                f"{stage.model!r}"
            )
