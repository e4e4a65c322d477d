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
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Answer, Sample

__all__ = ["ANSWER_KINDS", "REALCQA_TYPES", "load_realcqa"]

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


ANSWER_KINDS = {
    "Ranked List": "ranked_list",
    "Unranked List": "unranked_list",
    "List": "unranked_list",
    "Numerical": "number",
    "Binary": "binary",
    "String": "string",
}
"""RealCQA's `answer_type` → the `source["answer_kind"]` recorded for scoring conventions."""

_TRUE = frozenset({"1", "true", "yes"})
_FALSE = frozenset({"0", "false", "no"})


def _item_text(value: JsonValue) -> str | float:
    if isinstance(value, list):  # a nested item: eval_PMC.py joins its parts
        return "".join(str(v) for v in value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return str(value)


def _typed(sample: Sample, raw: JsonValue, kind: str | None) -> Sample | str:
    """The sample with the answer its `answer_type` says (a ranked list keeps its order, a
    binary 1/0 is yes/no), or a message when the raw answer does not fit that type."""
    if kind == "ranked_list" or (kind == "unranked_list" and isinstance(raw, list)):
        if not isinstance(raw, list) or not raw:
            return f"a {kind.replace('_', ' ')} answer must be a non-empty list, got {raw!r}"
        items = tuple(_item_text(v) for v in raw)
        answer = Answer(kind="ranked_list" if kind == "ranked_list" else "list", value=items)
        return sample.model_copy(update={"answer": answer})
    if kind == "binary":
        word = str(raw).strip().casefold()
        if isinstance(raw, bool) or word in _TRUE | _FALSE:
            value = raw if isinstance(raw, bool) else word in _TRUE
            return sample.model_copy(update={"answer": Answer.boolean(value)})
        return f"a binary answer must be 1/0, yes/no or true/false, got {raw!r}"
    return sample


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


@register_loader(
    "realcqa", detect=lambda p: (p / "qa").is_dir() and (p / "images").is_dir(), order=20
)
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
    `question_type` and a group label. The answer follows its `answer_type`: a "Ranked
    List" stays in order (`ranked_list`), an "Unranked List" is a set (`list`), "Binary"
    1/0 answers are yes/no, numbers numbers; `source["answer_kind"]` records which
    (ranked_list, unranked_list, number, binary, string) for the benchmark's own scorer.
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
        chart = _chart_type(root, stem, log)
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
            if chart is not None:
                record["chart_type"] = REALCQA_TYPES.get(chart.lower(), chart)
                record["chart_type_raw"] = chart
            raw_type = item.get("answer_type")
            kind = ANSWER_KINDS.get(raw_type) if isinstance(raw_type, str) else None
            if kind is not None:
                record["answer_kind"] = kind
            sample = record_to_sample(record, pos, _FIELDS, ctx)
            if sample is None:
                continue
            typed = _typed(sample, item.get("answer"), kind)
            if isinstance(typed, str):
                log.error(
                    RowError(
                        file=str(file), line=pos, field="answer", sample_id=sample.id,
                        message=typed,
                    )
                )  # fmt: skip
                ctx.seen.pop(sample.id, None)
                continue
            samples.append(typed)
    return LoadResult(samples=samples, errors=log.errors, root=root)
