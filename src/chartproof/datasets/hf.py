"""Export of samples to a Hugging Face `datasets.Dataset` with an `Image` feature, for
training and for sharing; `datasets` is an optional extra imported on use."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chartproof.datasets.images import resolve_image
from chartproof.datasets.parquet import (
    EXPORT_COLUMNS,
    IMAGE_COLUMNS,
    JSON_FIELDS,
    OPTIONAL_FIELDS,
    SCALAR_FIELDS,
    sample_columns,
)
from chartproof.types import Sample

__all__ = ["samples_from_hf", "to_hf_dataset"]

_MISSING = "Hugging Face export needs the `datasets` package: pip install 'chartproof[datasets]'"


def to_hf_dataset(samples: Iterable[Sample], root: Path) -> Any:
    """A `datasets.Dataset` with one row per sample.

    Columns: `image` (an `Image` feature, decoded to PIL on access, loaded from dataset
    folder `root`), `more_images` (a sequence of `Image`: a multi-chart question's other
    images in order, empty for one chart), `answer_text` (the gold answer as a model would write it),
    `answer_kind`, the scalar fields of `Sample` as strings, and its nested records as JSON
    text (`NAME_json`): the columns of `save_parquet`'s files (`EXPORT_COLUMNS`), so one
    schema serves both, and `samples_from_hf` restores the samples exactly.
    """
    try:
        import datasets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(_MISSING) from exc
    columns: dict[str, list[Any]] = {name: [] for name in EXPORT_COLUMNS}
    for s in samples:
        row = sample_columns(s)
        row["image"] = str(resolve_image(root, s.image))
        row["more_images"] = [str(resolve_image(root, m)) for m in s.more_images]
        for name in EXPORT_COLUMNS:
            columns[name].append(row[name])
    many = datasets.Sequence(datasets.Image())  # List(Image()) in datasets >= 4
    features = datasets.Features(
        {
            name: datasets.Image()
            if name == "image"
            else many
            if name == "more_images"
            else datasets.Value("string")
            for name in columns
        }
    )
    return datasets.Dataset.from_dict(columns, features=features)


def samples_from_hf(dataset: Any) -> list[Sample]:
    """The samples of a dataset made by `to_hf_dataset` (images are not read)."""
    import json

    images = [c for c in IMAGE_COLUMNS if c in dataset.column_names]
    plain = dataset.remove_columns(images) if images else dataset
    out: list[Sample] = []
    for row in plain:
        data: dict[str, Any] = {name: row[name] for name in SCALAR_FIELDS}
        for name in JSON_FIELDS:
            data[name] = json.loads(row.get(f"{name}_json") or OPTIONAL_FIELDS.get(name, "null"))
        out.append(Sample.model_validate(data))
    return out
