"""OpenAI-compatible backend against a real HTTP server on loopback that injects faults.

Every request ends answered or recorded as failed, in order, none lost or duplicated, and
the retries the schedule forces are exactly the retries made.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("aiohttp", reason="the loopback server needs aiohttp (dev extra)")

from chartproof.models import load_backend
from chartproof.models._aio import HttpStatusError, HttpxPoster
from chartproof.models.images import data_url
from chartproof.models.openai_compat import OpenAIBackend, OpenAISettings
from chartproof.models.prompts import build_request
from chartproof.models.registry import MissingDependencyError, SpecError
from chartproof.testing.loopback import Fault, LoopbackServer
from chartproof.types import ModelRequest

# request index % 8 -> faults on successive attempts (then a normal reply)
PATTERN: dict[int, list[Fault | None]] = {
    0: [],
    1: ["429"],
    2: ["500", "500"],
    3: ["slow"],
    4: ["malformed"],
    5: ["drop"],
    6: ["429", "drop", "500"],
    7: ["400"],  # not retryable
}
HOPELESS = {9, 21}  # more 500s than attempts allowed
MAX_RETRIES = 3


def _faults(n: int) -> dict[str, list[Fault | None]]:
    table: dict[str, list[Fault | None]] = {}
    for i in range(n):
        table[f"q{i}"] = ["500"] * 10 if i in HOPELESS else list(PATTERN[i % 8])
    return table


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    p = tmp_path / "chart.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    return p


def _requests(chart: Path, n: int) -> list[ModelRequest]:
    return [build_request("short", chart, f"Question {i}?", request_id=f"q{i}") for i in range(n)]


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(faults=_faults(40), slow_s=1.5, max_concurrency=100) as s:
        yield s


def _backend(server: LoopbackServer, **settings: Any) -> OpenAIBackend:
    opts = {
        "concurrency": 6,
        "max_retries": MAX_RETRIES,
        "timeout_s": 0.4,
        "backoff_s": 0.01,
        "backoff_max_s": 0.05,
        "jitter_seed": 1,
    }
    opts.update(settings)
    return OpenAIBackend("loopback-vlm", server.base_url, settings=OpenAISettings(**opts))


@pytest.mark.parametrize("http", ["aiohttp", "httpx", "openai"])
def test_every_request_answered_or_failed_with_exact_retries(
    server: LoopbackServer, chart: Path, http: str
) -> None:
    requests = _requests(chart, 40)
    backend = _backend(server, http=http)
    try:
        responses = backend.generate(requests)
    finally:
        backend.close()
    assert [r.request_id for r in responses] == [r.id for r in requests]
    expected_retries = 0
    for i, resp in enumerate(responses):
        key = f"q{i}"
        if i in HOPELESS:
            assert resp.error is not None and resp.error.startswith("http_500")
            assert f"after {MAX_RETRIES + 1} attempts" in resp.error
            assert server.attempts[key] == MAX_RETRIES + 1
            assert server.answered[key] == 0
            expected_retries += MAX_RETRIES
        elif i % 8 == 7:
            assert resp.error is not None and resp.error.startswith("http_400")
            assert server.attempts[key] == 1
        else:
            faults = PATTERN[i % 8]
            assert resp.error is None, resp.error
            # the text names the request it answers: no answer went to another request
            assert resp.text == f"The answer is: {key}."
            assert resp.parsed is not None and resp.parsed.answer == key
            assert server.attempts[key] == len(faults) + 1
            assert server.answered[key] == 1
            assert resp.usage.output_tokens == 4
            expected_retries += len(faults)
    stats = backend.stats()
    n_failed = len(HOPELESS) + sum(1 for i in range(40) if i % 8 == 7)
    assert stats["requests"] == 40
    assert stats["answered"] + stats["failed"] == 40
    assert stats["failed"] == n_failed
    assert stats["retries"] == expected_retries
    assert stats["attempts"] == sum(server.attempts.values())
    assert stats["retry:timeout"] == 5  # one slow reply each for q3, q11, ..., q35
    assert server.peak_in_service <= 6


def test_sync_generate_inside_a_running_event_loop(server: LoopbackServer, chart: Path) -> None:
    backend = _backend(server)
    requests = _requests(chart, 1)

    async def caller() -> list[str]:
        # a notebook or async pipeline calls the sync API from inside its own loop
        return [r.text for r in backend.generate(requests)]

    try:
        assert asyncio.run(caller()) == ["The answer is: q0."]
        assert [r.text for r in asyncio.run(backend.agenerate(requests))] == ["The answer is: q0."]
    finally:
        backend.close()


@pytest.mark.parametrize("http", ["aiohttp", "httpx", "openai"])
def test_payload_carries_image_as_data_url_and_settings(chart: Path, http: str) -> None:
    seen: list[Mapping[str, Any]] = []

    def reply(key: str, body: Mapping[str, Any]) -> str:
        seen.append(body)
        return "42"

    with LoopbackServer(reply=reply) as server:
        backend = _backend(server, http=http)
        req = build_request("short", chart, "How many?", request_id="a")
        try:
            (resp,) = backend.generate([req])
        finally:
            backend.close()
    assert resp.parsed is not None and resp.parsed.answer == "42"
    (body,) = seen
    assert body["model"] == "loopback-vlm" and body["temperature"] == 0.0
    assert body["max_tokens"] == 256
    image, text = body["messages"][0]["content"]
    prefix = "data:image/png;base64,"
    assert image["image_url"]["url"].startswith(prefix)
    assert base64.b64decode(image["image_url"]["url"][len(prefix) :]) == chart.read_bytes()
    assert text["text"].endswith("Question: How many?")


def test_missing_image_is_an_error_record_not_an_exception(tmp_path: Path, chart: Path) -> None:
    req = build_request("short", chart, "Q?", request_id="gone")
    chart.unlink()
    with LoopbackServer() as server:
        backend = _backend(server)
        try:
            (resp,) = backend.generate([req])
        finally:
            backend.close()
        assert server.attempts == {}
    assert resp.error is not None and "cannot build request" in resp.error


def test_backoff_doubles_with_jitter_and_honours_retry_after() -> None:
    backend = OpenAIBackend(
        "m",
        "http://127.0.0.1:9/v1",
        settings=OpenAISettings(backoff_s=1.0, backoff_max_s=5.0, jitter_seed=0),
    )
    delays = [backend._delay(a, None) for a in range(5)]
    bases = [1, 2, 4, 5, 5]
    for d, b in zip(delays, bases, strict=True):
        assert b / 2 <= d <= b
    assert backend._delay(0, 3.0) == 3.0
    assert backend._delay(0, 60.0) == 5.0


def test_spec_options_and_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = load_backend("openai:m@http://127.0.0.1:9/v1?concurrency=3&max_retries=0")
    assert isinstance(backend, OpenAIBackend)
    assert backend.settings.concurrency == 3 and backend.settings.max_retries == 0
    assert backend.name == "openai:m@http://127.0.0.1:9/v1"
    with pytest.raises(SpecError, match="concurency"):
        load_backend("openai:m@http://127.0.0.1:9/v1?concurency=3")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(SpecError, match="needs a server"):
        load_backend("openai:m")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    from_env = load_backend("openai:m")
    assert isinstance(from_env, OpenAIBackend) and from_env.base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("http", ["aiohttp", "httpx", "openai"])
def test_unreachable_server_fails_every_request(chart: Path, http: str) -> None:
    backend = OpenAIBackend(
        "m",
        "http://127.0.0.1:9/v1",
        settings=OpenAISettings(max_retries=1, backoff_s=0.0, timeout_s=2, http=http),
    )
    try:
        out = backend.generate(_requests(chart, 3))
    finally:
        backend.close()
    assert all(r.error and r.error.startswith("connection") for r in out)
    assert backend.stats()["attempts"] == 6


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),  # the finer one wins
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),  # dates are not honoured
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "inf"}, None),
        ({}, None),
    ],
)
def test_status_error_reads_the_servers_wait(headers: dict[str, str], wait: float | None) -> None:
    error = HttpStatusError(429, headers, b'{"error": {"message": "slow down"}}')
    assert error.status == 429
    assert error.retry_after == wait
    assert str(error) == 'Error code: 429 - {"error": {"message": "slow down"}}'


def test_headers_carry_key_and_organisation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.delenv("OPENAI_PROJECT_ID", raising=False)
    backend = OpenAIBackend("m", "http://127.0.0.1:9/v1", api_key="sk-test")
    headers = backend._headers()
    assert headers["Authorization"] == "Bearer sk-test"
    assert headers["Content-Type"] == "application/json"
    assert headers["OpenAI-Organization"] == "org-1"
    assert "OpenAI-Project" not in headers


def test_latency_excludes_queueing_and_bodies_are_built_just_ahead(
    chart: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []

    def reply(key: str, body: Mapping[str, Any]) -> str:
        return str(len(built))  # bodies built by the time the server answers

    with LoopbackServer(delay_s=0.1, reply=reply) as server:
        backend = _backend(server, concurrency=2, timeout_s=5)
        build = backend._encode

        def counting(request: ModelRequest) -> bytes:
            built.append(request.id)
            return build(request)

        monkeypatch.setattr(backend, "_encode", counting)
        try:
            out = backend.generate(_requests(chart, 10))
        finally:
            backend.close()
    assert all(r.ok for r in out)
    # when the first reply is written, two are in flight and two wait: not all ten built
    assert min(int(r.text) for r in out) == 4
    # five waves of 0.1 s; each call's latency is its own wave, not the queue before it
    assert all(0.1 <= r.latency_s < 0.3 for r in out), [r.latency_s for r in out]


@pytest.mark.parametrize(
    "question",
    [
        "How many?",
        "How many \u00b0C? \x00chartproof-image-0\x00",  # not the quoted literal
        '"\x00chartproof-image-0\x00',  # encodes to it: sent unspliced
    ],
)
def test_encoded_body_is_the_body_with_images_spliced_in(chart: Path, question: str) -> None:
    backend = OpenAIBackend(
        "m", "http://127.0.0.1:9/v1", settings=OpenAISettings(image_detail="low")
    )
    req = build_request("short", chart, question, request_id="a")
    body = json.loads(backend._encode(req))
    image, text = body["messages"][0]["content"]
    assert image == {"type": "image_url", "image_url": {"url": data_url(chart), "detail": "low"}}
    assert text["text"].endswith(f"Question: {question}")
    assert body == backend._body(req)


@pytest.mark.parametrize("http", ["aiohttp", "httpx", "openai"])
def test_temporary_redirect_is_followed_with_the_same_post(chart: Path, http: str) -> None:
    from aiohttp import web

    from chartproof.testing.loopback import _completion

    hits: list[tuple[str, str, str]] = []

    async def moved(request: web.Request) -> web.Response:
        hits.append((request.method, request.path, request.headers["X-Chartproof-Request"]))
        raise web.HTTPTemporaryRedirect("/v1/moved")

    async def answer(request: web.Request) -> web.Response:
        body = await request.json()
        hits.append((request.method, request.path, body["model"]))
        return web.json_response(_completion("m", "The answer is: 7.", 10))

    async def scenario() -> list[str]:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", moved)
        app.router.add_post("/v1/moved", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        port = runner.addresses[0][1]
        backend = OpenAIBackend(
            "m", f"http://127.0.0.1:{port}/v1", settings=OpenAISettings(http=http, max_retries=0)
        )
        try:
            out = await backend.agenerate(_requests(chart, 1))
        finally:
            backend.close()
            await runner.cleanup()
        return [r.error or r.text for r in out]

    assert asyncio.run(scenario()) == ["The answer is: 7."]
    assert hits == [("POST", "/v1/chat/completions", "q0"), ("POST", "/v1/moved", "m")]


def test_auto_transport_falls_back_to_httpx_without_aiohttp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "aiohttp", None)  # import aiohttp now fails
    auto = OpenAIBackend("m", "http://127.0.0.1:9/v1")

    async def make() -> object:
        poster = auto._ensure_poster()
        await auto._close_poster()
        return poster

    assert isinstance(asyncio.run(make()), HttpxPoster)
    strict = OpenAIBackend("m", "http://127.0.0.1:9/v1", settings=OpenAISettings(http="aiohttp"))
    with pytest.raises(MissingDependencyError, match="pip install"):
        strict._ensure_poster()


@pytest.mark.parametrize("http", ["aiohttp", "httpx", "openai"])
def test_proxy_from_the_environment_is_used(
    server: LoopbackServer, chart: Path, http: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    proxy = server.base_url.removesuffix("/v1")
    monkeypatch.setenv("HTTP_PROXY", proxy)
    monkeypatch.setenv("http_proxy", proxy)
    settings = OpenAISettings(http=http, timeout_s=5, max_retries=0)
    # the host does not exist: only the proxy (the loopback server) can answer
    backend = OpenAIBackend("m", "http://model.invalid:8000/v1", settings=settings)
    try:
        (resp,) = backend.generate(_requests(chart, 1))
    finally:
        backend.close()
    assert resp.text == "The answer is: q0.", resp.error
    monkeypatch.setenv("NO_PROXY", "model.invalid")
    monkeypatch.setenv("no_proxy", "model.invalid")
    backend = OpenAIBackend("m", "http://model.invalid:8000/v1", settings=settings)
    try:
        (resp,) = backend.generate(_requests(chart, 1))
    finally:
        backend.close()
    assert resp.error is not None and resp.error.startswith("connection")


def test_httpx_transport_splits_connections_over_small_pools(chart: Path) -> None:
    with LoopbackServer(delay_s=0.2) as server:
        backend = _backend(server, http="httpx", concurrency=20, timeout_s=5)
        try:
            out = backend.generate(_requests(chart, 40))
            poster = backend._poster
            assert isinstance(poster, HttpxPoster)
            assert poster._free == [7, 7, 6]  # three pools, every connection given back
        finally:
            backend.close()
        # the least busy pool takes each call: all twenty connections are used at once
        assert server.peak_in_service == 20
    assert [r.text for r in out] == [f"The answer is: q{i}." for i in range(40)]
