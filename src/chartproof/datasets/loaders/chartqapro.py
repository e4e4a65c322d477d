"""Loader for ChartQA-Pro as published on the Hugging Face hub (`ahmed-masry/ChartQAPro`):
Parquet rows with `image` (embedded bytes), `Question` and `Answer` (lists: one entry per
turn), `Question Type` (Factoid, Multi Choice, Conversational, Fact Checking,
Hypothetical), `Year` (per-answer flags) and `Paragraph` (optional context)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chartproof.datasets.embedded import EmbeddedImages, json_safe
from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._records import FieldMap
from chartproof.datasets.loaders._registry import register_loader
from chartproof.datasets.loaders.hf_folder import RowImages, rows_to_samples, table_files

__all__ = ["load_chartqapro"]

_FIELDS = FieldMap(choices=(), explanation="", options_in_question=True, groups=("question_type",))


def _texts(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


@register_loader("chartqapro")
def load_chartqapro(
    path: Path,
    *,
    strict: bool = False,
    split: str | None = None,
    images: str | None = None,
) -> LoadResult:
    """Load ChartQA-Pro from a hub snapshot folder or its Parquet file.

    One sample per question; a Conversational row is one sample: its last question, with
    the earlier turns and their gold answers given as context (the official evaluation
    scores only the last answer). A non-empty `Paragraph` is given as context too.
    Multiple-choice questions carry their lettered options in the question text; they are
    read out (`Sample.choices`) and the gold becomes an option. An `image` cell holding a
    list of images (a question over several charts) gives a multi-image sample with them all,
    in order (the hub rows seen so far hold one image each). Ids are
    "chartqapro-<row>[-<question>]"; the question type is `question_type` and a group label.
    """
    root = Path(path)
    files = table_files(root, split)
    base = root if root.is_dir() else root.parent
    store = EmbeddedImages(Path(images) if images else None)
    log = RowLog([], strict=strict)

    def to_record(row: dict[str, Any], file: Path, number: int) -> list[dict[str, Any]]:
        questions, answers = _texts(row.get("Question")), _texts(row.get("Answer"))
        if not questions or answers is None or len(answers) != len(questions):
            log.error(
                RowError(
                    file=str(file),
                    line=number,
                    field="Question",
                    message="Question and Answer must be lists of texts of the same length, "
                    f"got {len(questions or [])} questions and {len(answers or [])} answers",
                )
            )
            return []
        kind = row.get("Question Type")
        kind = kind if isinstance(kind, str) and kind else None
        paragraph = row.get("Paragraph")
        context = (
            f"\n\nContext: {paragraph.strip()}"
            if isinstance(paragraph, str) and paragraph.strip()
            else ""
        )
        years = row.get("Year")
        common = {
            "image": row.get("image"),
            "question_type": kind,
            "year_flags": json_safe(years),
            "file": file.name,
            "row": number,
        }
        if kind == "Conversational" or len(questions) == 1:
            turns = [
                f"Q: {q.strip()}\nA: {a.strip()}"
                for q, a in zip(questions[:-1], answers[:-1], strict=True)
            ]
            history = "The conversation so far:\n" + "\n".join(turns) + "\n\n" if turns else ""
            return [
                {
                    **common,
                    "id": f"chartqapro-{number}",
                    "question": history + questions[-1].strip() + context,
                    "answer": answers[-1],
                }
            ]
        return [
            {
                **common,
                "id": f"chartqapro-{number}-{i}",
                "question": q.strip() + context,
                "answer": a,
            }
            for i, (q, a) in enumerate(zip(questions, answers, strict=True))
        ]

    samples = rows_to_samples(
        files,
        to_record,
        _FIELDS,
        dataset="chartqapro",
        root=store.root,
        images=RowImages(base, store),
        log=log,
    )
    return LoadResult(samples=samples, errors=log.errors, root=store.root)
