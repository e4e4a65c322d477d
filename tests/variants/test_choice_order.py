"""Option-order variants: seeded and reproducible, recorded HELM-style, gold kept right."""

from __future__ import annotations

import pytest

from chartproof.metrics.accuracy import score_answer
from chartproof.types import Answer, ImageRef, Sample
from chartproof.variants.choice_order import (
    apply_choice_order,
    choice_order_variants,
    rotate_choices,
    shuffle_choices,
)

OPTIONS = ("Germany", "France", "Italy", "Spain")


def _mc(sid: str = "q1", gold: str = "Italy", options: tuple[str, ...] = OPTIONS) -> Sample:
    return Sample(
        id=sid,
        image=ImageRef(path="images/c.png"),
        question="Which country has the tallest bar?",
        answer=Answer.option(gold),
        choices=options,
    )


def test_shuffle_is_seeded_recorded_and_keeps_the_gold() -> None:
    s = _mc()
    v = shuffle_choices(s, level=1)
    assert v == shuffle_choices(s, level=1)  # same id, level, seed: same order
    assert v.choices != s.choices and sorted(v.choices) == sorted(s.choices)
    assert v.answer == s.answer and v.answer.value in v.choices
    assert v.id == "q1~shuffle_choices-1" and v.parent_id == "q1"
    (t,) = v.transforms
    assert t.kind == "perturbation" and t.name == "shuffle_choices" and t.level == 1
    assert t.answer_preserved is True
    order = [int(i) for i in str(t.params["order"]).split(",")]
    assert tuple(s.choices[i] for i in order) == v.choices
    assert apply_choice_order(s, t) == v
    # the gold letter follows the option: answering with the option's text stays right
    assert score_answer("Italy", v.answer) == 1.0
    assert v.group_labels()["perturbation"] == "shuffle_choices"
    assert v.group_labels()["gold_position"] == "ABCD"[v.choices.index("Italy")]


def test_seed_depends_on_sample_id_level_and_base_seed() -> None:
    orders = {
        shuffle_choices(_mc(sid), level=lv, seed=sd).choices
        for sid in ("a", "b", "c")
        for lv in (1, 2)
        for sd in (0, 1)
    }
    assert len(orders) > 3  # not one fixed permutation for everything


def test_two_options_are_swapped() -> None:
    s = _mc(gold="Yes", options=("Yes", "No"))
    assert shuffle_choices(s).choices == ("No", "Yes")


def test_rotations_put_the_gold_at_every_position() -> None:
    s = _mc()
    rotated = [rotate_choices(s, k) for k in range(1, 4)]
    positions = {s.group_labels()["gold_position"]} | {
        r.group_labels()["gold_position"] for r in rotated
    }
    assert positions == {"A", "B", "C", "D"}
    assert rotated[0].choices == ("Spain", "Germany", "France", "Italy")
    with pytest.raises(ValueError, match="shift"):
        rotate_choices(s, 4)


def test_variants_of_a_mixed_list() -> None:
    plain = Sample(
        id="p", image=ImageRef(path="images/c.png"), question="How many?", answer=Answer.number(3)
    )
    out = choice_order_variants([plain, _mc()], shuffles=2, rotations=True)
    assert [s.id for s in out] == [
        "p",
        "q1",
        "q1~shuffle_choices-1",
        "q1~shuffle_choices-2",
        "q1~rotate_choices-1",
        "q1~rotate_choices-2",
        "q1~rotate_choices-3",
    ]
    with pytest.raises(ValueError, match="no answer options"):
        shuffle_choices(plain)


def test_sample_rejects_inconsistent_choices() -> None:
    with pytest.raises(ValueError, match="not one of"):
        _mc(gold="Poland")
    with pytest.raises(ValueError, match="duplicate"):
        _mc(options=("Italy", "Italy"))
    with pytest.raises(ValueError, match="needs the sample's choices"):
        Sample(id="x", image=ImageRef(path="a.png"), question="q", answer=Answer.option("A"))
