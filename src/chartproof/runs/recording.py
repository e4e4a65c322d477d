"""Durable partial work, shared by every run loop: results go to the run folder (appended and
fsynced) as soon as they are finished, progress is reported per result, and Ctrl-C stops
with `Interrupted` saying how many results are kept (the CLI prints "interrupted: N of M
results kept; rerun the same command to resume" and exits 130)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import FrameType

from chartproof.runs.folder import RunFolder
from chartproof.types import SampleResult

__all__ = ["Interrupted", "ProgressHook", "Recorder", "recording"]

ProgressHook = Callable[[int, int], None]
"""Called with (results finished so far, results to do) after every recorded result."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run: `kept` of `total` results are in the run folder, so rerunning the
    same command resumes from there."""

    def __init__(self, kept: int, total: int) -> None:
        super().__init__(f"interrupted: {kept} of {total} results kept")
        self.kept = kept
        self.total = total


class Recorder:
    """Appends finished results to a run folder and reports progress after each."""

    def __init__(
        self, run: RunFolder, total: int, done: int, progress: ProgressHook | None
    ) -> None:
        self.run = run
        self.total = total
        self.done = done
        self._progress = progress
        if progress is not None:
            progress(done, total)

        self._writing = False
        self._interrupt_pending = False
        self._partial = 0

    def tick(self, n: int) -> None:
        """n more results of the unit in progress are nearly done (answered, not yet scored
        or recorded): progress moves, `done` does not."""
        self._partial += n
        if self._progress is not None:
            self._progress(min(self.total, self.done + self._partial), self.total)

    def add(self, results: Iterable[SampleResult]) -> None:
        """Record `results` (flushed to disk before this returns) and report progress. A
        Ctrl-C that comes while they are written waits until they are, so `done` is always
        what the run folder holds."""
        batch = list(results)
        self._writing = True
        try:
            self.run.append(batch)
            self.done += len(batch)
            self._partial = 0
        finally:
            self._writing = False
        if self._interrupt_pending:
            self._interrupt_pending = False
            raise KeyboardInterrupt
        if self._progress is not None:
            self._progress(self.done, self.total)

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self._writing:
            self._interrupt_pending = True
            return
        raise KeyboardInterrupt


@contextmanager
def recording(
    run: RunFolder, total: int, *, done: int = 0, progress: ProgressHook | None = None
) -> Iterator[Recorder]:
    """A `Recorder` for `total` results of which `done` are in `run` already; a Ctrl-C
    inside becomes `Interrupted` with the count recorded by then."""
    recorder = Recorder(run, total, done, progress)
    # only the main thread receives signals; leave a handler someone else set alone
    ours = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if ours:
        signal.signal(signal.SIGINT, recorder._on_sigint)
    try:
        yield recorder
    except Interrupted:
        raise
    except KeyboardInterrupt:
        raise Interrupted(recorder.done, total) from None
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)
