"""Loader for ChartQA-X (answers with explanations on ChartQA charts), from the Parquet
files of its hub release (or a `save_to_disk` folder): each row a chart image, question,
answer and explanation. Column names are taken as ChartQA writes them (`imgname`, `query`,
`label`) or plainly (`image`, `question`, `answer`), plus `explanation`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chartproof.datasets.embedded import EmbeddedImages, json_safe
from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._records import FieldMap
from chartproof.datasets.loaders._registry import register_loader
from chartproof.datasets.loaders.chartqa import CHART_TYPES
from chartproof.datasets.loaders.hf_folder import RowImages, rows_to_samples, table_files

__all__ = ["CHARTQAX_COLUMNS", "load_chartqax"]

CHARTQAX_COLUMNS: dict[str, tuple[str, ...]] = {
    "image": ("image", "img", "imgname", "image_path"),
    "question": ("query", "question"),
    "answer": ("label", "answer"),
    "explanation": ("explanation", "Explanation"),
    "chart_type": ("chart_type", "type"),
    "question_type": ("question_type", "qtype", "source"),
    "table": ("table", "data_table", "csv"),
}
"""Columns read for each sample field, first present wins."""

_FIELDS = FieldMap(choices=(), table="table", groups=())


def _first(row: dict[str, Any], names: tuple[str, ...]) -> Any:
    for n in names:
        if row.get(n) is not None:
            return row[n]
    return None


@register_loader("chartqax")
def load_chartqax(
    path: Path,
    *,
    strict: bool = False,
    split: str | None = None,
    images: str | None = None,
) -> LoadResult:
    """Load ChartQA-X rows; the explanation becomes the sample's reference explanation.

    A row without an explanation still loads (with a warning): the question is still
    answerable, but explanation metrics have no reference for it. Ids are
    "chartqax-<file stem>-<row>".
    """
    root = Path(path)
    files = table_files(root, split)
    base = root if root.is_dir() else root.parent
    store = EmbeddedImages(Path(images) if images else None)
    log = RowLog([], strict=strict)

    def to_record(row: dict[str, Any], file: Path, number: int) -> list[dict[str, Any]]:
        image = _first(row, CHARTQAX_COLUMNS["image"])
        if isinstance(image, str) and (base / "png" / image).is_file():
            image = f"png/{image}"  # ChartQA keeps images in png/
        record: dict[str, Any] = {
            k: json_safe(v) for k, v in row.items() if not isinstance(v, bytes | dict)
        }
        record.update(
            id=f"chartqax-{file.stem}-{number}",
            image=image,
            question=_first(row, CHARTQAX_COLUMNS["question"]),
            answer=_first(row, CHARTQAX_COLUMNS["answer"]),
            explanation=_first(row, CHARTQAX_COLUMNS["explanation"]),
            table=_first(row, CHARTQAX_COLUMNS["table"]),
            question_type=_first(row, CHARTQAX_COLUMNS["question_type"]),
        )
        kind = _first(row, CHARTQAX_COLUMNS["chart_type"])
        if isinstance(kind, str):
            record["chart_type"] = CHART_TYPES.get(kind, kind)
        if split:
            record["split"] = split
        if not isinstance(record["explanation"], str) or not record["explanation"].strip():
            log.error(
                RowError(
                    file=str(file),
                    line=number,
                    field="explanation",
                    sample_id=record["id"],
                    message="no explanation: loaded without a reference explanation",
                    severity="warning",
                )
            )
        return [record]

    samples = rows_to_samples(
        files,
        to_record,
        _FIELDS,
        dataset="chartqax",
        root=store.root,
        images=RowImages(base, store),
        log=log,
    )
    return LoadResult(samples=samples, errors=log.errors, root=store.root)
