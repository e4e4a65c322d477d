"""Preference pairs from counterfactual charts (ChartCF): on the counterfactual image, the
counterfactual's answer is preferred over the original's, exported as JSONL for DPO.

Rows follow TRL's preference format with an `images` column: `prompt`, `chosen`, `rejected`
(plain strings, or chat messages with an image placeholder when `conversational=True`) and
`images`, a list with the counterfactual image's path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import JsonValue

from chartproof.answers import same_answer
from chartproof.types import Answer, Record, Sample

__all__ = ["PreferencePair", "distinct_answers", "preference_pairs", "trl_row", "write_pairs"]


class PreferencePair(Record):
    """One DPO example: a question on a counterfactual chart and two answers to it."""

    id: str
    """Pair id: the counterfactual sample's id."""
    prompt: str
    """The question (shared by the original and the counterfactual)."""
    image: str
    """Path of the counterfactual chart image (as the sample's `ImageRef` has it)."""
    chosen: str
    """The counterfactual's answer: right on this image."""
    rejected: str
    """The original chart's answer: what a model that ignores the image would say."""
    original_id: str
    """Id of the original sample."""
    family_id: str | None = None
    """Counterfactual family of both samples."""
    similarity: float | None = None
    """Similarity of the counterfactual image to the original, when measured."""
    task_type: str | None = None
    """ChartR task type of the question."""


def distinct_answers(a: Answer, b: Answer) -> bool:
    """Whether `a` would be marked wrong against gold `b` (`chartproof.answers.same_answer`:
    the scoring rules, years exact, trailing punctuation ignored). Only distinct pairs teach
    anything."""
    return not same_answer(a, b)


def preference_pairs(
    originals: Iterable[Sample],
    counterfactuals: Iterable[Sample],
    *,
    similarity: Mapping[str, float] | None = None,
) -> list[PreferencePair]:
    """Pair each counterfactual sample with its original (`parent_id`) when their answers
    are distinct; counterfactuals whose answer did not change are left out.

    Raises ValueError naming a counterfactual whose parent is missing.
    """
    by_id = {s.id: s for s in originals}
    pairs: list[PreferencePair] = []
    for cf in counterfactuals:
        if cf.parent_id is None or cf.parent_id not in by_id:
            raise ValueError(f"counterfactual sample {cf.id!r}: parent {cf.parent_id!r} not given")
        orig = by_id[cf.parent_id]
        if not distinct_answers(orig.answer, cf.answer):
            continue
        pairs.append(
            PreferencePair(
                id=cf.id,
                prompt=cf.question,
                image=cf.image.path,
                chosen=cf.answer.text(),
                rejected=orig.answer.text(),
                original_id=orig.id,
                family_id=cf.family_id,
                similarity=None if similarity is None else similarity.get(cf.id),
                task_type=cf.task_type,
            )
        )
    return pairs


def trl_row(
    pair: PreferencePair, *, conversational: bool = False, image_root: Path | None = None
) -> dict[str, JsonValue]:
    """One JSONL row in TRL's preference format; image paths are joined to `image_root`."""
    image = str(image_root / pair.image) if image_root is not None else pair.image
    meta: dict[str, JsonValue] = {
        "id": pair.id,
        "original_id": pair.original_id,
        "family_id": pair.family_id,
        "similarity": pair.similarity,
        "task_type": pair.task_type,
    }
    if not conversational:
        return {
            "prompt": pair.prompt,
            "chosen": pair.chosen,
            "rejected": pair.rejected,
            "images": [image],
            **meta,
        }
    return {
        "prompt": [
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": pair.prompt}]}
        ],
        "chosen": [{"role": "assistant", "content": [{"type": "text", "text": pair.chosen}]}],
        "rejected": [{"role": "assistant", "content": [{"type": "text", "text": pair.rejected}]}],
        "images": [image],
        **meta,
    }


def write_pairs(
    pairs: Iterable[PreferencePair],
    path: Path,
    *,
    conversational: bool = False,
    image_root: Path | None = None,
) -> int:
    """Write pairs as JSONL (one `trl_row` a line, UTF-8); returns how many were written."""
    n = 0
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for pair in pairs:
            row = trl_row(pair, conversational=conversational, image_root=image_root)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    tmp.replace(path)
    return n
