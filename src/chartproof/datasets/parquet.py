"""Parquet round trip of samples, optionally with the image bytes embedded, for sharing a
dataset as one file and for column-wise analysis (pyarrow, imported on use).

Layout ("samples/3", the Hugging Face export's columns, `EXPORT_COLUMNS`): one row per
sample. `image` is a Hugging Face `Image` cell (a struct of `bytes`, the image file when
embedded, and `path`, the sample's image path), declared as an `Image` feature in the
file's `huggingface` metadata, so `datasets.load_dataset("parquet", ...)` decodes it;
`more_images` is the ordered list of a multi-chart question's other images (a sequence of
`Image` cells, empty for a one-chart sample: the sample's images are `image` followed by
`more_images`, their `ImageRef`s in `more_images_json`);
`answer_text` and `answer_kind` spell the gold answer out; the top-level scalar fields of
`Sample` (id, question, chart_type, question_type, task_type, program, explanation, split,
parent_id, family_id, pair_id) are native string columns; every nested record (image,
answer, table, spec, chain, premises, groups, transforms, source, choices, more_images) is a JSON text
column `NAME_json` holding exactly what `samples.jsonl` holds for that field. JSON columns
rather than Arrow structs because the records are recursive and union-typed (answer
values, table cells, premise ASTs): structs would need a schema per union and lose the
bool/float/str distinction, while JSON text round-trips losslessly through the same
pydantic validation as JSONL. Files of the earlier layouts still load: "samples/2" (no
`more_images` columns: one image a row) and "samples/1" (JSON columns named by the field,
an optional `image_bytes` column).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from chartproof.datasets.embedded import default_image_cache
from chartproof.datasets.errors import LoadResult, RowError, RowLog, validation_message
from chartproof.datasets.images import check_image, resolve_image
from chartproof.datasets.jsonl import gc_paused
from chartproof.types import ImageRef, Sample

__all__ = [
    "EXPORT_COLUMNS",
    "IMAGE_BYTES",
    "JSON_FIELDS",
    "OPTIONAL_FIELDS",
    "SCALAR_FIELDS",
    "load_parquet",
    "sample_columns",
    "save_parquet",
]

SCALAR_FIELDS = (
    "id", "question", "chart_type", "question_type", "task_type", "program",
    "explanation", "split", "parent_id", "family_id", "pair_id",
)  # fmt: skip
"""Sample fields stored as native string columns."""

JSON_FIELDS = (
    "image", "answer", "table", "spec", "chain", "premises", "groups", "transforms", "source",
    "choices", "more_images",
)  # fmt: skip
"""Sample fields stored as JSON text columns."""

OPTIONAL_FIELDS = {"choices": "[]", "more_images": "[]"}
"""Columns added after files were first written, and the value a file without one means."""

IMAGE_BYTES = "image_bytes"
"""Name of the binary column of embedded image files in "samples/1" files (and of the
image bytes in a row as read)."""

MORE_IMAGE_BYTES = "more_image_bytes"
"""Key of the embedded files of a row's `more_images` (a list, in order) in a row as read."""

IMAGE_COLUMNS = ("image", "more_images")
"""The image columns of the export: the first image, and the list of the others."""

EXPORT_COLUMNS = (
    *IMAGE_COLUMNS, "answer_text", "answer_kind", *SCALAR_FIELDS,
    *(f"{n}_json" for n in JSON_FIELDS),
)  # fmt: skip
"""The columns of a Parquet file and of a Hugging Face export, in order."""

_IMAGES_KEY = b"chartproof.images"
"""Schema metadata saying whether the `image` cells hold the files ("embedded")."""

_BATCH = 1024


def _schema(embed: bool) -> Any:
    import pyarrow as pa

    image = pa.struct([pa.field("bytes", pa.binary()), pa.field("path", pa.string())])
    fields = [pa.field("image", image), pa.field("more_images", pa.list_(image))]
    text = EXPORT_COLUMNS[len(IMAGE_COLUMNS) :]
    fields += [pa.field(name, pa.string()) for name in text]
    features: dict[str, Any] = {
        "image": {"_type": "Image"},
        # "Sequence" of images: read by every `datasets` (>= 4 shows it as List(Image()))
        "more_images": {"_type": "Sequence", "feature": {"_type": "Image"}},
    }
    features |= {name: {"dtype": "string", "_type": "Value"} for name in text}
    hf = {"info": {"features": features}}
    meta = {
        b"chartproof": b"samples/3",
        _IMAGES_KEY: b"embedded" if embed else b"paths",
        b"huggingface": json.dumps(hf).encode("utf-8"),
    }
    return pa.schema(fields, metadata=meta)


def sample_columns(sample: Sample) -> dict[str, Any]:
    """One sample as a row of the export layout, less the image cells: the gold answer
    spelt out, scalar fields as they are, nested records as JSON text (`NAME_json`)."""
    data = sample.model_dump(mode="json")
    data.setdefault("more_images", [])  # left out of a one-chart sample's record
    row: dict[str, Any] = {"answer_text": sample.answer.text(), "answer_kind": sample.answer.kind}
    row.update({name: data[name] for name in SCALAR_FIELDS})
    for name in JSON_FIELDS:
        row[f"{name}_json"] = json.dumps(data[name], ensure_ascii=False)
    return row


def save_parquet(
    samples: Iterable[Sample],
    path: Path,
    *,
    embed_images: bool = False,
    root: Path | None = None,
    batch_size: int = _BATCH,
) -> Path:
    """Write samples to one Parquet file in batches (memory stays flat for large sets).

    With `embed_images`, each image is read from dataset folder `root` into `image_bytes`.
    Duplicate ids raise ValueError naming the id.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if embed_images and root is None:
        raise ValueError("embed_images needs the dataset folder `root` the image paths are in")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    schema = _schema(embed_images)
    partial = path.with_name(f".{path.name}.partial")
    seen: set[str] = set()
    try:
        with pq.ParquetWriter(partial, schema, compression="zstd") as writer:
            batch: list[dict[str, Any]] = []
            for s in samples:
                if s.id in seen:
                    raise ValueError(f"duplicate sample id {s.id!r} while writing {path}")
                seen.add(s.id)
                row = sample_columns(s)
                cells = [_image_cell(ref, root if embed_images else None) for ref in s.images]
                row["image"], row["more_images"] = cells[0], cells[1:]
                batch.append(row)
                if len(batch) >= batch_size:
                    writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                    batch = []
            if batch or not seen:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def _image_cell(ref: ImageRef, root: Path | None) -> dict[str, Any]:
    """A Hugging Face `Image` cell: the file's bytes when `root` is given, and the path."""
    data = resolve_image(root, ref).read_bytes() if root is not None else None
    return {"bytes": data, "path": ref.path}


def _iter_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    names = pf.schema_arrow.names
    if "image_json" in names:
        yield from _iter_export_rows(pf, path)
        return
    missing = [
        n for n in (*SCALAR_FIELDS, *JSON_FIELDS) if n not in names and n not in OPTIONAL_FIELDS
    ]
    if missing:
        raise ValueError(f"{path} is not a chartproof samples file: no columns {missing}")
    defaults = {k: v for k, v in OPTIONAL_FIELDS.items() if k not in names}
    number = 0
    for batch in pf.iter_batches(batch_size=_BATCH):
        for row in batch.to_pylist():
            number += 1
            yield number, {**defaults, **row} if defaults else row


def _iter_export_rows(pf: Any, path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows of a "samples/2" file in the shape of the first layout: JSON columns by field
    name, the embedded file (if any) under `IMAGE_BYTES`."""
    names = pf.schema_arrow.names
    missing = [
        c
        for c in EXPORT_COLUMNS
        if c not in names and c.removesuffix("_json") not in OPTIONAL_FIELDS
    ]
    if missing:
        raise ValueError(f"{path} is not a chartproof samples file: no columns {missing}")
    number = 0
    for batch in pf.iter_batches(batch_size=_BATCH):
        for cells in batch.to_pylist():
            number += 1
            row: dict[str, Any] = {name: cells.get(name) for name in SCALAR_FIELDS}
            for name in JSON_FIELDS:
                row[name] = cells.get(f"{name}_json", OPTIONAL_FIELDS.get(name))
            image = cells.get("image")
            row[IMAGE_BYTES] = image.get("bytes") if isinstance(image, dict) else None
            more = cells.get("more_images") or []
            row[MORE_IMAGE_BYTES] = [m.get("bytes") if isinstance(m, dict) else None for m in more]
            yield number, row


def load_parquet(
    path: Path,
    *,
    strict: bool = False,
    image_dir: Path | None = None,
    check_images: bool = False,
) -> LoadResult:
    """Read samples written by `save_parquet`; bad rows are reported by row number.

    Embedded images (an `image_bytes` column) are written at each sample's image path into
    `image_dir`, or, without one, into a cache folder named by the file's SHA-256
    (`default_image_cache()/parquet/...`), which becomes the result's root: such a file
    evaluates as it is. Without embedded images the root is the Parquet file's folder, and
    `check_images` verifies each image exists there.
    """
    path = Path(path)
    if image_dir is None and _has_image_bytes(path):
        image_dir = default_image_cache() / "parquet" / _file_digest(path)[:32]
    root = Path(image_dir) if image_dir is not None else path.parent
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    with gc_paused():
        for number, row in _iter_rows(path):
            sample = _checked_sample(row, number, path, root, image_dir, check_images, log, seen)
            if sample is not None:
                samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)


def _checked_sample(
    row: dict[str, Any],
    number: int,
    path: Path,
    root: Path,
    image_dir: Path | None,
    check_images: bool,
    log: RowLog,
    seen: dict[str, int],
) -> Sample | None:
    sample = _sample(row, str(path), number, log)
    if sample is None:
        return None
    if sample.id in seen:
        log.error(
            RowError(
                file=str(path),
                line=number,
                field="id",
                sample_id=sample.id,
                message=f"duplicate sample id, first used on row {seen[sample.id]}",
            )
        )
        return None
    embedded = [row.get(IMAGE_BYTES), *(row.get(MORE_IMAGE_BYTES) or ())]
    embedded += [None] * (len(sample.images) - len(embedded))
    for i, (ref, data) in enumerate(zip(sample.images, embedded, strict=False)):
        try:
            if image_dir is not None and data is not None:
                _write_image(root, ref, data)
            elif check_images or image_dir is not None:
                check_image(root, ref)
        except (OSError, ValueError) as exc:
            where = "image.path" if i == 0 else f"more_images.{i - 1}.path"
            log.error(
                RowError(
                    file=str(path), line=number, field=where, sample_id=sample.id,
                    message=str(exc),
                )
            )  # fmt: skip
            return None
    seen[sample.id] = number
    return sample


def _sample(row: dict[str, Any], file: str, number: int, log: RowLog) -> Sample | None:
    # Fast path: splice the JSON columns into one document and let pydantic's Rust parser
    # validate it (about 1.8x faster than json.loads per column plus Python-mode
    # validation). A column that is not one JSON value breaks the document, and the slow
    # path below then names the culprit column.
    try:
        parts = [f'"{n}":{json.dumps(row[n])}' for n in SCALAR_FIELDS]
        parts += [f'"{n}":{row[n]}' for n in JSON_FIELDS if isinstance(row[n], str)]
        return Sample.model_validate_json("{" + ",".join(parts) + "}")
    except ValidationError:
        pass
    data: dict[str, Any] = {n: row[n] for n in SCALAR_FIELDS}
    for name in JSON_FIELDS:
        try:
            data[name] = json.loads(row[name])
        except (TypeError, json.JSONDecodeError) as exc:
            log.error(
                RowError(
                    file=file,
                    line=number,
                    field=name,
                    sample_id=row.get("id"),
                    message=f"malformed JSON column: {exc}",
                )
            )
            return None
    try:
        return Sample.model_validate(data)
    except ValidationError as exc:
        field, message = validation_message(exc)
        sid = row.get("id")
        log.error(
            RowError(
                file=file,
                line=number,
                field=field,
                sample_id=sid if isinstance(sid, str) else None,
                message=message,
            )
        )
        return None


def _write_image(root: Path, ref: ImageRef, data: bytes) -> None:
    base = root.resolve()
    target = (base / ref.path).resolve()
    if not target.is_relative_to(base):
        raise ValueError(f"image path {ref.path!r} resolves outside {base}")
    if target.is_file() and target.read_bytes() == data:
        return  # a rerun on the same file: nothing to write
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.replace(target)


def _has_image_bytes(path: Path) -> bool:
    import pyarrow.parquet as pq

    schema = pq.ParquetFile(path).schema_arrow
    if (schema.metadata or {}).get(_IMAGES_KEY) is not None:
        return bool(schema.metadata[_IMAGES_KEY] == b"embedded")
    return IMAGE_BYTES in schema.names


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()
