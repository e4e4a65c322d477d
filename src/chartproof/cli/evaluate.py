"""`chartproof eval`: evaluate a model on a dataset into a resumable run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._options import (
    DataSpec,
    Executor,
    PromptsFile,
    Quiet,
    Strict,
    UseCache,
    comma_list,
)
from chartproof.cli._progress import console, progress_bar


def _pairs(items: list[str]) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise typer.BadParameter(f"{item!r} is not key=value", param_hint="--where")
        out[key.strip()] = value.strip()
    return out or None


@app.command(
    "eval",
    epilog=examples(
        "chartproof eval -d data/chartr -o runs/reader",
        "chartproof eval -d chartqa:../ChartQA -m openai:gpt-4o@http://localhost:8000/v1 --protocol chain -o runs/gpt",
    ),
)
def evaluate(
    data: DataSpec,
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
    prompts_file: PromptsFile = None,
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
            help="Samples answered and recorded together (default: 1 for an API model, the "
            "model's own batch for a local one).",
            min=1,
        ),
    ] = None,
    max_tokens: Annotated[int, typer.Option(help="Largest reply in tokens.", min=1)] = 256,
    with_table: Annotated[bool, typer.Option(help="Give the model the gold data table.")] = False,
    cache: UseCache = True,
    strict: Strict = False,
    shuffle_choices: Annotated[
        int,
        typer.Option(help="Seeded option-order shuffles per multiple-choice sample.", min=0),
    ] = 0,
    rotate_choices: Annotated[
        bool,
        typer.Option(help="Also ask every circular rotation of the options (gold at each letter)."),
    ] = False,
    report: Annotated[bool, typer.Option(help="Write RUN/report.html at the end.")] = True,
    executor: Executor = None,
    judge: Annotated[
        str | None,
        typer.Option(
            help="Backend spec of a judge grading each answer against the gold "
            "(openai:MODEL@URL, text:smollm2); cached like every call."
        ),
    ] = None,
    judge_prompt: Annotated[
        str, typer.Option(help="The judge's prompt (name or name@version).")
    ] = "judge_answer",
    quiet: Quiet = False,
) -> None:
    """Ask MODEL every sample of DATA under a protocol and score the answers."""
    from chartproof.cli._servers import check_servers
    from chartproof.pipelines.evaluate import EvalSettings, run_evaluation
    from chartproof.runs import check_run_folder

    check_run_folder(Path(out))  # a busy or foreign --out before any connection
    check_servers(("--model", model), ("--judge", judge))

    settings = EvalSettings(
        data=data,
        model=model,
        out=out,
        protocol=protocol,
        prompt=prompt,
        prompts_file=prompts_file,
        limit=limit,
        where=_pairs(where or []),
        metrics=tuple(comma_list(metrics)),
        batch_size=batch_size,
        max_tokens=max_tokens,
        with_table=with_table,
        cache=cache,
        strict=strict,
        shuffle_choices=shuffle_choices,
        rotate_choices=rotate_choices,
        executor=executor,
        judge=judge,
        judge_prompt=judge_prompt,
    )
    parts = [f"protocol {protocol}"]
    parts += [f"prompt {prompt}"] if protocol == "direct" else []
    parts += [f"max {max_tokens} tokens", f"executor {executor or 'local'}"]
    parts += ["with the gold table"] if with_table else []
    parts += [f"metrics {metrics}"] if metrics else []
    parts += [f"where {', '.join(where)}"] if where else []
    parts += [f"limit {limit}"] if limit is not None else []
    parts += ["no cache"] if not cache else []
    header = f"eval: {model} on {data} → {out}; {', '.join(parts)}"
    with progress_bar(f"eval {protocol}", not quiet, header=header) as hook:
        record = run_evaluation(settings, progress=hook)
    summary = record.read_summary()
    for m in summary.metrics[:6]:
        shown = "n/a" if m.value is None else f"{100 * m.value:.2f} %"
        console.print(f"  {m.metric:<20} {shown}  (n={m.n})")
    from chartproof.metrics.conventions import convention_lines

    for line in convention_lines(summary.model_dump(mode="json")):
        console.print(line, highlight=False)
    counts = summary.counts
    console.print(
        f"  answered {counts.answered}, failed {counts.failed}, "
        f"cache hits {counts.cached_calls}/{counts.calls}"
    )
    if report:
        from chartproof.reports import report as write_report

        console.print(f"report: [bold]{write_report(out)}[/bold]")
    if counts.failed and not counts.answered:
        from chartproof.runs import load_run

        errors = [r.error for r in load_run(out)[1] if r.error]
        first = errors[0].splitlines()[0][:200] if errors else "no error recorded"
        from rich.markup import escape

        console.print(
            f"[red]error:[/red] every sample failed ({counts.failed}); "
            f"first error: {escape(first)}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(1)
