"""`chartproof eval`: evaluate a model on a dataset into a resumable run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import app
from chartproof.cli._progress import console, progress_bar
from chartproof.executors.spec import EXECUTOR_HELP


def _pairs(items: list[str]) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise typer.BadParameter(f"{item!r} is not key=value", param_hint="--where")
        out[key.strip()] = value.strip()
    return out or None


@app.command("eval")
def evaluate(
    data: Annotated[
        str, typer.Option("--data", "-d", help="Dataset folder or spec (e.g. chartqa:/path).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder (rerun to resume).")],
    model: Annotated[
        str,
        typer.Option(
            "--model", "-m", help="Backend spec: builtin:reader, openai:MODEL@URL, hf:/path."
        ),
    ] = "builtin:reader",
    protocol: Annotated[str, typer.Option(help="direct, chain or premise.")] = "direct",
    prompt: Annotated[
        str, typer.Option(help="Prompt of the direct protocol (name or name@version).")
    ] = "chartqax",
    prompts_file: Annotated[
        Path | None, typer.Option(help="Extra prompt templates (TOML/JSON).")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first LIMIT samples.")] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(
            help="Keep samples whose group label matches, e.g. perturbation=original (repeatable)."
        ),
    ] = None,
    metrics: Annotated[
        str | None, typer.Option(help="Explanation metrics to add: roscoe,ngram.")
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(
            help="Samples per model batch (default: 4x the backend's concurrency, at least 16).",
            min=1,
        ),
    ] = None,
    max_tokens: Annotated[int, typer.Option(help="Largest reply in tokens.", min=1)] = 256,
    with_table: Annotated[bool, typer.Option(help="Give the model the gold data table.")] = False,
    cache: Annotated[bool, typer.Option(help="Use the response cache.")] = True,
    strict: Annotated[bool, typer.Option(help="Stop at the first bad dataset row.")] = False,
    report: Annotated[bool, typer.Option(help="Write RUN/report.html at the end.")] = True,
    executor: Annotated[str | None, typer.Option(help=EXECUTOR_HELP)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Ask MODEL every sample of DATA under a protocol and score the answers."""
    from chartproof.pipelines.evaluate import evaluate as run

    with progress_bar(f"eval {protocol}", not quiet) as hook:
        record = run(
            data,
            model,
            out,
            protocol=protocol,
            prompt=prompt,
            prompts_file=prompts_file,
            limit=limit,
            where=_pairs(where or []),
            metrics=[m.strip() for m in (metrics or "").split(",") if m.strip()],
            batch_size=batch_size,
            max_tokens=max_tokens,
            with_table=with_table,
            cache=cache,
            strict=strict,
            executor=executor,
            progress=hook,
        )
    for m in record.summary.get("metrics", [])[:6]:
        value = m["value"]
        shown = "n/a" if value is None else f"{100 * value:.2f} %"
        console.print(f"  {m['metric']:<20} {shown}  (n={m['n']})")
    counts = record.summary.get("counts", {})
    console.print(
        f"  answered {counts.get('answered', 0)}, failed {counts.get('failed', 0)}, "
        f"cache hits {counts.get('cached_calls', 0)}/{counts.get('calls', 0)}"
    )
    if report:
        from chartproof.reports import report as write_report

        console.print(f"report: [bold]{write_report(out)}[/bold]")
