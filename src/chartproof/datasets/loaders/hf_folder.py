"""Loader for Hugging Face dataset folders as `--data`: a hub snapshot of Parquet files
(`data/test-00000-of-00001.parquet`), a `save_to_disk` folder (Arrow files listed in
`state.json`, per split under `dataset_dict.json`), or one foreign Parquet / Arrow file.

Rows map to sample fields by column names (the generic JSONL options). Images embedded as
bytes or `Image` features ({"bytes", "path"}) are written to a content-addressed cache
folder (`chartproof.datasets.embedded`), so the samples evaluate without extracting
anything by hand; an image given as a path must lie inside the dataset folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chartproof.datasets.embedded import EmbeddedImages, image_bytes_of, json_safe
from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.images import resolve_image
from chartproof.datasets.loaders._fields import FieldMap
from chartproof.datasets.loaders._records import RecordContext, record_to_sample
from chartproof.datasets.loaders._registry import register_loader
from chartproof.datasets.loaders.generic import FieldOption
from chartproof.types import Sample

__all__ = ["TableRows", "iter_table_rows", "load_hf_folder", "table_files"]

_BATCH = 256
_TABLE_SUFFIXES = (".parquet", ".arrow")


def _state_files(folder: Path) -> list[Path]:
    state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    names = [f.get("filename") for f in state.get("_data_files", []) if isinstance(f, dict)]
    return [folder / n for n in names if isinstance(n, str)]


def _row_error(file: Path, number: int, field: str | None, sid: Any, message: str) -> RowError:
    """A row error naming the row's id when its id cell holds a string."""
    return RowError(
        file=str(file),
        line=number,
        field=field,
        sample_id=sid if isinstance(sid, str) else None,
        message=message,
    )


def _matches_split(file: Path, root: Path, split: str) -> bool:
    parts = file.relative_to(root).parts
    stem = file.name
    return split in parts[:-1] or stem.startswith((f"{split}-", f"{split}.", f"{split}_"))


def table_files(path: Path, split: str | None = None) -> list[Path]:
    """The data files of a dataset folder (or the file itself), optionally of one split.

    ValueError lists what was found when nothing matches.
    """
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"no dataset at {path}")
    if (path / "dataset_dict.json").is_file():
        info = json.loads((path / "dataset_dict.json").read_text(encoding="utf-8"))
        splits = [s for s in info.get("splits", []) if isinstance(s, str)]
        wanted = [split] if split else splits
        missing = sorted(set(wanted) - set(splits))
        if missing:
            raise ValueError(f"{path}: no split {missing}; splits are {splits}")
        return [f for s in wanted for f in _state_files(path / s)]
    if (path / "state.json").is_file():
        return _state_files(path)
    found = sorted(
        p
        for p in path.rglob("*")
        if p.suffix in _TABLE_SUFFIXES
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )
    if split:
        chosen = [p for p in found if _matches_split(p, path, split)]
        if not chosen:
            names = [str(p.relative_to(path)) for p in found]
            raise ValueError(f"{path}: no data file of split {split!r} among {names}")
        return chosen
    if not found:
        raise ValueError(f"{path}: no .parquet or .arrow data files")
    return found


TableRows = Iterator[tuple[int, dict[str, Any]]]


def table_columns(file: Path) -> list[str]:
    """Column names of a Parquet or Arrow data file (read from its schema only)."""
    import pyarrow as pa

    if file.suffix == ".parquet":
        import pyarrow.parquet as pq

        return list(pq.ParquetFile(file).schema_arrow.names)
    source = pa.memory_map(str(file))
    try:
        return list(pa.ipc.open_stream(source).schema.names)
    except pa.ArrowInvalid:
        return list(pa.ipc.open_file(pa.memory_map(str(file))).schema.names)


def iter_table_rows(file: Path) -> TableRows:
    """(row number, row) of a Parquet or Arrow (stream or file format) data file."""
    import pyarrow as pa

    if file.suffix == ".parquet":
        import pyarrow.parquet as pq

        batches: Iterator[Any] = pq.ParquetFile(file).iter_batches(batch_size=_BATCH)
    else:
        source = pa.memory_map(str(file))
        try:
            reader: Any = pa.ipc.open_stream(source)
        except pa.ArrowInvalid:
            reader = pa.ipc.open_file(source)
            batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
        else:
            batches = iter(reader)
    number = 0
    for batch in batches:
        for row in batch.to_pylist():
            number += 1
            yield number, row


class RowImages:
    """Turns a row's image cell into a path inside the image cache folder."""

    def __init__(self, dataset_root: Path, store: EmbeddedImages) -> None:
        self.dataset_root = dataset_root
        self.store = store

    def path_of(self, cell: object) -> str:
        """The cached image's relative path; ValueError when the cell has no usable image
        (or names a file outside the dataset folder)."""
        data = image_bytes_of(cell)
        if data is None:
            rel = cell.get("path") if isinstance(cell, dict) else cell
            if not isinstance(rel, str) or not rel:
                raise ValueError("the image cell holds neither bytes nor a path")
            data = resolve_image(self.dataset_root, rel).read_bytes()
        return self.store.store(data)


def rows_to_samples(
    files: list[Path],
    to_record: Any,
    fields: FieldMap,
    *,
    dataset: str,
    root: Path,
    images: RowImages,
    log: RowLog,
) -> list[Sample]:
    """Samples of the rows of `files`: `to_record(row, file, number)` gives the raw records
    of a row (with the image cell under the image key), [] after logging why it has none."""
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for file in files:
        ctx = RecordContext(file=str(file), root=root, dataset=dataset, log=log, seen=seen)
        for number, row in iter_table_rows(file):
            for record in to_record(row, file, number):
                sample = _row_sample(record, number, file, fields, ctx, images, log)
                if sample is not None:
                    samples.append(sample)
    return samples


def _row_sample(
    record: dict[str, Any],
    number: int,
    file: Path,
    fields: FieldMap,
    ctx: RecordContext,
    images: RowImages,
    log: RowLog,
) -> Sample | None:
    key = fields.image
    cell = record.get(key)
    try:
        if isinstance(cell, list | tuple) and cell and not isinstance(cell[0], int):
            # a sequence of images (a multi-chart question): every one, in order
            record[key] = [images.path_of(one) for one in cell]
        else:
            record[key] = images.path_of(cell)
    except (OSError, ValueError) as exc:
        log.error(_row_error(file, number, key, record.get(fields.id), str(exc)))
        return None
    return record_to_sample(record, number, fields, ctx)


def is_hf_folder(path: Path) -> bool:
    """A Hugging Face dataset folder: state.json, dataset_dict.json or Parquet files."""
    return (
        (path / "state.json").is_file()
        or (path / "dataset_dict.json").is_file()
        or any(path.glob("*.parquet"))
        or any(path.glob("data/*.parquet"))
    )


@register_loader("hf", detect=is_hf_folder, order=80)
def load_hf_folder(
    path: Path,
    *,
    strict: bool = False,
    split: str | None = None,
    images: str | None = None,
    name: str | None = None,
    fields: FieldMap | None = None,
    **keys: FieldOption,
) -> LoadResult:
    """Load a Hugging Face dataset folder (or one Parquet / Arrow file) whose columns are
    named by a `FieldMap` (the field options of `load_jsonl`), e.g.
    `hf:/data/ChartQA?question=query&answer=label`.

    `split` keeps one split's files (so here it is no field option: the split column is
    "split"); embedded images go to `images` (default `default_image_cache()`), which is
    the result's root. Rows without an id column get "<name>-<file stem>-<row>". A folder
    written by `chartproof export --to hf` (its `*_json` columns) is restored to the exact
    samples, whatever the field options say.
    """
    root = Path(path)
    fields = FieldMap.parse(keys, fields)
    files = table_files(root, split)
    base = root if root.is_dir() else root.parent
    store = EmbeddedImages(Path(images) if images else None)
    if set(table_columns(files[0])) >= _EXPORT_COLUMNS:
        return _restore_export(files, store, strict)
    dataset = name or (root.name if root.is_dir() else root.stem)

    def to_record(row: dict[str, Any], file: Path, number: int) -> list[dict[str, Any]]:
        record: dict[str, Any] = {
            k: (v if k == fields.image else json_safe(v)) for k, v in row.items()
        }
        if fields.id and record.get(fields.id) is None:
            record[fields.id] = f"{dataset}-{file.stem}-{number}"
        if split and "split" not in record:
            record["split"] = split
        return [record]

    log = RowLog([], strict=strict)
    samples = rows_to_samples(
        files,
        to_record,
        fields,
        dataset=dataset,
        root=store.root,
        images=RowImages(base, store),
        log=log,
    )
    return LoadResult(samples=samples, errors=log.errors, root=store.root)


_EXPORT_COLUMNS = {"id", "image", "image_json", "answer_json", "question"}


def _store_images(
    row: dict[str, Any], data: dict[str, Any], store: EmbeddedImages
) -> tuple[str, str] | None:
    """Write a restored row's embedded images (`image`, then each of `more_images`, in
    order) to the cache and point the sample's image records at them; (field, message)
    of the first cell without bytes, or of a list that does not match its records."""
    cells = [row.get("image"), *(row.get("more_images") or ())]
    refs = [data.get("image"), *(data.get("more_images") or ())]
    if len(cells) != len(refs):
        return "more_images", f"{len(cells) - 1} images but {len(refs) - 1} image records"
    stored = []
    for i, (cell, ref) in enumerate(zip(cells, refs, strict=True)):
        image = image_bytes_of(cell)
        if image is None or not isinstance(ref, dict):
            where = "image" if i == 0 else f"more_images.{i - 1}"
            return where, "the image cell holds no bytes"
        stored.append({**ref, "path": store.store(image)})
    data["image"], data["more_images"] = stored[0], stored[1:]
    return None


def _restore_export(files: list[Path], store: EmbeddedImages, strict: bool) -> LoadResult:
    """The samples of a chartproof HF export, their images written to the cache."""
    from pydantic import ValidationError

    from chartproof.datasets.errors import validation_message
    from chartproof.datasets.parquet import JSON_FIELDS, OPTIONAL_FIELDS, SCALAR_FIELDS

    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: set[str] = set()
    for file in files:
        for number, row in iter_table_rows(file):
            sid = row.get("id")

            def fail(
                field: str | None,
                message: str,
                number: int = number,
                sid: Any = sid,
                file: Path = file,
            ) -> None:
                log.error(_row_error(file, number, field, sid, message))

            try:
                data: dict[str, Any] = {n: row.get(n) for n in SCALAR_FIELDS}
                for n in JSON_FIELDS:
                    data[n] = json.loads(row.get(f"{n}_json") or OPTIONAL_FIELDS.get(n, "null"))
                problem = _store_images(row, data, store)
                if problem is not None:
                    fail(*problem)
                    continue
                sample = Sample.model_validate(data)
            except json.JSONDecodeError as exc:
                fail(None, f"malformed JSON column: {exc}")
                continue
            except ValidationError as exc:
                fail(*validation_message(exc))
                continue
            if sample.id in seen:
                fail("id", "duplicate sample id")
                continue
            seen.add(sample.id)
            samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=store.root)
