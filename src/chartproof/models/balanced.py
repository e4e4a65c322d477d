"""Many OpenAI-compatible servers of one model behind one backend: ``openai:MODEL@URL1,URL2``.

Each request goes to the least busy healthy endpoint (fewest requests in flight for its
``concurrency``), so a cluster of model servers (several vLLM replicas) is used without Ray
when the bottleneck is the model. An endpoint whose calls keep failing (after its own
retries) is taken out for a cool-down and its failed requests go to another endpoint; a
request's own fault (an HTTP 4xx other than 408/429) is not retried elsewhere. Built from the
same spec string as one endpoint, with a comma-separated URL list; every option (concurrency,
retries, timeouts) applies to each endpoint.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from chartproof.models._aio import LoopThread
from chartproof.models.openai_compat import OpenAIBackend, OpenAISettings
from chartproof.models.registry import BackendSpec, SpecError, spec_settings
from chartproof.types import ModelRequest, ModelResponse

__all__ = ["BalancedBackend", "split_urls"]

FAILOVER_AFTER = 3
"""Consecutive failed calls that take an endpoint out of rotation."""
COOLDOWN_S = 30.0
"""Seconds an endpoint stays out before it is tried again."""

_REQUEST_FAULT = re.compile(r"^http_4(?!08|29)\d\d\b")


def split_urls(base_url: str) -> list[str]:
    """The endpoint URLs of a comma-separated list (each stripped of a trailing slash)."""
    urls = [u.strip().rstrip("/") for u in base_url.split(",")]
    if any(not u for u in urls):
        raise SpecError(f"endpoint list {base_url!r} has an empty entry")
    if len(set(urls)) != len(urls):
        raise SpecError(f"endpoint list {base_url!r} names an endpoint twice")
    return urls


@dataclass
class _Endpoint:
    backend: OpenAIBackend
    capacity: int
    busy: int = 0
    failures: int = 0
    down_until: float = 0.0
    counts: Counter[str] = field(default_factory=Counter)


class BalancedBackend:
    """One model on several OpenAI-compatible endpoints, least-busy first, with failover."""

    def __init__(
        self,
        model: str,
        urls: Sequence[str],
        *,
        settings: OpenAISettings | None = None,
        failover_after: int = FAILOVER_AFTER,
        cooldown_s: float = COOLDOWN_S,
    ) -> None:
        if len(urls) < 1:
            raise SpecError(f"openai:{model}: no endpoint given")
        self.settings = settings or OpenAISettings()
        self._endpoints = [
            _Endpoint(OpenAIBackend(model, url, settings=self.settings), self.settings.concurrency)
            for url in urls
        ]
        self._name = f"openai:{model}@{','.join(urls)}"
        # every endpoint serves the same model: one cache identity, shared across endpoints
        self.identity = self._endpoints[0].backend.identity
        self._failover_after = failover_after
        self._cooldown_s = cooldown_s
        self._loop = LoopThread(f"balanced:{model}")
        self._cond: asyncio.Condition | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_spec(cls, spec: BackendSpec) -> BalancedBackend:
        """Build from ``openai:MODEL@URL1,URL2[?option=value...]``."""
        settings = spec_settings(spec, OpenAISettings)
        return cls(spec.target, split_urls(spec.base_url or ""), settings=settings)

    @property
    def name(self) -> str:
        """``openai:MODEL@URL1,URL2``."""
        return self._name

    def stats(self) -> dict[str, dict[str, int]]:
        """Per endpoint URL: requests sent, answered, failed, and failovers away from it."""
        with self._lock:
            return {str(e.backend.base_url): dict(e.counts) for e in self._endpoints}

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """Answer a batch over the endpoints (one response per request, same order)."""
        if not requests:
            return []
        return self._loop.run(self._batch(list(requests)))

    def close(self) -> None:
        """Close every endpoint's connections and the balancer's loop."""
        for e in self._endpoints:
            e.backend.close()
        self._loop.close()

    async def _batch(self, requests: list[ModelRequest]) -> list[ModelResponse]:
        if self._cond is None:
            self._cond = asyncio.Condition()
        return list(await asyncio.gather(*(self._one(r) for r in requests)))

    async def _one(self, request: ModelRequest) -> ModelResponse:
        tried: set[int] = set()
        while True:
            index = await self._acquire(tried)
            endpoint = self._endpoints[index]
            try:
                response = (await endpoint.backend.agenerate([request]))[0]
            finally:
                await self._release(index)
            with self._lock:
                endpoint.counts["sent"] += 1
                if response.error is None:
                    endpoint.failures = 0
                    endpoint.counts["answered"] += 1
                    return response.model_copy(update={"model": self._name})
                endpoint.counts["failed"] += 1
                if _REQUEST_FAULT.match(response.error):
                    return response.model_copy(update={"model": self._name})
                endpoint.failures += 1
                if endpoint.failures >= self._failover_after:
                    endpoint.down_until = time.monotonic() + self._cooldown_s
                tried.add(index)
                if len(tried) == len(self._endpoints):
                    return response.model_copy(update={"model": self._name})
                endpoint.counts["failover"] += 1

    async def _acquire(self, tried: set[int]) -> int:
        assert self._cond is not None
        async with self._cond:
            while True:
                now = time.monotonic()
                open_ = [i for i in range(len(self._endpoints)) if i not in tried]
                healthy = [i for i in open_ if self._endpoints[i].down_until <= now]
                # every endpoint left is cooling down: try them anyway rather than fail
                pool = healthy or open_
                free = [i for i in pool if self._endpoints[i].busy < self._endpoints[i].capacity]
                if free:
                    best = min(
                        free, key=lambda i: self._endpoints[i].busy / self._endpoints[i].capacity
                    )
                    self._endpoints[best].busy += 1
                    return best
                await self._cond.wait()

    async def _release(self, index: int) -> None:
        assert self._cond is not None
        async with self._cond:
            self._endpoints[index].busy -= 1
            self._cond.notify_all()
