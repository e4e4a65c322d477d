"""`chartproof cache stats|clear`: inspect and empty the model response cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import App, app

cache_app = App(
    name="cache",
    help="Inspect or clear the model response cache (SQLite; $CHARTPROOF_CACHE overrides).",
    no_args_is_help=True,
)
app.add_typer(cache_app)

PathOption = Annotated[
    Path | None,
    typer.Option("--path", help="Cache file (default: $CHARTPROOF_CACHE or ~/.cache/chartproof)."),
]


@cache_app.command("stats")
def stats(
    path: PathOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show entries, size, logged hits and misses, and entries per model."""
    from chartproof.models.cache import ResponseCache, default_cache_path

    target = path or default_cache_path()
    if not target.exists():
        typer.echo(f"no response cache at {target}")
        return
    cache = ResponseCache(target, audit=False)
    s = cache.stats()
    cache.close()
    if as_json:
        typer.echo(json.dumps(s.model_dump(mode="json"), indent=2))
        return
    typer.echo(f"cache:   {s.path}")
    typer.echo(f"entries: {s.entries}")
    typer.echo(f"size:    {s.size_bytes / 1e6:.2f} MB")
    typer.echo(f"lookups logged: {s.logged_hits} hits, {s.logged_misses} misses")
    for model, m in s.per_model.items():
        typer.echo(f"  {model}: {m.entries} entries")


@cache_app.command("clear")
def clear(
    path: PathOption = None,
    model: Annotated[str | None, typer.Option("--model", help="Only this model's entries.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete cached responses (all, or one model's)."""
    from chartproof.models.cache import ResponseCache, default_cache_path

    target = path or default_cache_path()
    if not target.exists():
        typer.echo(f"no response cache at {target}")
        return
    what = f"the cached responses of {model!r}" if model else "every cached response"
    if not yes and not typer.confirm(f"Delete {what} in {target}?"):
        raise typer.Exit(1)
    cache = ResponseCache(target)
    n = cache.clear(model)
    cache.close()
    typer.echo(f"deleted {n} cached responses from {target}")
