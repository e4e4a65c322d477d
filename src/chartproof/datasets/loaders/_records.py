"""Turning one raw record of a real dataset (a dict read from JSONL or JSON) into a
`Sample`, with every problem reported as a row error or warning instead of a crash."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue, ValidationError

from chartproof.datasets.answers import type_answer
from chartproof.datasets.errors import RowError, RowLog, validation_message
from chartproof.datasets.images import resolve_image
from chartproof.types import DataTable, ImageRef, Sample

__all__ = [
    "FieldMap",
    "RecordContext",
    "iter_jsonl_records",
    "record_to_sample",
    "records_to_samples",
]

_REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class FieldMap:
    """Which key of a raw record holds each part of a sample ("" = the source has none)."""

    id: str = "id"
    """Key of the sample id; rows without one get "<dataset>-<line>"."""
    image: str = "image"
    """Key of the image path, relative to the dataset folder."""
    question: str = "question"
    """Key of the question text."""
    answer: str = "answer"
    """Key of the gold answer (typed by `type_answer`)."""
    table: str = "table"
    """Key of the data table as CSV text (or null)."""
    chart_type: str = "chart_type"
    """Key of the chart type label."""
    question_type: str = "question_type"
    """Key of the question type label."""
    split: str = "split"
    """Key of the split name."""
    groups: tuple[str, ...] = ()
    """Extra keys whose short string values become group labels for breakdowns."""

    def used(self) -> set[str]:
        """Keys consumed by named sample fields (the others go to `Sample.source`)."""
        keys = {self.id, self.image, self.question, self.answer, self.table}
        keys |= {self.chart_type, self.question_type, self.split}
        return keys - {""}


@dataclass
class RecordContext:
    """Where records come from, for error messages and image checks."""

    file: str
    """File the records were read from."""
    root: Path
    """Dataset folder image paths are relative to."""
    dataset: str
    """Dataset name recorded in `Sample.source["dataset"]` and used for fallback ids."""
    log: RowLog
    """Where problems go."""
    check_images: bool = True
    """Require each image file to exist inside `root`."""
    seen: dict[str, int] = field(default_factory=dict)
    """Sample ids already loaded, with their line."""


def iter_jsonl_records(path: Path, log: RowLog) -> Iterator[tuple[int, dict[str, JsonValue]]]:
    """(line, record) for each JSON object line of a file; other lines become row errors."""
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                log.error(
                    RowError(file=str(path), line=lineno, message=f"not UTF-8 text ({exc.reason})")
                )
                continue
            text = text.lstrip("\ufeff") if lineno == 1 else text
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                log.error(
                    RowError(file=str(path), line=lineno, message=f"malformed JSON: {exc.msg}")
                )
                continue
            if not isinstance(record, dict):
                log.error(
                    RowError(
                        file=str(path),
                        line=lineno,
                        message=f"expected a JSON object, got {type(record).__name__}",
                    )
                )
                continue
            yield lineno, record


def records_to_samples(
    records: Iterable[tuple[int, Mapping[str, JsonValue]]], fields: FieldMap, ctx: RecordContext
) -> list[Sample]:
    """Samples of the good records, in order; bad ones go to `ctx.log`."""
    out: list[Sample] = []
    for line, record in records:
        sample = record_to_sample(record, line, fields, ctx)
        if sample is not None:
            out.append(sample)
    return out


def _text(value: JsonValue) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float | list):
        return json.dumps(value)
    return None


def record_to_sample(
    record: Mapping[str, JsonValue], line: int, fields: FieldMap, ctx: RecordContext
) -> Sample | None:
    """One raw record as a `Sample`, or None after logging why it cannot be one."""

    def fail(message: str, key: str | None, sample_id: str | None) -> None:
        ctx.log.error(
            RowError(file=ctx.file, line=line, field=key, sample_id=sample_id, message=message)
        )

    def warn(message: str, key: str | None, sample_id: str) -> None:
        ctx.log.error(
            RowError(
                file=ctx.file,
                line=line,
                field=key,
                sample_id=sample_id,
                message=message,
                severity="warning",
            )
        )

    raw_id = record.get(fields.id) if fields.id else None
    sample_id = _text(raw_id) if raw_id is not None else f"{ctx.dataset}-{line}"
    if not sample_id:
        fail("sample id must be a non-empty string or number", fields.id, None)
        return None
    if sample_id in ctx.seen:
        fail(f"duplicate sample id, first used on line {ctx.seen[sample_id]}", fields.id, sample_id)
        return None

    required: dict[str, str] = {}
    for role, key in (
        ("image", fields.image),
        ("question", fields.question),
        ("answer", fields.answer),
    ):
        value = _text(record.get(key)) if key else None
        if value is None or not value.strip():
            got = "missing" if record.get(key) is None else f"not usable: {record.get(key)!r}"
            fail(f"{role} is {got}", key or role, sample_id)
            return None
        required[role] = value

    try:
        image = ImageRef(path=required["image"])
        if ctx.check_images:
            resolve_image(ctx.root, image)
    except (ValidationError, OSError, ValueError) as exc:
        message = validation_message(exc)[1] if isinstance(exc, ValidationError) else str(exc)
        fail(message, fields.image, sample_id)
        return None

    source: dict[str, JsonValue] = {"dataset": ctx.dataset, "answer_raw": required["answer"]}
    used = fields.used()
    source.update({k: v for k, v in record.items() if k not in used})

    table = None
    csv_text = record.get(fields.table) if fields.table else None
    if isinstance(csv_text, str) and csv_text.strip():
        try:
            table = DataTable.from_csv(csv_text)
        except (ValueError, ValidationError) as exc:
            message = validation_message(exc)[1] if isinstance(exc, ValidationError) else str(exc)
            warn(
                f"table not loaded ({message}); its CSV is kept in source.table_csv",
                fields.table,
                sample_id,
            )
            source["table_csv"] = csv_text
    for role in ("question", "answer"):
        if _REPLACEMENT in required[role]:
            warn(f"{role} contains U+FFFD (characters lost upstream); kept as is", role, sample_id)

    groups = {
        k: v
        for k in fields.groups
        if isinstance(v := record.get(k), str) and v.strip() and len(v) <= 64
    }
    try:
        sample = Sample(
            id=sample_id,
            image=image,
            question=required["question"],
            answer=type_answer(required["answer"]),
            table=table,
            chart_type=_label(record, fields.chart_type),
            question_type=_label(record, fields.question_type),
            split=_label(record, fields.split),
            groups=groups,
            source=source,
        )
    except ValidationError as exc:
        bad_field, message = validation_message(exc)
        fail(message, bad_field, sample_id)
        return None
    ctx.seen[sample_id] = line
    return sample


def _label(record: Mapping[str, JsonValue], key: str) -> str | None:
    value = record.get(key) if key else None
    return value if isinstance(value, str) and value else None
