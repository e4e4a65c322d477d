"""A private event loop in a worker thread, so sync code can run async batches anywhere.

`generate` is synchronous; running its async batch on this loop works whether or not the
caller already runs an event loop (a notebook, an async pipeline).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")


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
