"""Async plumbing for HTTP backends: a private event loop in a worker thread, so sync code can
run async batches anywhere, and lean pooled JSON POST transports (aiohttp or httpx).

`generate` is synchronous; running its async batch on this loop works whether or not the
caller already runs an event loop (a notebook, an async pipeline).
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Coroutine, Mapping
from concurrent.futures import Future
from typing import Any, Protocol, TypeVar

__all__ = [
    "MAX_REPLY_BYTES",
    "AiohttpPoster",
    "HttpStatusError",
    "HttpxPoster",
    "JsonPoster",
    "LoopThread",
    "ReplyTooLarge",
    "TransportError",
    "env_proxy",
]

T = TypeVar("T")

_HTTPX_POOL = 8
MAX_REPLY_BYTES = 16 * 1024 * 1024
"""Largest reply body read from a server (a chat completion with logprobs is a few MB)."""


class LoopThread:
    """An asyncio loop running forever in a daemon thread, started on first use."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=self._run, args=(loop,), name=self._name, daemon=True
                )
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    @staticmethod
    def _run(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        """Schedule `coro` on the private loop; returns a concurrent future."""
        return asyncio.run_coroutine_threadsafe(coro, self._ensure())

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the private loop and wait for its result in this thread."""
        if threading.current_thread() is self._thread:
            raise RuntimeError(f"{self._name}: run() called from its own loop thread")
        return self.submit(coro).result()

    def close(self, final: Coroutine[Any, Any, Any] | None = None) -> None:
        """Run `final` (e.g. closing clients), then stop the loop and join the thread."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            if final is not None:
                final.close()
            return
        if final is not None:
            asyncio.run_coroutine_threadsafe(final, loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(30)
        loop.close()


class HttpStatusError(Exception):
    """A reply with a status other than 2xx; carries what retry decisions need."""

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.status = status
        self.retry_after = _retry_after(headers)
        snippet = body[:300].decode("utf-8", "replace").strip()
        super().__init__(
            f"Error code: {status} - {snippet}" if snippet else f"Error code: {status}"
        )


class TransportError(Exception):
    """An exchange that got no HTTP reply: `reason` is "timeout" or "connection"."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        super().__init__(detail)


class ReplyTooLarge(Exception):
    """A reply body over the cap: refused as it streams in (never retried)."""

    def __init__(self, limit: int, declared: int | None = None) -> None:
        self.limit = limit
        said = f" (declared {declared} bytes)" if declared is not None else ""
        super().__init__(f"reply body over the {limit}-byte cap{said}")


def _declared_length(headers: Mapping[str, str]) -> int | None:
    value = headers.get("content-length") or headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class JsonPoster(Protocol):
    """POSTs JSON bytes to one endpoint over a pooled connection set; returns the reply body.

    Follows redirects (as the openai client does). Raises `HttpStatusError` for a final reply
    other than 2xx, `TransportError` when no reply came (or redirects went round in circles)
    and `ReplyTooLarge` for a body over its byte cap (read no further than the cap).
    """

    async def post(self, data: bytes, headers: Mapping[str, str]) -> bytes:
        """The body of the 2xx reply to ``POST url`` with `data` (JSON) as body."""
        ...

    async def close(self) -> None:
        """Close the pool (call on the loop that posted)."""
        ...


class AiohttpPoster:
    """`JsonPoster` on one aiohttp session: about a quarter of the openai client's CPU per call.

    Create it on the loop that will post. Timeouts are the caller's (``asyncio.timeout``
    around `post`): aiohttp's own would add a timer per call and fire under the caller's.
    """

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        concurrency: int,
        max_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        import aiohttp

        self._aiohttp = aiohttp
        self._url = url
        self._max_bytes = max_bytes
        connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=0)
        # the proxy the environment names, looked up once: aiohttp's trust_env looks it up
        # on every call, in a worker thread (~0.3 ms of CPU each)
        proxy = env_proxy(url)
        proxy_auth = None
        if proxy is not None:
            from yarl import URL

            proxy_url = URL(proxy)
            proxy_auth = aiohttp.BasicAuth.from_url(proxy_url)
            proxy = str(proxy_url.with_user(None))
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers=dict(headers),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=None, sock_read=None),
            proxy=proxy,
            proxy_auth=proxy_auth,
        )

    async def post(self, data: bytes, headers: Mapping[str, str]) -> bytes:
        """See `JsonPoster.post`."""
        try:
            async with self._session.post(self._url, data=data, headers=headers) as reply:
                limit = self._max_bytes
                declared = _declared_length(reply.headers)
                if declared is not None and declared > limit:
                    raise ReplyTooLarge(limit, declared)
                raw = await reply.content.read(limit + 1)
                if len(raw) > limit:
                    raise ReplyTooLarge(limit)
                while chunk := await reply.content.read(limit + 1 - len(raw)):
                    raw += chunk
                    if len(raw) > limit:
                        raise ReplyTooLarge(limit)
                status = reply.status
                if not 200 <= status < 300:
                    raise HttpStatusError(status, reply.headers, raw)
                return raw
        except self._aiohttp.ClientError as e:
            reason = "timeout" if isinstance(e, TimeoutError) else "connection"
            raise TransportError(reason, f"{type(e).__name__}: {e}") from e

    async def close(self) -> None:
        """See `JsonPoster.close`."""
        await self._session.close()


class HttpxPoster:
    """`JsonPoster` on httpx clients (httpx is a core dependency; aiohttp is optional).

    The connections are split over clients of at most `_HTTPX_POOL` each, every call going to
    the least busy one: httpx's pool scans all its connections for every queued request on
    every event, so one pool of 64 cost ~13 ms of CPU per call, eight pools of 8 about 1 ms.
    """

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        concurrency: int,
        timeout_s: float,
        max_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        import httpx

        self._httpx = httpx
        self._url = url
        self._max_bytes = max_bytes
        n_pools = -(-concurrency // _HTTPX_POOL)
        sizes = [len(range(i, concurrency, n_pools)) for i in range(n_pools)]
        # one TLS context for all (loading the CA bundle takes ~35 ms per client)
        make_context = getattr(httpx, "create_ssl_context", None)  # httpx >= 0.28
        verify = make_context() if make_context is not None else True
        self._clients = [
            httpx.AsyncClient(
                headers=dict(headers),
                limits=httpx.Limits(max_connections=size, max_keepalive_connections=size),
                timeout=httpx.Timeout(timeout_s),
                follow_redirects=True,
                verify=verify,
            )
            for size in sizes
        ]
        self._free = list(sizes)  # connections not in use, per client

    async def post(self, data: bytes, headers: Mapping[str, str]) -> bytes:
        """See `JsonPoster.post`."""
        httpx = self._httpx
        free = self._free
        i = max(range(len(free)), key=free.__getitem__)
        free[i] -= 1
        limit = self._max_bytes
        try:
            request = self._clients[i].build_request(
                "POST", self._url, content=data, headers=headers
            )
            reply = await self._clients[i].send(request, stream=True)
            try:
                declared = _declared_length(reply.headers)
                if declared is not None and declared > limit:
                    raise ReplyTooLarge(limit, declared)
                body = bytearray()
                async for chunk in reply.aiter_bytes():  # decoded: the cap bounds memory
                    body += chunk
                    if len(body) > limit:
                        raise ReplyTooLarge(limit)
            finally:
                await reply.aclose()
        except httpx.TimeoutException as e:
            raise TransportError("timeout", f"{type(e).__name__}: {e}") from e
        except httpx.RequestError as e:  # transport failures and redirect loops
            raise TransportError("connection", f"{type(e).__name__}: {e}") from e
        finally:
            free[i] += 1
        raw = bytes(body)
        if not 200 <= reply.status_code < 300:
            raise HttpStatusError(reply.status_code, reply.headers, raw)
        return raw

    async def close(self) -> None:
        """See `JsonPoster.close`."""
        for client in self._clients:
            await client.aclose()


def env_proxy(url: str) -> str | None:
    """The proxy ``HTTP_PROXY``/``HTTPS_PROXY``/``ALL_PROXY`` name for `url` unless ``NO_PROXY``
    exempts its host (as httpx, and so the openai client, choose); None for a direct line."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds a reply asks the client to wait: ``retry-after-ms`` first, then ``retry-after``
    (seconds; an HTTP date is ignored)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if math.isfinite(seconds):
            return max(0.0, seconds)
    return None
