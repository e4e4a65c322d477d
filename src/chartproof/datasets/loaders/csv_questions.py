"""Loader for plain CSV question files: one question a row, a header naming the columns
(mapped to sample fields like the generic JSONL loader's keys), image paths relative to the
file's folder. Multiple-choice files may hold the options in one column or one column each
(`choices=A,B,C,D`)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._fields import FieldMap
from chartproof.datasets.loaders._records import load_record_file, one_data_file
from chartproof.datasets.loaders._registry import register_loader
from chartproof.datasets.loaders.generic import FieldOption

__all__ = ["iter_csv_records", "load_csv"]


def iter_csv_records(path: Path, log: RowLog) -> Iterator[tuple[int, dict[str, JsonValue]]]:
    """(line, record) for each data row; an empty cell reads as missing. A row with more
    cells than the header, or a file that is not UTF-8, is a row error."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        log.error(RowError(file=str(path), line=1, message=f"not UTF-8 text ({exc.reason})"))
        return
    reader = csv.reader(text.splitlines(keepends=True))
    header: list[str] | None = None
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # e.g. a field over csv.field_size_limit() (128 KiB)
            log.error(RowError(file=str(path), line=reader.line_num, message=f"bad CSV: {exc}"))
            continue
        line = reader.line_num
        if header is None:
            header = [h.strip() for h in row]
            if not any(header):
                log.error(RowError(file=str(path), line=line, message="empty header row"))
                return
            continue
        if not any(c.strip() for c in row):
            continue
        if len(row) > len(header):
            log.error(
                RowError(
                    file=str(path),
                    line=line,
                    message=f"{len(row)} cells but the header has {len(header)} columns",
                )
            )
            continue
        record: dict[str, JsonValue] = {}
        for key, cell in zip(header, row, strict=False):
            if key and cell.strip():
                record[key] = cell
        yield line, record


@register_loader("csv", detect=lambda p: len(list(p.glob("*.csv"))) == 1, order=90)
def load_csv(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    images: str | None = None,
    name: str | None = None,
    fields: FieldMap | None = None,
    **keys: FieldOption,
) -> LoadResult:
    """Load a CSV question file whose columns are named by a `FieldMap` (the field options
    of `load_jsonl`: e.g. `csv:q.csv?question=query&answer=label&choices=A,B,C,D`).

    Rows without an id get "<file stem>-<line>"; other columns go to `Sample.source`.
    """
    file = one_data_file(Path(path), ".csv", "no CSV file")
    return load_record_file(
        file,
        iter_csv_records,
        FieldMap.parse(keys, fields),
        strict=strict,
        check_images=check_images,
        images=images,
        name=name,
    )
