"""`chartproof demo`: the whole pipeline on built-in offline defaults."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._options import Executor
from chartproof.cli._progress import console, progress_bar


@app.command(epilog=examples("chartproof demo", "chartproof demo --n 4 --out /tmp/demo"))
def demo(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for data, runs and report.")
    ] = Path("demo-output"),
    model: Annotated[
        str, typer.Option("--model", "-m", help="Backend spec to evaluate.")
    ] = "builtin:reader",
    n: Annotated[int, typer.Option("--n", help="Charts to generate.", min=1)] = 16,
    executor: Executor = None,
) -> None:
    """Generate a small suite, evaluate a model on it (direct, chain, premise), redraw charts
    as code and evaluate counterfactual families grown from them, and report."""
    from chartproof.cli._servers import check_servers
    from chartproof.pipelines.demo import DemoSettings
    from chartproof.pipelines.demo import demo as run

    check_servers(("--model", model))

    start = time.monotonic()
    settings = DemoSettings(out=out, model=model, n=n, executor=executor)
    result = run(
        settings,
        say=lambda text: console.print(text),
        progress=lambda label: progress_bar(label),
    )
    console.print(f"done in {time.monotonic() - start:.0f} s")
    console.print(f"report: [bold]{result.report.resolve()}[/bold]")
    if result.audit is not None:
        console.print(f"bias audit: [bold]{result.audit.resolve()}[/bold]")
