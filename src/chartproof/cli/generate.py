"""`chartproof generate`: build a synthetic benchmark folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chartproof.charts.suites import SUITES
from chartproof.cli._app import app, examples
from chartproof.cli._options import Executor, Quiet, comma_list
from chartproof.cli._progress import console, progress_bar


@app.command(
    epilog=examples(
        "chartproof generate --suite chartr --n 200 --out data/chartr",
        "chartproof generate --suite chartqax --n 50 --variants blur:3,watermark --out data/qax",
    ),
)
def generate(
    out: Annotated[Path, typer.Option("--out", "-o", help="Dataset folder to write.")],
    suite: Annotated[str, typer.Option(help=f"Suite: {', '.join(SUITES)}.")] = "chartr",
    n: Annotated[int, typer.Option("--n", help="Number of charts.", min=1)] = 200,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same folder.")] = 0,
    per_chart: Annotated[int, typer.Option(help="Questions per chart.", min=1)] = 3,
    families: Annotated[
        str | None, typer.Option(help="Comma-separated question families (default: all).")
    ] = None,
    variants: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated perturbations, e.g. blur,noise,watermark,label_removal; "
            "NAME:N sweeps one perturbation to its own top level N."
        ),
    ] = None,
    levels: Annotated[
        int | None,
        typer.Option(
            help="Intensity levels 1..LEVELS per perturbation (default: every level each "
            "defines); a level a perturbation lacks is an error.",
            min=1,
        ),
    ] = None,
    premises: Annotated[bool, typer.Option(help="Attach VPP premise sequences.")] = True,
    counterfactuals: Annotated[
        int, typer.Option(help="Counterfactual data edits per chart (0 = no families).", min=0)
    ] = 0,
    chains: Annotated[
        int | None,
        typer.Option(
            help="ChartR reasoning chains per chart, counted in --per-chart (default: the "
            "suite's, 1 for chartr).",
            min=0,
        ),
    ] = None,
    choices: Annotated[
        int,
        typer.Option(help="Also ask each question as multiple choice with up to CHOICES options."),
    ] = 0,
    workers: Annotated[
        int | None, typer.Option(help="Worker processes (shorthand for --executor local:N).")
    ] = None,
    executor: Executor = None,
    quiet: Quiet = False,
) -> None:
    """Render a seeded suite of charts with questions, chains, premises and explanations."""
    from chartproof.pipelines.generate import GenerateSettings
    from chartproof.pipelines.generate import generate as run

    _check_out(out)
    settings = GenerateSettings(
        suite=suite,
        n=n,
        out=out,
        seed=seed,
        per_chart=per_chart,
        families=tuple(comma_list(families)) or None,
        variants=tuple(comma_list(variants)),
        levels=levels,
        premises=premises,
        counterfactuals=counterfactuals,
        chains=chains,
        choices=choices,
        workers=workers,
        executor=executor,
    )
    header = (
        f"generate: {suite} suite, seed {seed}, {per_chart} questions per chart"
        + (f", variants {variants}" if variants else "")
        + f" → {out}"
    )
    with progress_bar(f"generate {suite}", not quiet, header=header, unit="charts") as hook:
        result = run(settings, progress=hook)
    console.print(
        f"wrote {result.samples} samples on {result.charts} charts"
        + (f" and {result.variants} variant images" if result.variants else "")
        + f" to [bold]{result.folder}[/bold]"
    )


def _check_out(out: Path) -> None:
    """Refuse to write a dataset into a folder of unrelated files (a typo in --out, a run
    folder): it must be new, empty, or hold only what `generate` writes (to write it again,
    or finish one that was stopped), as `eval` refuses such a run folder."""
    from chartproof.datasets.jsonl import SAMPLES_FILE
    from chartproof.pipelines.generate import DAGS, MANIFEST

    if not out.exists():
        return
    if not out.is_dir():
        raise NotADirectoryError(f"--out {out} is a file; use a new or empty folder")
    own = {MANIFEST, DAGS, SAMPLES_FILE, "images", f".{DAGS}.partial", f".{SAMPLES_FILE}.partial"}
    foreign = sorted(p.name for p in out.iterdir() if p.name not in own)
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if foreign[3:] else "")
        raise ValueError(
            f"output folder {out} holds files that are not a chartproof dataset ({shown}); "
            "use a new or empty folder (or one generate wrote, to write it again)"
        )
