"""A rich progress bar behind the pipelines' (done, total) progress hooks."""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.status import Status
from rich.text import Text

from chartproof.models.base import announcing_loads

console = Console(stderr=True)


class _Rate(ProgressColumn):
    """Items per second, or seconds per item when slower than one a second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        start = task.fields.get("start_at", 0)
        if not speed and task.elapsed and task.completed > start:
            speed = (task.completed - start) / task.elapsed
        if not speed:
            return Text("-/s", style="progress.data.speed")
        shown = f"{speed:.1f}/s" if speed >= 1 else f"{1 / speed:.1f} s each"
        return Text(shown, style="progress.data.speed")


# what third-party libraries read to keep their own progress bars and chatter off
_QUIET_ENV = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    "TQDM_DISABLE": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "DATASETS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
_QUIET_LOGGERS = ("transformers", "datasets", "huggingface_hub", "accelerate", "peft", "trl")


_VERBOSE = [False]


def set_verbose(on: bool) -> None:
    """`--verbose` (on) or not, for this command: with it, other libraries keep their output
    and a model load is announced by a line instead of a spinner (whose live display would
    swallow their progress bars); without it, they are silenced (`quiet_third_party`)."""
    _VERBOSE[0] = on
    if not on:
        quiet_third_party()


def quiet_third_party() -> None:
    """Silence other libraries' progress bars (transformers' "Loading weights", tqdm,
    datasets), their warnings and their info logging, here and in worker processes (which
    inherit the environment); chartproof's own warnings stay. `--verbose` skips this."""
    for key, value in _QUIET_ENV.items():
        os.environ.setdefault(key, value)
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    warnings.filterwarnings("default", module=r"chartproof(\..*)?$")


@contextmanager
def progress_bar(
    label: str,
    enabled: bool = True,
    *,
    header: str | Callable[[], str] | None = None,
    unit: str = "samples",
) -> Iterator[Callable[[int, int], None] | None]:
    """Yields a hook `(done, total)` that drives a bar on stderr (None when disabled): done of
    total, rate, time taken and time left. At the hook's first call, `header` (what will
    run; a function when part of it is known only then) is printed with the number of `unit`
    to do, then the bar appears, so a command that stops before its work starts (a bad
    argument) leaves no empty bar. While a model loads inside, a spinner says so."""
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _Rate(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task(label, total=None, start_at=0)
    started = False

    def hook(done: int, total: int) -> None:
        nonlocal started
        if not started:
            if header is not None:
                said = header() if callable(header) else header
                resumed = f", {done} done already (resuming)" if done else ""
                console.print(f"{said}: {total} {unit}{resumed}", highlight=False)
            # the clock (rate, time taken, eta) starts with the work, not with the loading
            bar.reset(task, total=total, completed=done, start_at=done)
            bar.start()
            started = True
        bar.update(task, completed=done, total=total)

    try:
        with announcing_loads(_announce):
            yield hook
    finally:
        if started:
            bar.stop()


@contextmanager
def _announce(spec: str) -> Iterator[None]:
    """A "loading SPEC ..." spinner while a model loads, then the time it took."""
    from rich.errors import LiveError

    start = time.monotonic()
    status = console.status(f"loading {escape(spec)} ...", spinner="dots")
    shown: Status | None = None if _VERBOSE[0] else status
    try:
        if shown is not None:
            shown.start()
    except LiveError:  # another live display (a stage's bar) holds the terminal
        shown = None
    if shown is None:
        console.print(f"loading {escape(spec)} ...", highlight=False)
    try:
        yield
    finally:
        if shown is not None:
            shown.stop()
    console.print(f"loaded {escape(spec)} in {time.monotonic() - start:.1f} s", highlight=False)
