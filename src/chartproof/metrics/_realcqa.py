"""RealCQA's published scorer (`code/evaluation/eval_PMC.py` of cse-ai-lab/RealCQA),
reproduced with its quirks, each pinned in `tests/metrics/cases/convention_realcqa.json`:

* Binary — the prediction must be one of "True", "Yes", "yes", "true", "1" (yes) or
  "False", "No", "no", "false", "0" (no), spelt exactly; the gold is yes only when it is
  one of the four yes words (a gold 1, or JSON true, counts as no).
* Numerical — `float()` on both; right when (gold − prediction) / (gold + 1e-9) ≤ 0.05, with
  no absolute value (any prediction above the gold is right, a negative gold takes all).
* String — equal after lower-casing and stripping newlines.
* Unranked List — the prediction (a list literal) and the gold lowered item by item;
  matches = equal (prediction, gold) item pairs, F1 of matches / len(gold) and
  matches / len(prediction) (duplicates count again); no list → 0.
* Ranked List — one gold item: the prediction must be exactly that one item; more: nDCG@10
  (trec_eval's, as `ir_measures` computes it) of the prediction ranked by position *from
  the end* against gold relevances equal to each item's position (the first gold item has
  relevance 0), exactly as the script builds its qrels and run.

A prediction text that is a Python list literal is given to the list types as that list
(a prediction file stores a list answer as a list); any other text stays a string, which
the script iterates character by character in a ranked list.
"""

from __future__ import annotations

import ast
import json
import math
from typing import Any

from chartproof.types import Sample

__all__ = ["binary_score", "ndcg_at_10", "numeric_score", "realcqa_score", "unranked_score"]

_YES = ("True", "Yes", "yes", "true", 1, "1")
_NO = ("False", "No", "no", "false", 0, "0")
_GOLD_YES = ("True", "Yes", "yes", "true")


def _gold(sample: Sample) -> Any:
    """The gold as the release's JSON holds it: `source["answer_json"]`, else the raw text
    (a list read back from its JSON dump)."""
    if "answer_json" in sample.source:
        return sample.source["answer_json"]
    raw = sample.source.get("answer_raw")
    if not isinstance(raw, str):
        return sample.answer.text()
    if raw.startswith("["):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def binary_score(pred: Any, gold: Any) -> float:
    """eval_PMC `get_binary_score`."""
    if pred in _YES:
        said: Any = True
    elif pred in _NO:
        said = False
    else:
        said = pred
    return float(said == (gold in _GOLD_YES))


def numeric_score(pred: Any, gold: Any, tolerance: float = 0.05) -> float:
    """eval_PMC's numeric branch: `float()` both (0 when either fails), then
    `get_numeric_score` (no absolute value on the error)."""
    try:
        p, g = float(pred), float(gold)
    except (TypeError, ValueError):
        return 0.0
    return float(abs(g - p) / (g + 1e-9) <= tolerance)


def unranked_score(pred: Any, gold: Any) -> float:
    """eval_PMC's unranked branch: a non-list prediction is `ast.literal_eval`ed (0 when
    that or the scoring fails), then `get_unranked_score`."""
    try:
        items = ast.literal_eval(pred) if not isinstance(pred, list) else pred
        pan = [str(x).lower() for x in items]
        gan = [str(x).lower() for x in gold]
        hits = sum(1 for p in pan for g in gan if p == g)
        precision, recall = hits / len(gan), hits / len(pan)
    except Exception:  # the script's bare except: any failure scores 0
        return 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def _rels(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for ix, k in enumerate(items):
        if isinstance(k, list):
            k = "".join(str(x) for x in k)
        out[str(k)] = ix
    return out


def ndcg_at_10(qrel: dict[str, int], run: dict[str, int]) -> float:
    """trec_eval's nDCG@10 (linear gains, log2 discount, ideal from the judged relevances):
    documents ranked by score, highest first (ties: document id descending, as trec_eval)."""
    ranked = sorted(run.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:10]
    dcg = sum(qrel.get(doc, 0) / math.log2(i + 2) for i, (doc, _) in enumerate(ranked))
    ideal = sorted((r for r in qrel.values() if r > 0), reverse=True)[:10]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def ranked_score(pred: Any, gold: Any) -> float:
    """eval_PMC `get_qrel` + `get_ranked_score`."""
    qrel, run = _rels(gold), _rels(pred)
    if len(qrel) == 1:
        return float(qrel == run)
    if not run:
        return 0.0
    return ndcg_at_10(qrel, run)


def _as_list(text: str) -> Any:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    return value if isinstance(value, list) else text


def realcqa_score(prediction: str, sample: Sample) -> float:
    """One prediction scored as eval_PMC scores it, by `source["answer_type"]`."""
    kind = sample.source.get("answer_type")
    gold = _gold(sample)
    if kind == "Binary":
        return binary_score(prediction, gold)
    if kind == "Numerical":
        return numeric_score(prediction, gold)
    if kind == "Unranked List":
        return unranked_score(_as_list(prediction), gold)
    if kind == "Ranked List":
        return ranked_score(_as_list(prediction), gold if isinstance(gold, list) else [gold])
    # "String" and anything else
    return float(str(prediction).lower().strip("\n") == str(gold).lower().strip("\n"))
