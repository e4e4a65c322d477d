"""Output kinds of the explanation-dataset prompts, pinned to hand-written case tables:
"verdict" (a verifier's Correct/Incorrect) and "explanation" (an explanation of a given answer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.models import default_prompts
from chartproof.models.parsing import parse_output

CASES = Path(__file__).parent / "cases"


def _cases(name: str) -> list[Any]:
    data = json.loads((CASES / f"parsing_{name}.json").read_text(encoding="utf-8"))
    return [pytest.param(c, id=f"{i}:{c['text'][:40]!r}") for i, c in enumerate(data["cases"])]


@pytest.mark.parametrize("case", _cases("verdict"))
def test_verdict(case: dict[str, Any]) -> None:
    assert parse_output(case["text"], "verdict").truth == case["truth"]


@pytest.mark.parametrize("case", _cases("explanation_only"))
def test_explanation_only(case: dict[str, Any]) -> None:
    parsed = parse_output(case["text"], "explanation")
    assert parsed.explanation == case["explanation"]
    assert parsed.answer is None and parsed.truth is None


def test_truth_kind_differs_from_verdict_on_a_leading_verdict() -> None:
    # why "verdict" exists: the premise parser trusts the later "answer is right" marker
    text = "Incorrect - the answer is right but the explanation is wrong"
    assert parse_output(text, "truth").truth is True
    assert parse_output(text, "verdict").truth is False


def test_explain_prompts_use_the_new_kinds() -> None:
    prompts = default_prompts()
    candidate = prompts.get("explain_candidate")
    verify = prompts.get("explain_verify")
    assert (candidate.id, candidate.output) == ("explain_candidate@1", "explanation")
    assert (verify.id, verify.output) == ("explain_verify@1", "verdict")
    assert candidate.fields() == ("question", "answer", "table")
    assert verify.fields() == ("question", "answer", "table", "explanation")
