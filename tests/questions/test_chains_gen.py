"""ChartR chains: 4-10 sub-questions forming a DAG, exported as JSON; a scripted answerer
that reads the true table scores 1.0 on every metric, and one that errs only on value
extraction shows the error propagating (CSA < ISA) with first errors on VE."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from question_factory import box_spec, category_spec, random_spec
from question_step_oracle import answer_final, answer_step

from chartproof.metrics.accuracy import score_answer
from chartproof.metrics.chains import ChainOutcome, chain_metrics, error_analysis
from chartproof.metrics.premises import PremiseOutcome, premise_metrics
from chartproof.questions import QuestionItem, check_chain, list_programs, make_questions
from chartproof.types import ChartSpec, ChartType

CHART_TYPES: tuple[ChartType, ...] = (
    "vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "box",
)  # fmt: skip

Answerer = Callable[[QuestionItem, ChartSpec], tuple[list[str], str]]


def _chain_items(n_charts: int = 70) -> list[tuple[QuestionItem, ChartSpec]]:
    rng = random.Random(21)
    out = []
    for i in range(n_charts):
        spec = random_spec(rng, CHART_TYPES[i % len(CHART_TYPES)], spec_id=f"c{i}")
        for item in make_questions(spec, seed=i, per_chart=10, families=("chain",)):
            out.append((item, spec))
    return out


ITEMS = _chain_items()


def test_chain_programs_cover_every_task_type() -> None:
    assert len(list_programs(families=("chain",))) >= 6
    seen = {s.task_type for item, _ in ITEMS for s in item.chain}
    seen |= {item.task_type for item, _ in ITEMS}
    assert seen == {"VE", "CI", "PR", "VC", "CP", "TI", "SO", "NC"}
    assert len({item.program for item, _ in ITEMS}) == len(list_programs(families=("chain",)))


def test_chains_have_four_to_ten_steps_and_export_a_dag() -> None:
    for item, _ in ITEMS:
        assert 4 <= len(item.chain) <= 10, item.program
        check_chain(item.chain)
        dag = json.loads(json.dumps(item.dag()))
        final = dag["final"]
        assert final == len(item.chain)
        assert [n["id"] for n in dag["nodes"]] == list(range(final + 1))
        assert all(a < b for a, b in dag["edges"])
        # every step reaches the final question
        reach = {final}
        for a, b in sorted(dag["edges"], key=lambda e: -e[1]):
            if b in reach:
                reach.add(a)
        assert reach == set(range(final + 1)), item.program
        assert dag["nodes"][-1]["answer"] == item.answer.text()


def test_worked_example_of_chartr() -> None:
    spec = category_spec(
        "line",
        series={"Index": (60.0, 70.0, 95.0, 80.0, 66.0), "Other": (10.0, 12.0, 9.0, 14.0, 13.0)},
    )
    from chartproof.questions import execute

    result = execute("chain_range_trend", {"series": "Index", "lo": 65.0, "hi": 90.0}, spec)
    assert result is not None
    steps = result.chain()
    assert [s.task_type for s in steps] == ["CI", "VE", "VE", "VE", "VE", "VE", "CP", "VC", "VC"]
    assert steps[6].answer.value == ("2019", "2021", "2022")
    assert steps[7].answer.value == "2022" and steps[8].answer.value == "2021"
    assert result.answer.value == "decreasing"
    assert steps[7].depends_on == (6,) and steps[6].depends_on == (1, 2, 3, 4, 5)


def _truthful(item: QuestionItem, spec: ChartSpec) -> tuple[list[str], str]:
    answers: dict[int, str] = {}
    for op in item.trace[:-1]:
        answers[op.id] = answer_step(op, spec, answers)
    return [answers[s.id] for s in item.chain], answer_final(item.program, dict(item.args), spec)


def _wrong_on_ve(item: QuestionItem, spec: ChartSpec) -> tuple[list[str], str]:
    steps, final = _truthful(item, spec)
    bad = [
        f"{1.5 * float(s.answer.value) + 7:g}" if s.task_type == "VE" else steps[s.id]  # type: ignore[arg-type]
        for s in item.chain
    ]
    return bad, final


def _outcomes(answerer: Answerer) -> list[ChainOutcome]:
    out = []
    for item, spec in ITEMS:
        steps, final = answerer(item, spec)
        correct = [score_answer(p, s.answer) == 1.0 for p, s in zip(steps, item.chain, strict=True)]
        out.append(
            ChainOutcome.from_steps(
                item.chain, correct, score_answer(final, item.answer) == 1.0,
                final_task_type=item.task_type,
            )
        )  # fmt: skip
    return out


def test_table_reader_scores_one_everywhere() -> None:
    outcomes = _outcomes(_truthful)
    scores = {s.metric: s.value for s in chain_metrics(outcomes)}
    assert scores == {"isa": 1.0, "csa": 1.0, "faa": 1.0, "cfa": 1.0}
    analysis = error_analysis(outcomes)
    assert set(analysis["step_error_rate"].values()) == {0.0}  # type: ignore[union-attr]
    assert analysis["first_error_ratio"] == {}


def test_value_extraction_errors_propagate() -> None:
    outcomes = _outcomes(_wrong_on_ve)
    scores = {s.metric: s.value for s in chain_metrics(outcomes)}
    assert scores["csa"] is not None and scores["isa"] is not None
    assert scores["csa"] < scores["isa"] < 1.0
    assert scores["cfa"] < scores["faa"]
    analysis = error_analysis(outcomes)
    ser = analysis["step_error_rate"]
    assert isinstance(ser, dict)
    assert ser["VE"] == 1.0
    assert all(v == 0.0 for k, v in ser.items() if k != "VE")
    assert analysis["first_error_ratio"] == {"VE": 1.0}


def test_premise_protocol_with_a_perfect_judge_scores_one() -> None:
    spec = box_spec()
    items = make_questions(spec, seed=0, per_chart=6)
    perfect = [[PremiseOutcome(kind=p.kind, correct=True) for p in it.premises] for it in items]
    metrics = premise_metrics(perfect)
    assert metrics["acc_vpp"] == 1.0 and metrics["accuracy"] == 1.0 and metrics["dcp"] == 0.0
    # a judge that calls every premise true gets exactly the true quarter right
    gullible = [[PremiseOutcome(kind=p.kind, correct=p.truth) for p in it.premises] for it in items]
    metrics = premise_metrics(gullible)
    assert metrics["accuracy"] == 0.25 and metrics["acc_vpp"] == 0.0
    assert metrics["dcp"] == 0.25
