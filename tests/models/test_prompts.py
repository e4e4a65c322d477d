"""Prompt templates: stable ids, rendered text, chain-step history, user overrides."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from chartproof.models.images import file_sha256
from chartproof.models.prompts import build_request, default_prompts, load_prompts
from chartproof.types import ImagePart, TextPart


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    p = tmp_path / "chart.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"fake chart bytes")
    return p


def _text(req_text: object) -> str:
    assert isinstance(req_text, TextPart)
    return req_text.text


def test_builtin_ids() -> None:
    assert default_prompts().ids() == [
        "chain_step@1",
        "chartqax@1",
        "chartx_qa@1",
        "charxiv_descriptive_bool@1",
        "charxiv_descriptive_enum@1",
        "charxiv_descriptive_layout@1",
        "charxiv_descriptive_ocr@1",
        "charxiv_descriptive_quant@1",
        "charxiv_descriptive_title@1",
        "charxiv_descriptive_trend@1",
        "charxiv_reasoning_1@1",
        "charxiv_reasoning_2@1",
        "charxiv_reasoning_3@1",
        "charxiv_reasoning_4@1",
        "cot@1",
        "derender_code@1",
        "explain_candidate@1",
        "explain_verify@1",
        "judge_answer@1",
        "mc@1",
        "narrative@1",
        "premise@1",
        "short@1",
    ]


def test_request_carries_image_hash_and_prompt_id(chart: Path) -> None:
    req = build_request("short", chart, "What is the value in 2019?", request_id="s1")
    assert req.prompt == "short@1" and req.id == "s1"
    (msg,) = req.messages
    assert msg.role == "user"
    image, text = msg.content
    assert isinstance(image, ImagePart)
    assert image.sha256 == hashlib.sha256(chart.read_bytes()).hexdigest()
    assert Path(image.path).is_absolute()
    assert _text(text).endswith("Question: What is the value in 2019?")
    assert req.metadata["output"] == "answer"
    assert req.metadata["question"] == "What is the value in 2019?"


def test_chartqax_asks_for_the_seed_format(chart: Path) -> None:
    req = build_request("chartqax@1", chart, "Which bar is tallest?", request_id="x")
    text = _text(req.messages[0].content[1])
    assert "The answer is: <answer>. Explanation: <explanation>" in text
    assert "four sentences" in text
    assert req.metadata["output"] == "answer_explanation"


def test_premise_uses_statement(chart: Path) -> None:
    req = build_request("premise", chart, "The red bar is the tallest.", request_id="p")
    text = _text(req.messages[0].content[1])
    assert text.endswith("Statement: The red bar is the tallest.")
    assert "True or False" in text


def test_chain_step_lists_earlier_answers_in_order(chart: Path) -> None:
    earlier = [("What is the value of A?", "12"), ("What is the value of B?", "7")]
    req = build_request("chain_step", chart, "What is A minus B?", request_id="c3", earlier=earlier)
    text = _text(req.messages[0].content[1])
    a = text.index("1. What is the value of A? Your answer: 12")
    b = text.index("2. What is the value of B? Your answer: 7")
    assert a < b < text.index("Question: What is A minus B?")
    assert req.metadata["earlier"] == [
        ["What is the value of A?", "12"],
        ["What is the value of B?", "7"],
    ]
    first = build_request("chain_step", chart, "What is the value of A?", request_id="c1")
    assert "Earlier questions" not in _text(first.messages[0].content[1])


def test_same_prompt_same_text_for_any_caller(chart: Path) -> None:
    a = build_request("cot", chart, "Q?", request_id="1")
    b = build_request("cot", chart, "Q?", request_id="2")
    assert a.messages == b.messages


def test_missing_field_is_named(chart: Path, tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text(
        json.dumps(
            {
                "prompts": [
                    {
                        "name": "ctx",
                        "version": 1,
                        "output": "answer",
                        "text": "{context} Q: {question}",
                    }
                ]
            }
        )
    )
    prompts = load_prompts(f)
    with pytest.raises(KeyError, match=r"ctx@1 needs field\(s\) \['context'\]"):
        build_request("ctx", chart, "Q?", request_id="1", prompts=prompts)
    req = build_request("ctx", chart, "Q?", request_id="1", prompts=prompts, context="Sales.")
    assert _text(req.messages[0].content[1]) == "Sales. Q: Q?"


def test_user_file_adds_new_version(tmp_path: Path, chart: Path) -> None:
    f = tmp_path / "prompts.toml"
    f.write_text(
        '[[prompts]]\nname = "short"\nversion = 2\noutput = "answer"\n'
        'system = "You read charts."\ntext = "Answer tersely: {question}"\n'
    )
    prompts = load_prompts(f)
    req = build_request("short", chart, "Q?", request_id="1", prompts=prompts)
    assert req.prompt == "short@2"
    assert req.messages[0].role == "system"
    assert _text(req.messages[1].content[1]) == "Answer tersely: Q?"
    assert (
        build_request("short@1", chart, "Q?", request_id="1", prompts=prompts).prompt == "short@1"
    )


def test_user_file_cannot_change_a_released_text(tmp_path: Path) -> None:
    f = tmp_path / "prompts.json"
    f.write_text(
        json.dumps([{"name": "short", "version": 1, "output": "answer", "text": "x {question}"}])
    )
    with pytest.raises(ValueError, match="short@1 is defined twice"):
        load_prompts(f)


def test_bad_user_entry_names_file_and_entry(tmp_path: Path) -> None:
    f = tmp_path / "prompts.json"
    f.write_text(
        json.dumps({"prompts": [{"name": "a", "version": 1, "output": "poem", "text": "x"}]})
    )
    with pytest.raises(ValueError, match=r"prompts.json: prompt #1"):
        load_prompts(f)


def test_unknown_prompt() -> None:
    with pytest.raises(KeyError, match="unknown prompt 'nope'"):
        default_prompts().get("nope")


def test_file_hash_is_recomputed_when_file_changes(tmp_path: Path) -> None:
    p = tmp_path / "a.png"
    p.write_bytes(b"one")
    first = file_sha256(p)
    p.write_bytes(b"two!")
    assert file_sha256(p) == hashlib.sha256(b"two!").hexdigest() != first
    with pytest.raises(FileNotFoundError, match=r"missing\.png"):
        file_sha256(tmp_path / "missing.png")


def test_earlier_answers_are_numbered_by_their_chain_steps() -> None:
    """A step asking about "the answer to step 6" sees step 6 under that number."""
    from chartproof.models.prompts import render_earlier

    block = render_earlier([("What is A?", "4"), ("What is B?", "7")], [6, 8])
    assert "6. What is A? Your answer: 4" in block and "8. What is B? Your answer: 7" in block
    assert "1. What is A? Your answer: 4" in render_earlier([("What is A?", "4")])
    with pytest.raises(ValueError, match="step numbers"):
        render_earlier([("What is A?", "4")], [1, 2])
