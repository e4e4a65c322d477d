"""A rich progress bar behind the pipelines' (done, total) progress hooks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

console = Console(stderr=True)


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """Yields a hook `(done, total)` that drives a bar on stderr (None when disabled)."""
    if not enabled:
        yield None
        return
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task(label, total=None)

        def hook(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield hook
