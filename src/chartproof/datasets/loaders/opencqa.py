"""Loader for OpenCQA's release layout (github.com/vis-nlp/OpenCQA): `chart_images/` and
`etc/data(full_summary_article)/<split>_extended.json` (train, val, test), each a mapping from
an image number to [image_file, title, article, summary, question, abstractive_answer,
extractive_answer]; or `etc/data/<split>.json`, the same without the article.
`full_dataset*.json` repeats all splits and is read only when named (`split=full_dataset`)."""

from __future__ import annotations

from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._json import pick_splits, read_json
from chartproof.datasets.loaders._records import FieldMap, RecordContext, record_to_sample
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Sample

__all__ = ["OPENCQA_FIELDS", "load_opencqa", "opencqa_files"]

OPENCQA_FIELDS = (
    "image_file", "title", "article", "summary", "question", "abstractive_answer",
    "extractive_answer",
)  # fmt: skip
"""The positions of an OpenCQA entry's list."""

_FIELDS = FieldMap(choices=(), explanation="", table="")


OPENCQA_PLAIN_FIELDS = tuple(f for f in OPENCQA_FIELDS if f != "article")
"""The positions of an entry of `etc/data/<split>.json` (the release without articles)."""

UNION_SPLITS = ("full_dataset",)
"""Files that repeat every split's entries (`full_dataset_extended.json`): read only when
named, so a default load counts each question once."""


def opencqa_files(root: Path) -> dict[str, Path]:
    """The split files under `root` (any depth), by split: `<split>_extended.json` (the full
    annotations), else `<split>.json` inside a `data` folder (`etc/data/`, no articles)."""
    out: dict[str, Path] = {}
    for f in sorted(root.rglob("*_extended.json")):
        out.setdefault(f.name[: -len("_extended.json")], f)
    for f in sorted(root.rglob("data/*.json")):
        if f.stem in ("train", "val", "test", *UNION_SPLITS):
            out.setdefault(f.stem, f)
    return out


@register_loader(
    "opencqa",
    detect=lambda p: (p / "chart_images").is_dir() and bool(opencqa_files(p)),
    order=22,
)
def load_opencqa(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str | None = None,
    answer: str = "abstractive",
    images: str = "chart_images",
) -> LoadResult:
    """Load OpenCQA from its repository folder. `split` picks files ("val,test"); `answer`
    picks the gold: "abstractive" (the generative setting) or "extractive". Images are
    found under `images` (relative to `path`). Ids are "opencqa-<split>-<image number>";
    title, summary, article and the other answer go to the sample's source.
    """
    if answer not in ("abstractive", "extractive"):
        raise ValueError(f"answer must be 'abstractive' or 'extractive', not {answer!r}")
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no OpenCQA folder at {root}")
    files = opencqa_files(root)
    default = {k: v for k, v in files.items() if k not in UNION_SPLITS} or files
    chosen, unknown = pick_splits(split, files if split else default)
    if unknown or not chosen:
        raise ValueError(
            f"{root}: no OpenCQA file <split>_extended.json for {unknown or ''}; found {sorted(files)}"
        )
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for name in chosen:
        file = files[name]
        data = read_json(file)
        if not isinstance(data, dict):
            raise ValueError(f"{file}: expected a JSON object of entries keyed by image number")
        ctx = RecordContext(
            file=str(file), root=root, dataset="opencqa", log=log,
            check_images=check_images, seen=seen,
        )  # fmt: skip
        for pos, (key, entry) in enumerate(data.items(), start=1):
            if isinstance(entry, list) and len(entry) == len(OPENCQA_FIELDS):
                fields: dict[str, JsonValue] = dict(zip(OPENCQA_FIELDS, entry, strict=True))
            elif isinstance(entry, list) and len(entry) == len(OPENCQA_PLAIN_FIELDS):
                fields = dict(zip(OPENCQA_PLAIN_FIELDS, entry, strict=True))
            elif isinstance(entry, dict):
                fields = dict(entry)
            else:
                log.error(
                    RowError(
                        file=str(file), line=pos, sample_id=f"opencqa-{name}-{key}",
                        message=f"expected a list of the fields {list(OPENCQA_FIELDS)} (or without article)",
                    )
                )  # fmt: skip
                continue
            image = fields.get("image_file")
            record: dict[str, JsonValue] = {
                **{k: v for k, v in fields.items() if k not in ("image_file", "question")},
                "id": f"opencqa-{name}-{key}",
                "image": f"{images}/{image}" if isinstance(image, str) and image else None,
                "question": fields.get("question"),
                "answer": fields.get(f"{answer}_answer"),
                "question_type": "open-ended",
                "split": name,
            }
            sample = record_to_sample(record, pos, _FIELDS, ctx)
            if sample is not None:
                samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
