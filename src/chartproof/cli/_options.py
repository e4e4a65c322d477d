"""Command-line options several commands share, declared once (typer `Annotated` aliases) so
they read and behave the same in every command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, TypeAlias

import typer

from chartproof.executors.spec import EXECUTOR_HELP

__all__ = ["DataSpec", "Executor", "PromptsFile", "Quiet", "Strict", "UseCache", "comma_list"]

DataSpec: TypeAlias = Annotated[
    str, typer.Option("--data", "-d", help="Dataset folder or spec (e.g. chartqa:/path).")
]
"""The dataset to read."""

PromptsFile: TypeAlias = Annotated[
    Path | None, typer.Option(help="Extra prompt templates (TOML/JSON).")
]
"""Extra prompt templates."""

UseCache: TypeAlias = Annotated[bool, typer.Option(help="Use the response cache.")]
"""Whether model replies go through the response cache."""

Strict: TypeAlias = Annotated[bool, typer.Option(help="Stop at the first bad dataset row.")]
"""Stop at the first bad row instead of reporting it and going on."""

Quiet: TypeAlias = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
"""No progress bar."""

Executor: TypeAlias = Annotated[str | None, typer.Option(help=EXECUTOR_HELP)]
"""Where CPU-bound work runs (`chartproof.executors`); None: the command's default."""


def comma_list(text: str | None) -> list[str]:
    """The items of a comma-separated option value, stripped, empty ones dropped ([] for None)."""
    return [t.strip() for t in (text or "").split(",") if t.strip()]
