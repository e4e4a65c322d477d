"""`preference_pairs`: export DPO preference pairs from a dataset's counterfactual families
(ChartCF): each edited chart's question with chosen = its own answer and rejected = the
original chart's answer, keeping the counterfactuals least similar to their originals."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path

from chartproof.datasets import load_dataset, resolve_image
from chartproof.types import Sample

__all__ = ["PairsResult", "export_pairs"]


@dataclass(frozen=True)
class PairsResult:
    """What `export_pairs` wrote."""

    path: Path
    """The JSONL file."""
    candidates: int
    """Counterfactual samples whose answer differs from their original's."""
    written: int
    """Pairs kept under the budget and similarity limits."""


def _is_counterfactual(s: Sample) -> bool:
    return any(t.kind == "counterfactual" for t in s.transforms) and not any(
        t.kind == "perturbation" for t in s.transforms
    )


def export_pairs(
    data: str | Path,
    out: str | Path,
    *,
    budget: int | None = None,
    ceiling: float | None = 0.995,
    per_original: int | None = None,
    conversational: bool = False,
) -> PairsResult:
    """Write TRL-ready preference pairs (`prompt`, `chosen`, `rejected`, `images`) to `out`.

    Candidates are ranked by SSIM between the counterfactual's image and its original's,
    least similar first; `ceiling` drops near-identical charts, `budget` caps the number of
    pairs and `per_original` the pairs per original question.
    """
    from chartproof.variants.preference import preference_pairs, write_pairs
    from chartproof.variants.similarity import image_similarity, select_least_similar

    loaded = load_dataset(data)
    root = loaded.root
    by_id = {s.id: s for s in loaded.samples}
    cfs = [s for s in loaded.samples if _is_counterfactual(s) and s.parent_id in by_id]
    originals = [by_id[s.parent_id] for s in cfs if s.parent_id is not None]
    pairs = preference_pairs(originals, cfs)
    cache: dict[tuple[str, str], float] = {}
    scored: list[tuple[str, float]] = []
    by_pair = {p.id: p for p in pairs}
    groups: dict[str, Hashable] = {}
    for p in pairs:
        cf = by_id[p.id]
        orig = by_id[p.original_id]
        key = (orig.image.path, cf.image.path)
        if key not in cache:
            cache[key] = image_similarity(
                resolve_image(root, orig.image), resolve_image(root, cf.image)
            )
        scored.append((p.id, cache[key]))
        groups[p.id] = p.original_id
    keep = select_least_similar(
        scored,
        budget if budget is not None else len(scored),
        ceiling=ceiling,
        groups=groups,
        per_group=per_original,
    )
    similarity = dict(scored)
    chosen = [by_pair[k].model_copy(update={"similarity": similarity[k]}) for k in keep]
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = write_pairs(chosen, path, conversational=conversational, image_root=root.resolve())
    return PairsResult(path=path, candidates=len(pairs), written=written)
