"""Replies reach the response cache as each one arrives, not when its batch returns: a
process killed mid-batch has lost no reply it already paid for."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the loopback server needs aiohttp (dev extra)")

from chartproof.models.cache import CachedBackend, ResponseCache
from chartproof.models.openai_compat import OpenAIBackend, OpenAISettings
from chartproof.models.prompts import build_request
from chartproof.testing.loopback import Fault, LoopbackServer


def test_replies_are_cached_while_the_batch_is_still_running(tmp_path: Path) -> None:
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    keys = [f"c{i}" for i in range(6)]
    requests = [build_request("short", chart, f"Q{i}?", request_id=k) for i, k in enumerate(keys)]
    faults: dict[str, list[Fault | None]] = {"c5": ["slow"]}  # holds the batch open
    settings = OpenAISettings(concurrency=6, max_retries=0, timeout_s=4, http="aiohttp")
    cache_file = tmp_path / "responses.sqlite"
    with LoopbackServer(faults=faults, slow_s=30) as server:
        inner = OpenAIBackend("loopback-vlm", server.base_url, settings=settings)
        backend = CachedBackend(inner, ResponseCache(cache_file))
        worker = threading.Thread(target=backend.generate, args=(requests,))
        worker.start()
        try:
            deadline = time.monotonic() + 10
            while sum(server.answered.values()) < 5 and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)
            assert worker.is_alive(), "the batch ended before the check"
            # what a process that died now would find in the cache
            probe = ResponseCache(cache_file)
            try:
                assert probe.stats().entries == 5
            finally:
                probe.close()
        finally:
            worker.join(timeout=20)
            backend.close()
