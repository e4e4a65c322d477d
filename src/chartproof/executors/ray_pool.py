"""The Ray executor: ``ray`` (a cluster on this machine, started here or already running in
this process) or ``ray:ADDRESS`` (join one). Stateless maps run as Ray tasks, stateful pools
as actors, one per worker, each building its state once; a dead task or actor is retried by
Ray (actors are restarted and rebuild their state), so a lost node costs only its items in
flight. Imported only when a Ray executor is asked for."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from chartproof.executors.base import Setup, Stateless, build_state, chunked, run_chunk
from chartproof.executors.spec import ExecutorSpec

__all__ = ["RayExecutor", "RayPool"]

T = TypeVar("T")
R = TypeVar("R")

RETRIES = 3
"""Times Ray reruns a task, or restarts an actor, whose worker process died."""


def _ray() -> Any:
    from chartproof.models.registry import require

    require("ray", "ray", what="the Ray executor (--executor ray)")
    import ray

    return ray


class _Worker:
    """A Ray actor's body: the state built once, then chunks run against it."""

    def __init__(self, setup: Setup | None) -> None:
        for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ.setdefault(var, "1")
        self.state = build_state(setup)

    def run(self, fn: Callable[[Any, Any], Any], chunk: list[Any]) -> list[Any]:
        return run_chunk(self.state, fn, chunk)

    def pid(self) -> int:
        return os.getpid()


def _task(fn: Callable[[Any, Any], Any], chunk: list[Any]) -> list[Any]:
    return run_chunk(None, fn, chunk)


class RayPool:
    """`workers` actors holding `setup()`'s state (or plain tasks when `setup` is None)."""

    def __init__(self, ray: Any, workers: int, setup: Setup | None) -> None:
        self._ray = ray
        self._workers = workers
        self._stateful = setup is not None
        self._actors: list[Any] = []
        if self._stateful:
            actor = ray.remote(_Worker).options(
                num_cpus=1, max_restarts=RETRIES, max_task_retries=RETRIES
            )
            self._actors = [actor.remote(setup) for _ in range(workers)]
        else:
            self._task = ray.remote(_task).options(num_cpus=1, max_retries=RETRIES)

    @property
    def workers(self) -> int:
        """Actors (or concurrent tasks)."""
        return self._workers

    def pids(self) -> list[int]:
        """The actors' worker process ids (tests kill one to check recovery)."""
        return [int(p) for p in self._ray.get([a.pid.remote() for a in self._actors])]

    def map(
        self, fn: Callable[[Any, T], R], items: Iterable[T], *, chunksize: int = 1
    ) -> Iterator[R]:
        """``fn(state, item)`` for every item, in input order; each chunk goes to the least
        busy actor (two chunks queued per actor at most)."""
        ray = self._ray
        chunks = enumerate(chunked(items, chunksize))
        busy = [0] * len(self._actors)
        owner: dict[Any, tuple[int, int]] = {}  # ref -> (chunk index, actor index or -1)
        done: dict[int, list[Any]] = {}
        window = 2 * self._workers
        following = 0
        exhausted = False
        while True:
            while not exhausted and len(owner) < window:
                nxt = next(chunks, None)
                if nxt is None:
                    exhausted = True
                    break
                index, chunk = nxt
                if self._stateful:
                    a = min(range(len(busy)), key=busy.__getitem__)
                    busy[a] += 1
                    ref = self._actors[a].run.remote(fn, chunk)
                else:
                    a, ref = -1, self._task.remote(fn, chunk)
                owner[ref] = (index, a)
            while following in done:
                yield from done.pop(following)
                following += 1
            if not owner:
                return
            ready, _ = ray.wait(list(owner), num_returns=1)
            for ref in ready:
                index, a = owner.pop(ref)
                if a >= 0:
                    busy[a] -= 1
                done[index] = ray.get(ref)

    def close(self) -> None:
        """Stop the actors."""
        for a in self._actors:
            self._ray.kill(a)
        self._actors = []


class RayExecutor:
    """Work on a Ray cluster; starts one on this machine unless told an address, and reuses
    the cluster this process is already connected to."""

    def __init__(self, spec: ExecutorSpec) -> None:
        ray = _ray()
        self._ray = ray
        self._owns = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if spec.address:
                kwargs["address"] = spec.address
            elif spec.num_cpus is not None:
                kwargs["num_cpus"] = spec.num_cpus
            ray.init(**kwargs)
            self._owns = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self._workers = spec.workers or max(1, cpus)
        self._name = spec.source or "ray"

    @property
    def name(self) -> str:
        """The spec it was built from."""
        return self._name

    @property
    def workers(self) -> int:
        """Actors per pool: `?workers=N`, else the cluster's CPUs."""
        return self._workers

    def pool(self, setup: Setup | None = None) -> RayPool:
        """Actors that each run `setup()` once."""
        return RayPool(self._ray, self._workers, setup)

    def map(self, fn: Callable[[T], R], items: Iterable[T], *, chunksize: int = 1) -> Iterator[R]:
        """``fn(item)`` for every item as Ray tasks, in input order."""
        pool = RayPool(self._ray, self._workers, None)
        yield from pool.map(Stateless(fn), items, chunksize=chunksize)

    def close(self) -> None:
        """Shut down the cluster if this executor started it."""
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns = False
