"""`chartproof derender`: redraw a dataset's charts as code and grow counterfactual families."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._options import DataSpec, Executor, PromptsFile, Quiet, Strict, UseCache
from chartproof.cli._progress import console, progress_bar


@app.command(
    "derender",
    epilog=examples(
        "chartproof derender -d data/qax -m builtin:reader -o redrawn --counterfactuals 10",
    ),
)
def derender(
    data: DataSpec,
    model: Annotated[str, typer.Option("--model", "-m", help="Backend spec that writes the code.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (rerun to resume).")],
    limit: Annotated[int | None, typer.Option(help="Only the first LIMIT charts.", min=0)] = None,
    counterfactuals: Annotated[
        int,
        typer.Option(
            help="Seeded data edits per faithful redraw, written as a dataset to OUT/families.",
            min=0,
        ),
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the families' questions.")] = 0,
    per_chart: Annotated[int, typer.Option(help="Questions per family chart.", min=1)] = 3,
    min_ssim: Annotated[
        float, typer.Option(help="Least SSIM to the original for a faithful redraw.")
    ] = 0.75,
    min_agreement: Annotated[
        float,
        typer.Option(help="Least share of the table's numbers the redraw's data must match."),
    ] = 0.9,
    timeout: Annotated[
        float, typer.Option(help="Seconds the model's code may run in the sandbox.", min=1)
    ] = 20.0,
    max_tokens: Annotated[int, typer.Option(help="Largest reply in tokens.", min=64)] = 2048,
    prompts_file: PromptsFile = None,
    cache: UseCache = True,
    strict: Strict = False,
    executor: Executor = None,
    quiet: Quiet = False,
) -> None:
    """Ask MODEL for matplotlib code that redraws each chart, run it in the sandbox, score the
    redraw (SSIM, data agreement) and keep faithful ones as chart specs."""
    from chartproof.cli._servers import check_servers
    from chartproof.pipelines.derender import DerenderSettings, run_derender
    from chartproof.pipelines.derender_code import DerenderConfig
    from chartproof.sandbox import SandboxPolicy

    check_servers(("--model", model))

    base = SandboxPolicy()
    try:
        config = DerenderConfig(
            min_ssim=min_ssim,
            min_data_agreement=min_agreement,
            max_tokens=max_tokens,
            policy=base.model_copy(update={"timeout_s": timeout}),
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    settings = DerenderSettings(
        data=data,
        model=model,
        out=out,
        config=config,
        limit=limit,
        counterfactuals=counterfactuals,
        seed=seed,
        per_chart=per_chart,
        prompts_file=prompts_file,
        cache=cache,
        strict=strict,
        executor=executor,
    )
    header = (
        f"derender: {model} on {data} → {out}; min SSIM {min_ssim}, min data agreement "
        f"{min_agreement}, {counterfactuals} counterfactuals per faithful chart"
    )
    with progress_bar("derender", not quiet, header=header, unit="charts") as hook:
        result = run_derender(settings, progress=hook)
    overall = result.summary["overall"]
    status = ", ".join(f"{k} {v}" for k, v in overall["status"].items())
    console.print(
        f"  {result.charts} charts ({result.asked} asked now): {status}; "
        f"faithful {overall['faithful']}"
    )
    for kind, row in result.summary["by_chart_type"].items():
        ssim = "-" if row["ssim"] is None else f"{row['ssim']:.3f}"
        agree = "-" if row["data_agreement"] is None else f"{row['data_agreement']:.3f}"
        console.print(
            f"  {kind:<12} {row['charts']:>4} charts  faithful {row['faithful']:>4}  "
            f"SSIM {ssim}  data agreement {agree}"
        )
    if result.families is not None:
        fam = result.families
        console.print(
            f"families: {fam.charts} originals, {fam.samples} samples in [bold]{fam.folder}[/bold]"
        )
    console.print(f"run: [bold]{result.folder / 'run'}[/bold]")
