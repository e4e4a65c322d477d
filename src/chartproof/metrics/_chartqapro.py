"""ChartQA-Pro's published scorer (VLMEvalKit `dataset/utils/chartqapro.py`,
`evaluate_predictions_chartqapro`), reproduced with its quirks, each pinned in
`tests/metrics/cases/convention_chartqapro.json`:

* The gold is the row's last answer and both sides lose trailing periods and newlines
  (`.strip(".").strip("\\n")`).
* A bracketed gold is read as a list after quoting its bare items; a prediction is a list
  only when it is a Python list literal. Items are compared by position; a missing or extra
  item scores 0 and the row scores the mean.
* An item whose year flag is "YES" must match exactly (case-insensitive, stripped); the
  flags repeat when there are fewer than items (a conversation uses its last flag).
* Otherwise both items lose "%" signs; two numbers are right within 5 % of the gold (a
  gold 0 needs exactly 0); anything else scores ANLS (the `anls` package: lower-cased,
  whitespace collapsed, similarity 0 at a normalised distance ≥ 0.5).
* Fact Checking and Multi Choice rows are meant to be exact, but the script never passes
  that flag on, so they are scored like the others; so is "unanswerable".
"""

from __future__ import annotations

import ast
import re
from typing import Any

from chartproof.metrics.accuracy import levenshtein
from chartproof.types import Sample

__all__ = ["chartqapro_correctness", "chartqapro_score"]

_BRACKETED = re.compile(r"^\[(.*)\]$")
_BARE_ITEM = re.compile(r"(?<!['\w])(\w[^,]*?)(?!['\w])")
_TOLERANCE = 0.05


def _quoted_list(text: str) -> Any:
    """A bracketed gold with its bare items quoted and read as a list; the text otherwise."""
    m = _BRACKETED.match(text.strip())
    if not m:
        return text
    try:
        return ast.literal_eval("[" + _BARE_ITEM.sub(r"'\1'", m.group(1)) + "]")
    except (SyntaxError, ValueError):
        return text


def _items(text: str) -> list[str] | None:
    try:
        value = ast.literal_eval(text)
    except Exception:  # the script's catch-all: anything unreadable is no list
        return None
    return [str(x).strip(" '") for x in value] if isinstance(value, list) else None


def _number(text: str) -> float | None:
    try:
        return float(text.strip().strip("%"))
    except ValueError:
        return None


def _anls(prediction: str, gold: str, threshold: float = 0.5) -> float:
    p = " ".join(prediction.strip().lower().split())
    g = " ".join(gold.strip().lower().split())
    longest = max(len(p.upper()), len(g.upper()))  # the package measures upper-cased lengths
    distance = 0.0 if longest == 0 else levenshtein(p, g) / longest
    return 1 - distance if distance < threshold else 0.0


def _item_score(gold: str, prediction: str) -> float:
    t = gold.strip().strip("%").strip()
    p = prediction.strip().strip("%").strip()
    tf, pf = _number(t), _number(p)
    if tf is not None and pf is not None:
        if tf == 0.0:
            return float(pf == 0.0)
        return float(abs(pf - tf) / abs(tf) <= _TOLERANCE)
    return _anls(p.lower(), t.lower())


def chartqapro_correctness(gold: str, prediction: str, year_flags: list[str]) -> float:
    """One answer scored as `relaxed_correctness_chartqapro` scores it (see the module)."""
    golds = _items(str(_quoted_list(gold))) or [str(gold)]
    preds = _items(str(prediction)) or [str(prediction)]
    flags = year_flags * len(golds) if len(year_flags) < len(golds) else year_flags
    scores = []
    for i in range(max(len(golds), len(preds))):
        if i >= len(golds) or i >= len(preds):
            scores.append(0.0)
        elif flags[i].upper() == "YES":
            scores.append(float(golds[i].strip().lower() == preds[i].strip().lower()))
        else:
            scores.append(_item_score(golds[i], preds[i]))
    return sum(scores) / len(scores) if scores else 0.0


def _flags(sample: Sample) -> list[str]:
    raw = sample.source.get("year_flags")
    flags = [str(x) for x in raw] if isinstance(raw, list) else []
    if sample.source.get("question_type") == "Conversational" or sample.question_type == (
        "Conversational"
    ):
        flags = flags[-1:]
    # the script needs flags; a sample without them is scored as a non-year answer
    return flags or ["NO"]


def chartqapro_score(prediction: str, sample: Sample) -> float:
    """One prediction scored as `evaluate_predictions_chartqapro` scores its row."""
    raw = sample.source.get("answer_raw")
    gold = raw if isinstance(raw, str) else sample.answer.text()
    return chartqapro_correctness(
        gold.strip(".").strip("\n"), prediction.strip(".").strip("\n"), _flags(sample)
    )
