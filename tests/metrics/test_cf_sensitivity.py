"""Counterfactual sensitivity: the answer-comparison case table and hand-built families."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.cf_sensitivity import counterfactual_sensitivity, same_answer
from chartproof.types import Answer, ImageRef, Sample, Transform

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "cf_same_answer.json").read_text(encoding="utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['a']}|{c['b']}" for c in CASES])
def test_same_answer(case: dict[str, Any]) -> None:
    how = {k: case[k] for k in ("rel_tol", "as_numbers") if k in case}
    assert same_answer(case["a"], case["b"], **how) is case["same"]
    assert same_answer(case["b"], case["a"], **how) is case["same"]  # symmetric


def _family() -> list[Sample]:
    """Two questions on one chart, each with two counterfactuals; cf `q1~cf1` keeps the gold
    answer (so it is no pair)."""
    cf = Transform(kind="counterfactual", name="jitter", seed=1)
    golds = {"q0": 10.0, "q0~cf0": 20.0, "q0~cf1": 30.0, "q1": 5.0, "q1~cf0": 7.0, "q1~cf1": 5.0}
    out = []
    for sid, value in golds.items():
        parent = sid.split("~")[0] if "~" in sid else None
        out.append(
            Sample(
                id=sid,
                image=ImageRef(path=f"{sid}.png"),
                question="q?",
                answer=Answer.number(value),
                transforms=(cf,) if parent else (),
                parent_id=parent,
                family_id="f",
            )
        )
    return out


def _scores(predictions: dict[str, str | None]) -> dict[str, tuple[float | None, int]]:
    samples = _family()
    gold = {s.id: s.answer.value for s in samples}
    correct = {
        k: (v is not None and abs(float(v) - float(gold[k])) < 1e-9)  # type: ignore[arg-type]
        for k, v in predictions.items()
    }
    return {
        s.metric: (s.value, s.n) for s in counterfactual_sensitivity(samples, predictions, correct)
    }


def test_a_constant_answer_is_insensitive() -> None:
    got = _scores({k: "10" for k in ("q0", "q0~cf0", "q0~cf1", "q1", "q1~cf0", "q1~cf1")})
    assert got["cf_sensitivity"] == (0.0, 3)  # 3 pairs: q1~cf1 keeps its answer
    assert got["cf_follow"] == (0.0, 2)  # q0 right twice, its counterfactuals wrong
    assert got["cf_both_right"] == (0.0, 3)


def test_gold_answers_follow_every_edit() -> None:
    got = _scores({"q0": "10", "q0~cf0": "20", "q0~cf1": "30", "q1": "5", "q1~cf0": "7"})
    assert got == {"cf_sensitivity": (1.0, 3), "cf_follow": (1.0, 3), "cf_both_right": (1.0, 3)}


def test_changing_to_a_wrong_answer_counts_as_sensitive_not_following() -> None:
    got = _scores({"q0": "10", "q0~cf0": "11", "q0~cf1": "99", "q1": "6", "q1~cf0": "6"})
    assert got["cf_sensitivity"] == (pytest.approx(2 / 3), 3)  # 10→11 and 10→99 moved, 6→6 not
    assert got["cf_follow"] == (0.0, 2)
    assert got["cf_both_right"] == (0.0, 3)


def test_pairs_without_predictions_are_left_out() -> None:
    got = _scores({"q0": "10"})
    assert got["cf_sensitivity"] == (None, 0)


def _results(predictions: dict[str, str | None], failed: tuple[str, ...] = ()) -> list[Any]:
    """What a direct run records for `predictions`: relaxed accuracy by the answer's number
    (the rule `_scores` uses), a failed sample with no prediction and no scores."""
    from chartproof.types import SampleResult

    gold = {s.id: float(s.answer.value) for s in _family()}  # type: ignore[arg-type]
    out = []
    for sid, pred in predictions.items():
        if sid in failed:
            out.append(SampleResult(sample_id=sid, protocol="direct", model="m", error="boom"))
            continue
        right = pred is not None and abs(float(pred) - gold[sid]) < 1e-9
        out.append(
            SampleResult(sample_id=sid, protocol="direct", model="m", prediction=pred,
                         scores={"relaxed_accuracy": float(right), "accuracy": float(right)})
        )  # fmt: skip
    return out


@pytest.mark.parametrize(
    ("predictions", "failed"),
    [
        ({k: "10" for k in ("q0", "q0~cf0", "q0~cf1", "q1", "q1~cf0", "q1~cf1")}, ()),
        ({"q0": "10", "q0~cf0": "20", "q0~cf1": "30", "q1": "5", "q1~cf0": "7"}, ()),
        ({"q0": "10", "q0~cf0": "11", "q0~cf1": "99", "q1": "6", "q1~cf0": "6"}, ()),
        ({"q0": "10", "q0~cf0": None, "q0~cf1": "30", "q1": "5", "q1~cf0": "7"}, ("q0~cf0",)),
    ],
)
def test_the_registered_run_scorer_writes_the_same_scores_to_the_summary(
    predictions: dict[str, str | None], failed: tuple[str, ...]
) -> None:
    from chartproof.metrics.registry import SCORERS
    from chartproof.pipelines.summarize import summarize
    from chartproof.types import RunSummary

    assert SCORERS["cf_sensitivity"].section == "cf_sensitivity"
    summary = RunSummary.read(summarize(_results(predictions, failed), protocol="direct",
                                        samples=_family()))  # fmt: skip
    got = {s["metric"]: (s["value"], s["n"]) for s in summary.section("cf_sensitivity")["scores"]}
    assert summary.cf_sensitivity is not None  # the typed section
    assert {s.metric: (s.value, s.n) for s in summary.cf_sensitivity.scores} == got
    assert got == _scores({k: (None if k in failed else v) for k, v in predictions.items()})


def test_no_section_without_counterfactual_pairs_nor_under_the_premise_protocol() -> None:
    from chartproof.pipelines.summarize import summarize

    answers = {"q0": "10", "q0~cf0": "20"}
    no_pairs = summarize(_results(answers), protocol="direct", samples=_family()[:1])
    assert "cf_sensitivity" not in no_pairs
    premise = summarize(_results(answers), protocol="premise", samples=_family())
    assert "cf_sensitivity" not in premise
    assert "cf_sensitivity" in summarize(_results(answers), protocol="direct", samples=_family())


def test_the_report_shows_the_section_with_its_baseline() -> None:
    from chartproof.pipelines.summarize import summarize
    from chartproof.reports.sections import report_sections

    answers = {"q0": "10", "q0~cf0": "11", "q0~cf1": "99", "q1": "6", "q1~cf0": "6"}
    summary = summarize(_results(answers), protocol="direct", samples=_family())
    section = {s.name: s for s in report_sections(summary)}["cf_sensitivity"]
    page = str(section.render(summary))
    assert "Counterfactual sensitivity (ChartCF)" in page and "sensitivity is 0" in page
    assert "<td>66.67</td>" in page and "constant-answer baseline 0" in page  # 2 of 3 moved
    no_pairs = summarize(_results(answers), protocol="direct", samples=_family()[:1])
    assert "cf_sensitivity" not in {s.name for s in report_sections(no_pairs)}


def test_labels_that_look_like_numbers_are_compared_as_labels() -> None:
    """The year a question asks for moves from 2020 to 2016: a model that follows it is
    sensitive, though the two years are within 5 % of each other as numbers."""
    cf = Transform(kind="counterfactual", name="swap", seed=1)
    samples = [
        Sample(
            id=sid,
            image=ImageRef(path=f"{sid}.png"),
            question="Which year?",
            answer=Answer(kind="text", value=year),
            transforms=(cf,) if parent else (),
            parent_id=parent,
            family_id="f",
        )
        for sid, year, parent in (("q", "2020", None), ("q~cf", "2016", "q"))
    ]
    right = {"q": True, "q~cf": True}
    got = counterfactual_sensitivity(samples, {"q": "2020", "q~cf": "2016"}, right)
    assert [(s.metric, s.value, s.n) for s in got] == [
        ("cf_sensitivity", 1.0, 1), ("cf_follow", 1.0, 1), ("cf_both_right", 1.0, 1)
    ]  # fmt: skip
    still = counterfactual_sensitivity(samples, {"q": "2020", "q~cf": "2020"}, right)
    assert still[0].value == 0.0
