"""Backends for tests and examples: a scripted model that answers with a user function.

`ScriptedBackend(fn)` answers each request with ``fn(request)``; an exception becomes an
error response, as a failed API call would. It counts calls so tests can check caching.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from chartproof.models.base import BackendIdentity, answered, failed
from chartproof.types import ModelRequest, ModelResponse

__all__ = ["ScriptedBackend"]


class ScriptedBackend:
    """A deterministic model: ``fn(request) -> str`` for each request (raise to fail it).

    `calls` counts requests answered (including failures), `batches` the `generate` calls,
    and `requests` keeps every request seen, in order.
    """

    def __init__(
        self,
        fn: Callable[[ModelRequest], str],
        *,
        name: str = "scripted:test",
        revision: str = "",
    ) -> None:
        self._fn = fn
        self._name = name
        self._lock = threading.Lock()
        kind, _, model = name.partition(":")
        self.identity = BackendIdentity(
            kind=kind if model else "scripted", model=model or kind, revision=revision
        )
        self.calls = 0
        self.batches = 0
        self.requests: list[ModelRequest] = []
        self.closed = False

    @property
    def name(self) -> str:
        """The backend's spec-like name."""
        return self._name

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """Answer each request with the script (errors become error responses)."""
        with self._lock:
            self.batches += 1
            self.calls += len(requests)
            self.requests.extend(requests)
        out: list[ModelResponse] = []
        for request in requests:
            try:
                text = self._fn(request)
            except Exception as e:  # a script's failure is the model's failure, not ours
                out.append(failed(request, self._name, f"{type(e).__name__}: {e}"))
                continue
            out.append(answered(request, self._name, text))
        return out

    def close(self) -> None:
        """Nothing to release; remembers that it was closed."""
        self.closed = True
