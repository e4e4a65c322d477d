"""Answer accuracy: relaxed accuracy (ChartQA), exact match, ANLS, and `score_answer`,
which compares a model's answer text with a typed gold `Answer` according to its kind.

Relaxed accuracy, as chartproof defines it (SPEC §7)
----------------------------------------------------
A numeric gold answer is right when the number read from the prediction lies within 5 %
of the target, measured against |target|; any other answer must match case-insensitively
after whitespace is collapsed and trailing punctuation dropped. The widely copied
definition (google-research/pix2struct `relaxed_correctness`, also inside several
harnesses) works on raw strings with `float()`, which gives wrong verdicts that
chartproof fixes, each pinned in `tests/metrics/cases/accuracy_relaxed.json`:

* zero target — pix2struct falls back to string equality ("0" vs "0.0" is wrong);
  chartproof compares numbers, so a zero target needs exactly zero.
* negative target — the tolerance is 5 % of |target| (pix2struct does this; copies that
  drop the `abs` accept every prediction below a negative target). "−5" with the Unicode
  minus sign is read as −5 (pix2struct cannot parse it).
* "%" — pix2struct divides by 100 on whichever side has the sign, so "12" vs "12%" is
  wrong; chartproof reads "%" as a unit mark, not a scale: "12%" equals 12. A fraction
  (0.12) does not match "12%".
* thousands separators — "1,234" is 1234 (pix2struct cannot parse it).
* trailing period and other trailing punctuation — "12." and "Yes." are 12 and yes.
* years — a target that looks like a calendar year (an integer from 1800 to 2100 with no
  unit) must match exactly: 2019 vs 2020 is within 5 % but names a different year.
  The cost: a count in that range (say 1,950 shops) is also compared exactly.
* units and words around a number — "about 12 kg" and "The answer is 12." are read as
  12; a scale word multiplies ("$12 million" is 12 000 000, which a gold 12 does not
  match); a prediction holding two different numbers ("10-12", "12 in 2019") gives no
  number and is compared as text.
* "%" on the prediction — "3%" is read as 3 and as 0.03, so it matches a gold 12 printed
  as "3 %" and a gold written as the fraction 0.03.
* the 5 % boundary is inclusive with a tiny float slack, so 1.05 vs 1 is right
  (pix2struct's 0.050000000000000044 > 0.05 makes it wrong).
"""

from __future__ import annotations

from chartproof.answers import (
    list_right,
    matches,
    normalize_text,
    number_right,
    numbers_in,
    parse_bool,
    split_items,
)
from chartproof.metrics.registry import Metric, scorer
from chartproof.numeric import parse_number
from chartproof.types import Answer

__all__ = [
    "anls",
    "answer_scores",
    "exact_match",
    "levenshtein",
    "relaxed_accuracy",
    "score_answer",
]

RELAXED_TOLERANCE = 0.05
"""ChartQA's relative tolerance for numeric answers."""

ANLS_THRESHOLD = 0.5
"""ANLS threshold τ of Biten et al. (2019): a normalised distance ≥ τ scores 0."""


def relaxed_accuracy(
    prediction: str, gold: Answer, *, tolerance: float = RELAXED_TOLERANCE
) -> float:
    """ChartQA relaxed accuracy of one prediction: 1.0 or 0.0 (see the module docstring).

    A number gold (or a text gold that reads as one number) allows `tolerance` relative
    error (default 5 %, not `gold.tolerance`, so values stay comparable with the papers);
    a list gold ("[10, 12]" in ChartQA) needs the same items in any order (ranked lists: in
    order), numbers among them with the same tolerance; a yes/no gold reads the prediction
    as `score_answer` does (`parse_bool`: "Yes, it is", "True" and "1" are yes, "No idea"
    is no answer); every other gold needs a case-insensitive match of `gold.text()` after
    normalising.
    """
    target = _gold_number(gold)
    if target is not None:
        return float(number_right(prediction, target, tolerance, gold.unit))
    if gold.kind in ("list", "ranked_list"):
        return float(list_right(split_items(prediction), gold, tolerance))
    if gold.kind == "bool":
        # the same reading as `score_answer`: "Yes, it is" and "True" are yes
        return float(parse_bool(prediction) is gold.value)
    return float(normalize_text(prediction) == normalize_text(gold.text()))


def _gold_number(gold: Answer) -> float | None:
    if gold.kind == "number":
        assert isinstance(gold.value, float)
        return gold.value
    if gold.kind == "text":
        assert isinstance(gold.value, str)
        values = numbers_in(gold.value)
        return values[0] if len(values) == 1 and parse_number(gold.value) is not None else None
    return None


def exact_match(prediction: str, gold: Answer) -> float:
    """1.0 when the prediction equals `gold.text()` up to case and runs of whitespace.

    Punctuation, number spelling ("12.0" vs "12") and units count: that is what separates
    it from relaxed accuracy.
    """
    return float(_squash(prediction) == _squash(gold.text()))


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of one character each)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _anls_text(prediction: str, target: str, threshold: float) -> float:
    p, t = _squash(prediction), _squash(target)
    longest = max(len(p), len(t))
    if longest == 0:
        return 1.0
    distance = levenshtein(p, t) / longest
    return 1.0 - distance if distance < threshold else 0.0


def anls(prediction: str, gold: Answer, *, threshold: float = ANLS_THRESHOLD) -> float:
    """Average Normalized Levenshtein Similarity of one prediction (Biten et al., 2019).

    Text is casefolded and whitespace collapsed; similarity = 1 − distance / longer length,
    and 0 when the normalised distance is ≥ `threshold` (the paper's strict τ = 0.5;
    pix2struct uses ≤). List answers follow ANLS* (Peer et al., 2024): the prediction is
    split into items, items are paired (in order for ranked lists, by the best one-to-one
    assignment for sets), and the paired similarities are summed and divided by the longer
    of the two lists, so missing and extra items both cost.
    """
    if gold.kind in ("list", "ranked_list"):
        assert isinstance(gold.value, tuple)
        targets = [x if isinstance(x, str) else _item_text(x) for x in gold.value]
        items = split_items(prediction)
        longest = max(len(items), len(targets))
        if longest == 0:
            return 1.0
        sim = [[_anls_text(p, t, threshold) for t in targets] for p in items]
        if gold.kind == "ranked_list":
            total = sum(sim[i][i] for i in range(min(len(items), len(targets))))
        else:
            total = _best_assignment(sim)
        return total / longest
    return _anls_text(prediction, gold.text(), threshold)


def _item_text(x: float) -> str:
    return Answer.number(x).text()


def _best_assignment(sim: list[list[float]]) -> float:
    if not sim or not sim[0]:
        return 0.0
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(sim, maximize=True)
    return float(sum(sim[r][c] for r, c in zip(rows, cols, strict=True)))


# --------------------------------------------------------------------------- typed scoring


def score_answer(prediction: str, gold: Answer) -> float:
    """Score one prediction against a typed gold answer, by `gold.kind`: 1.0 or 0.0.

    The rules are `chartproof.answers.matches`: number within `gold.tolerance` of |target|
    (years exact), text equal after `normalize_text`, bool yes/no/true/false (or a leading
    yes/no), list the same items in any order, ranked_list in the same order.
    """
    return float(matches(prediction, gold))


# --------------------------------------------------------------------------- registry


@scorer(
    kind="sample",
    name="answer",
    protocols=("direct", "chain"),
    metrics=[
        Metric(
            "accuracy",
            means_correct=True,
            headline={"direct": 0, "chain": 4},
            description="typed answer accuracy (`score_answer`, by the gold's kind)",
        ),
        Metric(
            "relaxed_accuracy",
            headline={"direct": 1},
            description="ChartQA relaxed accuracy (5 % numeric tolerance)",
        ),
        Metric("exact_match", headline={"direct": 2}, description="exact match up to case"),
        Metric(
            "anls",
            "ANLS",
            headline={"direct": 3},
            description="average normalised Levenshtein similarity (ANLS* for lists)",
        ),
    ],
)
def answer_scores(prediction: str, gold: Answer) -> dict[str, float | None]:
    """The accuracy family for one answer: typed accuracy, relaxed accuracy, exact match, ANLS.

    A missing prediction (the empty string) scores 0 everywhere: no answer is wrong.
    """
    return {
        "accuracy": score_answer(prediction, gold),
        "relaxed_accuracy": relaxed_accuracy(prediction, gold),
        "exact_match": exact_match(prediction, gold),
        "anls": anls(prediction, gold),
    }
