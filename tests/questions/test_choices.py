"""Multiple-choice forms of questions, with distractors from the same chart."""

from __future__ import annotations

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
