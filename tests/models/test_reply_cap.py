"""Replies are capped in size as they stream in: a 20 MB body is refused by both lean
transports (declared by Content-Length or sent chunked), never retried, and reaches the
caller as one failed response."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from chartproof.models._aio import AiohttpPoster, HttpxPoster, ReplyTooLarge
from chartproof.models.base import MAX_REPLY_CHARS
from chartproof.models.cache import CachedBackend, ResponseCache
from chartproof.models.openai_compat import OpenAIBackend, OpenAISettings
from chartproof.models.prompts import build_request
from chartproof.testing import ScriptedBackend

BIG = 20 * 1024 * 1024
HITS: list[str] = []


def _reply(text: str) -> bytes:
    message = {"choices": [{"message": {"content": text}}], "usage": {}}
    return json.dumps(message).encode()


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        HITS.append(self.path)
        chunked = self.path.startswith("/chunked")
        body = _reply("x" * BIG) if "/big" in self.path else _reply("The answer is: 4.")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if chunked:
                for i in range(0, len(body), 1 << 16):
                    part = body[i : i + (1 << 16)]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading at its cap

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _post(kind: str, url: str, limit: int) -> bytes:
    async def go() -> bytes:
        if kind == "aiohttp":
            poster: AiohttpPoster | HttpxPoster = AiohttpPoster(url, {}, 2, max_bytes=limit)
        else:
            poster = HttpxPoster(url, {}, 2, 10.0, max_bytes=limit)
        try:
            return await poster.post(b"{}", {"Content-Type": "application/json"})
        finally:
            await poster.close()

    return asyncio.run(go())


@pytest.mark.parametrize("kind", ["aiohttp", "httpx"])
@pytest.mark.parametrize("framing", ["length", "chunked"])
def test_big_reply_is_refused(base: str, kind: str, framing: str) -> None:
    pytest.importorskip(kind)
    url = f"{base}/{framing}/big"
    with pytest.raises(ReplyTooLarge, match="over the 1048576-byte cap") as caught:
        _post(kind, url, 1 << 20)
    assert ("declared" in str(caught.value)) == (framing == "length")
    assert _post(kind, f"{base}/{framing}/small", 1 << 20) == _reply("The answer is: 4.")


def test_backend_records_one_failed_response_without_retrying(base: str, tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n")
    settings = OpenAISettings(http="httpx", max_retries=3, backoff_s=0.0, timeout_s=30)
    backend = OpenAIBackend("m", f"{base}/chunked/big/v1", settings=settings)
    HITS.clear()
    try:
        (resp,) = backend.generate([build_request("short", chart, "Q?", request_id="q0")])
    finally:
        backend.close()
    assert resp.error is not None and resp.error.startswith("reply_too_large"), resp.error
    assert resp.text == "" and len(HITS) == 1  # the same request would get the same reply


@pytest.mark.parametrize(
    ("length", "ok"), [(MAX_REPLY_CHARS, True), (MAX_REPLY_CHARS + 1, False)], ids=["at", "over"]
)
def test_reply_text_is_capped_for_every_backend(tmp_path: Path, length: int, ok: bool) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n")
    request = build_request("short", chart, "Q?", request_id="q0")
    cache = ResponseCache(tmp_path / "cache.sqlite")
    backend = CachedBackend(ScriptedBackend(lambda r: "7" * length), cache)
    try:
        (resp,) = backend.generate([request])
    finally:
        backend.close()
    assert (resp.error is None) == ok
    if not ok:
        assert resp.error == f"reply_too_large: {length} characters over the 1000000 cap"
        assert resp.text == "" and resp.parsed is None
    assert cache.stats().entries == (1 if ok else 0)  # an over-cap reply is stored nowhere
