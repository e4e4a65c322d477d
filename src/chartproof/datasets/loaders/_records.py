"""Turning one raw record of a real dataset (a dict read from JSONL or JSON) into a
`Sample`, with every problem reported as a row error or warning instead of a crash."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pydantic import JsonValue, ValidationError

from chartproof.datasets.answers import type_answer
from chartproof.datasets.choices import choice_answer, read_choices, split_options
from chartproof.datasets.errors import LoadResult, RowError, RowLog, validation_message
from chartproof.datasets.images import check_image
from chartproof.datasets.loaders._fields import FieldMap
from chartproof.datasets.loaders._json import read_json
from chartproof.datasets.tables import read_table
from chartproof.types import Answer, ImageRef, Sample

__all__ = [
    "FieldMap",
    "RecordContext",
    "iter_json_records",
    "iter_jsonl_records",
    "load_record_file",
    "lookup",
    "one_data_file",
    "record_to_sample",
    "records_to_samples",
]

_REPLACEMENT = "\ufffd"


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
    tolerance: float = 0.05
    """Relative tolerance of number answers (`Answer.tolerance`): ChartQA's 5 % by default,
    0 for a benchmark scored by exact match (DVQA)."""


def one_data_file(path: Path, suffix: str, missing: str) -> Path:
    """`path` itself when it is a file, else the folder's only `suffix` file (hidden files
    ignored); ValueError listing what the folder holds otherwise, FileNotFoundError with
    "<missing> at <path>" when nothing is there."""
    if path.is_file():
        return path
    if path.is_dir():
        files = sorted(p for p in path.glob(f"*{suffix}") if not p.name.startswith("."))
        if len(files) == 1:
            return files[0]
        found = [p.name for p in files] or "none"
        raise ValueError(f"{path}: expected exactly one {suffix} file in the folder, found {found}")
    raise FileNotFoundError(f"{missing} at {path}")


def iter_jsonl_records(path: Path, log: RowLog) -> Iterator[tuple[int, dict[str, JsonValue]]]:
    """(line, record) for each JSON object line of a file; other lines become row errors.
    ValueError (one line) when the file is one JSON array or object rather than JSON Lines."""
    _refuse_json_document(path)
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


def _refuse_json_document(path: Path) -> None:
    """ValueError when the file starts a JSON array, or holds one object spread over lines."""
    with path.open("rb") as f:
        head = f.read(1 << 16).decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    first_line = head.split("\n", 1)[0].strip()
    if head.startswith("["):
        kind = "a JSON array"
    elif head.startswith("{") and first_line in ("{", "{\r"):
        kind = "one JSON object spread over lines"
    else:
        return
    raise ValueError(
        f"{path}: this is {kind}, not JSON Lines (one object a line); "
        f"load it with 'json:{path}' (same field options) or the benchmark's loader"
    )


def iter_json_records(path: Path, log: RowLog) -> Iterator[tuple[int, dict[str, JsonValue]]]:
    """(position, record) of a JSON document: an array of objects, or an object whose values
    are objects (keyed by id: the key becomes `id` when the record has none, else `_key`);
    other items become row errors."""
    data = read_json(path)
    if isinstance(data, dict) and any(isinstance(v, dict) for v in data.values()):
        items: list[tuple[str | None, JsonValue]] = list(data.items())
    elif isinstance(data, list):
        items = [(None, v) for v in data]
    else:
        raise ValueError(f"{path}: expected a JSON array of records or an object of records by id")
    for pos, (key, item) in enumerate(items, start=1):
        if isinstance(item, dict):
            yield pos, item if key is None else {("_key" if "id" in item else "id"): key, **item}
        else:
            message = f"expected a JSON object, got {type(item).__name__}"
            log.error(RowError(file=str(path), line=pos, message=message))


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


def load_record_file(
    file: Path,
    read: Callable[[Path, RowLog], Iterable[tuple[int, Mapping[str, JsonValue]]]],
    fields: FieldMap,
    *,
    strict: bool,
    check_images: bool,
    images: str | Path | None,
    name: str | None,
) -> LoadResult:
    """The samples of one file of records (`read` yields them, e.g. `iter_jsonl_records`),
    image paths relative to `images` (default: the file's folder), the dataset named `name`
    (default: the file's stem)."""
    root = Path(images) if images is not None else file.parent
    log = RowLog([], strict=strict)
    ctx = RecordContext(
        file=str(file), root=root, dataset=name or file.stem, log=log, check_images=check_images
    )
    read_any = False

    def counted() -> Iterator[tuple[int, Mapping[str, JsonValue]]]:
        nonlocal read_any
        for item in read(file, log):
            read_any = True
            yield item

    samples = records_to_samples(counted(), fields, ctx)
    if not read_any and not log.errors:
        log.error(RowError(file=str(file), line=1, message="no records: the file is empty"))
    return LoadResult(samples=samples, errors=log.errors, root=root)


def _kind(value: JsonValue) -> str:
    """What a JSON value is, for an error line: "a number (3.5)", "a list of 2 items"."""
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value!r:.40})"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"an object with {len(value)} keys"
    return type(value).__name__


def lookup(record: Mapping[str, JsonValue], key: str) -> JsonValue:
    """The record's value under `key`, or under a dotted path into nested objects and lists
    ("conversations.0.value") when no key is spelled that way; None when absent."""
    if key in record or "." not in key:
        return record.get(key)
    value: JsonValue = dict(record)
    for part in key.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif (
            isinstance(value, list)
            and part.lstrip("-").isdigit()
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            return None
    return value


def _image_list(value: JsonValue) -> list[str] | None:
    """The image paths of a field holding a list of them (a multi-chart question, in
    order), or None when the field holds anything else."""
    if isinstance(value, list) and value and all(isinstance(v, str) and v.strip() for v in value):
        return [v for v in value if isinstance(v, str)]
    return None


def _nested(value: JsonValue) -> bool:
    """Whether a value is an object, or a list holding objects or lists."""
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and any(isinstance(v, dict | list) for v in value)


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


class _Problem(NamedTuple):
    """Why a record's required field is unusable."""

    message: str
    field: str


def _required(
    record: Mapping[str, JsonValue], fields: FieldMap, ctx: RecordContext
) -> tuple[dict[str, str], list[ImageRef]] | _Problem:
    """The record's image(s), question and answer text, or (message, field) of the first one
    that is missing, nested or unusable (and of an image that is not in the folder)."""
    paths = _image_list(lookup(record, fields.image)) if fields.image else None
    required: dict[str, str] = {"image": paths[0]} if paths else {}
    for role, key in (
        ("image", fields.image),
        ("question", fields.question),
        ("answer", fields.answer),
    ):
        if role in required:
            continue
        raw = lookup(record, key) if key else None
        if role != "answer" and raw is not None and not isinstance(raw, str) and not _nested(raw):
            # a number or a flat list here is a mapping mistake, not text to stringify
            return _Problem(f"{role} must be text, got {_kind(raw)}", key or role)
        if _nested(raw):
            shape = "an object" if isinstance(raw, dict) else "a list"
            return _Problem(
                f"{role} field {key!r} holds {shape}, not text; name a value inside it "
                f"with a dotted path, e.g. {role}={key}.0.value",
                key,
            )
        value = _text(raw)
        if value is None or not value.strip():
            got = "missing" if raw is None else f"not usable: {raw!r}"
            return _Problem(f"{role} is {got}", key or role)
        required[role] = value
    try:
        images = [ImageRef(path=p) for p in paths or [required["image"]]]
        if ctx.check_images:
            for one in images:
                check_image(ctx.root, one)
    except (ValidationError, OSError, ValueError) as exc:
        message = validation_message(exc)[1] if isinstance(exc, ValidationError) else str(exc)
        return _Problem(message, fields.image)
    return required, images


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

    raw_id = lookup(record, fields.id) if fields.id else None
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, str | int)):
        fail(f"sample id must be text or a whole number, got {_kind(raw_id)}", fields.id, None)
        return None
    sample_id = _text(raw_id) if raw_id is not None else f"{ctx.dataset}-{line}"
    if not sample_id:
        fail("sample id must be a non-empty string or number", fields.id, None)
        return None
    if sample_id in ctx.seen:
        fail(f"duplicate sample id, first used on line {ctx.seen[sample_id]}", fields.id, sample_id)
        return None

    checked = _required(record, fields, ctx)
    if isinstance(checked, _Problem):
        fail(checked.message, checked.field, sample_id)
        return None
    required, images = checked

    source: dict[str, JsonValue] = {"dataset": ctx.dataset, "answer_raw": required["answer"]}
    used = fields.used()
    source.update({k: v for k, v in record.items() if k not in used})

    question = required["question"]
    try:
        choices = _choices(record, fields)
    except ValueError as exc:
        fail(str(exc), ",".join(fields.choices), sample_id)
        return None
    answer: Answer | None = None
    if choices is None and fields.options_in_question:
        found = split_options(question)
        if found is not None and found[0]:
            try:
                answer = choice_answer(required["answer"], found[1])
            except ValueError as exc:
                # options read out of the text are a guess: keep the question as written
                warn(f"{exc}; loaded as an open question", fields.answer, sample_id)
            else:
                question, choices = found
                source["question_with_options"] = required["question"]
    if answer is None and choices is not None:
        try:
            answer = choice_answer(required["answer"], choices)
        except ValueError as exc:
            fail(str(exc), fields.answer, sample_id)
            return None
    if answer is None:
        answer = type_answer(required["answer"], tolerance=ctx.tolerance)
    explanation = _text(lookup(record, fields.explanation)) if fields.explanation else None

    table = None
    raw_table = lookup(record, fields.table) if fields.table else None
    if raw_table is not None:
        try:
            table = read_table(raw_table)
        except (ValueError, ValidationError) as exc:
            message = validation_message(exc)[1] if isinstance(exc, ValidationError) else str(exc)
            kept = "table_csv" if isinstance(raw_table, str) else "table_raw"
            warn(f"table not loaded ({message}); kept in source.{kept}", fields.table, sample_id)
            source[kept] = raw_table
    for role in ("question", "answer"):
        if _REPLACEMENT in required[role]:
            warn(f"{role} contains U+FFFD (characters lost upstream); kept as is", role, sample_id)

    groups = {
        k: v
        for k in fields.groups
        if isinstance(v := lookup(record, k), str) and v.strip() and len(v) <= 64
    }
    try:
        sample = Sample(
            id=sample_id,
            image=images[0],
            more_images=tuple(images[1:]),
            question=question,
            answer=answer,
            choices=choices or (),
            explanation=explanation.strip() or None if explanation else None,
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


def _choices(record: Mapping[str, JsonValue], fields: FieldMap) -> tuple[str, ...] | None:
    """The record's options: one field holding them all, or one field per option."""
    keys = [k for k in fields.choices if k]
    if not keys:
        return None
    if len(keys) == 1:
        return read_choices(lookup(record, keys[0]))
    options = [lookup(record, k) for k in keys]
    texts: list[JsonValue] = [
        v for v in options if v is not None and not (isinstance(v, str) and not v.strip())
    ]
    return read_choices(texts) if texts else None


def _label(record: Mapping[str, JsonValue], key: str) -> str | None:
    value = lookup(record, key) if key else None
    return value if isinstance(value, str) and value else None
