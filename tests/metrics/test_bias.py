"""Bias-audit statistics against hand-computed and statsmodels-computed cases
(tests/metrics/cases/bias.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.bias import (
    accuracy_gap,
    attribution_shares,
    cosine_dissimilarity,
    extract_opinion,
    flip_rate,
    judge_pair,
    narrative_shift,
    opinion_span,
    opinion_tags,
    polarity_preference,
    position_effect,
    sentiment_gap,
)

CASES: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parent / "cases" / "bias.json").read_text(encoding="utf-8")
)


def _ids(kind: str) -> list[str]:
    return [c["name"] for c in CASES[kind]]


def _check(got: dict[str, Any], want: dict[str, Any]) -> None:
    for key, value in want.items():
        if isinstance(value, dict):
            assert got[key].keys() == value.keys(), key
            _check(got[key], value)
        elif value is None or isinstance(value, bool):
            assert got[key] is value, key
        elif isinstance(value, list):
            assert list(got[key]) == value, key
        else:
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key


@pytest.mark.parametrize("case", CASES["dissimilarity"], ids=_ids("dissimilarity"))
def test_dissimilarity(case: dict[str, Any]) -> None:
    assert cosine_dissimilarity(case["a"], case["b"]) == pytest.approx(case["expected"], abs=1e-12)


def test_dissimilarity_rejects_zero_and_mismatched_vectors() -> None:
    with pytest.raises(ValueError, match="zero vector"):
        cosine_dissimilarity([0, 0], [1, 0])
    with pytest.raises(ValueError, match="shapes"):
        cosine_dissimilarity([1, 0], [1, 0, 0])


@pytest.mark.parametrize("case", CASES["shift"], ids=_ids("shift"))
def test_narrative_shift(case: dict[str, Any]) -> None:
    got = narrative_shift(case["values"]).model_dump()
    _check(got, case["expected"])
    if case["expected"].get("t", 0.0) is None:
        assert got["note"] and "undefined" in got["note"]


def test_empty_shift_says_why() -> None:
    stats = narrative_shift([])
    assert stats.n == 0 and stats.mean is None and stats.note == "no pairs"


@pytest.mark.parametrize("case", CASES["attribution"], ids=_ids("attribution"))
def test_attribution(case: dict[str, Any]) -> None:
    _check(attribution_shares(case["choices"], case["groups"]).model_dump(), case["expected"])


@pytest.mark.parametrize("case", CASES["position"], ids=_ids("position"))
def test_position(case: dict[str, Any]) -> None:
    asked = [tuple(a) for a in case["asked"]]
    got = position_effect(asked, tuple(case["groups"]))  # type: ignore[arg-type]
    _check(got.model_dump(), case["expected"])


@pytest.mark.parametrize("case", CASES["polarity"], ids=_ids("polarity"))
def test_polarity(case: dict[str, Any]) -> None:
    items = [tuple(i) for i in case["items"]]
    got = polarity_preference(items, case["first"])  # type: ignore[arg-type]
    _check(got.model_dump(), case["expected"])


@pytest.mark.parametrize("case", CASES["flips"], ids=_ids("flips"))
def test_flips(case: dict[str, Any]) -> None:
    pairs = [tuple(p) for p in case["pairs"]]
    got = flip_rate(pairs, tuple(case["groups"]))  # type: ignore[arg-type]
    _check(got.model_dump(), case["expected"])


@pytest.mark.parametrize("case", CASES["judge"], ids=_ids("judge"))
def test_judge(case: dict[str, Any]) -> None:
    _check(judge_pair(**case["args"]).model_dump(), case["expected"])


@pytest.mark.parametrize("case", CASES["accuracy_gap"], ids=_ids("accuracy_gap"))
def test_accuracy_gap(case: dict[str, Any]) -> None:
    _check(accuracy_gap(case["correct"], case["control"]).model_dump(), case["expected"])


@pytest.mark.parametrize("case", CASES["sentiment_gap"], ids=_ids("sentiment_gap"))
def test_sentiment_gap(case: dict[str, Any]) -> None:
    sentiments = [tuple(p) for p in case["sentiments"]]
    opinions = None if case["opinions"] is None else [tuple(p) for p in case["opinions"]]
    got = sentiment_gap(sentiments, opinions).model_dump()  # type: ignore[arg-type]
    _check(got, case["expected"])
    if case["expected"]["t"] is None:
        assert got["note"]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("One. <opinion>It is good.</opinion> Two.", "It is good."),
        ("<OPINION>\n mixed \n</OPINION>", "mixed"),
        ("no tags at all", None),
        ("<opinion>  </opinion>", None),
        ("<opinion>first</opinion> <opinion>second</opinion>", "first"),
    ],
)
def test_extract_opinion(text: str, want: str | None) -> None:
    assert extract_opinion(text) == want


@pytest.mark.parametrize("case", CASES["opinion_tags"], ids=_ids("opinion_tags"))
def test_opinion_tags(case: dict[str, Any]) -> None:
    _check(opinion_tags(case["sources"]).model_dump(), case["expected"])


@pytest.mark.parametrize("case", CASES["opinion_span"], ids=_ids("opinion_span"))
def test_opinion_span(case: dict[str, Any]) -> None:
    assert list(opinion_span(case["text"], case["fallback"])) == case["expected"]


def test_opinion_span_names_an_unknown_fallback() -> None:
    with pytest.raises(ValueError, match="'first-sentence'"):
        opinion_span("x", "first-sentence")
