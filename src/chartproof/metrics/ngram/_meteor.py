"""METEOR 1.5 through the jar that pycocoevalcap ships (the COCO definition: exact, stem,
synonym and paraphrase matching in Java); not computed, with the reason, when Java or
pycocoevalcap is missing.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence

__all__ = ["MeteorUnavailable", "meteor_scores"]


class MeteorUnavailable(RuntimeError):
    """METEOR cannot run here; the message says what to install."""


def meteor_scores(
    candidates: Sequence[str], references: Sequence[Sequence[str]]
) -> tuple[float, list[float]]:
    """Corpus METEOR and per-sample scores of tokenised candidates, from the COCO jar."""
    if shutil.which("java") is None:
        raise MeteorUnavailable("METEOR needs Java on PATH (e.g. apt-get install default-jre)")
    try:
        from pycocoevalcap.meteor.meteor import Meteor
    except ImportError as exc:
        raise MeteorUnavailable(
            "METEOR needs pycocoevalcap: pip install 'chartproof[coco]'"
        ) from exc
    gts = {i: list(refs) for i, refs in enumerate(references)}
    res = {i: [cand] for i, cand in enumerate(candidates)}
    scorer = Meteor()
    try:
        corpus, per_sample = scorer.compute_score(gts, res)
    finally:
        scorer.meteor_p.stdin.close()
        scorer.meteor_p.wait()
    return float(corpus), [float(s) for s in per_sample]
