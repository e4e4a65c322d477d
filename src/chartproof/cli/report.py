"""`chartproof report`: write the HTML report of one or more runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._progress import console


@app.command(
    epilog=examples(
        "chartproof report runs/reader",
        "chartproof report runs/a runs/b -o compare.html",
    ),
)
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run folders (the first one is detailed).")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="HTML file (default RUN/report.html).")
    ] = None,
) -> None:
    """Write one self-contained HTML report."""
    from chartproof.reports import report as run

    console.print(f"report: [bold]{run(*runs, out=out)}[/bold]")
