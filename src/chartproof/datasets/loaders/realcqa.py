"""Loader for RealCQA's release layout: `images/<PMC id>.jpg`, `qa/<PMC id>.json` (a list of
{"taxonomy id", "QID", "question", "answer", "answer_type", "qa_id", "PMC_ID"}), `json/<PMC
id>.json` (the CHART-Infographics annotation: chart type, data) and `test_filenames.txt`
(the ids of the test charts)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._json import json_records, read_json
from chartproof.datasets.loaders._records import FieldMap, RecordContext, record_to_sample
from chartproof.types import Sample

__all__ = ["REALCQA_TYPES", "load_realcqa"]

REALCQA_TYPES = {
    "line": "line",
    "scatter": "scatter",
    "vertical bar": "vbar",
    "horizontal bar": "hbar",
    "vertical box": "box",
    "horizontal box": "box",
    "pie": "pie",
    "area": "area",
}
"""CHART-Infographics chart types (lower case) mapped to chartproof's names."""

_FIELDS = FieldMap(choices=(), explanation="", groups=("taxonomy",))
_IMAGE_SUFFIXES = (".jpg", ".png", ".jpeg")


def _answer(value: JsonValue) -> JsonValue:
    if isinstance(value, list):
        return json.dumps(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _chart_type(root: Path, stem: str, log: RowLog) -> str | None:
    file = root / "json" / f"{stem}.json"
    if not file.is_file():
        return None
    try:
        data = read_json(file)
    except ValueError as exc:
        log.error(
            RowError(
                file=str(file),
                line=1,
                message=f"chart annotation unreadable ({exc})",
                severity="warning",
            )
        )
        return None
    task = data.get("task1") if isinstance(data, dict) else None
    output = task.get("output") if isinstance(task, dict) else None
    kind = output.get("chart_type") if isinstance(output, dict) else None
    return kind.strip() if isinstance(kind, str) and kind.strip() else None


def load_realcqa(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str | None = None,
) -> LoadResult:
    """Load RealCQA from its release folder. `split="test"` keeps the charts listed in
    test_filenames.txt, `split="train"` the others; by default all.

    Ids are "realcqa-<qa_id>"; the taxonomy id (the question family, e.g. "2e") is the
    `question_type` and a group label; list answers stay lists, numbers numbers.
    """
    root = Path(path)
    qa_dir = root / "qa"
    if not qa_dir.is_dir():
        raise FileNotFoundError(f"no RealCQA qa/ folder in {root}")
    test_ids: set[str] | None = None
    listed = root / "test_filenames.txt"
    if split is not None:
        if split not in ("train", "test"):
            raise ValueError(f"RealCQA splits are 'train' and 'test', not {split!r}")
        if not listed.is_file():
            raise FileNotFoundError(f"{root}: split {split!r} needs test_filenames.txt")
        test_ids = {
            Path(t.strip()).stem
            for t in listed.read_text(encoding="utf-8").splitlines()
            if t.strip()
        }
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for file in sorted(qa_dir.glob("*.json")):
        stem = file.stem
        if test_ids is not None and (stem in test_ids) != (split == "test"):
            continue
        image = next(
            (
                f"images/{stem}{s}"
                for s in _IMAGE_SUFFIXES
                if (root / "images" / f"{stem}{s}").is_file()
            ),
            f"images/{stem}.jpg",
        )
        kind = _chart_type(root, stem, log)
        ctx = RecordContext(
            file=str(file), root=root, dataset="realcqa", log=log,
            check_images=check_images, seen=seen,
        )  # fmt: skip
        try:
            items = json_records(read_json(file), file, log)
        except ValueError as exc:
            log.error(RowError(file=str(file), line=1, message=str(exc)))
            continue
        for pos, item in items:
            qa_id = item.get("qa_id")
            taxonomy = item.get("taxonomy id")
            record: dict[str, JsonValue] = {
                **{k: v for k, v in item.items() if k != "answer"},
                "id": f"realcqa-{qa_id}"
                if isinstance(qa_id, str) and qa_id
                else f"realcqa-{stem}-{pos}",
                "image": image,
                "answer": _answer(item.get("answer")),
                "question_type": taxonomy if isinstance(taxonomy, str) else None,
                "taxonomy": taxonomy if isinstance(taxonomy, str) else None,
            }
            if test_ids is not None:
                record["split"] = split
            if kind is not None:
                record["chart_type"] = REALCQA_TYPES.get(kind.lower(), kind)
                record["chart_type_raw"] = kind
            sample = record_to_sample(record, pos, _FIELDS, ctx)
            if sample is not None:
                samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
