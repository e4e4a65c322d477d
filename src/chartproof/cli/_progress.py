"""A rich progress bar behind the pipelines' (done, total) progress hooks."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
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


@contextmanager
def exit_on_bad_input() -> Iterator[None]:
    """Turn a pipeline's ValueError (bad dataset, mismatched run folder, ...), a run folder
    another process holds, or a missing sandbox into one red line and exit status 2, instead
    of a traceback."""
    from chartproof.runs import RunBusyError
    from chartproof.sandbox.runner import IsolationUnavailable

    try:
        yield
    except (ValueError, RunBusyError, IsolationUnavailable) as exc:
        from rich.markup import escape

        console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
