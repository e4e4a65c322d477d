"""ChartR chains: 4-10 sub-questions forming a DAG that spans both task categories, exported
as JSON; the chartr suite gives every chart one; the final answer follows from the chain's
answers; every dependency is real (another earlier answer changes what depends on it); a
scripted answerer that reads the true table scores 1.0 on every metric, and one that errs
only on value extraction shows the error propagating (CSA < ISA) with first errors on VE."""

from __future__ import annotations

import json
import random
import re
import statistics
from collections import Counter
from collections.abc import Callable
from functools import partial

import pytest
from question_factory import box_spec, category_spec, random_spec
from question_step_oracle import answer_final, answer_step

from chartproof.charts.suites import SUITES, domains, generate_specs
from chartproof.metrics.accuracy import score_answer
from chartproof.metrics.breakdown import mean_score
from chartproof.metrics.chains import ChainOutcome, chain_scores, error_analysis
from chartproof.metrics.premises import PremiseOutcome, premise_metrics
from chartproof.questions import (
    QuestionItem,
    check_chain,
    execute,
    has_chain,
    list_programs,
    make_questions,
)
from chartproof.questions.chains import PERCEPTION, REASONING, chain_problem
from chartproof.questions.program import replay
from chartproof.questions.trace import Op
from chartproof.questions.view import ChartView, chart_view
from chartproof.types import AnswerValue, ChartSpec, ChartType

CHART_TYPES: tuple[ChartType, ...] = (
    "vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "box", "scatter",
)  # fmt: skip

Answerer = Callable[[QuestionItem, ChartSpec], tuple[list[str], str]]


def _chain_items(n_charts: int = 72) -> list[tuple[QuestionItem, ChartSpec]]:
    rng = random.Random(21)
    out = []
    for i in range(n_charts):
        spec = random_spec(rng, CHART_TYPES[i % len(CHART_TYPES)], spec_id=f"c{i}")
        for item in make_questions(spec, seed=i, per_chart=10, families=("chain",)):
            out.append((item, spec))
    return out


ITEMS = _chain_items()


def _chartr(seed: int, n: int = 150) -> list[tuple[QuestionItem, ChartSpec]]:
    """The chartr suite's chain of every chart, as `generate` asks it."""
    out = []
    for spec in generate_specs("chartr", n, seed, partial(has_chain, seed=seed)):
        items = make_questions(spec, seed=seed, per_chart=1, chains=1, with_premises=False)
        assert items and items[0].chain, f"{spec.id} ({spec.chart_type}) has no chain"
        out.append((items[0], spec))
    return out


CHARTR = {seed: _chartr(seed) for seed in (11, 0, 3)}


def _gold_answers(item: QuestionItem, spec: ChartSpec) -> dict[int, str]:
    """Each step recomputed by the pandas oracle from the gold answers of its parents."""
    gold = {s.id: s.answer.text() for s in item.chain}
    derived = {}
    for op in item.trace:
        derived[op.id] = answer_step(op, spec, gold, item.trace)
    return derived


def test_chain_programs_cover_every_task_type() -> None:
    assert len(list_programs(families=("chain",))) >= 12
    seen = {s.task_type for item, _ in ITEMS for s in item.chain}
    seen |= {item.task_type for item, _ in ITEMS}
    assert seen == {"VE", "CI", "PR", "VC", "CP", "TI", "SO", "NC"}
    assert len({item.program for item, _ in ITEMS}) == len(list_programs(families=("chain",)))


def test_chains_have_four_to_ten_mixed_steps_and_export_a_dag() -> None:
    for item, _ in ITEMS:
        assert 4 <= len(item.chain) <= 10, item.program
        types = {s.task_type for s in item.chain}
        assert types & PERCEPTION and types & REASONING and len(types) >= 3, item.program
        check_chain(item.chain)
        dag = json.loads(json.dumps(item.dag()))
        final = dag["final"]
        assert final == len(item.chain)
        assert [n["id"] for n in dag["nodes"]] == list(range(final + 1))
        assert all(a < b for a, b in dag["edges"])
        # every step reaches the final question through recorded dependencies
        reach = {final}
        for a, b in sorted(dag["edges"], key=lambda e: -e[1]):
            if b in reach:
                reach.add(a)
        assert reach == set(range(final + 1)), item.program
        assert dag["nodes"][-1]["answer"] == item.answer.text()


def test_chain_problem_names_what_is_missing() -> None:
    assert chain_problem(["VE", "VE", "NC"], [(), (), (0, 1)], (2,)) is not None  # 3 steps
    assert "perception" in str(chain_problem(["NC"] * 4, [(), (), (), ()], (0, 1, 2, 3)))
    assert "2 task types" in str(
        chain_problem(["VE", "VE", "NC", "NC"], [(), (), (0,), (1,)], (2, 3))
    )
    unused = chain_problem(["VE", "PR", "NC", "VC"], [(), (), (0,), (2,)], (3,))
    assert unused is not None and "[1]" in unused
    assert chain_problem(["VE", "PR", "NC", "VC"], [(), (), (0, 1), (2,)], (3,)) is None


def test_worked_example_of_chartr() -> None:
    spec = category_spec(
        "line",
        series={"Index": (60.0, 70.0, 95.0, 80.0, 66.0), "Other": (10.0, 12.0, 9.0, 14.0, 13.0)},
    )
    result = execute("chain_range_trend", {"series": "Index", "lo": 65.0, "hi": 90.0}, spec)
    assert result is not None
    steps = result.chain()
    assert [s.task_type for s in steps] == ["CI", "CP", "VC", "VC", "VE", "VE", "PR", "PR"]
    assert steps[1].answer.value == ("2019", "2021", "2022")
    assert steps[1].depends_on == (0,) and "colour from step 1" in steps[1].question
    assert steps[2].answer.value == "2022" and steps[3].answer.value == "2021"
    assert [s.answer.value for s in steps[4:]] == [66.0, 80.0, 5.0, 4.0]
    assert steps[4].depends_on == (2,) and steps[7].depends_on == (3,)
    assert result.answer.value == "decreasing"  # 80 in 2021, then 66 in 2022
    assert set(result.final.depends_on) == {4, 5, 6, 7}


@pytest.mark.parametrize("seed", sorted(CHARTR))
def test_chartr_suite_gives_every_chart_one_chartr_chain(seed: int) -> None:
    """Every chart of `generate --suite chartr` carries a 4-10 step chain over both task
    categories and at least three task types; each step and the composite answer follow
    from the chain's answers (pandas oracle); about 8 questions per chart as in ChartR."""
    chains = CHARTR[seed]
    assert len(chains) == 150
    for item, spec in chains:
        steps = item.chain
        assert (
            chain_problem(
                [s.task_type for s in steps],
                [s.depends_on for s in steps],
                item.trace[-1].depends_on,
            )
            is None
        ), item.program
        check_chain(steps)
        derived = _gold_answers(item, spec)
        for s in steps:
            assert score_answer(derived[s.id], s.answer) == 1.0, (item.program, s.question)
        final = derived[len(steps)]
        assert score_answer(final, item.answer) == 1.0, (item.program, item.question, final)
    per_chart = statistics.fmean(len(item.chain) + 1 for item, _ in chains)
    assert 7.0 <= per_chart <= 9.5  # ChartR: 1,652 main and sub-questions on 200 charts
    assert len({item.program for item, _ in chains}) >= 10
    types = {s.task_type for item, _ in chains for s in item.chain}
    assert types == PERCEPTION | REASONING


def test_chartr_suite_has_twenty_templates_over_twenty_domains() -> None:
    assert len(SUITES["chartr"].templates) >= 20
    assert len(domains()) >= 20
    assert SUITES["chartr"].chains_per_chart == 1


def _perturbations(op: Op, view: ChartView) -> list[AnswerValue]:
    """Other plausible answers for a step: other labels, numbers, the other truth value."""
    v = op.value
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, float):
        span = max(view.span, abs(v), 1.0)
        return [v + 3 * span, v - 3 * span, -v, v * 0.2, v + 0.5 * span]
    labels = [
        *view.x_labels, *view.series, *view.colors.values(), "positive", "negative",
        "high positive", "low positive", "high negative", "low negative",
    ]  # fmt: skip
    if isinstance(v, str):
        return [lab for lab in dict.fromkeys(labels) if lab != v]
    items = [str(x) for x in v]
    outside = [x for x in view.x_labels if x not in items]
    # a list read with one label missed (any one: with noisy data a band's lowest or highest
    # member need not sit at either end of the x axis), reversed, or with one label too many
    out: list[AnswerValue] = [tuple(items[:k] + items[k + 1 :]) for k in range(len(items))]
    out.append(tuple(reversed(items)))
    out += [tuple(sorted([*items, x], key=view.x_labels.index)) for x in outside[:3]]
    return [o for o in out if o and o != v]


def test_every_dependency_is_real() -> None:
    """Replaying a chain with another answer for step d changes every step that uses d (or
    leaves it unanswerable: the colour of the only series, replaced, names no series)."""
    checked = 0
    for item, spec in CHARTR[11]:
        result = execute(item.program, dict(item.args), spec)
        assert result is not None
        for op in result.ops:
            for d in op.depends_on:
                changed = False
                for other in _perturbations(result.ops[d], result.view):
                    ops = replay(result, {d: other})
                    if len(ops) <= op.id and d in result.ops[len(ops)].depends_on:
                        changed = True  # a step using d (this one or one before) cannot go on
                        break
                    if len(ops) < op.id or ops[op.id].op != op.op:
                        continue
                    if ops[op.id].value != op.value:
                        changed = True
                        break
                assert changed, (item.program, d, op.id, op.op, op.question)
                checked += 1
    assert checked > 1000


_STEPS_NAMED = re.compile(r"\bsteps? ((?:\d+(?:,? and |, | or )?)+)")


def test_every_step_request_carries_the_names_its_answer_needs() -> None:
    """The chain protocol sends a step its question and the (question, answer) pairs of its
    `depends_on` steps only. So its question names no other step, and every chart label in
    its answer is either read off the chart by the step (one of its cells) or named in what
    the request carries: a step that only combines earlier results cannot name a series no
    passed step names (as "Which series has the largest of the results of steps 3, 6, 9?"
    did, its steps being "What is the answer to step 2 minus the answer to step 1?")."""
    checked: Counter[str] = Counter()
    for item, spec in ITEMS + [pair for seed in sorted(CHARTR) for pair in CHARTR[seed]]:
        view = chart_view(spec)
        labels = set(view.x_labels) | set(view.series)
        for st, op in zip(item.chain, item.trace, strict=False):
            assert op.id == st.id
            named = {
                int(n) for m in _STEPS_NAMED.finditer(st.question) for n in re.findall(r"\d+", m[1])
            }
            assert named <= {d + 1 for d in st.depends_on}, (item.program, st.question)
            if not st.depends_on:
                continue
            carried = " ".join(
                [st.question]
                + [f"{item.chain[d].question} {item.chain[d].answer.text()}" for d in st.depends_on]
            )
            value = st.answer.value
            read = {c for cell in op.cells for c in cell}
            for label in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(label, str) and label in labels and label not in read:
                    assert re.search(rf"(?<!\w){re.escape(label)}(?!\w)", carried), (
                        item.program,
                        st.question,
                        label,
                    )
                    checked[op.op] += 1
    assert checked["best_of"] >= 20 and checked["nth_of"] > 0, checked


def test_replay_without_overrides_reproduces_the_chain() -> None:
    item, spec = CHARTR[11][0]
    result = execute(item.program, dict(item.args), spec)
    assert result is not None
    ops = replay(result, {})
    assert [o.value for o in ops] == [o.value for o in result.ops]
    # another answer for the first step: the chain stops or derives something else
    first = result.ops[0]
    other = next(v for v in ("nothing-here", 1e9) if type(v) is not type(first.value))
    assert [o.value for o in replay(result, {0: other})] != [o.value for o in result.ops]


def test_chartr_chains_have_premises_and_reference_explanations() -> None:
    for spec in generate_specs("chartr", 30, 5, partial(has_chain, seed=5)):
        (item,) = make_questions(spec, seed=5, per_chart=1, chains=1)
        assert item.chain and item.explanation
        assert item.explanation.count(". ") <= 3  # at most four sentences
        assert item.premises, item.program
        truths = [p.truth for p in item.premises]
        assert truths.count(False) == 3 * truths.count(True), item.program


def _truthful(item: QuestionItem, spec: ChartSpec) -> tuple[list[str], str]:
    answers: dict[int, str] = {}
    for op in item.trace[:-1]:
        answers[op.id] = answer_step(op, spec, answers, item.trace)
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


def _run_scores(outcomes: list[ChainOutcome]) -> dict[str, float | None]:
    """ISA/CSA/FAA/CFA as a run reports them: per-chain scores averaged by the summary."""
    per = [chain_scores(o) for o in outcomes]
    return {m: mean_score(m, [p[m] for p in per]).value for m in ("isa", "csa", "faa", "cfa")}


def test_table_reader_scores_one_everywhere() -> None:
    outcomes = _outcomes(_truthful)
    scores = _run_scores(outcomes)
    assert scores == {"isa": 1.0, "csa": 1.0, "faa": 1.0, "cfa": 1.0}
    analysis = error_analysis(outcomes)
    assert set(analysis["step_error_rate"].values()) == {0.0}  # type: ignore[union-attr]
    assert analysis["first_error_ratio"] == {}


def test_value_extraction_errors_propagate() -> None:
    outcomes = _outcomes(_wrong_on_ve)
    scores = _run_scores(outcomes)
    assert scores["csa"] is not None and scores["isa"] is not None
    assert scores["csa"] < scores["isa"] < 1.0
    assert scores["cfa"] < scores["faa"]
    analysis = error_analysis(outcomes)
    ser = analysis["step_error_rate"]
    assert isinstance(ser, dict)
    assert ser["VE"] == 1.0
    assert all(v == 0.0 for k, v in ser.items() if k != "VE")
    first = analysis["first_error_ratio"]
    assert isinstance(first, dict) and set(first) == {"VE"}


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
