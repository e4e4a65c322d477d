"""Dataset IO: chartproof's native folders (samples.jsonl + images), Parquet, Hugging Face
export, loaders for real datasets, image hashes and dataset fingerprints.

Every reader reports a bad row as a `RowError` naming file, line and field (collected in
`LoadResult.errors`, or raised as `DatasetError` with `strict=True`); none drops one silently.
"""

from __future__ import annotations

from chartproof.datasets.answers import type_answer
from chartproof.datasets.errors import DatasetError, LoadResult, RowError
from chartproof.datasets.hf import samples_from_hf, to_hf_dataset
from chartproof.datasets.images import (
    dataset_fingerprint,
    hash_image,
    resolve_image,
    with_image_hashes,
)
from chartproof.datasets.jsonl import (
    IMAGES_DIR,
    SAMPLES_FILE,
    SampleWriter,
    iter_samples,
    load_samples,
    save_samples,
)
from chartproof.datasets.loaders import (
    LOADERS,
    FieldMap,
    detect_format,
    load_chartbench,
    load_chartqa,
    load_chartqapro,
    load_chartqax,
    load_chartx,
    load_charxiv,
    load_csv,
    load_dataset,
    load_dvqa,
    load_evochart,
    load_figureqa,
    load_hf_folder,
    load_json,
    load_jsonl,
    load_opencqa,
    load_plotqa,
    load_realcqa,
    load_shared,
    parse_data_spec,
    register_loader,
)
from chartproof.datasets.parquet import EXPORT_COLUMNS, load_parquet, save_parquet

__all__ = [
    "EXPORT_COLUMNS",
    "IMAGES_DIR",
    "LOADERS",
    "SAMPLES_FILE",
    "DatasetError",
    "FieldMap",
    "LoadResult",
    "RowError",
    "SampleWriter",
    "dataset_fingerprint",
    "detect_format",
    "hash_image",
    "iter_samples",
    "load_chartbench",
    "load_chartqa",
    "load_chartqapro",
    "load_chartqax",
    "load_chartx",
    "load_charxiv",
    "load_csv",
    "load_dataset",
    "load_dvqa",
    "load_evochart",
    "load_figureqa",
    "load_hf_folder",
    "load_json",
    "load_jsonl",
    "load_opencqa",
    "load_parquet",
    "load_plotqa",
    "load_realcqa",
    "load_samples",
    "load_shared",
    "parse_data_spec",
    "register_loader",
    "resolve_image",
    "samples_from_hf",
    "save_parquet",
    "save_samples",
    "to_hf_dataset",
    "type_answer",
    "with_image_hashes",
]
