"""Multiple-choice parsing pinned to a hand-written case table (cases/parsing_choice.json),
and the request contract: options travel in `metadata["choices"]` and parse back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.models import build_request
from chartproof.models.base import answered, request_choices
from chartproof.models.parsing import extract_choice, option_letter, parse_output
from chartproof.types import TextPart

TABLE = json.loads((Path(__file__).parent / "cases" / "parsing_choice.json").read_text("utf-8"))


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=f"{i}:{c['text'][:30]!r}") for i, c in enumerate(TABLE["cases"])]
)
def test_choice_cases(case: dict[str, Any]) -> None:
    choices = case.get("choices", TABLE["choices"])
    parsed = parse_output(case["text"], case.get("output", "choice"), choices=choices)
    assert parsed.choice == case["choice"]
    if case["choice"] is not None:
        assert parsed.answer == choices[case["choice"]]


def test_without_choices_nothing_is_mapped() -> None:
    parsed = parse_output("B", "choice")
    assert parsed.choice is None and parsed.answer == "B"
    assert extract_choice("B", []) is None


def test_option_text_that_is_a_letter_wins_over_letters() -> None:
    # options that are themselves letters: "B" is the option text "B", at index 0
    assert extract_choice("B", ["B", "A"]) == 0


def test_option_letters() -> None:
    assert [option_letter(i) for i in range(4)] == ["A", "B", "C", "D"]


def test_mc_prompt_lists_lettered_options_and_records_them(tmp_path: Path) -> None:
    img = tmp_path / "c.png"
    img.write_bytes(b"\x89PNG fake")
    req = build_request(
        "mc", img, "Which country is largest?", request_id="s1", choices=["Italy", "Spain"]
    )
    text = req.messages[-1].content[-1]
    assert isinstance(text, TextPart)
    assert text.text.endswith("Question: Which country is largest?\nOptions:\nA. Italy\nB. Spain")
    assert req.prompt == "mc@1"
    assert req.metadata["choices"] == ["Italy", "Spain"]
    assert req.metadata["output"] == "choice"
    assert req.metadata["question"] == "Which country is largest?"
    assert request_choices(req) == ("Italy", "Spain")
    reply = answered(req, "test", "The answer is (b).")
    assert reply.parsed is not None
    assert reply.parsed.answer == "Spain" and reply.parsed.choice == 1


def test_other_prompts_show_the_options_after_the_question(tmp_path: Path) -> None:
    img = tmp_path / "c.png"
    img.write_bytes(b"\x89PNG fake")
    req = build_request("chartqax", img, "Largest?", request_id="s1", choices=["Italy", "Spain"])
    text = req.messages[-1].content[-1]
    assert isinstance(text, TextPart)
    assert "Question: Largest?\n\nOptions:\nA. Italy\nB. Spain" in text.text
    reply = answered(req, "test", "The answer is: A. Explanation: The Italy bar is taller.")
    assert reply.parsed is not None and reply.parsed.answer == "Italy"
    plain = build_request("chartqax", img, "Largest?", request_id="s2")
    assert "choices" not in plain.metadata and request_choices(plain) == ()
