"""Loaders for JSONL files of real chart-QA data: any layout through a field mapping
(`jsonl`), and the layout of the project's shared test data (`shared`)."""

from __future__ import annotations

from pathlib import Path

from chartproof.datasets.errors import LoadResult
from chartproof.datasets.loaders._records import (
    FieldMap,
    iter_json_records,
    iter_jsonl_records,
    load_record_file,
    one_data_file,
)
from chartproof.datasets.loaders._registry import register_loader

__all__ = ["SHARED_GROUP_KEYS", "FieldOption", "load_json", "load_jsonl", "load_shared"]

SHARED_GROUP_KEYS = (
    "source_site", "polarity", "figureqa_subset", "chart_complexity", "question_complexity",
)  # fmt: skip
"""Extra keys of the shared data that become group labels (short categorical values)."""


def _jsonl_file(path: Path) -> Path:
    return one_data_file(path, ".jsonl", "no dataset")


FieldOption = str | bool | tuple[str, ...]
"""A field option's value: a key, comma-separated keys or a tuple of them, a flag."""


@register_loader("jsonl")
def load_jsonl(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    images: str | Path | None = None,
    name: str | None = None,
    fields: FieldMap | None = None,
    **keys: FieldOption,
) -> LoadResult:
    """Load a JSONL file (or a folder holding exactly one) whose keys are named by a
    `FieldMap`: `fields`, and keyword options over it, e.g.
    `load_jsonl(p, question="query", answer="label", image="imgname")` (a data spec says
    `jsonl:p?question=query&answer=label&image=imgname`).

    Pass "" for a part the source lacks. `groups` lists extra keys (comma-separated or a
    tuple) that become group labels; all other keys go to `Sample.source`. Image paths are
    relative to `images` (default: the file's folder). Gold answers are typed by
    `type_answer`; the raw string stays in `source["answer_raw"]`.

    `choices` names the key of a multiple-choice question's options (a list, a letter →
    text mapping, lettered lines or "a|b|c"), or several comma-separated keys holding one
    option each; the gold answer then is an option's letter or text and becomes a
    "choice" answer. `options_in_question` reads lettered options out of the question
    text of records without a choices field.

    Any key may be a dotted path into nested values (`question=conversations.0.value`); a
    question, image or answer field holding an object is a row error asking for one. A file
    that is one JSON array raises ValueError naming the `json` loader; an option that names
    no field raises ValueError listing the field options.
    """
    file = _jsonl_file(Path(path))
    return load_record_file(
        file,
        iter_jsonl_records,
        FieldMap.parse(keys, fields),
        strict=strict,
        check_images=check_images,
        images=images,
        name=name,
    )


@register_loader("json")
def load_json(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    images: str | Path | None = None,
    name: str | None = None,
    fields: FieldMap | None = None,
    **keys: FieldOption,
) -> LoadResult:
    """Load a JSON file (or a folder holding exactly one) that is an array of records, or an
    object of records keyed by id (the key becomes the id of records without one), with the
    same field options as `load_jsonl`."""
    file = one_data_file(Path(path), ".json", "no dataset")
    return load_record_file(
        file,
        iter_json_records,
        FieldMap.parse(keys, fields),
        strict=strict,
        check_images=check_images,
        images=images,
        name=name,
    )


@register_loader("shared", detect=lambda p: any(p.glob("*.jsonl")), order=85)
def load_shared(path: Path, *, strict: bool = False, check_images: bool = True) -> LoadResult:
    """Load a folder of the shared test data (`../shared/data/<name>/`: one JSONL with id,
    image, question, answer, chart_type, question_type, table as CSV text or null, extras).

    Extras go to `Sample.source`; `SHARED_GROUP_KEYS` among them become group labels. The
    dataset name is the folder name.
    """
    file = _jsonl_file(Path(path))
    return load_jsonl(
        file,
        strict=strict,
        check_images=check_images,
        groups=SHARED_GROUP_KEYS,
        name=file.parent.name,
    )
