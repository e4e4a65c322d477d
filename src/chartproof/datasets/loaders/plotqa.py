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
from chartproof.datasets.loaders.figureqa import FIGUREQA_TYPES
from chartproof.types import Sample

__all__ = ["load_plotqa", "plotqa_splits"]

_FIELDS = FieldMap(choices=(), explanation="", groups=("template",))


def plotqa_splits(root: Path, version: str) -> list[str]:
    """Split folders under `root` holding qa_pairs_<version>.json ([""] when `root` is one)."""
    name = f"qa_pairs_{version}.json"
    if (root / name).is_file():
        return [""]
    return sorted(d.name for d in root.iterdir() if (d / name).is_file())


def _answer_text(value: JsonValue) -> JsonValue:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return value


def load_plotqa(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str | None = None,
    version: str = "V2",
) -> LoadResult:
    """Load PlotQA from its release folders (the folder of split folders, or one split).

    `version` picks qa_pairs_V1.json or qa_pairs_V2.json (V2, the corrected questions, by
    default); `split` picks folders ("train,val"). Ids are "plotqa-<split>-<position>";
    the question's template (structural, data retrieval, reasoning) is `question_type`.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no PlotQA folder at {root}")
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
        file = folder / f"qa_pairs_{version}.json"
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
                "template": item.get("type") if isinstance(item.get("type"), str) else None,
                "split": label,
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
