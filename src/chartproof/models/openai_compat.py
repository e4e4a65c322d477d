"""Backend for any OpenAI-compatible chat-completions server: hosted APIs, vLLM, SGLang,
Ollama, llama.cpp server.

This module retries 429/5xx, timeouts, dropped connections and malformed replies with
exponential backoff and jitter, bounds concurrency, and records an error (never raises) after
the last attempt.

The wire format is the openai library's (the documented reference for the API): the same JSON
body, bearer key, ``OpenAI-Organization``/``OpenAI-Project`` headers (from ``OPENAI_ORG_ID`` and
``OPENAI_PROJECT_ID``) and status-code semantics. By default the body is POSTed by a lean
aiohttp or httpx transport (`chartproof.models._aio`) instead of through the openai client,
because the client's per-call request building (options models, header and URL objects, its
own transport adapter) cost ~1.3 ms of CPU per call: at a few hundred calls a second that, not
the server, capped throughput. ``http=openai`` keeps the official client's transport.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from pydantic import Field

from chartproof import __version__
from chartproof.models._aio import (
    AiohttpPoster,
    HttpStatusError,
    HttpxPoster,
    JsonPoster,
    LoopThread,
    ReplyTooLarge,
    TransportError,
)
from chartproof.models.base import BackendIdentity, answered, failed
from chartproof.models.images import data_url
from chartproof.models.registry import BackendSpec, MissingDependencyError, SpecError, spec_settings
from chartproof.types import ImagePart, ModelRequest, ModelResponse, Record, Usage

__all__ = ["REQUEST_ID_HEADER", "OpenAIBackend", "OpenAISettings"]

REQUEST_ID_HEADER = "X-Chartproof-Request"
"""Header carrying the request id, so server logs (and the loopback test server) can tell
retries of one request from new requests."""

ResponseSink: TypeAlias = Callable[[int, ModelResponse], None]
"""Called with (position in the batch, final response) as each request finishes."""

log = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 409, 425, 429})
_OPENAI_URL = "https://api.openai.com/v1"
_DATA_URL_CACHE_SIZE = 256


class OpenAISettings(Record):
    """Options of the OpenAI-compatible backend (spec query string or config `[options]`)."""

    concurrency: int = Field(default=16, ge=1, le=4096)
    """Most requests in flight at once."""
    max_retries: int = Field(default=4, ge=0, le=100)
    """Retries after the first attempt for retryable failures."""
    timeout_s: float = Field(default=120.0, gt=0)
    """Limit for one attempt, connection to last byte."""
    backoff_s: float = Field(default=0.5, ge=0)
    """Delay before the first retry; doubles for each further one."""
    backoff_max_s: float = Field(default=30.0, ge=0)
    """Cap of one retry delay (also caps a server's Retry-After)."""
    jitter_seed: int | None = None
    """Seed of the jitter generator, for reproducible retry timing in tests."""
    api_key_env: str = "OPENAI_API_KEY"
    """Environment variable holding the API key (keys never go in spec strings)."""
    revision: str = ""
    """Model revision for the response cache, e.g. a served checkpoint's hash."""
    image_detail: Literal["auto", "low", "high"] | None = None
    """The `detail` hint sent with images, None to leave it out."""
    http: Literal["auto", "aiohttp", "httpx", "openai"] = "auto"
    """HTTP transport: aiohttp (least CPU per call, needs aiohttp), httpx (~2.5x aiohttp's CPU),
    openai (the official client's own transport, ~3-4x), or auto (aiohttp if installed, else
    httpx). The loopback benchmark's ``--http`` compares them."""


class OpenAIBackend:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    `generate` is synchronous and batch-first: it runs the whole batch concurrently on a
    private event loop (in a worker thread) and returns one response per request, in order.
    `stats` counts requests, attempts, retries and failures by reason.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        settings: OpenAISettings | None = None,
    ) -> None:
        self.model = model
        self.settings = settings or OpenAISettings()
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or "").rstrip("/") or None
        key = api_key or os.environ.get(self.settings.api_key_env)
        if not key:
            if self.base_url is None:
                raise SpecError(
                    f"openai:{model} needs a server: give openai:{model}@http://host:port/v1, "
                    f"set OPENAI_BASE_URL, or set {self.settings.api_key_env} for api.openai.com"
                )
            key = "EMPTY"  # local servers (vLLM, Ollama, llama.cpp) accept any key
        self._api_key = key
        url = f"@{self.base_url}" if base_url else ""
        self._name = f"openai:{model}{url}"
        self.identity = BackendIdentity(kind="openai", model=model, revision=self.settings.revision)
        self._loop = LoopThread(f"openai-backend:{model}")
        self._poster: JsonPoster | None = None
        self._slots: asyncio.Semaphore | None = None
        self._ahead: asyncio.Semaphore | None = None
        self._random = random.Random(self.settings.jitter_seed)
        self._urls: OrderedDict[str, bytes] = OrderedDict()
        self._stats: Counter[str] = Counter()
        self._stats_lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec: BackendSpec) -> OpenAIBackend:
        """Build from ``openai:MODEL[@URL][?option=value...]``."""
        settings = spec_settings(spec, OpenAISettings)
        return cls(spec.target, spec.base_url, settings=settings)

    @property
    def name(self) -> str:
        """``openai:MODEL@URL`` (no key)."""
        return self._name

    def stats(self) -> dict[str, int]:
        """Counts so far: requests, attempts, retries, answered, failed, and failures by reason."""
        with self._stats_lock:
            return dict(self._stats)

    streams_responses = True
    """`generate` takes `on_response`: wrappers (the response cache) can keep each reply as
    it arrives instead of when the whole batch returns."""

    def generate(
        self, requests: Sequence[ModelRequest], *, on_response: ResponseSink | None = None
    ) -> list[ModelResponse]:
        """Answer a batch concurrently (at most `concurrency` in flight); never raises per call.

        `on_response(i, response)` is called (on the backend's own thread) as soon as request
        `i` has its final response, so a crash mid-batch loses no reply already paid for."""
        if not requests:
            return []
        return self._loop.run(self._batch(list(requests), on_response))

    async def agenerate(
        self, requests: Sequence[ModelRequest], *, on_response: ResponseSink | None = None
    ) -> list[ModelResponse]:
        """`generate` for async callers: awaits the batch without blocking their loop."""
        if not requests:
            return []
        batch = self._batch(list(requests), on_response)
        return await asyncio.wrap_future(self._loop.submit(batch))

    def close(self) -> None:
        """Close the HTTP connections and stop the private loop."""
        self._loop.close(self._close_poster())

    # ------------------------------------------------------------------ internals

    def _count(self, key: str, n: int = 1) -> None:
        with self._stats_lock:
            self._stats[key] += n

    async def _close_poster(self) -> None:
        if self._poster is not None:
            await self._poster.close()
            self._poster = None

    def _headers(self) -> dict[str, str]:
        """Headers of every call (the openai client's, less its telemetry)."""
        headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"chartproof/{__version__}",
        }
        for name, env in (
            ("OpenAI-Organization", "OPENAI_ORG_ID"),
            ("OpenAI-Project", "OPENAI_PROJECT_ID"),
        ):
            value = os.environ.get(env)
            if value:
                headers[name] = value
        return headers

    def _ensure_poster(self) -> JsonPoster:
        """The connection pool, made on first use on the private loop (aiohttp binds to it)."""
        if self._poster is None:
            n, choice = self.settings.concurrency, self.settings.http
            url = f"{self.base_url or _OPENAI_URL}/chat/completions"
            poster: JsonPoster | None = None
            if choice in ("auto", "aiohttp"):
                try:
                    poster = AiohttpPoster(url, self._headers(), n)
                except ImportError:
                    if choice == "aiohttp":
                        raise MissingDependencyError(
                            "openai backend option http=aiohttp needs aiohttp: pip install aiohttp"
                        ) from None
            if choice == "openai":
                poster = _OpenAIClientPoster(self, n)
            if poster is None:
                poster = HttpxPoster(url, self._headers(), n, self.settings.timeout_s)
            self._poster = poster
            self._slots = asyncio.Semaphore(n)
            # bodies (with their base64 images) exist only for requests in flight or next in
            # line, not for the whole batch at once
            self._ahead = asyncio.Semaphore(2 * n)
        return self._poster

    async def _batch(
        self, requests: list[ModelRequest], on_response: ResponseSink | None = None
    ) -> list[ModelResponse]:
        self._ensure_poster()
        self._count("requests", len(requests))

        async def one(i: int, request: ModelRequest) -> ModelResponse:
            response = await self._one(request)
            if on_response is not None:
                try:
                    on_response(i, response)
                except Exception:  # a failing sink must not lose the batch's other replies
                    log.exception("response sink failed for request %s", request.id)
            return response

        return list(await asyncio.gather(*(one(i, r) for i, r in enumerate(requests))))

    def _image_json(self, part: ImagePart) -> bytes:
        """The image's data URL as a JSON string literal, made once per image content."""
        literal = self._urls.get(part.sha256)
        if literal is None:
            # base64 and the data-URL prefix need no JSON escaping
            literal = f'"{data_url(part.path)}"'.encode("ascii")
            self._urls[part.sha256] = literal
            if len(self._urls) > _DATA_URL_CACHE_SIZE:
                self._urls.popitem(last=False)
        else:
            self._urls.move_to_end(part.sha256)
        return literal

    def _messages(
        self, request: ModelRequest, spliced: list[tuple[bytes, bytes]] | None
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for message in request.messages:
            parts: list[dict[str, Any]] = []
            for part in message.content:
                if isinstance(part, ImagePart):
                    literal = self._image_json(part)
                    if spliced is None:
                        url = json.loads(literal)
                    else:
                        url = f"\x00chartproof-image-{len(spliced)}\x00"
                        spliced.append((json.dumps(url).encode("ascii"), literal))
                    image: dict[str, Any] = {"url": url}
                    if self.settings.image_detail is not None:
                        image["detail"] = self.settings.image_detail
                    parts.append({"type": "image_url", "image_url": image})
                else:
                    parts.append({"type": "text", "text": part.text})
            if message.role != "user" and all(p["type"] == "text" for p in parts):
                # system/assistant turns as plain strings: some servers reject part lists there
                out.append({"role": message.role, "content": "".join(p["text"] for p in parts)})
            else:
                out.append({"role": message.role, "content": parts})
        return out

    def _body(
        self, request: ModelRequest, spliced: list[tuple[bytes, bytes]] | None = None
    ) -> dict[str, Any]:
        """The chat-completions body; with `spliced`, images are placeholders whose (encoded
        placeholder, encoded data URL) pairs are appended to it."""
        c = request.config
        body: dict[str, Any] = {
            "model": self.model,
            "messages": self._messages(request, spliced),
            "max_tokens": c.max_tokens,
            "temperature": c.temperature,
            "top_p": c.top_p,
        }
        if c.seed is not None:
            body["seed"] = c.seed
        if c.stop:
            body["stop"] = list(c.stop)
        return body

    def _encode(self, request: ModelRequest) -> bytes:
        """The body as JSON bytes, each image's encoded data URL spliced in: JSON-escaping a
        100 kB data URL costs ~0.5 ms of CPU, more than the rest of a call."""
        spliced: list[tuple[bytes, bytes]] = []
        data = _dumps(self._body(request, spliced))
        if all(data.count(placeholder) == 1 for placeholder, _ in spliced):
            for placeholder, literal in spliced:
                data = data.replace(placeholder, literal)
            return data
        return _dumps(self._body(request))  # a text part contains a placeholder: no splicing

    async def _one(self, request: ModelRequest) -> ModelResponse:
        self._ensure_poster()
        assert self._ahead is not None
        async with self._ahead:
            try:
                data = self._encode(request)
            except (OSError, ValueError) as e:
                self._count("failed")
                self._count("failed:bad_request")
                return failed(request, self._name, f"cannot build request: {e}")
            return await self._send(request, data)

    async def _send(self, request: ModelRequest, data: bytes) -> ModelResponse:
        poster = self._ensure_poster()
        slots = self._slots
        assert slots is not None
        headers = {REQUEST_ID_HEADER: request.id}
        attempts = self.settings.max_retries + 1
        started: float | None = None  # latency counts from the first send, not the queue
        last_error = ""
        for attempt in range(attempts):
            self._count("attempts")
            try:
                async with slots:
                    if started is None:
                        started = time.monotonic()
                    async with asyncio.timeout(self.settings.timeout_s):
                        raw = await poster.post(data, headers)
                # let the requests the freed slot woke go out first: replies arrive in bursts,
                # and reading this one can wait while the server works on theirs
                await asyncio.sleep(0)
                text, usage = _read_completion(raw)
            except Exception as e:
                reason, retry, wait = _classify(e)
                last_error = f"{reason}: {_describe(e)}"
                if not retry or attempt == attempts - 1:
                    self._count("failed")
                    self._count(f"failed:{reason}")
                    tried = f" after {attempt + 1} attempts" if attempt else ""
                    return failed(
                        request, self._name, last_error + tried, latency_s=_since(started)
                    )
                self._count("retries")
                self._count(f"retry:{reason}")
                await asyncio.sleep(self._delay(attempt, wait))
                continue
            self._count("answered")
            return answered(request, self._name, text, usage=usage, latency_s=_since(started))
        raise AssertionError("unreachable")  # pragma: no cover

    def _delay(self, attempt: int, server_wait: float | None) -> float:
        s = self.settings
        base = min(s.backoff_max_s, s.backoff_s * 2.0**attempt)
        # equal jitter: never shorter than half the backoff, so retries still spread out
        delay = base / 2 + self._random.uniform(0, base / 2)
        if server_wait is not None:
            delay = max(delay, min(server_wait, s.backoff_max_s))
        return delay


class _EmptyReplyError(ValueError):
    """A well-formed reply with nothing in it (`choices: []`, null or empty content): a
    failure to retry, never an answer."""


class _MalformedReplyError(ValueError):
    """A reply that is JSON but not a chat completion."""


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _since(started: float | None) -> float:
    return 0.0 if started is None else time.monotonic() - started


def _read_completion(raw: bytes) -> tuple[str, Usage]:
    """The first choice's text and the token usage of a chat-completion reply body."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise _MalformedReplyError(f"reply is JSON {type(data).__name__}, not an object")
    choices = data.get("choices")
    if not choices:
        raise _EmptyReplyError("server returned no choices")
    try:
        content = choices[0]["message"].get("content")
    except (KeyError, TypeError, AttributeError, IndexError):
        raise _MalformedReplyError("reply has no choices[0].message") from None
    if isinstance(content, list):  # some servers send content parts even for text
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    found = data.get("usage")
    u: dict[str, Any] = found if isinstance(found, dict) else {}
    n_in, n_out = u.get("prompt_tokens"), u.get("completion_tokens")
    usage = Usage(
        input_tokens=n_in if isinstance(n_in, int) else None,
        output_tokens=n_out if isinstance(n_out, int) else None,
    )
    if not isinstance(content, str) or not content.strip():
        raise _EmptyReplyError(
            "reply content is " + ("null" if content is None else repr(content)[:40])
        )
    return content, usage


def _classify(error: BaseException) -> tuple[str, bool, float | None]:
    """(reason, retryable, server-requested wait in seconds) for a failed attempt."""
    if isinstance(error, TransportError):
        return error.reason, True, None
    if isinstance(error, ReplyTooLarge):  # the same request would get the same reply
        return "reply_too_large", False, None
    if isinstance(error, TimeoutError):  # the per-attempt limit
        return "timeout", True, None
    if isinstance(error, HttpStatusError):
        status = error.status
        if status in _RETRY_STATUS or status >= 500:
            return f"http_{status}", True, error.retry_after
        return f"http_{status}", False, None
    if isinstance(error, _EmptyReplyError):
        return "empty_reply", True, None
    if isinstance(error, ValueError):
        return "malformed_response", True, None
    return type(error).__name__, False, None


class _OpenAIClientPoster:
    """`JsonPoster` through the official client's generic ``post`` (its transport, headers and
    HTTP errors), with its errors mapped to ours so retries behave as on the lean transports."""

    def __init__(self, backend: OpenAIBackend, concurrency: int) -> None:
        import openai

        limits = type(openai.DEFAULT_CONNECTION_LIMITS)(
            max_connections=concurrency, max_keepalive_connections=concurrency
        )
        timeout = backend.settings.timeout_s
        self._openai = openai
        self._client = openai.AsyncOpenAI(
            api_key=backend._api_key,
            base_url=backend.base_url,
            max_retries=0,  # ours are the only retries, so they are counted
            timeout=timeout,
            http_client=openai.DefaultAsyncHttpxClient(limits=limits, timeout=timeout),
        )
        self._timeout = timeout

    async def post(self, data: bytes, headers: Mapping[str, str]) -> bytes:
        """See `JsonPoster.post`."""
        openai = self._openai
        try:
            return await self._client.post(
                "/chat/completions",
                cast_to=bytes,
                body=json.loads(data),  # the client encodes bodies itself
                options={"headers": dict(headers), "timeout": self._timeout},
            )
        except openai.APIStatusError as e:
            reply = e.response
            raise HttpStatusError(e.status_code, reply.headers, reply.content) from e
        except openai.APIConnectionError as e:
            raise TransportError(_transport_reason(e), _describe(e)) from e

    async def close(self) -> None:
        """See `JsonPoster.close`."""
        await self._client.close()


def _transport_reason(error: BaseException) -> str:
    """ "timeout" or "connection", from the deepest cause: some transports report a refused or
    dropped connection as a timeout."""
    chain: list[BaseException] = []
    e: BaseException | None = error
    while e is not None and len(chain) < 10:
        chain.append(e)
        e = e.__cause__ or e.__context__
    for cause in reversed(chain):
        if isinstance(cause, TimeoutError):
            return "timeout"
        if isinstance(cause, OSError) or "Disconnect" in type(cause).__name__:
            return "connection"
    return "timeout" if "Timeout" in type(error).__name__ else "connection"


def _describe(error: BaseException) -> str:
    text = str(error).strip().replace("\n", " ")
    return text[:300] or type(error).__name__
