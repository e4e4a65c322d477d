"""A chat-completions server on loopback for tests and benchmarks, with scheduled faults.

It speaks enough of the OpenAI protocol for the official client, replies after a fixed
delay with at most N requests in service, and injects 429, 500, slow replies, malformed JSON
or dropped connections on the attempts a deterministic schedule names. Needs aiohttp.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias

from chartproof.models.openai_compat import REQUEST_ID_HEADER

__all__ = ["Fault", "FaultSchedule", "LoopbackServer", "echo_reply"]

Fault: TypeAlias = Literal[
    "400", "429", "500", "slow", "malformed", "drop", "empty", "null", "nochoices"
]
"""A fault the server can inject instead of a normal reply: an HTTP status, a reply slower
than the client's timeout, truncated JSON, a dropped connection, or a well-formed completion
with empty content, null content or `choices: []`."""

FaultSchedule: TypeAlias = Callable[[str, int], "Fault | None"]
"""Maps (request key, attempt number from 0) to the fault to inject, None for a normal reply."""


def echo_reply(key: str, body: Mapping[str, Any]) -> str:
    """Default reply: names the request, so a test can check no answer went to the wrong one."""
    return f"The answer is: {key}."


def _schedule_from_table(table: Mapping[str, Sequence[Fault | None]]) -> FaultSchedule:
    def schedule(key: str, attempt: int) -> Fault | None:
        faults = table.get(key, ())
        return faults[attempt] if attempt < len(faults) else None

    return schedule


class LoopbackServer:
    """A chat-completions server on 127.0.0.1 running in its own thread and event loop.

    Use as a context manager; `base_url` ends in ``/v1``. `attempts` counts requests per key
    (the ``X-Chartproof-Request`` header, else a hash of the body), `answered` the normal
    replies, and `peak_in_service` the most normal replies in service at once.
    """

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        max_concurrency: int | None = None,
        faults: FaultSchedule | Mapping[str, Sequence[Fault | None]] | None = None,
        slow_s: float = 5.0,
        reply: Callable[[str, Mapping[str, Any]], str] = echo_reply,
        port: int = 0,
    ) -> None:
        self.delay_s = delay_s
        self.max_concurrency = max_concurrency
        self.slow_s = slow_s
        self._reply = reply
        self._port = port
        if faults is None or callable(faults):
            self._schedule: FaultSchedule | None = faults
        else:
            self._schedule = _schedule_from_table(faults)
        self.attempts: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.faults_sent: Counter[str] = Counter()
        self.in_service = 0
        self.peak_in_service = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self.base_url = ""

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> str:
        """Start serving; returns the base URL (``http://127.0.0.1:PORT/v1``)."""
        self._thread = threading.Thread(target=self._run, name="loopback-server", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise RuntimeError(f"loopback server failed to start: {self._error}")
        return self.base_url

    def stop(self) -> None:
        """Stop serving and join the thread."""
        loop = self._loop
        if loop is None:
            return
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(30)
        self._loop = None

    def __enter__(self) -> LoopbackServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._serve())
        except BaseException as e:  # reported to start() in the caller's thread
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        loop.run_forever()
        loop.close()

    async def _serve(self) -> None:
        from aiohttp import web

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_get("/v1/models", self._models)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=0.2)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", self._port, backlog=1024)
        await site.start()
        self._runner = runner
        server: Any = site._server  # aiohttp keeps the asyncio server private
        port = server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self._semaphore = asyncio.Semaphore(self.max_concurrency or 1_000_000)

    # ------------------------------------------------------------------ handlers

    async def _models(self, request: Any) -> Any:
        from aiohttp import web

        return web.json_response(
            {"object": "list", "data": [{"id": "loopback", "object": "model"}]}
        )

    async def _handle(self, request: Any) -> Any:
        from aiohttp import web

        raw = await request.read()
        key = request.headers.get(REQUEST_ID_HEADER) or hashlib.sha256(raw).hexdigest()[:16]
        with self._lock:
            attempt = self.attempts[key]
            self.attempts[key] += 1
        fault = self._schedule(key, attempt) if self._schedule else None
        if fault is not None:
            with self._lock:
                self.faults_sent[fault] += 1
        if fault == "429":
            return web.json_response(
                {"error": {"message": "rate limited", "type": "rate_limit"}},
                status=429,
                headers={"Retry-After": "0"},
            )
        if fault == "400":
            return web.json_response({"error": {"message": "bad request"}}, status=400)
        if fault == "500":
            return web.json_response({"error": {"message": "server error"}}, status=500)
        if fault == "drop":
            request.transport.abort()
            raise asyncio.CancelledError
        try:
            body = json.loads(raw)
        except ValueError:
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        if fault == "slow":
            # outside the cap and the count: the client gives up on it and moves on
            await asyncio.sleep(self.slow_s)
        else:
            async with self._semaphore:
                with self._lock:
                    self.in_service += 1
                    self.peak_in_service = max(self.peak_in_service, self.in_service)
                try:
                    await asyncio.sleep(self.delay_s)
                finally:
                    with self._lock:
                        self.in_service -= 1
        if fault == "malformed":
            return web.Response(
                text='{"id": "chatcmpl-broken", "choices": [{"message": ',
                content_type="application/json",
            )
        if fault in ("empty", "null", "nochoices"):
            reply = _completion(str(body.get("model", "")), "", len(raw))
            if fault == "nochoices":
                reply["choices"] = []
            else:
                reply["choices"][0]["message"]["content"] = "" if fault == "empty" else None
            return web.json_response(reply)
        text = self._reply(key, body)
        if fault is None:  # a slow reply goes to a client that has given up on it
            with self._lock:
                self.answered[key] += 1
        return web.json_response(_completion(str(body.get("model", "")), text, len(raw)))


def _completion(model: str, text: str, request_bytes: int) -> dict[str, Any]:
    prompt_tokens = max(1, request_bytes // 4)
    completion_tokens = max(1, len(text.split()))
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Serve until stdin closes: ``python -m chartproof.testing.loopback --delay 0.2``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.0, help="reply delay in seconds")
    parser.add_argument("--max-concurrency", type=int, default=None, help="requests in service")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = LoopbackServer(
        delay_s=args.delay, max_concurrency=args.max_concurrency, port=args.port
    )
    url = server.start()
    print(f"READY {url}", flush=True)
    sys.stdin.read()
    print(
        json.dumps({"answered": sum(server.answered.values()), "peak": server.peak_in_service}),
        flush=True,
    )
    server.stop()


if __name__ == "__main__":
    main()
