"""The one protocol every model backend speaks: a batch of requests in, responses out.

Backends never raise for a failed call: the response carries the error, so a run goes on and
counts failures honestly. `answered` and `failed` build those responses the same way for all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Protocol, runtime_checkable

from chartproof.models.parsing import parse_output
from chartproof.models.prompts import default_prompts
from chartproof.types import ModelRequest, ModelResponse, Record, Usage

__all__ = [
    "MAX_REPLY_CHARS",
    "Announcer",
    "Backend",
    "BackendIdentity",
    "Shares",
    "announcing_loads",
    "answered",
    "answering",
    "backend_identity",
    "current_tick",
    "explanation_generator",
    "failed",
    "in_flight",
    "loading",
    "note_answered",
    "output_kind",
    "progress_wanted",
    "request_choices",
    "uncounted",
]


@runtime_checkable
class Backend(Protocol):
    """A model chartproof can ask questions.

    `generate` answers every request, in order, with exactly one response whose
    `request_id` is the request's id; a failed call gives a response with `error` set.
    A backend may also expose `identity` (a `BackendIdentity`) so the response cache can
    tell models and revisions apart; without it the cache keys on `name`.
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


class BackendIdentity(Record):
    """What makes a backend's answers differ: the response cache keys on it."""

    kind: str
    """Backend kind: "openai", "hf", "builtin", "scripted", ..."""
    model: str
    """Model name (API model id, checkpoint folder, built-in name)."""
    revision: str = ""
    """Weights or code version; "" when unknown (then a new revision needs a cache clear)."""


def backend_identity(backend: Backend) -> BackendIdentity:
    """The backend's `identity` when it has one, else one derived from its spec string."""
    found = getattr(backend, "identity", None)
    if isinstance(found, BackendIdentity):
        return found
    kind, _, rest = backend.name.partition(":")
    return BackendIdentity(kind=kind if rest else "unknown", model=rest or kind)


def output_kind(request: ModelRequest) -> str:
    """How to parse the reply to `request`: its metadata's "output", else its built-in prompt's
    output kind, else "answer"."""
    declared = request.metadata.get("output")
    if isinstance(declared, str):
        return declared
    prompts = default_prompts()
    if request.prompt in prompts:
        return prompts.get(request.prompt).output
    return "answer"


def request_choices(request: ModelRequest) -> tuple[str, ...]:
    """The answer options of a multiple-choice request (`metadata["choices"]`, display
    order); () for other requests."""
    found = request.metadata.get("choices")
    if isinstance(found, list) and all(isinstance(c, str) for c in found):
        return tuple(str(c) for c in found)
    return ()


MAX_REPLY_CHARS = 1_000_000
"""Longest reply text a backend may hand back (a derender script or a long chain of
thought is tens of kilobytes)."""


def answered(
    request: ModelRequest,
    model: str,
    text: str,
    *,
    usage: Usage | None = None,
    latency_s: float = 0.0,
    cached: bool = False,
) -> ModelResponse:
    """A successful response, with the text parsed for the request's prompt; a failed one
    ("reply_too_large") for text over `MAX_REPLY_CHARS`, so no backend's runaway reply is
    parsed, cached or written to a run's results."""
    if len(text) > MAX_REPLY_CHARS:
        error = f"reply_too_large: {len(text)} characters over the {MAX_REPLY_CHARS} cap"
        return failed(request, model, error, latency_s=latency_s)
    return ModelResponse(
        request_id=request.id,
        model=model,
        text=text,
        parsed=parse_output(text, output_kind(request), choices=request_choices(request)),
        usage=usage or Usage(),
        latency_s=latency_s,
        cached=cached,
    )


def failed(
    request: ModelRequest, model: str, error: str, *, latency_s: float = 0.0
) -> ModelResponse:
    """A response recording why the call failed (after any retries)."""
    return ModelResponse(
        request_id=request.id, model=model, error=error or "unknown error", latency_s=latency_s
    )


def _settings_inside(backend: object) -> Iterator[object]:
    """The ``settings`` of the backend and of every backend it wraps (wrappers such as the
    response cache keep the wrapped backend as ``inner``), outermost first."""
    current: object = backend
    for _ in range(8):  # wrappers nest a few levels at most
        yield getattr(current, "settings", None)
        current = getattr(current, "inner", None)
        if current is None:
            return


def explanation_generator(backend: object) -> str | None:
    """The generator a backend declares its explanations come from (an
    ``explanation_generator`` property, e.g. the reader's trace-to-text template), looked up
    through wrappers such as the response cache; None when it declares none (a real model)."""
    current: object = backend
    for _ in range(8):  # wrappers nest a few levels at most
        found = getattr(type(current), "explanation_generator", None)
        if found is not None:
            value = getattr(current, "explanation_generator", None)
            return value if isinstance(value, str) else None
        current = getattr(current, "inner", None)
        if current is None:
            return None
    return None


def in_flight(backend: object) -> int:
    """How many requests a backend works on at once, so callers can hand it batches large
    enough to keep it busy: an API backend's ``settings.concurrency`` or a local model's
    ``settings.batch_size``; 1 when the backend does not say."""
    for settings in _settings_inside(backend):
        for field in ("concurrency", "batch_size"):
            value = getattr(settings, field, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return 1


def accepts_overlap(backend: object) -> bool:
    """Whether two `generate` calls may run at once from two threads and share the backend's
    request slots: true for API backends (a ``settings.concurrency`` somewhere inside the
    wrappers), false for local models, which should see one batch at a time."""
    return any(
        isinstance(getattr(settings, "concurrency", None), int)
        for settings in _settings_inside(backend)
    )


# the caller's tick and the process that set it: a worker process forked inside an
# `answering` block must not drive its parent's progress display from a copy
_ANSWERED: ContextVar[tuple[int, Callable[[int], None]] | None] = ContextVar(
    "chartproof_answered", default=None
)


def _tick() -> Callable[[int], None] | None:
    found = _ANSWERED.get()
    return found[1] if found is not None and found[0] == os.getpid() else None


@contextmanager
def answering(tick: Callable[[int], None]) -> Iterator[None]:
    """Within this block, a backend that answers a batch in parts (a local model as each
    row of its batch ends, the reader request by request, a fanned-out model chunk by
    chunk) calls `tick(n)` as each part of n responses is ready, so a caller can show
    progress inside one long batch. Progress only: the batch is recorded when it returns."""
    token = _ANSWERED.set((os.getpid(), tick))
    try:
        yield
    finally:
        _ANSWERED.reset(token)


Announcer = Callable[[str], AbstractContextManager[None]]
"""Opened around loading a model named by its spec (a status line saying it loads)."""

_LOADS: ContextVar[Announcer | None] = ContextVar("chartproof_loads", default=None)


@contextmanager
def announcing_loads(announcer: Announcer) -> Iterator[None]:
    """Within this block, every `loading(spec)` runs inside ``announcer(spec)`` (the CLI
    shows "loading MODEL ..." and the time it took)."""
    token = _LOADS.set(announcer)
    try:
        yield
    finally:
        _LOADS.reset(token)


@contextmanager
def loading(spec: str) -> Iterator[None]:
    """Around loading the model `spec` names: the caller's announcer, if any, shows it."""
    announcer = _LOADS.get()
    if announcer is None:
        yield
        return
    with announcer(spec):
        yield


@contextmanager
def uncounted() -> Iterator[None]:
    """Within this block responses move no caller's progress (a judge grading a batch the
    bar has already counted)."""
    with answering(lambda n: None):
        yield


def current_tick() -> Callable[[int], None] | None:
    """The tick of the `answering` block around this call (None outside one), for a
    backend that reports from another thread (a fan-out relaying its workers)."""
    return _tick()


def progress_wanted() -> bool:
    """Whether a caller listens to `note_answered` here (a backend may skip the work of
    finding which parts of a batch are done when nobody does)."""
    return _tick() is not None


def note_answered(n: int) -> None:
    """Tell the caller (`answering`) that n more responses of the current batch are ready."""
    tick = _tick()
    if tick is not None and n:
        tick(n)


class Shares:
    """Responses as whole units of the caller's progress when one unit takes several
    requests (a chain's steps, a question's premises): within `worth(share)` each response
    counts `share` of a unit, and the caller's tick gets a whole unit each time the shares
    add up to one. One `Shares` per unit of work, so the parts of one wave carry over to
    the next (the shares of a unit's requests add up to its samples)."""

    def __init__(self) -> None:
        self._outer = _tick()
        self._carry = 0.0

    def add(self, n: int, share: float) -> None:
        """Count n responses (or requests that will not be asked) of `share` each."""
        self._carry += n * share
        whole = int(self._carry + 1e-9)
        if whole and self._outer is not None:
            self._carry -= whole
            self._outer(whole)

    @contextmanager
    def worth(self, share: float) -> Iterator[None]:
        """Count each response `note_answered` reports in this block as `share` of a unit."""
        if self._outer is None:
            yield
            return
        with answering(lambda n: self.add(n, share)):
            yield
