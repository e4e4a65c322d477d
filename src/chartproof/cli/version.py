"""`chartproof version`: print the installed version."""

from __future__ import annotations

import typer

from chartproof.cli._app import app, examples


@app.command(epilog=examples("chartproof version", "chartproof --version"))
def version() -> None:
    """Print chartproof's version."""
    from chartproof import __version__

    typer.echo(__version__)
