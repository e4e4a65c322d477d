"""Loader for EvoChart-QA (Huang et al., 2024: 650 real-world charts, 1,250 questions) as
its Parquet copy on the Hugging Face hub (`gsarch/EvoChart-QA`, one `train` split) holds
it: rows of `image` (embedded), `question`, `answer`, `chart_type`, `attribute` and
`is_clear`. The authors' own release is a zip on Google Drive whose inner layout could not
be checked; their README gives the scoring rule this loader prepares for: an answer whose
`is_clear` is true is checked by string matching, any other within 5 %
(`metrics.conventions`, convention `evochart`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chartproof.datasets.embedded import EmbeddedImages, json_safe
from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._records import FieldMap
from chartproof.datasets.loaders._registry import register_loader
from chartproof.datasets.loaders.hf_folder import RowImages, rows_to_samples, table_files
from chartproof.types import Sample

__all__ = ["EVOCHART_COLUMNS", "load_evochart"]

EVOCHART_COLUMNS = ("image", "question", "answer", "chart_type", "attribute", "is_clear")
"""The columns of a row of the hub copy."""

_FIELDS = FieldMap(choices=(), explanation="", table="", groups=("attribute",))
_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})


def _flag(value: Any) -> bool | None:
    """`is_clear` as a boolean (the hub stores a bool; text and 0/1 are read too)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    return None


@register_loader("evochart")
def load_evochart(
    path: Path,
    *,
    strict: bool = False,
    split: str | None = None,
    images: str | None = None,
) -> LoadResult:
    """Load EvoChart-QA from a hub snapshot folder, a `save_to_disk` folder or its Parquet
    file. Ids are "evochart-<file stem>-<row>"; `attribute` (the question's attribute) is
    `question_type` and a group label, `chart_type` the chart type, and
    `source["is_clear"]` the flag the `evochart` convention scores by. A row whose
    `is_clear` is missing or not a boolean is a row error (its score would be a guess);
    a clear number answer allows no tolerance in chartproof's `accuracy` either.
    """
    root = Path(path)
    files = table_files(root, split)
    base = root if root.is_dir() else root.parent
    store = EmbeddedImages(Path(images) if images else None)
    log = RowLog([], strict=strict)

    def to_record(row: dict[str, Any], file: Path, number: int) -> list[dict[str, Any]]:
        sid = f"evochart-{file.stem}-{number}"
        clear = _flag(row.get("is_clear"))
        if clear is None:
            message = f"is_clear must be true or false, got {row.get('is_clear')!r:.40}"
            log.error(
                RowError(
                    file=str(file), line=number, field="is_clear", sample_id=sid,
                    message=message,
                )
            )  # fmt: skip
            return []
        attribute = row.get("attribute")
        record = {k: json_safe(v) for k, v in row.items() if k != "image"}
        record.update(
            id=sid,
            image=row.get("image"),
            is_clear=clear,
            question_type=attribute if isinstance(attribute, str) and attribute else None,
            file=file.name,
            row=number,
        )
        if isinstance(row.get("answer"), int | float) and not isinstance(row["answer"], bool):
            record["answer"] = str(row["answer"])
        if split:
            record["split"] = split
        return [record]

    samples = rows_to_samples(
        files,
        to_record,
        _FIELDS,
        dataset="evochart",
        root=store.root,
        images=RowImages(base, store),
        log=log,
    )
    return LoadResult(
        samples=[_exact_if_clear(s) for s in samples], errors=log.errors, root=store.root
    )


def _exact_if_clear(sample: Sample) -> Sample:
    """A clear number answer is matched exactly (no 5 % tolerance)."""
    if sample.source.get("is_clear") is True and sample.answer.kind == "number":
        answer = sample.answer.model_copy(update={"tolerance": 0.0})
        return sample.model_copy(update={"answer": answer})
    return sample
