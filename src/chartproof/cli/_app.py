"""The typer application every command module registers on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="chartproof",
    help="Trustworthy chart question answering: generate, evaluate, explain, report.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)
