"""Empty replies are failures to retry, never answers: `content: ""`, `content: null` and
`choices: []` from the loopback server are retried with the same bounded backoff, and a
request that only ever gets them ends failed with the reason named."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the loopback server needs aiohttp (dev extra)")

from chartproof.models.openai_compat import OpenAIBackend, OpenAISettings
from chartproof.models.prompts import build_request
from chartproof.testing.loopback import Fault, LoopbackServer

SCHEDULE: dict[str, list[Fault | None]] = {
    "e0": ["empty"],
    "e1": ["null", "nochoices"],
    "e2": ["nochoices", "empty", "null"],
    "e3": ["empty"] * 10,  # more than the attempts allowed
    "e4": ["nochoices"] * 10,
    "e5": [],
}


@pytest.mark.parametrize("http", ["aiohttp", "httpx"])
def test_empty_replies_are_retried_then_failed(tmp_path: Path, http: str) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    requests = [build_request("short", chart, "Q?", request_id=k) for k in SCHEDULE]
    settings = OpenAISettings(
        concurrency=3, max_retries=3, timeout_s=2, backoff_s=0.01, backoff_max_s=0.02, http=http
    )
    with LoopbackServer(faults=SCHEDULE) as server:
        backend = OpenAIBackend("loopback-vlm", server.base_url, settings=settings)
        try:
            responses = {r.request_id: r for r in backend.generate(requests)}
        finally:
            backend.close()
        attempts = dict(server.attempts)
    for key in ("e0", "e1", "e2", "e5"):
        assert responses[key].error is None, responses[key].error
        assert responses[key].text == f"The answer is: {key}."
        assert attempts[key] == len(SCHEDULE[key]) + 1
    for key in ("e3", "e4"):
        error = responses[key].error
        assert error is not None and error.startswith("empty_reply"), error
        assert "after 4 attempts" in error
        assert attempts[key] == 4
    stats = backend.stats()
    assert stats["failed"] == 2 and stats["answered"] == 4
    assert stats["retry:empty_reply"] == 1 + 2 + 3 + 3 + 3
