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

__all__ = ["HashedBackend", "burn"]


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
