"""What every executor offers: ordered maps over worker processes, optionally with state that
each worker builds once (a model) and keeps for every item it is given."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, Protocol, TypeVar

__all__ = ["Executor", "SetupFailed", "WorkerPool", "chunked", "run_chunk"]

T = TypeVar("T")
R = TypeVar("R")

Setup = Callable[[], Any]
"""Builds a worker's state (e.g. loads a model); must be picklable (a module-level function
or a functools.partial of one)."""


class WorkerPool(Protocol):
    """Workers that each hold the state their `setup` built, for as many maps as wanted."""

    @property
    def workers(self) -> int:
        """Worker processes (or actors)."""
        ...

    def map(
        self, fn: Callable[[Any, T], R], items: Iterable[T], *, chunksize: int = 1
    ) -> Iterator[R]:
        """``fn(state, item)`` for every item, results in input order. A worker that dies is
        replaced and its unfinished items are run again, so nothing is lost or doubled in
        the output; an exception raised by `fn` propagates. One map at a time per pool."""
        ...

    def close(self) -> None:
        """Stop the workers."""
        ...


class Executor(Protocol):
    """Where work runs: this process, a local process pool, or a Ray cluster."""

    @property
    def name(self) -> str:
        """The executor spec, e.g. "local:2" or "ray:auto"."""
        ...

    @property
    def workers(self) -> int:
        """How many items it works on at once."""
        ...

    def pool(self, setup: Setup | None = None) -> WorkerPool:
        """Start workers that each run `setup()` once and pass its result to every call."""
        ...

    def map(self, fn: Callable[[T], R], items: Iterable[T], *, chunksize: int = 1) -> Iterator[R]:
        """``fn(item)`` for every item on the workers, results in input order."""
        ...

    def close(self) -> None:
        """Release what the executor started (a Ray cluster it launched)."""
        ...


class SetupFailed:
    """A worker whose setup raised: every call re-raises the setup's error."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class Stateless:
    """Adapts ``fn(item)`` to the pools' ``fn(state, item)``; picklable when `fn` is."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn

    def __call__(self, state: Any, item: Any) -> Any:
        return self.fn(item)


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Consecutive lists of up to `size` items (the last may be shorter)."""
    if size < 1:
        raise ValueError("chunksize must be at least 1")
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def run_chunk(state: Any, fn: Callable[[Any, Any], Any], chunk: list[Any]) -> list[Any]:
    """Run `fn` over one chunk with a worker's state (raising a failed setup's error)."""
    if isinstance(state, SetupFailed):
        raise state.error
    return [fn(state, item) for item in chunk]


def build_state(setup: Setup | None) -> Any:
    """A worker's state: `setup()`, or a `SetupFailed` holding why it could not be built."""
    if setup is None:
        return None
    try:
        return setup()
    except Exception as e:  # reported on the first call, in the driver, with its own type
        return SetupFailed(e)
