"""Loader for PlotQA's native layout: split folders (`train`, `val`, `test`) each holding
`qa_pairs_V1.json` / `qa_pairs_V2.json` ({"qa_pairs": [...]} with image_index,
question_string, answer, template, type, qid), `png/{image_index}.png` and
`annotations.json` (per-plot type and data)."""

from __future__ import annotations

from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowLog
from chartproof.datasets.loaders._json import json_records, pick_splits, read_json
from chartproof.datasets.loaders._plot_models import image_index, plot_annotations
from chartproof.datasets.loaders._records import FieldMap, RecordContext, record_to_sample
from chartproof.datasets.loaders._registry import register_loader
from chartproof.datasets.loaders.figureqa import FIGUREQA_TYPES
from chartproof.types import Sample

__all__ = ["load_plotqa", "plotqa_splits", "plotqa_versions"]

_FIELDS = FieldMap(choices=(), explanation="")


def _qa_file(folder: Path, version: str) -> Path | None:
    """The folder's qa_pairs_<version>.json, whatever the case of the V (the release spells it
    qa_pairs_V1.json / qa_pairs_V2.json, its documentation qa_pairs_v1.json)."""
    want = f"qa_pairs_{version}.json".lower()
    found = sorted(f for f in folder.glob("qa_pairs_*.json") if f.name.lower() == want)
    return found[0] if found else None


def plotqa_versions(root: Path) -> list[str]:
    """The question versions ("V1", "V2") found in `root` or its split folders."""
    folders = [root, *(d for d in root.iterdir() if d.is_dir())] if root.is_dir() else []
    return sorted({v for v in ("V1", "V2") for d in folders if _qa_file(d, v) is not None})


def plotqa_splits(root: Path, version: str) -> list[str]:
    """Split folders under `root` holding qa_pairs_<version>.json ([""] when `root` is one)."""
    if _qa_file(root, version) is not None:
        return [""]
    return sorted(d.name for d in root.iterdir() if d.is_dir() and _qa_file(d, version))


def _answer_text(value: JsonValue) -> JsonValue:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return value


@register_loader("plotqa", detect=lambda p: bool(plotqa_versions(p)), order=14)
def load_plotqa(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str | None = None,
    version: str | None = None,
) -> LoadResult:
    """Load PlotQA from its release folders (the folder of split folders, or one split).

    `version` picks qa_pairs_V1.json or qa_pairs_V2.json (any case); by default V2 (the
    corrected questions) when the folder has it, else V1. `split` picks folders
    ("train,val"). Ids are "plotqa-<split>-<position>"; the question's template (structural,
    data retrieval, reasoning) is `question_type`, the plot type (`type`: vbar_categorical,
    hbar_categorical, line, dot_line) becomes `chart_type` and stays in source.plot_type.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no PlotQA folder at {root}")
    if version is None:
        versions = plotqa_versions(root)
        version = "V2" if "V2" in versions or not versions else versions[0]
    version = version.upper()
    found = plotqa_splits(root, version)
    chosen, unknown = pick_splits(split, found)
    if unknown or not chosen:
        raise ValueError(
            f"{root}: no PlotQA split folder with qa_pairs_{version}.json {unknown or ''}; found {found}"
        )
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for name in chosen:
        folder = root / name if name else root
        file = _qa_file(folder, version) or folder / f"qa_pairs_{version}.json"
        annotations = plot_annotations(folder, log)
        label = name or root.name
        ctx = RecordContext(
            file=str(file), root=root, dataset="plotqa", log=log,
            check_images=check_images, seen=seen,
        )  # fmt: skip
        for pos, item in json_records(read_json(file), file, log, key="qa_pairs"):
            index = image_index(item, file, pos, log)
            if index is None:
                continue
            record: dict[str, JsonValue] = {
                **{k: v for k, v in item.items() if k not in ("answer", "question_string")},
                "id": f"plotqa-{label}-{pos}",
                "image": f"{name}/png/{index}.png" if name else f"png/{index}.png",
                "question": item.get("question_string"),
                "answer": _answer_text(item.get("answer")),
                "question_type": item.get("template")
                if isinstance(item.get("template"), str)
                else None,
                "split": label,
            }
            kind, table = annotations.get(index, (None, None))
            if table is not None:
                record["table"] = table
            plot_type = record.pop("type", None)
            if kind is None and isinstance(plot_type, str) and plot_type:
                kind = plot_type
            if kind is not None:
                record["chart_type"] = FIGUREQA_TYPES.get(kind, kind)
                record["plot_type"] = kind
            sample = record_to_sample(record, pos, _FIELDS, ctx)
            if sample is not None:
                samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
