"""Loader for DVQA's native layout: `images/` (bar_<split>_<id>.png), question files
`<split>_qa.json` (a list of {image, question, answer, question_id, template_id, answer_bbox})
for train, val_easy and val_hard, and optional `<split>_metadata.json` whose `table` (the
chart's data as rows, header first) becomes the sample's table."""

from __future__ import annotations

from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._json import json_records, pick_splits, read_json
from chartproof.datasets.loaders._records import FieldMap, RecordContext, record_to_sample
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Sample

__all__ = ["dvqa_files", "load_dvqa"]

_FIELDS = FieldMap(choices=(), explanation="", groups=("template_id",))
_SUBFOLDERS = ("", "qa", "questions", "json")
_META_FOLDERS = ("", "metadata", "qa", "json")


def dvqa_files(root: Path) -> dict[str, Path]:
    """Question files by split name, found in `root` or its qa/ (questions/, json/) folder."""
    out: dict[str, Path] = {}
    for sub in _SUBFOLDERS:
        folder = root / sub if sub else root
        if folder.is_dir():
            for f in sorted(folder.glob("*_qa.json")):
                out.setdefault(f.name[: -len("_qa.json")], f)
    return out


def _tables(root: Path, split: str, log: RowLog) -> dict[str, JsonValue]:
    for sub in _META_FOLDERS:
        file = (root / sub if sub else root) / f"{split}_metadata.json"
        if file.is_file():
            out: dict[str, JsonValue] = {}
            for _, item in json_records(read_json(file), file, log):
                image = item.get("image")
                if isinstance(image, str) and item.get("table") is not None:
                    out[image] = item["table"]
            return out
    return {}


@register_loader("dvqa", detect=lambda p: bool(dvqa_files(p)), order=16)
def load_dvqa(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str | None = None,
    images: str = "images",
) -> LoadResult:
    """Load DVQA from its release folder. `split` picks question files ("train,val_hard");
    by default all found. Image files are looked up in the `images` folder. Ids are
    "dvqa-<split>-<question_id>"; the template (structure, data, reasoning) is
    `question_type`. A metadata table that does not parse is a warning (kept in source).
    Number answers allow no tolerance (DVQA is scored by exact match), so chartproof's
    `accuracy` and the `exact` convention agree on numbers.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no DVQA folder at {root}")
    files = dvqa_files(root)
    chosen, unknown = pick_splits(split, files)
    if unknown or not chosen:
        raise ValueError(
            f"{root}: no DVQA question file <split>_qa.json for {unknown or ''}; found {sorted(files)}"
        )
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for name in chosen:
        file = files[name]
        tables = _tables(root, name, log)
        ctx = RecordContext(
            file=str(file), root=root, dataset="dvqa", log=log,
            check_images=check_images, seen=seen, tolerance=0.0,
        )  # fmt: skip
        for pos, item in json_records(read_json(file), file, log):
            image = item.get("image")
            qid = item.get("question_id", pos)
            if not isinstance(image, str) or not image:
                log.error(
                    RowError(
                        file=str(file),
                        line=pos,
                        field="image",
                        sample_id=f"dvqa-{name}-{qid}",
                        message="image is missing",
                    )
                )
                continue
            template = item.get("template_id", item.get("question_type"))
            record: dict[str, JsonValue] = {
                **{k: v for k, v in item.items() if k not in ("image",)},
                "id": f"dvqa-{name}-{qid}",
                "image": f"{images}/{image}",
                "image_file": image,
                "question_type": template if isinstance(template, str) else None,
                "template_id": template if isinstance(template, str) else None,
                "split": name,
            }
            answer = item.get("answer")
            if isinstance(answer, int | float) and not isinstance(answer, bool):
                record["answer"] = str(answer)
            if image in tables:
                record["table"] = tables[image]
            sample = record_to_sample(record, pos, _FIELDS, ctx)
            if sample is not None:
                samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
