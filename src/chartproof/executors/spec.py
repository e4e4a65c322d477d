"""Executor spec strings: ``local``, ``local:N``, ``ray``, ``ray:ADDRESS``, with options.

``local`` is a process pool over every core, ``local:1`` runs in this process, ``ray`` starts
(or joins) a Ray cluster on this machine, ``ray:ADDRESS`` joins one (``ray:auto``,
``ray:ray://head:10001``, ``ray:10.0.0.5:6379``); ``?workers=N`` caps the Ray workers and
``?num_cpus=N`` sizes a local Ray cluster this process starts.
"""

from __future__ import annotations

import os
from typing import Literal
from urllib.parse import parse_qsl

from pydantic import Field

from chartproof.types import Record

__all__ = ["ExecutorSpec", "parse_executor"]


class ExecutorSpec(Record):
    """A parsed ``--executor`` value."""

    kind: Literal["local", "ray"]
    """Process pool on this machine ("local") or Ray tasks and actors ("ray")."""
    workers: int | None = Field(default=None, ge=1)
    """Worker processes (local) or actors (ray); None: one per core / per cluster CPU."""
    address: str | None = None
    """Ray cluster to join; None starts a local one (or reuses this process's)."""
    num_cpus: int | None = Field(default=None, ge=1)
    """CPUs of a local Ray cluster this process starts; None: every core."""
    source: str = ""
    """The spec text as given."""

    def resolved_workers(self) -> int:
        """Local worker count: `workers`, else every core."""
        return self.workers if self.workers is not None else max(1, os.cpu_count() or 1)


def parse_executor(text: str | None) -> ExecutorSpec:
    """Parse an executor spec (None or "" mean "local")."""
    raw = (text or "local").strip()
    head, _, query = raw.partition("?")
    kind, _, rest = head.partition(":")
    try:
        options = dict(parse_qsl(query, strict_parsing=True)) if query else {}
    except ValueError:
        raise ValueError(f"executor {raw!r}: cannot read options {query!r} (use a=1&b=2)") from None
    unknown = sorted(set(options) - {"workers", "num_cpus"})
    if unknown:
        raise ValueError(f"executor {raw!r}: unknown options {unknown}; known: workers, num_cpus")
    ints: dict[str, int] = {}
    for key, value in options.items():
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"executor {raw!r}: {key} must be a positive integer, got {value!r}")
        ints[key] = int(value)
    if kind == "local":
        if "num_cpus" in ints:
            raise ValueError(f"executor {raw!r}: num_cpus is a ray option; use local:N")
        workers = ints.get("workers")
        if rest:
            if not rest.isdigit() or int(rest) < 1:
                raise ValueError(
                    f"executor {raw!r}: local:N needs a positive worker count, got {rest!r}"
                )
            workers = int(rest)
        return ExecutorSpec(kind="local", workers=workers, source=raw)
    if kind == "ray":
        return ExecutorSpec(
            kind="ray",
            workers=ints.get("workers"),
            num_cpus=ints.get("num_cpus"),
            address=rest or None,
            source=raw,
        )
    raise ValueError(
        f"unknown executor {raw!r}; use local, local:N (N processes; local:1 = this process), "
        "ray or ray:ADDRESS (e.g. ray:auto, ray:ray://head:10001)"
    )


EXECUTOR_HELP = (
    "Where work runs: local (a process pool over every core), local:N, local:1 (this "
    "process), ray (a Ray cluster on this machine) or ray:ADDRESS (needs chartproof[ray])."
)
"""The ``--executor`` option's help, shared by every command that takes it."""
