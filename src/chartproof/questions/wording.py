"""How a question words what it asks, in general English: the answer type it wants (yes/no,
a label or a number: `question_kind`, `asks_label`, `names_a_thing`) and the words of extremes and thresholds the
programs' free-form cues look for (`questions.cues`)."""

from __future__ import annotations

import re
from typing import Literal

from chartproof.questions.labels import norm

__all__ = [
    "ABOVE",
    "BELOW",
    "LABEL_NOUNS",
    "MAX",
    "MAX_PLAIN",
    "MIN",
    "MIN_PLAIN",
    "QUANTITY_NOUNS",
    "QuestionKind",
    "asks_label",
    "has",
    "names_a_thing",
    "question_kind",
]

MAX = (
    "highest", "largest", "maximum", "max", "most", "biggest", "greatest", "peak", "top",
    "best", "main", "leading", "favorite", "favourite", "fastest", "dominant", "popular",
    "major", "primary", "tallest", "longest", "leader",
)  # fmt: skip
"""Words of the largest."""
MIN = ("lowest", "smallest", "minimum", "min", "least", "fewest", "worst", "shortest", "slowest")
"""Words of the smallest."""
MAX_PLAIN = ("highest", "largest", "maximum", "most", "biggest", "greatest", "peak", "top")
"""The plain words of the largest, a subset of `MAX` without the preferences and ranks
("best", "main", "leading", "popular"): for patterns where such a word names no extreme
value ("the main answer response")."""
MIN_PLAIN = ("lowest", "smallest", "minimum", "least", "fewest")
"""The plain words of the smallest, a subset of `MIN` ("worst", "shortest" left out)."""
ABOVE = ("above", "more than", "greater than", "over", "exceed", "exceeds", "higher than")
"""Words of a value over a threshold (matched inside words: "overall" counts)."""
BELOW = ("below", "less than", "under", "lower than", "fewer than")
"""Words of a value under a threshold (matched inside words)."""
LABEL_NOUNS = (
    "year", "country", "city", "company", "brand", "state", "region", "type", "month", "day",
    "group", "category", "sector", "age", "party", "team", "player", "platform", "industry",
    "product", "segment", "option", "response", "answer", "service", "provider", "ethnicity",
    "quarter", "period", "season", "chain", "store", "retailer", "bank", "airline", "app",
    "website", "club", "university", "source", "reason", "channel", "market", "device",
)  # fmt: skip
"""Nouns of things with names: "what year ..." asks for a label."""
QUANTITY_NOUNS = frozenset((
    "value", "values", "number", "numbers", "percentage", "percent", "share", "shares",
    "amount", "count", "total", "sum", "average", "mean", "median", "rate", "level", "score",
    "price", "prices", "revenue", "revenues", "sales", "income", "cost", "costs", "gdp",
    "population", "growth", "spending", "profit", "profits", "size", "volume", "capacity",
    "gross", "index", "ratio", "figure", "proportion", "salary", "salaries", "budget", "debt",
    "turnover", "earnings", "expenditure", "expenditures", "consumption", "production",
    "output", "height", "weight", "temperature", "margin", "return", "yield", "loss", "losses",
    "attendance", "difference", "increase", "decrease", "change", "gap", "deficit", "surplus",
    "payroll", "worth", "valuation", "density", "distance", "speed", "duration", "time",
    "length", "age", "inflation", "interest", "demand", "supply", "exports", "imports",
    "emissions", "usage", "viewers", "users", "visitors", "subscribers", "members",
    "shipments", "deliveries", "units", "employees", "workers", "jobs", "cases", "deaths",
    "births", "tons",
))  # fmt: skip
"""Head nouns of a quantity: "the highest unemployment rate" asks for a number, "the most
popular model" for a label (`names_a_thing`)."""

_RANKED = re.compile(
    r"^(?:in |during |for )?what (?:is|was|are|were) (?:the |\w+s )?(?:\w+ )?"
    rf"(?:{'|'.join(MAX + MIN)})\b(?P<rest>.*)$"
)
_PHRASE_END = re.compile(
    r"\b(?:in|of|for|on|at|by|among|to|from|between|during|as|that|which|who|based|with|"
    r"according|since|until|after|before|than|worldwide|globally|ever)\b"
)


def has(q: str, *words: str) -> bool:
    """Whether the (normalised) question has one of the words or phrases as whole words."""
    return any(re.search(rf"\b{re.escape(w)}\b", q) for w in words)


def _ranked_thing(q: str) -> str | None:
    """The head noun of "what was the (second) most popular model in 2019" ("model"), or
    None when the question does not ask so: the last word before a preposition that is not
    a past participle ("the most popular hashtag used by" gives "hashtag")."""
    m = _RANKED.match(q)
    if m is None:
        return None
    phrase = _PHRASE_END.split(m.group("rest"), maxsplit=1)[0].split()
    words = [w for w in phrase if not w.endswith("ed") and w not in MAX + MIN]
    return words[-1] if words else None


def asks_label(q: str) -> bool:
    """Whether the (normalised) question wants a label (a name) rather than a number:
    "which", "who", "where" or "when" in it, "what company ...", or `names_a_thing`."""
    if re.search(r"\b(which|who|where)\b", q) or q.startswith("when "):
        return True
    m = re.match(r"^(?:in |during |by |for )?what (\w+)", q)
    return bool(m and m.group(1).rstrip("s") in LABEL_NOUNS) or names_a_thing(q)


def names_a_thing(q: str) -> bool:
    """Whether a (normalised) "what" question asks for the name of a thing: "what is the
    name of ...", "what movie had the highest lifetime gross", "what was the most popular
    model" (a ranked thing that is no quantity, `_ranked_thing`); not "what was the highest
    unemployment rate", nor "what percentage had ...".
    """
    if re.match(r"^(?:in |during |for )?what (?:is|was|are|were) the name\b", q):
        return True
    m = re.match(
        r"^(?:in |during |by |for )?what ((?:\w+ ){1,3}?)"
        r"(?:had|has|have|did|does|do|received|ranked|led)\b",
        q,
    )
    if m and m.group(1).split()[0] not in ("is", "was", "are", "were"):
        return m.group(1).split()[-1] not in QUANTITY_NOUNS
    thing = _ranked_thing(q)
    return thing is not None and thing not in QUANTITY_NOUNS


QuestionKind = Literal["yes_no", "label", "number", "open"]
"""What kind of answer a question asks for."""

_AUX = (
    "is", "are", "was", "were", "does", "do", "did", "has", "have", "had", "can", "could",
    "will", "would", "should", "shall", "may", "might", "isn't", "aren't", "doesn't", "don't",
    "didn't",
)  # fmt: skip
_VALUE_WORD = re.compile(
    r"^(?:in |for |at )?(?:which|what) (?:is the |was the )?(value|number|percentage|percent|"
    r"share|amount|count|total|sum|average|rate|level|score|price)\b"
)
_LABEL_START = re.compile(r"^(?:in |for |by |during |at |on )?(which|who|whom|whose|where)\b")


def question_kind(question: str) -> QuestionKind:
    """The answer type a question asks for: yes/no (it opens with an auxiliary verb and
    offers no alternatives joined by "or"), a label ("which", "who", "where", and "what"
    naming a thing: `names_a_thing`), a number ("how many", "what is the value"), or open."""
    q = " ".join(norm(question).split())
    first = q.split(" ", 1)[0] if q else ""
    if first in _AUX:
        # "Is A or B larger?" asks for one of two names.
        return (
            "label"
            if re.search(r"\bor\b", q) and not re.search(r"\bor (not|equal)\b", q)
            else "yes_no"
        )
    if _VALUE_WORD.match(q):
        return "number"
    if _LABEL_START.match(q):
        return "label"
    if re.match(
        r"^(how (many|much)|what (is|was|are|were) the (value|number|total|sum|average|difference|ratio|percentage|share|mean|median))\b",
        q,
    ):
        return "number"
    if names_a_thing(q):
        return "label"  # "what was the most popular model", "what movie had the highest ..."
    return "open"
