"""`builtin:reader` on the ChartQA-X dataset-building prompts: it explains a given answer
(`explain_candidate`) and judges a candidate explanation (`explain_verify`) by checking every
number it cites and that it reaches the answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import JsonValue

from chartproof.models import build_request
from chartproof.reader import ReaderBackend, ReaderSettings
from chartproof.types import ModelRequest

from .conftest import SPECS

# The vbar chart of the conftest: Apple 12.5, Banana 30, Cherry 22, Durian 7 (Sales).
QUESTION = "What is the difference in Sales between Banana and Durian?"

# (case, answer, explanation to check, expected verdict, words the reason contains)
VERIFY_CASES: list[tuple[str, str, str, bool, str]] = [
    (
        "cites the two bars and the difference",
        "23",
        "The Banana bar reaches 30 and the Durian bar 7. 30 minus 7 is 23.",
        True,
        "every number",
    ),
    (
        "values read within 5 %",
        "23",
        "The Banana bar is at about 29.5 and the Durian bar near 7.1, a gap of 23.",
        True,
        "every number",
    ),
    (
        "a value the chart does not show",
        "23",
        "The Banana bar reaches 41 and the Durian bar 7, so the gap is 23.",
        False,
        "41 is not a value",
    ),
    (
        "never reaches the answer",
        "23",
        "The Banana bar reaches 30 and the Durian bar 7.",
        False,
        "never reaches 23",
    ),
    (
        "the given answer contradicts the chart",
        "19",
        "The Banana bar reaches 30 and the Durian bar 11, so the gap is 19.",
        False,
        "gives 23, not 19",
    ),
    ("empty explanation", "23", "   ", False, "empty"),
]


def _request(prompt: str, rid: str, **fields: str) -> ModelRequest:
    meta: dict[str, JsonValue] = {"chart_type": "vbar", "table": SPECS["vbar"].table.to_csv()}
    return build_request(prompt, None, QUESTION, request_id=rid, metadata=meta, **fields)


@pytest.fixture(scope="module")
def gold() -> ReaderBackend:
    return ReaderBackend(ReaderSettings(table="gold"))


@pytest.mark.parametrize(
    ("answer", "explanation", "verdict", "reason"),
    [c[1:] for c in VERIFY_CASES],
    ids=[c[0] for c in VERIFY_CASES],
)
def test_verdict_checks_numbers_and_answer(
    gold: ReaderBackend, answer: str, explanation: str, verdict: bool, reason: str
) -> None:
    req = _request("explain_verify", "v", answer=answer, table="", explanation=explanation)
    (resp,) = gold.generate([req])
    assert resp.error is None and resp.parsed is not None
    assert resp.parsed.truth is verdict
    assert reason in resp.text.lower()


def test_verdict_without_the_explanation_is_a_request_error(gold: ReaderBackend) -> None:
    req = _request("explain_verify", "v", answer="23", table="", explanation="x")
    broken = req.model_copy(
        update={"metadata": {k: v for k, v in req.metadata.items() if k != "explanation"}}
    )
    (resp,) = gold.generate([broken])
    assert resp.error is not None and "metadata['explanation']" in resp.error


def test_candidate_explains_the_given_answer_and_passes_its_own_check(
    gold: ReaderBackend,
) -> None:
    (cand,) = gold.generate([_request("explain_candidate", "c", answer="23", table="")])
    assert cand.parsed is not None and cand.parsed.explanation
    text = cand.parsed.explanation
    assert "30" in text and "7" in text and "23" in text
    assert "does not give" not in text
    verify = _request("explain_verify", "v", answer="23", table="", explanation=text)
    (resp,) = gold.generate([verify])
    assert resp.parsed is not None and resp.parsed.truth is True


def test_candidate_for_a_wrong_answer_says_where_its_reading_leads(gold: ReaderBackend) -> None:
    (cand,) = gold.generate([_request("explain_candidate", "c", answer="19", table="")])
    assert cand.parsed is not None and cand.parsed.explanation
    assert "does not give 19" in cand.parsed.explanation


def test_candidate_from_the_image(chart_dir: Path) -> None:
    backend = ReaderBackend()
    req = build_request(
        "explain_candidate",
        chart_dir / "vbar.png",
        QUESTION,
        request_id="img",
        answer="23",
        table="",
    )
    (resp,) = backend.generate([req])
    assert resp.error is None and resp.parsed is not None
    assert resp.parsed.explanation and "Banana" in resp.parsed.explanation
