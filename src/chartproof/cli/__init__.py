"""Command-line interface: thin wrappers that parse arguments and call pipelines.

Each command lives in its own module and registers itself on `app`; add a command by adding
a module and its name to `COMMANDS` below (the order of `chartproof --help`).
"""

from __future__ import annotations

import importlib
from typing import Any

from chartproof.cli._app import app

__all__ = ["app", "main"]


COMMANDS = (
    "demo",
    "generate",
    "evaluate",
    "explain",
    "audit",
    "derender",
    "pairs",
    "finetune",
    "report",
    "view",
    "export",
    "cache",
    "version",
)
"""The command modules, in the order `chartproof --help` lists them: the first run, then a
benchmark's life (make, evaluate, explain, audit, redraw, train), then its outputs, then
housekeeping."""


def _register() -> None:
    # imported for their @app.command side effects, in listing order
    for name in COMMANDS:
        importlib.import_module(f"chartproof.cli.{name}")


def main() -> None:
    """Entry point of the `chartproof` console script."""
    import typer.main

    _register()
    command = typer.main.get_command(app)
    _bare_flags(command)
    command()


def _bare_flags(command: Any) -> None:
    """On/off flags without a value placeholder in `--help` (typer shows `<bool>`)."""
    for param in getattr(command, "params", []):
        if getattr(param, "is_flag", False) and getattr(param, "is_bool_flag", True):
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _bare_flags(sub)
