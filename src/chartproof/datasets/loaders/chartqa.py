"""Loader for the official ChartQA folder layout: `{split}/{split}_human.json` and
`{split}/{split}_augmented.json` (imgname, query, label), `png/`, `tables/`, `annotations/`."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._records import FieldMap, RecordContext, record_to_sample
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Sample

__all__ = ["CHART_TYPES", "QUESTION_SETS", "chartqa_splits", "load_chartqa"]

QUESTION_SETS = ("human", "augmented")
"""ChartQA's two question sets: human-written and machine-generated."""

CHART_TYPES = {"v_bar": "vbar", "h_bar": "hbar", "line": "line", "pie": "pie"}
"""ChartQA annotation chart types mapped to chartproof's names (others are kept as is)."""

_FIELDS = FieldMap(table="table", chart_type="chart_type", question_type="question_type")


def chartqa_splits(root: Path) -> list[str]:
    """Splits present under a ChartQA folder (those with a human or augmented file)."""
    return sorted(
        d.name
        for d in Path(root).iterdir()
        if d.is_dir() and any((d / f"{d.name}_{q}.json").is_file() for q in QUESTION_SETS)
    )


def _names(value: str | tuple[str, ...] | None, default: list[str]) -> list[str]:
    if value is None:
        return default
    return [v for v in value.split(",") if v] if isinstance(value, str) else list(value)


@register_loader(
    "chartqa",
    detect=lambda p: any(p.glob("*/*_human.json")) or any(p.glob("*/*_augmented.json")),
    order=10,
)
def load_chartqa(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str | tuple[str, ...] | None = None,
    questions: str | tuple[str, ...] | None = None,
) -> LoadResult:
    """Load ChartQA from its official layout; image paths are relative to `path`.

    `split` ("train", "val", "test", comma-separated) and `questions` ("human",
    "augmented") choose files; by default all that exist. Sample ids are
    "chartqa-{split}-{set}-{index}" (index in the question file), the table comes from
    `tables/{image stem}.csv` and the chart type from `annotations/{image stem}.json` when
    those exist. A table that does not parse is a warning; the sample still loads.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no ChartQA folder at {root}")
    splits = _names(split, chartqa_splits(root))
    if not splits:
        raise ValueError(
            f"{root}: no ChartQA split folders ({{split}}/{{split}}_human.json): not the "
            "official ChartQA layout; point chartqa: at the folder holding train/, val/ and "
            "test/ (each with {split}_human.json, {split}_augmented.json and png/)"
        )
    sets = _names(questions, list(QUESTION_SETS))
    unknown = sorted(set(sets) - set(QUESTION_SETS))
    if unknown:
        raise ValueError(f"unknown ChartQA question sets {unknown}; choose from {QUESTION_SETS}")
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    files_read = 0
    for name in splits:
        side = _SideFiles(root / name, log)
        for qset in sets:
            file = root / name / f"{name}_{qset}.json"
            if not file.is_file():
                continue
            files_read += 1
            items = _read_items(file)
            ctx = RecordContext(
                file=str(file),
                root=root,
                dataset="chartqa",
                log=log,
                check_images=check_images,
                seen=seen,
            )
            for index, item in enumerate(items):
                record = _record(item, index, name, qset, side, str(file), log)
                if record is None:
                    continue
                sample = record_to_sample(record, index + 1, _FIELDS, ctx)
                if sample is not None:
                    samples.append(sample)
    if not files_read:
        wanted = [f"{s}/{s}_{q}.json" for s in splits for q in sets]
        raise FileNotFoundError(f"{root}: none of the ChartQA question files {wanted} exist")
    return LoadResult(samples=samples, errors=log.errors, root=root)


def _read_items(file: Path) -> list[JsonValue]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{file}: not a JSON file ({exc})") from exc
    if not isinstance(data, list):
        raise ValueError(f"{file}: expected a JSON array of questions, got {type(data).__name__}")
    return data


def _record(
    item: JsonValue,
    index: int,
    split: str,
    qset: str,
    side: _SideFiles,
    file: str,
    log: RowLog,
) -> dict[str, JsonValue] | None:
    if not isinstance(item, dict):
        log.error(RowError(file=file, line=index + 1, message="expected a JSON object"))
        return None
    imgname = item.get("imgname")
    if not isinstance(imgname, str) or not imgname:
        log.error(
            RowError(file=file, line=index + 1, field="imgname", message="imgname is missing")
        )
        return None
    stem = Path(imgname).stem
    record: dict[str, JsonValue] = {
        "id": f"chartqa-{split}-{qset}-{index}",
        "image": f"{split}/png/{imgname}",
        "question": item.get("query"),
        "answer": item.get("label"),
        "question_type": qset,
        "split": split,
        "imgname": imgname,
    }
    table, table_file = side.table(stem)
    if table is not None:
        record["table"] = table
        record["table_file"] = table_file
    chart_type = side.chart_type(stem)
    if chart_type is not None:
        record["chart_type"] = CHART_TYPES.get(chart_type, chart_type)
        record["chart_type_raw"] = chart_type
    return record


class _SideFiles:
    """Tables and annotations of one split, read once per image."""

    def __init__(self, folder: Path, log: RowLog) -> None:
        self.folder = folder
        self.log = log
        self._tables: dict[str, tuple[str | None, str | None]] = {}
        self._types: dict[str, str | None] = {}

    def table(self, stem: str) -> tuple[str | None, str | None]:
        if stem not in self._tables:
            file = self.folder / "tables" / f"{stem}.csv"
            if not file.is_file():
                self._tables[stem] = (None, None)
            else:
                data = file.read_bytes()
                try:
                    text = data.decode("utf-8-sig")
                except UnicodeDecodeError:
                    # ChartQA tables were extracted automatically; keep what can be read
                    text = data.decode("utf-8", errors="replace")
                self._tables[stem] = (text, f"tables/{file.name}")
        return self._tables[stem]

    def chart_type(self, stem: str) -> str | None:
        if stem not in self._types:
            file = self.folder / "annotations" / f"{stem}.json"
            kind: str | None = None
            if file.is_file():
                try:
                    data = json.loads(file.read_text(encoding="utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                    self.log.error(
                        RowError(
                            file=str(file),
                            line=1,
                            message=f"annotation not readable, chart type unknown ({exc})",
                            severity="warning",
                        )
                    )
                    data = None
                value = data.get("type") if isinstance(data, dict) else None
                kind = value if isinstance(value, str) and value else None
            self._types[stem] = kind
        return self._types[stem]
