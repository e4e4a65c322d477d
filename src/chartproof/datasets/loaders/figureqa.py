"""Loader for FigureQA's native layout: split folders (`train1`, `validation1`,
`validation2`, `no_annot_test1`, ...) each holding `qa_pairs.json` ({"qa_pairs": [...]} with
image_index, question_string, answer 0/1, question_id = template, color names), `png/` and
`annotations.json` (per-figure plot type)."""

from __future__ import annotations

from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowLog
from chartproof.datasets.loaders._json import json_records, pick_splits, read_json
from chartproof.datasets.loaders._plot_models import image_index, plot_annotations
from chartproof.datasets.loaders._records import FieldMap, RecordContext, record_to_sample
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Sample

__all__ = ["FIGUREQA_TYPES", "figureqa_splits", "load_figureqa"]

FIGUREQA_TYPES = {
    "vbar_categorical": "vbar",
    "hbar_categorical": "hbar",
    "line": "line",
    "dot_line": "line",
    "pie": "pie",
}
"""FigureQA plot types mapped to chartproof's chart types (the raw type stays in source)."""

_FIELDS = FieldMap(choices=(), explanation="", groups=("figureqa_subset", "template"))


def _split_name(folder: str) -> str:
    """train1 → train, validation2 → validation, no_annot_test1 → test."""
    stem = folder.rstrip("0123456789")
    return "test" if stem.endswith("test") else stem or folder


def figureqa_splits(root: Path) -> list[str]:
    """Split folders under `root` (those holding a qa_pairs.json), or [""] when `root` is one."""
    if (root / "qa_pairs.json").is_file():
        return [""]
    return sorted(d.name for d in root.iterdir() if (d / "qa_pairs.json").is_file())


@register_loader("figureqa", detect=lambda p: bool(figureqa_splits(p)), order=12)
def load_figureqa(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str | None = None,
) -> LoadResult:
    """Load FigureQA from its release folders (the folder holding the split folders, or one
    split folder). `split` picks folders ("train1,validation1"); by default all.

    Answers 1/0 become yes/no booleans; a question without an answer (the unlabelled test
    folders) is a row error, counted. Ids are "figureqa-<split>-<image>-<position>".
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no FigureQA folder at {root}")
    found = figureqa_splits(root)
    chosen, unknown = pick_splits(split, found)
    if unknown or not chosen:
        raise ValueError(f"{root}: no FigureQA split folder {unknown or ''}; found {found}")
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for name in chosen:
        folder = root / name if name else root
        subset = name or root.name
        file = folder / "qa_pairs.json"
        annotations = plot_annotations(folder, log)
        ctx = RecordContext(
            file=str(file), root=root, dataset="figureqa", log=log,
            check_images=check_images, seen=seen,
        )  # fmt: skip
        for pos, item in json_records(read_json(file), file, log, key="qa_pairs"):
            index = image_index(item, file, pos, log)
            if index is None:
                continue
            answer = item.get("answer")
            record: dict[str, JsonValue] = {
                **{k: v for k, v in item.items() if k not in ("answer", "question_string")},
                "id": f"figureqa-{subset}-{index}-{pos}",
                "image": f"{name}/png/{index}.png" if name else f"png/{index}.png",
                "question": item.get("question_string"),
                "answer": {1: "Yes", 0: "No"}.get(answer, answer)
                if isinstance(answer, int)
                else answer,
                "question_type": "yes/no",
                "figureqa_subset": subset,
                "split": _split_name(subset),
                "template": str(item.get("question_id")),
            }
            kind, table = annotations.get(index, (None, None))
            if table is not None:
                record["table"] = table
            if kind is not None:
                record["chart_type"] = FIGUREQA_TYPES.get(kind, kind)
                record["plot_type"] = kind
            sample = record_to_sample(record, pos, _FIELDS, ctx)
            if sample is not None:
                samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
