"""Where chartproof's work runs: this process, every core of this machine, or a Ray cluster.

``--executor local`` (default: a process pool over every core), ``local:N``, ``local:1`` (this
process), ``ray`` (a Ray cluster on this machine) or ``ray:ADDRESS``. Pipelines hand the
executor pure per-item functions (`Executor.map`) or a setup that builds a worker's model once
(`Executor.pool`); results always come back in input order, so outputs do not depend on the
executor, and only the driver writes to run folders. Ray is imported only for a Ray executor.
"""

from __future__ import annotations

from chartproof.executors.backend import FanOutBackend, fans_out, load_backend_on
from chartproof.executors.base import Executor, WorkerPool
from chartproof.executors.local import LocalExecutor
from chartproof.executors.spec import ExecutorSpec, parse_executor

__all__ = [
    "Executor",
    "ExecutorSpec",
    "FanOutBackend",
    "LocalExecutor",
    "WorkerPool",
    "fans_out",
    "load_backend_on",
    "open_executor",
    "parse_executor",
]


def open_executor(spec: str | ExecutorSpec | Executor | None = None) -> Executor:
    """The executor a spec names (None: ``local``, every core). Close it when done."""
    if spec is not None and not isinstance(spec, str | ExecutorSpec):
        return spec
    parsed = spec if isinstance(spec, ExecutorSpec) else parse_executor(spec)
    if parsed.kind == "local":
        return LocalExecutor(parsed.resolved_workers())
    from chartproof.executors.ray_pool import RayExecutor

    return RayExecutor(parsed)
