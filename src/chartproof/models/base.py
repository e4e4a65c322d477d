"""The one protocol every model backend speaks: a batch of requests in, responses out.

Backends never raise for a failed call: the response carries the error, so a run goes on and
counts failures honestly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from chartproof.types import ModelRequest, ModelResponse

__all__ = ["Backend"]


@runtime_checkable
class Backend(Protocol):
    """A model chartproof can ask questions.

    `generate` answers every request, in order, with exactly one response whose
    `request_id` is the request's id; a failed call gives a response with `error` set.
    """

    @property
    def name(self) -> str:
        """The spec string that selects this backend, e.g. "openai:gpt-4o@http://host/v1"."""
        ...

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """Answer a batch of requests (one response each, same order)."""
        ...

    def close(self) -> None:
        """Release connections, processes and memory."""
        ...
