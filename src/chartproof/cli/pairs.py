"""`chartproof pairs`: export DPO preference pairs from counterfactual families."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._progress import console


@app.command(epilog=examples("chartproof pairs -d data/qax -o pairs.jsonl"))
def pairs(
    data: Annotated[
        str, typer.Option("--data", "-d", help="Dataset generated with --counterfactuals.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSONL file to write.")],
    budget: Annotated[
        int | None, typer.Option(help="Most pairs to keep (least similar first).")
    ] = None,
    ceiling: Annotated[
        float, typer.Option(help="Drop pairs at least this similar (SSIM).")
    ] = 0.995,
    per_original: Annotated[
        int | None, typer.Option(help="Most pairs per original question.")
    ] = None,
    conversational: Annotated[
        bool, typer.Option(help="Chat-format rows instead of plain text.")
    ] = False,
) -> None:
    """Write (image, question, chosen, rejected) rows ready for TRL's DPOTrainer."""
    from chartproof.pipelines.pairs import export_pairs

    res = export_pairs(
        data,
        out,
        budget=budget,
        ceiling=ceiling,
        per_original=per_original,
        conversational=conversational,
    )
    console.print(
        f"wrote {res.written} of {res.candidates} candidate pairs to [bold]{res.path}[/bold]"
    )
