"""Whether a mitigation rewrite may replace a flagged pair's text (ChartBias §5, stage 5).

The rewrite is asked to turn the group-neutral reference into a text for one group. A model
can fail that in ways that look like success to the shift statistics: copying the reference
(both groups then get the same text, dissimilarity 0), dropping the group, or inventing
facts. `check_rewrite` accepts a rewrite only when it

* names its group (a term of the lexicon's group: label, phrase or listed term),
* differs from the reference (after case and whitespace are normalised),
* states only the chart's facts: every number in it is a number of the evidence (up to the
  rounding its own digits show, or 1 % relative), and every trend direction it states
  (up, down, flat) is one the evidence states.

Rejected rewrites are not used: the pair keeps its first texts, and the summary counts them
with their reasons.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chartproof.answers import normalize_text
from chartproof.numeric import parse_number
from chartproof.pipelines.audit.lexicon import Group

__all__ = ["REASONS", "check_rewrite", "numbers", "trends"]

REASONS = {
    "empty": "the rewrite is empty",
    "copy": "the rewrite repeats the neutral reference",
    "group_dropped": "the rewrite does not name its group",
    "number": "a number the evidence does not give",
    "trend": "a trend direction the evidence does not state",
}
"""Why a rewrite can be rejected, by key (the summary counts these)."""

_NUMBER = re.compile(r"(?<![\w.])[-+]?\d(?:[\d,]*\d)?(?:\.\d+)?")
_TRENDS = {
    "up": re.compile(
        r"\b(?:increas\w*|ris(?:e|es|en|ing)|rose|grow\w*|grew|climb\w*|upward\w*|surg\w*)\b",
        re.I,
    ),
    "down": re.compile(
        r"\b(?:decreas\w*|declin\w*|fall(?:s|ing|en)?|fell|drop\w*|shr[iau]nk\w*|downward\w*|"
        r"plung\w*|slump\w*)\b",
        re.I,
    ),
    "flat": re.compile(r"\b(?:stable|steady|flat|unchanged|constant|plateau\w*)\b", re.I),
}


def numbers(text: str) -> list[tuple[float, float]]:
    """Each number in `text` with the half-step of its last digit (12.5 → (12.5, 0.05))."""
    out = []
    for m in _NUMBER.finditer(text):
        token = m.group(0)
        value = parse_number(token)
        if value is None:
            continue
        decimals = len(token.split(".")[1]) if "." in token else 0
        out.append((value, 0.5 * 10.0**-decimals))
    return out


def trends(text: str) -> set[str]:
    """The trend directions `text` states ("up", "down", "flat")."""
    return {name for name, pat in _TRENDS.items() if pat.search(text)}


def _given(value: float, half_step: float, evidence: Iterable[float]) -> bool:
    return any(
        abs(value - e) <= half_step + 1e-9 or abs(value - e) <= 0.01 * abs(e) for e in evidence
    )


def _names_group(text: str, group: Group) -> bool:
    lowered = text.lower()
    return any(re.search(rf"(?<!\w){re.escape(t)}(?!\w)", lowered) for t in group.all_terms())


def check_rewrite(rewrite: str, reference: str, evidence: str, group: Group) -> list[str]:
    """The `REASONS` keys that reject `rewrite` (empty: accepted)."""
    if not rewrite.strip():
        return ["empty"]
    problems = []
    if normalize_text(rewrite) == normalize_text(reference):
        problems.append("copy")
    if not _names_group(rewrite, group):
        problems.append("group_dropped")
    given = [v for v, _ in numbers(evidence)]
    # a group's own words may hold numbers ("people aged 65 and over"): not chart facts
    stated = rewrite
    for term in group.all_terms():
        stated = re.sub(rf"(?<!\w){re.escape(term)}(?!\w)", " ", stated, flags=re.I)
    if any(not _given(v, step, given) for v, step in numbers(stated)):
        problems.append("number")
    if trends(rewrite) - trends(evidence):
        problems.append("trend")
    return problems
