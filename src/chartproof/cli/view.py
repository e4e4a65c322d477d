"""`chartproof view`: write the sample viewer page of one or more runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._progress import console


@app.command(
    epilog=examples(
        "chartproof view runs/reader",
        "chartproof view runs/a runs/b -o compare.html --images link",
    ),
)
def view(
    runs: Annotated[
        list[Path], typer.Argument(help="Run folders; the first is the baseline of comparisons.")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="HTML file (default RUN/view.html).")
    ] = None,
    images: Annotated[
        Literal["embed", "link", "none"],
        typer.Option(
            help="embed: chart thumbnails inside the file (self-contained); link: point at "
            "the dataset's image files (small file, needs the data folder); none."
        ),
    ] = "embed",
) -> None:
    """Write one self-contained HTML page listing every sample of the runs, with filters,
    search, sorting and a panel showing each sample's images, prompt, reply, gold, steps
    and scores; with several runs, a paired comparison of each against the first (deltas,
    bootstrap CIs, McNemar's test, the samples one got right and the other wrong). Opens
    offline from file://."""
    from chartproof.reports.viewer import view as write

    console.print(f"view: [bold]{write(*runs, out=out, images=images)}[/bold]")
