"""`chartproof export`: write a dataset as Parquet or as a Hugging Face `datasets` folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from chartproof.cli._app import app, examples
from chartproof.cli._progress import console


@app.command(
    epilog=examples(
        "chartproof export -d data/chartr -o chartr.parquet",
        "chartproof export -d data/chartr --to hf -o chartr-hf",
    ),
)
def export(
    data: Annotated[str, typer.Option("--data", "-d", help="Dataset folder or spec to read.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Parquet file, or folder for --to hf.")],
    to: Annotated[Literal["parquet", "hf"], typer.Option(help="Output format.")] = "parquet",
    embed_images: Annotated[
        bool, typer.Option(help="Parquet: store image bytes in the file.")
    ] = True,
    strict: Annotated[bool, typer.Option(help="Stop at the first bad row.")] = False,
) -> None:
    """Convert a dataset; bad rows are reported (never silently dropped)."""
    from chartproof.datasets import load_dataset, save_parquet, to_hf_dataset

    loaded = load_dataset(data, strict=strict)
    if loaded.errors:
        console.print(loaded.summary())
    if to == "parquet":
        save_parquet(loaded.samples, out, embed_images=embed_images, root=loaded.root)
    else:
        to_hf_dataset(loaded.samples, loaded.root).save_to_disk(str(out))
    console.print(f"wrote {len(loaded.samples)} samples to [bold]{out}[/bold]")
