"""Command-line interface: thin wrappers that parse arguments and call pipelines.

Each command lives in its own module and registers itself on `app`; add a command by adding
a module and its name to `COMMANDS` below (the order of `chartproof --help`).
"""

from __future__ import annotations

import importlib
import signal
import sys
from types import FrameType
from typing import Any

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


def __getattr__(name: str) -> Any:
    # `app` loads with typer and rich on first use, so the console script's own import of
    # this package is cheap enough that Ctrl-C cannot land in it
    if name == "app":
        return importlib.import_module("chartproof.cli._app").app
    raise AttributeError(f"module 'chartproof.cli' has no attribute {name!r}")


class _StartupInterrupted(BaseException):
    """Ctrl-C before a command's body ran (imports, argument parsing): click would say
    "Aborted!" (exit 1), an import a traceback."""


def _stop_startup(signum: int, frame: FrameType | None) -> None:
    raise _StartupInterrupted


def main() -> None:
    """Entry point of the `chartproof` console script."""
    # until a command's body starts (`_errors.guarded` puts Python's handler back), Ctrl-C
    # is one line and exit 130 like Ctrl-C anywhere else
    signal.signal(signal.SIGINT, _stop_startup)
    try:
        import typer.main

        from chartproof.cli._app import app

        _register()
        command = typer.main.get_command(app)
        _bare_flags(command)
        command()
    except _StartupInterrupted:
        sys.stderr.write("error: interrupted before the command started; nothing was written\n")
        sys.exit(130)


def _bare_flags(command: Any) -> None:
    """On/off flags without a value placeholder in `--help` (typer shows `<bool>`)."""
    import typer

    for param in getattr(command, "params", []):
        if getattr(param, "is_flag", False) and getattr(param, "is_bool_flag", True):
            param.metavar = ""
    if hasattr(command, "get_help_option"):  # --help too (built once, on demand)
        help_option = command.get_help_option(typer.Context(command))
        if help_option is not None:
            help_option.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _bare_flags(sub)
