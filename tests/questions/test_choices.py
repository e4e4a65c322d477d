"""Multiple-choice forms of questions, with distractors from the same chart."""

from __future__ import annotations

from pathlib import Path

from chartproof.metrics.accuracy import score_answer
from chartproof.questions.choices import distractors, multiple_choice, with_multiple_choice
from chartproof.types import Answer, Column, DataTable, ImageRef, Sample

TABLE = DataTable(
    columns=(Column(name="country", kind="category"), Column(name="share", unit="%")),
    rows=(("Germany", 31.0), ("France", 24.0), ("Italy", 18.5), ("Spain", 24.5)),
)


def _sample(answer: Answer, sid: str = "s1") -> Sample:
    return Sample(
        id=sid, image=ImageRef(path="images/c.png"), question="q?", answer=answer, table=TABLE
    )


def test_label_distractors_come_from_the_gold_column() -> None:
    assert distractors(_sample(Answer.of_text("france"))) == ["Germany", "Italy", "Spain"]


def test_number_distractors_are_other_chart_values_outside_tolerance() -> None:
    # 24.5 is within 5 % of 24: it would also score as right, so it is no distractor
    assert distractors(_sample(Answer.number(24.0))) == ["31", "18.5"]


def test_bool_and_ranking() -> None:
    assert distractors(_sample(Answer.boolean(True))) == ["No"]
    ranked = Answer(kind="ranked_list", value=("Germany", "Spain", "France"))
    assert distractors(_sample(ranked), k=3) == ["Germany, France, Spain", "Spain, Germany, France"]


def test_multiple_choice_form_is_consistent_and_seeded() -> None:
    s = _sample(Answer.of_text("Italy"))
    mc = multiple_choice(s, k=4)
    assert mc is not None and mc == multiple_choice(s, k=4)
    assert mc.id == "s1~mc"
    assert set(mc.choices) == {"Germany", "France", "Italy", "Spain"}
    assert mc.answer == Answer.option("Italy")
    assert mc.groups["form"] == "multiple_choice"
    assert score_answer("Italy", mc.answer) == 1.0 and score_answer("Spain", mc.answer) == 0.0
    # gold letters are spread by the seeded shuffle, not always first
    letters = {
        m.group_labels()["gold_position"]
        for i in range(12)
        if (m := multiple_choice(_sample(Answer.of_text("Italy"), f"s{i}"))) is not None
    }
    assert len(letters) >= 3


def test_no_form_without_distractors() -> None:
    free = Sample(
        id="f",
        image=ImageRef(path="images/c.png"),
        question="Why?",
        answer=Answer.of_text("Because"),
    )
    assert multiple_choice(free) is None
    assert [x.id for x in with_multiple_choice([free, _sample(Answer.number(31.0))])] == [
        "f",
        "s1",
        "s1~mc",
    ]


def test_computed_numbers_get_near_derived_distractors() -> None:
    # 55.5 = 31 + 24.5 is no table value: pair sums and differences near it are offered,
    # nearest first (49.5 = 31 + 18.5, 48.5 = 24 + 24.5, 43 = 24.5 + 18.5); 55 = 31 + 24 is
    # within 5 % of the gold, so it would also score as right and is left out
    assert distractors(_sample(Answer.number(55.5))) == ["49.5", "48.5", "43"]


def test_ranks_get_other_positions() -> None:
    ranked = _sample(Answer.number(2.0)).model_copy(update={"program": "rank_of_label"})
    assert distractors(ranked) == ["1", "3", "4"]


def test_generate_emits_multiple_choice_forms(tmp_path: Path) -> None:
    from chartproof.datasets import load_dataset
    from chartproof.pipelines.generate import generate

    generate("chartqax", 3, tmp_path / "mc", seed=5, choices=4, premises=False, workers=1)
    samples = load_dataset(tmp_path / "mc").samples
    by_id = {s.id: s for s in samples}
    forms = [s for s in samples if s.choices]
    assert forms and all(s.id.endswith("~mc") for s in forms)
    for mc in forms:
        open_form = by_id[mc.id.removesuffix("~mc")]
        # the gold option is the open question's answer, and it scores as right
        assert mc.answer.value == open_form.answer.text()
        assert score_answer(open_form.answer.text(), mc.answer) == 1.0
        assert 2 <= len(mc.choices) <= 4 and mc.question == open_form.question


def test_generate_rejects_one_option(tmp_path: Path) -> None:
    import pytest

    from chartproof.pipelines.generate import generate

    with pytest.raises(ValueError, match="2 and more"):
        generate("chartqax", 1, tmp_path / "x", choices=1)
