"""Preference pairs from counterfactuals and their TRL-ready JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.types import Answer, ImageRef, Sample, Transform
from chartproof.variants.preference import (
    distinct_answers,
    preference_pairs,
    trl_row,
    write_pairs,
)


@pytest.mark.parametrize(
    ("a", "b", "distinct"),
    [
        (Answer.number(100.0), Answer.number(104.0), False),  # within b's 5 %
        (Answer.number(100.0), Answer.number(110.0), True),
        (Answer.number(0.0), Answer.number(0.0), False),
        (Answer.number(0.1), Answer.number(0.0), True),
        (Answer.of_text("Spain "), Answer.of_text("spain"), False),
        (Answer.of_text("Spain"), Answer.of_text("Italy"), True),
        (Answer.boolean(True), Answer.boolean(False), True),
        (Answer(kind="list", value=("a", "b")), Answer(kind="list", value=("B", "a")), False),
        (
            Answer(kind="ranked_list", value=("a", "b")),
            Answer(kind="ranked_list", value=("b", "a")),
            True,
        ),
    ],
)
def test_distinct_answers(a: Answer, b: Answer, distinct: bool) -> None:
    assert distinct_answers(a, b) is distinct


def _sample(sid: str, answer: Answer, **kw: object) -> Sample:
    return Sample(
        id=sid,
        image=ImageRef(path=f"img/{sid.replace('/', '_')}.png"),
        question="Which fruit sold most?",
        answer=answer,
        task_type="VC",
        family_id="c1",
        **kw,  # type: ignore[arg-type]
    )


def test_pairs_prefer_the_counterfactual_answer(tmp_path: Path) -> None:
    edit = Transform(kind="counterfactual", name="extremum_move")
    orig = _sample("c1/q0", Answer.of_text("Pears"))
    moved = _sample("c1/q0~cf2", Answer.of_text("Kiwis"), parent_id="c1/q0", transforms=(edit,))
    same = _sample("c1/q0~cf0", Answer.of_text("pears"), parent_id="c1/q0", transforms=(edit,))
    pairs = preference_pairs([orig], [moved, same], similarity={"c1/q0~cf2": 0.8})
    assert len(pairs) == 1
    p = pairs[0]
    assert (p.prompt, p.chosen, p.rejected) == ("Which fruit sold most?", "Kiwis", "Pears")
    assert p.image == "img/c1_q0~cf2.png" and p.similarity == 0.8

    plain = trl_row(p)
    assert plain["prompt"] == "Which fruit sold most?" and plain["images"] == [p.image]
    chat = trl_row(p, conversational=True, image_root=Path("/data"))
    assert chat["prompt"] == [
        {
            "role": "user",
            "content": [{"type": "image"}, {"type": "text", "text": "Which fruit sold most?"}],
        }
    ]
    assert chat["chosen"] == [{"role": "assistant", "content": [{"type": "text", "text": "Kiwis"}]}]
    assert chat["images"] == ["/data/img/c1_q0~cf2.png"]

    out = tmp_path / "pairs.jsonl"
    assert write_pairs(pairs, out, conversational=True) == 1
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["rejected"][0]["content"][0]["text"] == "Pears"


def test_pairs_need_the_parent() -> None:
    cf = _sample("x~cf1", Answer.of_text("A"), parent_id="missing")
    with pytest.raises(ValueError, match="parent 'missing' not given"):
        preference_pairs([], [cf])
