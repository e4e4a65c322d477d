"""`chartproof cache stats|clear|readings`: inspect and empty the model response cache and the
built-in reader's chart readings on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import App, app, examples

cache_app = App(
    name="cache",
    help="Inspect or clear the response cache (SQLite; $CHARTPROOF_CACHE) and stored chart readings.",
    no_args_is_help=True,
)
app.add_typer(cache_app)

PathOption = Annotated[
    Path | None,
    typer.Option("--path", help="Cache file (default: $CHARTPROOF_CACHE or ~/.cache/chartproof)."),
]


@cache_app.command("stats", epilog=examples("chartproof cache stats"))
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


@cache_app.command("clear", epilog=examples("chartproof cache clear"))
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


@cache_app.command("readings", epilog=examples("chartproof cache readings"))
def readings(
    clear_them: Annotated[
        bool, typer.Option("--clear", help="Delete the stored readings.")
    ] = False,
    stale: Annotated[
        bool,
        typer.Option("--stale", help="With --clear: only those of older reader versions."),
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Show (or delete) the built-in reader's chart readings kept on disk
    ($CHARTPROOF_READINGS, else beside the response cache), per reader version."""
    from chartproof.reader.backend import reader_revision
    from chartproof.reader.readings import clear_readings, readings_dir, readings_usage

    root = readings_dir()
    current = reader_revision()
    usage = readings_usage(root)
    if not clear_them:
        typer.echo(f"readings: {root}")
        if not usage:
            typer.echo("  none stored")
        for revision, (count, size) in usage.items():
            mark = "  (this reader)" if revision == current else ""
            typer.echo(f"  {revision}: {count} readings, {size / 1e6:.2f} MB{mark}")
        return
    what = "the readings of older reader versions" if stale else "every stored reading"
    if not yes and not typer.confirm(f"Delete {what} in {root}?"):
        raise typer.Exit(1)
    n = clear_readings(root, keep=current if stale else None)
    typer.echo(f"deleted {n} stored readings from {root}")
