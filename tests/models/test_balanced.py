"""Several OpenAI-compatible endpoints behind one spec: requests spread over both loopback
servers within each one's concurrency, a slower server gets fewer, and an endpoint that
keeps failing is taken out while its requests are answered by the other."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the loopback server needs aiohttp (dev extra)")

from chartproof.models import load_backend
from chartproof.models.balanced import BalancedBackend, split_urls
from chartproof.models.prompts import build_request
from chartproof.models.registry import SpecError
from chartproof.testing.loopback import Fault, LoopbackServer
from chartproof.types import ModelRequest

FAST = "?concurrency=4&max_retries=0&backoff_s=0&timeout_s=5"


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    p = tmp_path / "chart.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
    return p


def _requests(chart: Path, n: int) -> list[ModelRequest]:
    return [build_request("short", chart, f"Question {i}?", request_id=f"q{i}") for i in range(n)]


@pytest.fixture
def pair() -> Iterator[tuple[LoopbackServer, LoopbackServer]]:
    with LoopbackServer(delay_s=0.05) as a, LoopbackServer(delay_s=0.05) as b:
        yield a, b


def test_spec_with_an_url_list_builds_a_balanced_backend(
    pair: tuple[LoopbackServer, LoopbackServer], chart: Path
) -> None:
    a, b = pair
    backend = load_backend(f"openai:vlm@{a.base_url},{b.base_url}{FAST}")
    try:
        assert isinstance(backend, BalancedBackend)
        out = backend.generate(_requests(chart, 40))
    finally:
        backend.close()
    assert [r.request_id for r in out] == [f"q{i}" for i in range(40)]
    assert all(r.error is None and f"q{i}" in (r.text or "") for i, r in enumerate(out))
    # least-busy over two equal servers: both used, neither above its 4 slots
    assert sum(a.answered.values()) + sum(b.answered.values()) == 40
    assert min(sum(a.answered.values()), sum(b.answered.values())) >= 12
    assert a.peak_in_service <= 4 and b.peak_in_service <= 4
    assert a.peak_in_service + b.peak_in_service == 8


def test_the_slower_server_gets_fewer_requests(chart: Path) -> None:
    with LoopbackServer(delay_s=0.01) as fast, LoopbackServer(delay_s=0.25) as slow:
        backend = load_backend(f"openai:vlm@{fast.base_url},{slow.base_url}{FAST}")
        try:
            out = backend.generate(_requests(chart, 48))
        finally:
            backend.close()
    assert all(r.error is None for r in out)
    assert sum(fast.answered.values()) > 2 * sum(slow.answered.values())


def _always_500(key: str, attempt: int) -> Fault | None:
    return "500"


def test_a_failing_endpoint_is_taken_out_and_its_requests_answered_elsewhere(
    chart: Path,
) -> None:
    with LoopbackServer(faults=_always_500) as bad, LoopbackServer(delay_s=0.02) as good:
        backend = load_backend(f"openai:vlm@{bad.base_url},{good.base_url}{FAST}")
        assert isinstance(backend, BalancedBackend)
        try:
            out = backend.generate(_requests(chart, 30))
            stats = backend.stats()
        finally:
            backend.close()
    assert [r.error for r in out] == [None] * 30
    assert sum(good.answered.values()) == 30
    # the bad endpoint saw at most its slots' worth of calls before it was taken out
    assert sum(bad.attempts.values()) <= 4 + 3
    assert stats[bad.base_url]["failover"] == stats[bad.base_url]["failed"]


def test_a_request_fault_is_not_retried_on_another_endpoint(chart: Path) -> None:
    with LoopbackServer(faults={"q0": ["400"]}) as a, LoopbackServer(faults={"q0": ["400"]}) as b:
        backend = load_backend(f"openai:vlm@{a.base_url},{b.base_url}{FAST}")
        try:
            (response,) = backend.generate(_requests(chart, 1))
        finally:
            backend.close()
    assert response.error is not None and response.error.startswith("http_400")
    assert sum(a.attempts.values()) + sum(b.attempts.values()) == 1


@pytest.mark.parametrize(
    ("urls", "match"),
    [("http://a/v1,,http://b/v1", "empty entry"), ("http://a/v1,http://a/v1/", "twice")],
)
def test_bad_endpoint_lists_name_the_culprit(urls: str, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        split_urls(urls)
