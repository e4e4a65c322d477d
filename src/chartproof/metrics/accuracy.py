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
* units and words around a number — "$12 million", "about 12 kg" and "The answer is 12."
  are read as 12 (and, after a scale word, also as 12 000 000); a prediction holding two
  different numbers ("10-12", "12 in 2019") gives no number and is compared as text.
* the 5 % boundary is inclusive with a tiny float slack, so 1.05 vs 1 is right
  (pix2struct's 0.050000000000000044 > 0.05 makes it wrong).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from chartproof.numeric import parse_number
from chartproof.types import Answer

__all__ = [
    "anls",
    "exact_match",
    "levenshtein",
    "normalize_text",
    "numbers_in",
    "parse_bool",
    "relaxed_accuracy",
    "score_answer",
    "split_items",
]

RELAXED_TOLERANCE = 0.05
"""ChartQA's relative tolerance for numeric answers."""

ANLS_THRESHOLD = 0.5
"""ANLS threshold τ of Biten et al. (2019): a normalised distance ≥ τ scores 0."""

_YEAR_RANGE = (1800, 2100)
_FLOAT_SLACK = 1e-9
_TRAILING = ".,;:!?"
_QUOTES = "\"'`“”‘’«»"

_NUMBER = re.compile(
    r"(?<![\w.,])"  # not inside a word or another number
    r"[-−+]?[$€£¥]?"  # U+2212 is the typographic minus
    r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
    r"(?:\s*%)?"
    r"(?:\s*(?P<scale>thousand|million|billion|trillion|bn|k|m|b)\b)?"
    r"|(?<![\w.,])[-−]?\.\d+",
    re.IGNORECASE,
)
_SCALES = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
    "trillion": 1e12,
}
_ITEM_SEP = re.compile(r"\s*(?:;|\n|,(?!\d{3}(?!\d))|\band\b|&)\s*", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•]|\d+[.)])\s+")
_YES = frozenset({"yes", "true", "y"})
_NO = frozenset({"no", "false", "n"})


# --------------------------------------------------------------------------- reading


def normalize_text(text: str) -> str:
    """Casefold, collapse whitespace, drop surrounding quotes and trailing punctuation."""
    s = " ".join(text.split()).casefold()
    prev = None
    while s != prev:
        prev = s
        s = s.strip().strip(_QUOTES).rstrip(_TRAILING)
    return s


def numbers_in(text: str) -> tuple[float, ...]:
    """The values a prediction can mean as a number; empty when it holds none or several.

    The whole text is tried first with `parse_number` ("1,234", "12%", "$3.4", "1e5");
    otherwise exactly one distinct number must appear among words ("about 12 kg"). A scale
    word after it adds the scaled reading: "12 million" → (12.0, 12000000.0).
    """
    s = text.strip().strip(_QUOTES).rstrip(_TRAILING).strip()
    whole = parse_number(s)
    if whole is not None:
        return (whole,)
    readings: dict[float, tuple[float, ...]] = {}
    for m in _NUMBER.finditer(s):
        token = m.group(0)
        scale = m.group("scale")
        if scale:
            token = token[: m.start("scale") - m.start()]
        value = parse_number(token.replace(" ", ""))
        if value is None:
            continue
        scaled = value * _SCALES[scale.casefold()] if scale else None
        readings[value] = (value,) if scaled is None else (value, scaled)
    if len(readings) != 1:
        return ()
    return next(iter(readings.values()))


def parse_bool(text: str) -> bool | None:
    """Read yes/no/true/false (also as the first word: "Yes, it is"); None otherwise."""
    s = normalize_text(text)
    if s in _YES:
        return True
    if s in _NO:
        return False
    first = re.split(r"[\s,.;:!]+", s, maxsplit=1)[0]
    if first in {"yes", "true"}:
        return True
    if first in {"no", "false"}:
        return False
    return None


def split_items(text: str) -> tuple[str, ...]:
    """Split a predicted list on commas (not thousands separators), semicolons, newlines
    and "and"; surrounding brackets, bullets and quotes are dropped."""
    s = text.strip()
    # drop one pair of brackets around the whole list, never an item's own parenthesis
    for opening, closing in ("[]", "()", "{}"):
        if s.startswith(opening) and s.endswith(closing):
            s = s[1:-1].strip()
            break
    items = [_BULLET.sub("", p.strip()).strip().strip(_QUOTES) for p in _ITEM_SEP.split(s)]
    return tuple(i for i in items if i)


# --------------------------------------------------------------------------- comparing


def _is_year(target: float, unit: str | None) -> bool:
    return unit is None and target.is_integer() and _YEAR_RANGE[0] <= target <= _YEAR_RANGE[1]


def _number_close(pred: float, target: float, tolerance: float, *, year: bool) -> bool:
    if year:
        return pred == target
    return abs(pred - target) <= tolerance * abs(target) * (1 + _FLOAT_SLACK)


def _number_right(prediction: str, target: float, tolerance: float, unit: str | None) -> bool:
    year = _is_year(target, unit)
    return any(_number_close(p, target, tolerance, year=year) for p in numbers_in(prediction))


def relaxed_accuracy(
    prediction: str, gold: Answer, *, tolerance: float = RELAXED_TOLERANCE
) -> float:
    """ChartQA relaxed accuracy of one prediction: 1.0 or 0.0 (see the module docstring).

    A number gold (or a text gold that reads as one number) allows `tolerance` relative
    error (default 5 %, not `gold.tolerance`, so values stay comparable with the papers);
    a list gold ("[10, 12]" in ChartQA) needs the same items in any order (ranked lists: in
    order), numbers among them with the same tolerance; every other gold needs a
    case-insensitive match of `gold.text()` after normalising.
    """
    target = _gold_number(gold)
    if target is not None:
        return float(_number_right(prediction, target, tolerance, gold.unit))
    if gold.kind in ("list", "ranked_list"):
        return float(_list_right(prediction, gold, tolerance))
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

    number: within `gold.tolerance` of |target| (years exact, see the module docstring);
    text: equal after `normalize_text`; choice: the picked option's text equals the gold
    option's (after `normalize_text`); bool: yes/no/true/false (or a leading yes/no);
    list: the same items in any order (a one-to-one pairing); ranked_list: the same items
    in the same order. List items that are numbers use the number rule.
    """
    if gold.kind == "number":
        assert isinstance(gold.value, float)
        return float(_number_right(prediction, gold.value, gold.tolerance, gold.unit))
    if gold.kind in ("text", "choice"):
        # a choice prediction is the picked option's text (the parser maps letters to it)
        return float(normalize_text(prediction) == normalize_text(gold.text()))
    if gold.kind == "bool":
        return float(parse_bool(prediction) is gold.value)
    return float(_list_right(prediction, gold, gold.tolerance))


def _list_right(prediction: str, gold: Answer, tolerance: float) -> bool:
    assert isinstance(gold.value, tuple)
    items = split_items(prediction)
    if len(items) != len(gold.value):
        return False

    def match(item: str, target: str | float) -> bool:
        if isinstance(target, str):
            return normalize_text(item) == normalize_text(target)
        return _number_right(item, target, tolerance, gold.unit)

    if gold.kind == "ranked_list":
        return all(match(i, t) for i, t in zip(items, gold.value, strict=True))
    return _perfect_matching(items, gold.value, match)


def _perfect_matching(
    items: Sequence[str],
    targets: Sequence[str | float],
    match: Callable[[str, str | float], bool],
) -> bool:
    # Kuhn's augmenting paths: tolerant number matches can overlap, so greedy pairing
    # could miss a valid one-to-one assignment.
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j, target in enumerate(targets):
            if j in seen or not match(items[i], target):
                continue
            seen.add(j)
            if j not in owner or place(owner[j], seen):
                owner[j] = i
                return True
        return False

    return all(place(i, set()) for i in range(len(items)))
