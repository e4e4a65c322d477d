"""Loader for ChartBench (github.com/IDEA-FinAI/ChartBench; data on the hub as
`SincereX/ChartBench`): a JSONL index (`test.jsonl`) whose rows are
{"id", "image": "./data/test/<chart>/<image>/chart_<n>/image.png", "type": {"chart",
"image", "task", "QA"}, "conversation": [{"query", "label"}, ...]}.

An "Acc+" row holds two yes/no statements about one chart, one true and one false: they
become two samples sharing `Sample.pair_id`, so Acc+ (both right) can be scored per pair.
A "GPT-acc" row (the NQA task) holds one numeric question. The image paths are relative to
the folder holding `data/`.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._records import (
    FieldMap,
    RecordContext,
    iter_jsonl_records,
    one_data_file,
    record_to_sample,
)
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Sample

__all__ = ["is_chartbench", "load_chartbench"]

_FIELDS = FieldMap(choices=(), explanation="", table="", groups=("chartbench_task",))


def _index_file(path: Path) -> Path:
    if path.is_dir() and (path / "test.jsonl").is_file():
        return path / "test.jsonl"
    return one_data_file(path, ".jsonl", "no ChartBench index")


def is_chartbench(path: Path) -> bool:
    """A folder whose JSONL index's first row has ChartBench's `conversation` and `type.QA`."""
    files = sorted(path.glob("*.jsonl"))
    if not files:
        return False
    with files[0].open("rb") as f:
        head = f.readline(1 << 16)
    try:
        row = json.loads(head)
    except (ValueError, UnicodeDecodeError):
        return False
    kind = row.get("type") if isinstance(row, dict) else None
    return isinstance(kind, dict) and "QA" in kind and isinstance(row.get("conversation"), list)


def _records(
    row: dict[str, JsonValue], file: Path, line: int, log: RowLog
) -> list[dict[str, JsonValue]]:
    """The samples' raw records of one index row ([] after a row error)."""

    def fail(message: str, key: str) -> list[dict[str, JsonValue]]:
        log.error(RowError(file=str(file), line=line, field=key, message=message))
        return []

    kind, turns, rid = row.get("type"), row.get("conversation"), row.get("id")
    if not isinstance(kind, dict) or not isinstance(turns, list) or not turns:
        return fail("expected `type` (an object) and `conversation` (a list of turns)", "type")
    qa = kind.get("QA")
    if qa == "Acc+" and len(turns) != 2:
        return fail(f"an Acc+ row holds two statements, got {len(turns)}", "conversation")
    image = row.get("image")
    path = image[2:] if isinstance(image, str) and image.startswith("./") else image
    out: list[dict[str, JsonValue]] = []
    for i, turn in enumerate(turns):
        if not isinstance(turn, dict):
            return fail(f"turn {i} is not an object", "conversation")
        record: dict[str, JsonValue] = {
            "id": f"chartbench-{rid}" if len(turns) == 1 else f"chartbench-{rid}-{i}",
            "chartbench_id": rid,
            "turn": i,
            "image": path,
            "question": turn.get("query"),
            "answer": turn.get("label"),
            "chart_type": kind.get("chart"),
            "chart_subtype": kind.get("image"),
            "question_type": kind.get("task"),
            "chartbench_task": kind.get("task"),
            "chartbench_qa": qa,
        }
        if qa == "Acc+":
            record["pair"] = f"chartbench-{rid}"
        out.append(record)
    return out


@register_loader("chartbench", detect=is_chartbench, order=32)
def load_chartbench(
    path: Path, *, strict: bool = False, check_images: bool = True, images: str | None = None
) -> LoadResult:
    """Load ChartBench from its folder (test.jsonl beside `data/`) or its index file; image
    paths are relative to `images` (default: the index's folder).

    Ids are "chartbench-<id>-<turn>" for the two statements of an Acc+ row (sharing
    `pair_id` "chartbench-<id>") and "chartbench-<id>" for a numeric (NQA) question. The
    chart type (`type.chart`) is `chart_type`, the task (CR, VE, VC, GC, NQA) the
    `question_type` and a group label; `source` keeps `chartbench_qa` ("Acc+" or
    "GPT-acc"), `chartbench_id`, `turn` and `chart_subtype` (`type.image`).
    """
    file = _index_file(Path(path))
    root = Path(images) if images is not None else file.parent
    log = RowLog([], strict=strict)
    ctx = RecordContext(
        file=str(file), root=root, dataset="chartbench", log=log, check_images=check_images
    )
    samples: list[Sample] = []
    for line, row in iter_jsonl_records(file, log):
        for record in _records(row, file, line, log):
            pair = record.pop("pair", None)
            sample = record_to_sample(record, line, _FIELDS, ctx)
            if sample is None:
                continue
            if isinstance(pair, str):
                sample = sample.model_copy(update={"pair_id": pair})
            samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
