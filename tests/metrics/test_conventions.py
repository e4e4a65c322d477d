"""Scoring conventions pinned to case tables whose verdicts were recorded by running each
benchmark's reference scorer side by side (pix2struct, lmms-eval and VLMEvalKit for ChartQA;
VLMEvalKit's exact accuracy for DVQA; ChartBench's `Stat/stat_all_metric.py`; RealCQA's
`eval_PMC.py`). The reference code is not part of chartproof; only its verdicts are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue

from chartproof.datasets.answers import type_answer
from chartproof.metrics.conventions import convention, convention_for
from chartproof.types import Answer, ImageRef, Sample

CASES = Path(__file__).parent / "cases"


def _cases(name: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((CASES / name).read_text(encoding="utf-8"))
    return rows


def _sample(dataset: str, gold: str, answer: Answer | None = None, **source: JsonValue) -> Sample:
    return Sample(
        id="s1",
        image=ImageRef(path="s1.png"),
        question="q?",
        answer=answer or type_answer(gold),
        source={"dataset": dataset, "answer_raw": gold, **source},
    )


def _id(case: dict[str, Any]) -> str:
    return f"{case['prediction']!r}-vs-{case['gold']!r}"


def _score(dataset: str, case: dict[str, Any], answer: Answer | None = None) -> float:
    sample = _sample(dataset, case["gold"], answer)
    conv = convention_for(sample)
    assert conv is not None
    return conv.score(case["prediction"], sample)


@pytest.mark.parametrize("case", _cases("convention_chartqa.json"), ids=_id)
def test_chartqa_matches_pix2struct(case: dict[str, Any]) -> None:
    assert _score("chartqa", case) == case["pix2struct"], case["kind"]


def test_chartqa_table_size_and_where_the_references_differ() -> None:
    rows = _cases("convention_chartqa.json")
    assert len(rows) >= 200
    # lmms-eval does not strip the prediction; VLMEvalKit evaluates a bracketed gold as
    # a list of alternatives, so "[10, 12]" itself is wrong there
    lmms = {(r["prediction"], r["gold"]) for r in rows if r["lmms_eval"] != r["pix2struct"]}
    assert lmms and all(p != p.strip() for p, _ in lmms)
    vlm = {(r["prediction"], r["gold"]) for r in rows if r["vlmevalkit"] != r["pix2struct"]}
    assert vlm and all(g.startswith("[") for _, g in vlm)


@pytest.mark.parametrize("dataset", ["chartqa", "plotqa"])
def test_chartqa_family_uses_relaxed_correctness(dataset: str) -> None:
    conv = convention_for(_sample(dataset, "12"))
    assert conv is not None and conv.name == "chartqa"


def test_conventions_pick_by_dataset() -> None:
    names = {d: convention_for(_sample(d, "1")) for d in ("dvqa", "figureqa", "chartbench")}
    assert {d: c.name if c else None for d, c in names.items()} == {
        "dvqa": "exact",
        "figureqa": "binary",
        "chartbench": "chartbench",
    }


@pytest.mark.parametrize("case", _cases("convention_dvqa.json"), ids=_id)
def test_dvqa_matches_vlmevalkit_exact(case: dict[str, Any]) -> None:
    assert _score("dvqa", case) == case["vlmevalkit"], case["kind"]


def test_dvqa_table_size() -> None:
    assert len(_cases("convention_dvqa.json")) >= 200


@pytest.mark.parametrize("case", _cases("convention_chartbench.json"), ids=_id)
def test_chartbench_matches_stat_all_metric(case: dict[str, Any]) -> None:
    gold = case["gold"]
    answer = Answer.boolean(gold == "yes") if gold in ("yes", "no") else None
    assert _score("chartbench", case, answer) == case["chartbench"], case["kind"]


def test_chartbench_table_size() -> None:
    assert len(_cases("convention_chartbench.json")) >= 200


@pytest.mark.parametrize(
    ("prediction", "gold", "right"),
    [
        ("1", True, True),
        ("Yes", True, True),
        ("yes.", True, True),
        (" TRUE ", True, True),
        ("0", False, True),
        ("No", False, True),
        ("no.", False, True),
        ("Yes, it is", True, False),
        ("1", False, False),
        ("No idea", False, False),
        ("", False, False),
    ],
)
def test_figureqa_binary(prediction: str, gold: bool, right: bool) -> None:
    sample = _sample("figureqa", "Yes" if gold else "No", Answer.boolean(gold))
    assert convention("binary").score(prediction, sample) == float(right)


def test_unknown_dataset_has_no_convention() -> None:
    assert convention_for(_sample("opencqa", "x")) is None
    # ChartQA-Pro has a scorer of its own (ANLS, year flags), not pix2struct's
    conv = convention_for(_sample("chartqapro", "x"))
    assert conv is not None and conv.name == "chartqapro"
    assert convention_for(_sample("jsonl", "x")) is None


def _realcqa_id(case: dict[str, Any]) -> str:
    return f"{case['answer_type']}:{case['prediction']!r}-vs-{case['gold']!r}"


@pytest.mark.parametrize("case", _cases("convention_realcqa.json"), ids=_realcqa_id)
def test_realcqa_matches_eval_pmc(case: dict[str, Any]) -> None:
    gold = case["gold"]
    raw = json.dumps(gold) if isinstance(gold, list) else str(gold)
    sample = _sample(
        "realcqa", raw, Answer.of_text(raw), answer_json=gold, answer_type=case["answer_type"]
    )
    conv = convention_for(sample)
    assert conv is not None and conv.name == "realcqa"
    assert conv.score(case["prediction"], sample) == pytest.approx(case["eval_pmc"], abs=1e-9)


def test_realcqa_table_covers_every_answer_type() -> None:
    rows = _cases("convention_realcqa.json")
    assert len(rows) >= 200
    kinds = {r["answer_type"] for r in rows}
    assert kinds == {"Binary", "Numerical", "String", "Unranked List", "Ranked List"}
    # nDCG values strictly between 0 and 1 are in the table, not only hits and misses
    assert any(0 < r["eval_pmc"] < 1 for r in rows if r["answer_type"] == "Ranked List")


@pytest.mark.parametrize("case", _cases("convention_chartqapro.json"), ids=_id)
def test_chartqapro_matches_vlmevalkit(case: dict[str, Any]) -> None:
    sample = _sample(
        "chartqapro",
        case["gold"],
        Answer.of_text(case["gold"]),
        year_flags=case["year_flags"],
        question_type=case["question_type"],
    )
    got = convention("chartqapro").score(case["prediction"], sample)
    assert got == pytest.approx(case["vlmevalkit"], abs=1e-9)


def test_chartqapro_table_size() -> None:
    rows = _cases("convention_chartqapro.json")
    assert len(rows) >= 200
    assert any(0 < r["vlmevalkit"] < 1 for r in rows)  # ANLS and partial lists


def test_missing_answer_scores_zero_in_every_convention() -> None:
    from chartproof.metrics.conventions import official_score

    sample = _sample("chartbench", "No", Answer.boolean(False))
    # ChartBench's own rule counts an empty reply to a "no" question right ...
    assert convention("chartbench").score("", sample) == 1.0
    # ... chartproof counts a missing answer wrong, failures included
    assert official_score("", sample.answer, sample=sample) == {"official": 0.0}
    assert official_score("x", Answer.of_text("x"), sample=_sample("opencqa", "x")) == {}


def test_a_sample_can_name_its_convention() -> None:
    named = convention_for(_sample("my-folder", "12", convention="chartqa"))
    assert named is not None and named.name == "chartqa"
    assert convention_for(_sample("chartqa", "12", convention="none")) is None
    with pytest.raises(KeyError, match="known"):
        convention_for(_sample("my-folder", "12", convention="chartqa-typo"))


@pytest.mark.parametrize("case", _cases("convention_evochart.json"), ids=_id)
def test_evochart_follows_its_readme_rule(case: dict[str, Any]) -> None:
    sample = _sample("evochart", case["gold"], is_clear=case["is_clear"])
    conv = convention_for(sample)
    assert conv is not None and conv.name == "evochart"
    assert conv.score(case["prediction"], sample) == case["readme_rule"], case["kind"]


def test_evochart_table_covers_both_rules() -> None:
    # verdicts written by hand from the README's rule: the authors publish no scorer code
    rows = _cases("convention_evochart.json")
    assert len(rows) >= 60
    for clear in (True, False):
        verdicts = {r["readme_rule"] for r in rows if r["is_clear"] is clear}
        assert verdicts == {0.0, 1.0}
    # the same (prediction, gold) pair scores differently under the two rules
    assert convention("evochart").score("33", _sample("evochart", "32", is_clear=True)) == 0.0
    assert convention("evochart").score("33", _sample("evochart", "32", is_clear=False)) == 1.0
