"""VPP premise generation: 1:3 true-to-false in every set, paraphrases per kind, logic ASTs
that agree with the labels when evaluated on the chart, and hand-checked distractors."""

from __future__ import annotations

import collections
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from question_factory import box_spec, category_spec, random_spec, scatter_spec

from chartproof.questions import ChartView, make_questions
from chartproof.questions.premises import (
    PREMISE_TEMPLATES,
    STRUCTURAL_KINDS,
    evaluate,
    premise_kind,
    structural_premises,
)
from chartproof.types import ChartType, Premise

CHART_TYPES: tuple[ChartType, ...] = (
    "vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "scatter", "box",
)  # fmt: skip

TWO = {"Sales": (12.0, 15.0, 9.0, 20.0, 17.0), "Costs": (5.0, 7.0, 11.0, 8.0, 6.0)}


def _check_ratio(premises: list[Premise] | tuple[Premise, ...], *, sequence: bool = True) -> None:
    """1:3 overall; within one sequence, each slot holds one true and three false."""
    if sequence:
        slots: dict[str, list[bool]] = collections.defaultdict(list)
        for p in premises:
            slots[p.slot].append(p.truth)
        for slot, truths in slots.items():
            assert sorted(truths) == [False, False, False, True], slot
    true = sum(p.truth for p in premises)
    assert 3 * true == len(premises) - true


def test_every_kind_has_three_paraphrases() -> None:
    assert len(PREMISE_TEMPLATES) >= 40
    for name, paraphrases in PREMISE_TEMPLATES.items():
        assert len(paraphrases) >= 3, name
        assert len(set(paraphrases)) == len(paraphrases), name
    assert {premise_kind(t) for t in PREMISE_TEMPLATES} == {
        "structural", "data", "reasoning", "math",
    }  # fmt: skip


def test_one_to_three_in_every_generated_suite() -> None:
    rng = random.Random(11)
    kinds: collections.Counter[str] = collections.Counter()
    for i in range(36):
        spec = random_spec(rng, CHART_TYPES[i % len(CHART_TYPES)], spec_id=f"s{i}")
        sp = structural_premises(spec, seed=i)
        _check_ratio(sp)
        items = make_questions(spec, seed=i, per_chart=12)
        items += make_questions(spec, seed=i, per_chart=5, families=("structure",))
        suite = [p for item in items for p in item.premises] + sp
        _check_ratio(suite, sequence=False)
        for item in items:
            assert item.premises, item.program
            _check_ratio(item.premises)
            kinds.update(p.kind for p in item.premises)
    assert set(kinds) == {"structural", "data", "reasoning", "math"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), chart=st.sampled_from(CHART_TYPES))
def test_logic_ast_agrees_with_every_label(seed: int, chart: ChartType) -> None:
    """The premise builders and the AST evaluator are separate implementations: each true
    premise must evaluate true on the chart and each distractor false."""
    spec = random_spec(random.Random(seed), chart, spec_id=f"l{seed}")
    view = ChartView.from_spec(spec)
    items = make_questions(spec, seed=seed, per_chart=30)
    premises = [p for it in items for p in it.premises] + structural_premises(spec, seed=seed)
    for p in premises:
        assert evaluate(p.logic, view) == p.truth, (p.template, p.text, p.truth)  # type: ignore[arg-type]
        json.dumps(p.logic)


def _by_slot(premises: tuple[Premise, ...], slot_part: str) -> dict[bool, list[str]]:
    out: dict[bool, list[str]] = {True: [], False: []}
    for p in premises:
        if slot_part in p.slot:
            out[p.truth].append(p.text)
    return out


def test_value_premise_distractors_come_from_the_chart() -> None:
    spec = category_spec("vbar")
    (item,) = make_questions(spec, seed=0, per_chart=1, names=["value_at"])
    assert item.args == {"series": "Sales", "x": item.args["x"]}
    read = _by_slot(item.premises, ":read")
    x = str(item.args["x"])
    value = {"2018": "12", "2019": "15", "2020": "9", "2021": "20", "2022": "17"}[x]
    assert len(read[True]) == 1 and value in read[True][0] and x in read[True][0]
    assert len(read[False]) == 3
    # the neighbouring bar's value comes first among the false numbers
    others = {"12", "15", "9", "20", "17"} - {value}
    assert sum(any(o in t.split() or f"{o}." in t for o in others) for t in read[False]) >= 2


def test_structural_sequence_of_a_grouped_bar_chart() -> None:
    spec = category_spec("grouped_bar", series=TWO)
    premises = structural_premises(spec, seed=0)
    _check_ratio(premises)
    slots = {p.slot.split(":")[0] for p in premises}
    assert slots == set(STRUCTURAL_KINDS)
    true_type = [p.text for p in premises if p.slot == "SP0" and p.truth]
    assert len(true_type) == 1 and "grouped bar chart" in true_type[0]
    # a legend label where an axis title belongs is among the false SP1 premises
    false_titles = [p.text for p in premises if p.slot == "SP1" and not p.truth]
    assert any("Sales" in t or "Costs" in t or "Year" in t for t in false_titles)
    ticks = [p for p in premises if p.slot.startswith("SP6")]
    assert any(not p.truth and ("2023" in p.text or "2017" in p.text) for p in ticks)


def test_box_and_scatter_premises_include_math_steps() -> None:
    (corr,) = make_questions(scatter_spec(), seed=1, per_chart=1, names=["correlation_kind"])
    templates = {p.template for p in corr.premises}
    assert {"MP_mean_axis", "MP_codev", "MP_pearson", "RP_band"} <= templates
    (med,) = make_questions(
        category_spec("line", series=TWO), seed=0, per_chart=1, names=["median_series"]
    )
    assert "MP_median" in {p.template for p in med.premises}
    (iqr,) = make_questions(box_spec(), seed=2, per_chart=1, names=["box_equal_iqr"])
    assert iqr.answer.value is False
    assert "RP_no_equal_iqr" in {p.template for p in iqr.premises if p.truth}


def test_synthetic_suites_keep_one_to_three_and_true_logic() -> None:
    """chartproof's own suites (chartr, chartqax, realcqa): every premise set is 1:3 and
    every premise's AST evaluates to its label; every answer matches the recomputation."""
    from question_oracle import recompute, same

    from chartproof.charts import SUITES, generate_specs

    for suite in sorted(SUITES):
        premises: list[Premise] = []
        for spec in generate_specs(suite, 18, 3):
            view = ChartView.from_spec(spec)
            items = make_questions(spec, seed=3, per_chart=6)
            sp = structural_premises(spec, seed=3)
            for item in items:
                _check_ratio(item.premises)
                assert same(item.answer.value, recompute(item.program, dict(item.args), spec))
            for p in [*sp, *(p for it in items for p in it.premises)]:
                assert evaluate(p.logic, view) == p.truth, (suite, p.text)  # type: ignore[arg-type]
                premises.append(p)
        _check_ratio(premises, sequence=False)


def test_bulk_rows_equal_the_items_premises() -> None:
    """`premise_sequences` (the fast export path) yields exactly the items' premises."""
    from chartproof.questions import premise_sequences

    spec = category_spec("grouped_bar", series=TWO)
    items = make_questions(spec, seed=2, per_chart=6)
    rows = dict(premise_sequences(spec, seed=2, per_chart=6))
    assert rows.pop(f"{spec.id}/sp") == [p.model_dump() for p in structural_premises(spec, seed=2)]
    assert rows == {it.id: [p.model_dump() for p in it.premises] for it in items}
    for seq in rows.values():
        for row in seq:
            Premise.model_validate(row)


def test_jsonl_export_writes_the_same_premises() -> None:
    import io

    from chartproof.questions import premise_sequences
    from chartproof.questions.export import write_premises_jsonl

    specs = [category_spec("grouped_bar", series=TWO), box_spec(), scatter_spec()]
    buf = io.StringIO()
    n = write_premises_jsonl(specs, buf, seed=4, per_chart=4)
    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert len(lines) == n > 0
    expected = [
        {"chart": spec.id, "sequence": seq, **row}
        for spec in specs
        for seq, rows in premise_sequences(spec, seed=4, per_chart=4)
        for row in rows
    ]
    assert lines == json.loads(json.dumps(expected))
    for line in lines:
        Premise.model_validate({k: v for k, v in line.items() if k not in ("chart", "sequence")})
