"""Loader for ChartX (github.com/UniModal4Reasoning/ChartVLM, `eval/ChartX/`):
`ChartX_annotation.json`, a JSON array of charts {"chart_type", "imgname", "img":
"./<chart_type>/png/<imgname>.png", "topic", "title", "csv", "description", "summarization",
"redrawing", "QA": {"input", "output"}}. Each chart has one question (`QA`); its `csv` is
the data table, written with literal "\\t" and "\\n" between cells and rows.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._json import read_json
from chartproof.datasets.loaders._records import (
    FieldMap,
    RecordContext,
    one_data_file,
    record_to_sample,
)
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Sample

__all__ = ["chartx_csv", "is_chartx", "load_chartx"]

ANNOTATION = "ChartX_annotation.json"
"""The release's annotation file."""

_FIELDS = FieldMap(choices=(), explanation="")
_DROPPED = ("redrawing", "QA", "img", "csv")  # the plotting code stays out of source


def is_chartx(path: Path) -> bool:
    """A folder holding ChartX_annotation.json."""
    return (path / ANNOTATION).is_file()


def chartx_csv(text: str) -> str:
    """ChartX's table text ("a \\t b \\n 1 \\t 2 \\n", escapes written out) as CSV."""
    body = text.replace("\\t", "\t").replace("\\n", "\n")
    rows = [[c.strip() for c in line.split("\t")] for line in body.split("\n") if line.strip()]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


@register_loader("chartx", detect=is_chartx, order=34)
def load_chartx(
    path: Path, *, strict: bool = False, check_images: bool = True, images: str | None = None
) -> LoadResult:
    """Load ChartX from its folder (ChartX_annotation.json beside the `<chart_type>/png/`
    folders) or the annotation file; image paths are relative to `images` (default: the
    file's folder). Ids are "chartx-<imgname>"; `chart_type` is ChartX's own label
    (bar_chart, line_chart, rings, ...), the table comes from `csv`, and `source` keeps
    `title`, `topic`, `imgname` and the description and summarization tasks (their
    `output`, under `description` / `summarization`)."""
    p = Path(path)
    file = p / ANNOTATION if p.is_dir() and (p / ANNOTATION).is_file() else p
    if p.is_dir() and not (p / ANNOTATION).is_file():
        file = one_data_file(p, ".json", "no ChartX annotation")
    data = read_json(file)
    if not isinstance(data, list):
        raise ValueError(f"{file}: expected a JSON array of charts")
    root = Path(images) if images is not None else file.parent
    log = RowLog([], strict=strict)
    ctx = RecordContext(
        file=str(file), root=root, dataset="chartx", log=log, check_images=check_images
    )
    samples: list[Sample] = []
    for pos, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            log.error(RowError(file=str(file), line=pos, message="expected a JSON object"))
            continue
        qa, image, table = item.get("QA"), item.get("img"), item.get("csv")
        record: dict[str, JsonValue] = {
            **{k: v for k, v in item.items() if k not in _DROPPED},
            "id": f"chartx-{item.get('imgname')}",
            "image": image[2:] if isinstance(image, str) and image.startswith("./") else image,
            "question": qa.get("input") if isinstance(qa, dict) else None,
            "answer": qa.get("output") if isinstance(qa, dict) else None,
            "table": chartx_csv(table) if isinstance(table, str) and table.strip() else None,
        }
        for task in ("description", "summarization"):
            block = item.get(task)
            if isinstance(block, dict):  # the release spells one key "ouput_put"
                text = block.get("output", block.get("ouput_put"))
                record[task] = text if isinstance(text, str) else None
        sample = record_to_sample(record, pos, _FIELDS, ctx)
        if sample is not None:
            samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
