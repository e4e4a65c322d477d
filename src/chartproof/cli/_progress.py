"""A rich progress bar behind the pipelines' (done, total) progress hooks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
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
from rich.text import Text

console = Console(stderr=True)


class _Rate(ProgressColumn):
    """Items per second, or seconds per item when slower than one a second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("-/s", style="progress.data.speed")
        shown = f"{speed:.1f}/s" if speed >= 1 else f"{1 / speed:.1f} s each"
        return Text(shown, style="progress.data.speed")


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """Yields a hook `(done, total)` that drives a bar on stderr (None when disabled): done of
    total, rate, time taken and time left. The bar appears at the hook's first call, so a
    command that stops before its work starts (a bad argument) leaves no empty bar."""
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
    task = bar.add_task(label, total=None)
    started = False

    def hook(done: int, total: int) -> None:
        nonlocal started
        if not started:
            bar.start()
            started = True
        bar.update(task, completed=done, total=total)

    try:
        yield hook
    finally:
        if started:
            bar.stop()
