"""A deterministic, CPU-bound stand-in model for executor tests and scale benchmarks.

`HashedBackend` answers every request with a number derived from a hash of its prompt and
messages, so any process gives the same reply; `work_s` burns that much CPU per request (a
model's compute, without a model), and `pid_dir` records each instance's process id in a
file there so a test can kill one worker mid-run; with `report` it tells `note_answered` of
each request it answers, as a local model does of each row of its batch. Picklable through
``functools.partial(HashedBackend, ...)``, so executors can build one per worker.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chartproof.models.base import BackendIdentity, answered, note_answered
from chartproof.types import ModelRequest, ModelResponse

__all__ = ["HashedBackend", "audit_script", "burn"]


def burn(seconds: float) -> None:
    """Keep one core busy for `seconds` of wall time (pure Python, no sleeping)."""
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        for i in range(2000):
            x ^= i * i


@dataclass(frozen=True)
class _Batching:
    batch_size: int


class HashedBackend:
    """Replies with ``int(sha256(prompt, messages)) % 10`` after `work_s` of CPU work."""

    def __init__(
        self,
        *,
        work_s: float = 0.0,
        pid_dir: str | None = None,
        batch_size: int = 1,
        report: bool = False,
    ) -> None:
        self.work_s = work_s
        # tell `note_answered` of each request, as a local model does of each row
        self.report = report
        # what `in_flight` reads: a local model that answers `batch_size` requests at once
        self.settings = _Batching(batch_size=batch_size)
        self.identity = BackendIdentity(kind="hashed", model="hashed", revision="1")
        if pid_dir is not None:
            Path(pid_dir, f"{os.getpid()}.pid").write_text(str(os.getpid()), encoding="utf-8")

    @property
    def name(self) -> str:
        """``hashed:test``."""
        return "hashed:test"

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """One hashed answer per request, in order."""
        out = []
        for request in requests:
            if self.work_s > 0:
                burn(self.work_s)
            # the conversation (text and image hashes) and prompt: the same in every process
            seen = f"{request.prompt}\0" + "".join(m.model_dump_json() for m in request.messages)
            digest = hashlib.sha256(seen.encode()).digest()
            out.append(answered(request, self.name, str(int.from_bytes(digest[:4]) % 10)))
            if self.report:
                note_answered(1)
        return out

    def close(self) -> None:
        """Nothing to release."""


# ------------------------------------------------------------------ executor test work
# Worker functions of the executor tests live here, in an importable module: a pool whose
# driver runs other threads starts fresh (spawned) workers, which cannot import test files.


def square_plus(state: int, x: int) -> int:
    """x² plus the worker's state."""
    return x * x + state


def setup_seven() -> int:
    """A worker setup whose state is 7."""
    return 7


def broken_setup() -> int:
    """A worker setup that fails with an install hint."""
    raise ImportError("needs the Python package 'nothing'; install it with: pip install x")


def slow_backend_square(backend: object, x: int) -> int:
    """x², after burning a little CPU (the worker's backend is ignored)."""
    burn(0.02)
    return x * x


def audit_script(request: ModelRequest) -> str:
    """A deterministic bias-audit model for `ScriptedBackend`: its reply depends on the
    request's prompt and every template field (group, persona, facts, options), so a reply
    sent to the wrong request or lost in a worker shows in the results."""
    fields = sorted((k, str(v)) for k, v in request.metadata.items() if k != "chart")
    digest = hashlib.sha256(f"{request.prompt}\0{fields}".encode()).digest()
    pick = digest[0] % 3
    if request.prompt.startswith("audit_select"):
        options = (request.metadata.get("option_a"), request.metadata.get("option_b"))
        return str(options[pick]) if pick < 2 else "Cannot tell."
    if request.prompt.startswith("audit_cue@"):
        return str(digest[1] % 10)
    tone = ("good", "bad", "mixed")[pick]
    return (
        f"Reply {digest[:4].hex()}. The values change over the years. "
        f"<opinion>The trend looks {tone}.</opinion>"
    )
