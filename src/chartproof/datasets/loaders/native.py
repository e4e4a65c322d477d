"""chartproof's own formats as registered loaders: the native folder (`samples.jsonl` +
images) and a Parquet file written by `save_parquet`."""

from __future__ import annotations

from pathlib import Path

from chartproof.datasets.errors import LoadResult
from chartproof.datasets.loaders._registry import register_loader

__all__ = ["load_native", "load_native_parquet"]


@register_loader("chartproof", detect=lambda p: (p / "samples.jsonl").is_file(), order=0)
def load_native(path: Path, *, strict: bool = False, check_images: bool = True) -> LoadResult:
    """A native folder (or its samples.jsonl)."""
    from chartproof.datasets.jsonl import load_samples

    return load_samples(path, strict=strict, check_images=check_images)


@register_loader("parquet")
def load_native_parquet(
    path: Path, *, strict: bool = False, images: str | None = None
) -> LoadResult:
    """A Parquet file written by `save_parquet` (images unpacked under `images`)."""
    from chartproof.datasets.parquet import load_parquet

    return load_parquet(path, strict=strict, image_dir=None if images is None else Path(images))
