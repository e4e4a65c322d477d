"""What templates declare beside their code: premise judges beside their builders (which
templates carry one, the registry's refusals, hand-computed verdicts on small tables) and the
step questions operations write (parsed back by the template parser)."""

from __future__ import annotations

import pytest
from question_factory import box_spec, category_spec

from chartproof.questions import ChartView, chart_view, ops
from chartproof.questions.premises import PREMISE_TEMPLATES, premise_judge
from chartproof.questions.premises.judging import judged

JUDGED = {
    "SP0", "SP1", "SP2", "SP6", "SP8", "SP9", "SP9_none",
    "DP_value", "DP_values", "DP_max_value", "DP_min_value", "DP_argmax", "DP_argmin",
    "DP_kth_value", "DP_top_series", "DP_bottom_series", "DP_color", "DP_label_at", "DP_box",
    "RP_larger", "RP_less", "RP_greater", "RP_equal", "RP_count", "RP_members", "RP_order",
    "MP_arith", "MP_sum", "MP_mean", "MP_median", "MP_range",
}  # fmt: skip

TWO = {"Sales": (12.0, 15.0, 9.0, 20.0, 17.0), "Costs": (5.0, 7.0, 11.0, 8.0, 6.0)}


def test_judged_templates() -> None:
    assert {t for t in PREMISE_TEMPLATES if premise_judge(t) is not None} == JUDGED
    assert premise_judge("SP3") is None
    assert premise_judge("no such template") is None


def test_registry_refuses_unknown_and_second_judges() -> None:
    with pytest.raises(ValueError, match="no premise template 'SP42'"):
        judged("SP42")(lambda s, view, rel: None)
    with pytest.raises(ValueError, match="'DP_value' already has a judge"):
        judged("DP_value")(lambda s, view, rel: None)


@pytest.fixture
def sales() -> ChartView:
    return chart_view(category_spec("grouped_bar", series=TWO))


@pytest.mark.parametrize(
    ("template", "slots", "truth", "reason"),
    [
        ("SP0", {"chart_type": "grouped bar chart"}, True, "the chart is a grouped bar chart"),
        ("SP0", {"chart_type": "pie chart"}, False, "the chart is a grouped bar chart"),
        ("SP1", {"title": "amount"}, True, "the axis title reads Amount"),
        ("SP2", {"title": "Country"}, False, "the axis title reads Year"),
        ("SP6", {"tick": "2021"}, True, "the independent axis shows the ticks "
         "2018, 2019, 2020, 2021, 2022"),
        ("SP6", {"tick": "-2018"}, False, "the independent axis shows the ticks "
         "2018, 2019, 2020, 2021, 2022"),
        ("SP8", {"n": "3"}, False, "2 series are drawn"),
        ("SP9", {"labels": "Costs and Sales"}, True, "the legend lists Sales, Costs"),
        ("DP_value", {"series": "Sales", "x": "2021", "value": "20"}, True,
         "Sales at 2021 reads 20"),
        ("DP_value", {"series": "Sales", "x": "2021", "value": "20.6"}, False,
         "Sales at 2021 reads 20"),
        ("DP_values", {"series": "Costs", "items": "5, 7, 11, 8 and 6"}, True,
         "Costs reads 5, 7, 11, 8, 6"),
        ("DP_max_value", {"series": "Costs", "value": "11"}, True, "the highest Costs is 11"),
        ("DP_min_value", {"series": "Sales", "value": "12"}, False, "the lowest Sales is 9"),
        ("DP_argmax", {"series": "Sales", "x": "2021"}, True, "the highest Sales is at 2021"),
        ("DP_argmin", {"series": "Costs", "x": "2020"}, False, "the lowest Costs is at 2018"),
        ("DP_kth_value", {"series": "Sales", "k": "second", "value": "17"}, True,
         "value 2 from the top is 17"),
        ("DP_top_series", {"series": "Costs", "x": "2020"}, True,
         "at 2020 the largest series is Costs"),
        ("DP_bottom_series", {"series": "Costs", "x": "2020"}, False,
         "at 2020 the smallest series is Sales"),
        ("DP_label_at", {"k": "2nd", "side": "right", "label": "2021"}, True,
         "mark 2 from the right is 2021"),
        ("RP_larger", {"series": "Sales", "x": "2019", "x2": "2022"}, False,
         "Sales is 15 at 2019 and 17 at 2022"),
        ("RP_less", {"a": "the value of Costs at 2019", "b": "8"}, True, "7 against 8"),
        ("RP_greater", {"a": "the difference between the value of Sales at 2018 and the value "
                        "of Costs at 2018", "b": "7"}, False, "7 against 7"),
        ("RP_equal", {"a": "the sum of the value of Sales at 2018 and 3", "b": "15"}, True,
         "15 against 15"),
        # the arithmetic phrases `subject` writes: Sales 2021 - Sales 2019 = 5; Costs 2020 as
        # a percentage of Sales 2020 = 11 / 9 = 122.2 %; the average of 12 and 15 = 13.5
        ("RP_greater", {"a": "the value of Sales at 2021 minus the value of Sales at 2019",
                        "b": "4"}, True, "5 against 4"),
        ("RP_less", {"a": "the value of Costs at 2020 as a percentage of the value of Sales at "
                     "2020", "b": "120"}, False, "122.222 against 120"),
        ("RP_equal", {"a": "the average of the value of Sales at 2018 and the value of Sales "
                      "at 2019", "b": "13.5"}, True, "13.5 against 13.5"),
        ("RP_equal", {"a": "the value of Sales at 2018 divided by the value of Costs at 2019",
                      "b": "the value of Costs at 2020 minus the value of Sales at 2020"}, False,
         "1.71429 against 2"),
        ("RP_count", {"series": "Sales", "cond": "above 14", "n": "3"}, True,
         "3 values of Sales are above 14"),
        ("RP_members", {"series": "Costs", "cond": "between 6 and 8", "items": "2019, 2022 and "
                        "2021"}, True, "Costs is between 6 and 8 at 2019, 2021, 2022"),
        ("RP_order", {"series": "Costs", "direction": "lowest to highest",
                      "items": "2018, 2022, 2019, 2021, 2020"}, True,
         "the order is 2018, 2022, 2019, 2021, 2020"),
        ("MP_arith", {"a": "17.6", "op": "minus", "b": "5.1", "value": "12.5"}, True,
         "17.6 minus 5.1 is 12.5"),
        # "by" written into the second number: not read (the ops take "divided by")
        ("MP_arith", {"a": "12", "op": "divided", "b": "by 4", "value": "4"}, None, ""),
        ("MP_arith", {"a": "12", "op": "divided by", "b": "4", "value": "3"}, True,
         "12 divided by 4 is 3"),
        ("MP_sum", {"items": "12, 30, 18 and 9", "value": "69"}, True, "the sum is 69"),
        ("MP_mean", {"items": "12, 30, 18, 9", "value": "17.25"}, True, "the mean is 17.25"),
        ("MP_median", {"items": "Sales values", "value": "15"}, None, ""),
        ("MP_range", {"items": "4, 10 and 7", "value": "6"}, True, "the range is 6"),
    ],
)  # fmt: skip
def test_judges_on_a_table(
    sales: ChartView, template: str, slots: dict[str, str], truth: bool | None, reason: str
) -> None:
    judge = premise_judge(template)
    assert judge is not None
    got = judge(slots, sales, 0.0005)
    assert (got is None) if truth is None else got == (truth, reason)


@pytest.mark.parametrize(
    ("slots", "truth", "reason"),
    [
        ({"stat": "median", "x": "Group B", "value": "6"}, True, "the median at Group B is 6"),
        ({"stat": "upper quartile", "x": "Group A", "value": "8"}, False,
         "the upper quartile at Group A is 7"),
        ({"stat": "mode", "x": "Group A", "value": "8"}, None, ""),
    ],
)  # fmt: skip
def test_box_judge(slots: dict[str, str], truth: bool | None, reason: str) -> None:
    judge = premise_judge("DP_box")
    assert judge is not None
    got = judge(slots, chart_view(box_spec()), 0.0005)
    assert (got is None) if truth is None else got == (truth, reason)


def test_step_questions_parse_back_what_the_ops_write() -> None:
    """Every question an operation declares is the one it writes, and the template parser
    recovers its slot texts from it."""
    from chartproof.questions import ops
    from chartproof.questions.matching import template_regex
    from chartproof.questions.ops.steps import STEP_QUESTIONS
    from chartproof.questions.trace import Tracer

    bars, boxes = chart_view(category_spec("grouped_bar", series=TWO)), chart_view(box_spec())
    written = [
        (bars, ops.kth_value(Tracer(bars), "Sales", 3), {"k": "third", "series": "Sales"}),
        (bars, ops.sort(Tracer(bars), "Costs", True), {"series": "Costs"}),
        (bars, ops.sort(Tracer(bars), "Costs", False), {"series": "Costs"}),
        (boxes, ops.read_box(Tracer(boxes), "q3", "Group B"), {"x": "Group B"}),
    ]
    # tested below and in tests/reader/test_solver_steps.py: they need earlier steps
    combine = {
        "arith", "compare", "larger", "equal", "nth_of", "extreme", "select", "total_of", "best_of",
    }  # fmt: skip
    assert {s.op for s in STEP_QUESTIONS} == {"kth_value", "sort", "read_box"} | combine
    assert len(STEP_QUESTIONS) == 4 + 2 + 5 + (6 + 1) + 2 + 1 + 1 + 1 + 2 + 3 + 2 + 2
    for view, op, slots in written:
        assert op is not None
        fits = []
        for step in (s for s in STEP_QUESTIONS if s.op not in combine):
            m = template_regex(step.template, tuple(sorted(step.slots)))[0].match(op.question)
            if m and m.groupdict() == slots:
                rerun = step.run(Tracer(view), slots | {"k": 3} if "k" in slots else slots)
                fits.append(rerun is not None and rerun.value == op.value)
        assert fits == [True], op.question


@pytest.mark.parametrize(
    ("combine", "value"),
    [
        (lambda tr, a, b: ops.arith(tr, "sub", a, b), 7.0),  # 12 - 5, steps 1 and 2
        (lambda tr, a, b: ops.arith(tr, "percent", b, a), 5 / 12 * 100),
        (lambda tr, a, b: ops.arith(tr, "absdiff", b, a), 7.0),
        (lambda tr, a, b: ops.arith(tr, "mean", a, b), 8.5),
        (lambda tr, a, b: ops.compare(tr, b, a, "lt"), True),
        (lambda tr, a, b: ops.larger(tr, a, b), "A"),
    ],
)
def test_steps_combining_earlier_answers_rerun_on_the_recalled_answers(
    combine: object, value: object
) -> None:
    """A step that combines two earlier steps writes its declared question; parsed back, it
    reruns on those steps' answers recorded by `recall` and gives the same result."""
    from chartproof.questions.matching import template_regex
    from chartproof.questions.ops.steps import STEP_QUESTIONS, recall
    from chartproof.questions.trace import Tracer

    view = chart_view(
        category_spec(
            "vbar", x=("A", "B", "C"), x_kind="category", series={"Sales": (12.0, 5.0, 9.0)}
        )
    )
    tr = Tracer(view)
    a, b = ops.read(tr, "Sales", "A"), ops.read(tr, "Sales", "B")
    assert a is not None and b is not None
    op = combine(tr, a, b)  # type: ignore[operator]
    assert op is not None and op.value == pytest.approx(value)
    answers = {1: (a.question, a.text()), 2: (b.question, b.text())}
    fits = []
    for step in STEP_QUESTIONS:
        m = template_regex(step.template, tuple(sorted(step.slots)))[0].match(op.question)
        if m:
            again = Tracer(view)
            recall(again, answers)
            rerun = step.run(again, {k: float(v) for k, v in m.groupdict().items()})
            fits.append(rerun is not None and rerun.value == op.value)
    assert fits == [True], op.question


@pytest.mark.parametrize(
    ("combine", "value"),
    [
        (lambda tr, reads: ops.total_of(tr, "Sales", reads), 26.0),  # 12 + 5 + 9
        (lambda tr, reads: ops.total_of(  # 12 + 9, the reads above 8 that step 4 kept
            tr, "Sales", reads, among=ops.select_of(tr, "Sales", reads, "above", 8.0)), 21.0),
        (lambda tr, reads: ops.select_of(tr, "Sales", reads, "below", 10.0), ("B", "C")),
        (lambda tr, reads: ops.select_of(tr, "Sales", reads, "between", 6.0, 10.0), ("C",)),
        (lambda tr, reads: ops.select_of(tr, "Sales", reads[:2], "above", 7.0), ("A",)),
    ],
)  # fmt: skip
def test_sums_and_selections_of_earlier_reads_rerun_on_the_recalled_answers(
    combine: object, value: object
) -> None:
    """Sums and selections of earlier reads write their declared question; parsed back (the
    steps a "numbers" slot lists), they rerun on the recalled answers with the same result."""
    from chartproof.questions.matching import step_matches
    from chartproof.questions.ops.steps import recall
    from chartproof.questions.trace import Tracer

    view = chart_view(
        category_spec(
            "vbar", x=("A", "B", "C"), x_kind="category", series={"Sales": (12.0, 5.0, 9.0)}
        )
    )
    tr = Tracer(view)
    reads = [ops.read(tr, "Sales", x) for x in ("A", "B", "C")]
    op = combine(tr, reads)  # type: ignore[operator]
    assert op is not None and op.value == pytest.approx(value)
    answers = {o.id + 1: (o.question, o.text()) for o in tr.ops if o is not op}
    found = step_matches(op.question, view)
    assert found and found[0][0].op == op.op, op.question
    again = Tracer(view)
    recall(again, answers)
    rerun = found[0][0].run(again, found[0][1])
    assert rerun is not None and rerun.value == op.value


@pytest.mark.parametrize(
    ("which", "named_by_step", "question", "value"),
    [
        ("max", False, "Which Country has the largest result: A (step 1), B (step 2) or C "
         "(step 3)?", "A"),
        ("min", False, "Which Country has the smallest result: A (step 1), B (step 2) or C "
         "(step 3)?", "B"),
        # names found by earlier steps are named by those steps, which the step depends on
        ("max", True, "Which series has the largest result: the series from step 1 (step 3) "
         "or the series from step 2 (step 4)?", "Sales"),
        ("min", True, "Which series has the smallest result: the series from step 1 (step 3) "
         "or the series from step 2 (step 4)?", "Costs"),
    ],
)  # fmt: skip
def test_best_of_names_every_result_and_reruns_on_the_recalled_answers(
    which: str, named_by_step: bool, question: str, value: str
) -> None:
    """The largest / smallest of earlier results names each candidate with the step of its
    result; its request then carries every name (depends_on holds the steps that found a
    name), and parsed back it reruns on the recalled answers with the same result."""
    from chartproof.questions.matching import step_matches
    from chartproof.questions.ops.steps import recall
    from chartproof.questions.trace import Tracer

    if named_by_step:  # Sales 73, Costs 37 in all
        view = chart_view(category_spec("grouped_bar", series=TWO))
        tr = Tracer(view)
        keys = [ops.key_of_color(tr, view.colors[s]) for s in ("Sales", "Costs")]
        sums = [ops.aggregate(tr, k, "sum") for k in keys if k is not None]
        named = [(k, t) for k, t in zip(keys, sums, strict=True) if k and t]
        op = ops.best_of(tr, tuple(named), which, "series")
        deps: tuple[int, ...] = (0, 1, 2, 3)
    else:
        view = chart_view(
            category_spec(
                "vbar", x=("A", "B", "C"), x_kind="category", series={"Sales": (12.0, 5.0, 9.0)}
            )
        )
        tr = Tracer(view)
        reads = [(x, ops.read(tr, "Sales", x)) for x in ("A", "B", "C")]
        op = ops.best_of(tr, tuple((x, r) for x, r in reads if r), which, "Country")
        deps = (0, 1, 2)
    assert op is not None
    assert (op.question, op.value, op.depends_on) == (question, value, deps)
    answers = {o.id + 1: (o.question, o.text()) for o in tr.ops if o is not op}
    # what the request carries: the names found by steps 1 and 2 written in (as the reader does)
    asked = question
    for k, (_, answer) in answers.items():
        asked = asked.replace(f"the series from step {k} ", f"{answer} ")
    found_q = step_matches(asked, view)
    assert found_q and found_q[0][0].op == "best_of", asked
    again = Tracer(view)
    recall(again, answers)
    rerun = found_q[0][0].run(again, found_q[0][1])
    assert rerun is not None and rerun.value == value
