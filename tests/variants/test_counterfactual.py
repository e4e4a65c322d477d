"""Counterfactual families: structure and determinism, edit invariants, answers re-derived by
the question programs (checked against independent recomputation in a property test), the
exact reconstruction from code, and samples that family metrics can read."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chartproof.metrics.families import family_scores, outcomes_from_samples
from chartproof.questions.items import make_item, make_questions
from chartproof.questions.program import execute
from chartproof.types import ChartSpec, Column, DataTable, Encoding, ImageRef, Style
from chartproof.variants import stable_seed, variants_for
from chartproof.variants.counterfactual import (
    build_family,
    counterfactual,
    family_items,
    family_samples,
    reconstruct,
    render_family,
)
from chartproof.variants.edits import EDIT_KINDS, EDITS


def _spec(
    chart_type: str,
    x: list[str],
    series: dict[str, list[float]],
    *,
    x_kind: str = "category",
    chart_id: str = "c1",
    series_col: str | None = None,
) -> ChartSpec:
    columns = [Column(name="X", kind=x_kind)]  # type: ignore[arg-type]
    columns += [Column(name=n) for n in series]
    rows = tuple((label, *(float(v[i]) for v in series.values())) for i, label in enumerate(x))
    return ChartSpec(
        id=chart_id,
        chart_type=chart_type,  # type: ignore[arg-type]
        table=DataTable(columns=tuple(columns), rows=rows),
        encoding=Encoding(x="X", y=tuple(series), series=series_col),
        style=Style(dpi=50, width=4, height=3),
    )


GDP = _spec(
    "grouped_bar",
    ["France", "Spain", "Italy", "Greece", "Norway"],
    {"GDP": [2.9, 1.4, 2.1, 0.2, 0.5], "Debt": [1.1, 0.9, 1.5, 0.4, 0.1]},
)


def test_family_has_original_reconstruction_and_ten_distinct_edits() -> None:
    family = build_family(GDP)
    assert len(family.members) == 12
    assert [m.role for m in family.members[:2]] == ["original", "reconstruction"]
    edits = family.members[2:]
    assert [m.id for m in edits] == [f"c1~cf{s}" for s in range(10)]
    assert {m.edit for m in edits} == set(EDIT_KINDS)
    tables = [m.spec.table for m in family.members[1:]]
    assert tables[0] == GDP.table  # the reconstruction keeps the data
    assert all(a != b for i, a in enumerate(tables[1:]) for b in tables[i + 2 :])
    assert all(m.spec.table != GDP.table for m in edits)
    for m in edits:
        t = m.spec.transforms[-1]
        assert m.spec.parent_id == "c1" and t.kind == "counterfactual" and t.name == m.edit
        assert t.seed == stable_seed("c1", "counterfactual", m.seed or 0, t.name)
    assert build_family(GDP) == family  # seed-controlled: the same family every time


def test_seed_picks_the_kind_and_falls_through_when_it_does_not_apply() -> None:
    assert [counterfactual(GDP, s).edit for s in range(5)] == list(EDIT_KINDS)  # type: ignore[union-attr]
    years = _spec("line", ["2019", "2020", "2021"], {"Sales": [3, 5, 4]}, x_kind="time")
    member = counterfactual(years, EDIT_KINDS.index("rename"))
    assert member is not None and member.edit != "rename"  # years are not renamed
    assert counterfactual(GDP, 0, kinds=["rename"]).renamed is not None  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="unknown edit kinds"):
        counterfactual(GDP, 0, kinds=["swap"])


def _edit(name: str, spec: ChartSpec, seed: int = 0) -> DataTable:
    edit = EDITS[name](spec, np.random.default_rng(seed))
    assert edit is not None
    return edit.table


def test_edit_invariants() -> None:
    pie = _spec("pie", ["A", "B", "C", "D"], {"Share": [40.5, 30.0, 20.25, 9.25]})
    for seed in range(20):
        shares = _edit("jitter", pie, seed).numbers("Share")
        assert sum(v for v in shares if v is not None) == pytest.approx(100.0)
        assert all(v is not None and v >= 0 and round(v, 2) == v for v in shares)
    box = _spec(
        "box",
        ["g1", "g2", "g3"],
        {
            "min": [1, 2, 0],
            "q1": [2, 3, 1],
            "median": [3, 5, 2],
            "q3": [4, 6, 3],
            "max": [6, 9, 5],
        },
    )
    for name in ("jitter", "extremum_move", "trend_flip", "reorder"):
        for seed in range(10):
            edit = EDITS[name](box, np.random.default_rng(seed))
            if edit is None:
                continue
            for row in edit.table.rows:
                assert list(row[1:]) == sorted(row[1:]), (name, row)  # type: ignore[type-var]
    flipped = _edit("trend_flip", _spec("line", ["1", "2", "3"], {"y": [1, 2, 3]}, x_kind="time"))
    assert flipped.values("y") == (3.0, 2.0, 1.0) and flipped.values("X") == ("1", "2", "3")
    scatter = _spec("scatter", ["a", "b"], {"y": [1, 2]})
    assert EDITS["reorder"](scatter, np.random.default_rng(0)) is None


def test_rename_follows_into_question_arguments() -> None:
    member = counterfactual(GDP, 0, kinds=["rename"])
    assert member is not None and member.renamed is not None
    old, new = member.renamed
    item = make_item(
        execute("value_at", {"series": "GDP", "x": old}, GDP),  # type: ignore[arg-type]
        item_id="c1/q0",
        chart_id="c1",
        paraphrase=0,
        with_premises=False,
    )
    family = build_family(GDP, seeds=[0], kinds=["rename"], reconstruction=False)
    [(_, orig), (_, moved)] = family_items(family, [item])
    assert orig is item
    assert old in item.question and new in moved.question and old not in moved.question
    assert moved.answer == item.answer and moved.id == "c1/q0~cf0"


def test_family_samples_feed_family_metrics() -> None:
    items = make_questions(GDP, seed=0, per_chart=4, with_premises=False)
    family = build_family(GDP, seeds=range(4))
    pairs = family_items(family, items)
    images = {m.id: ImageRef(path=f"{m.id}.png") for m in family.members}
    samples = family_samples(family, pairs, images)
    assert {s.family_id for s in samples} == {"c1"}
    variants = [s for s in samples if s.parent_id is not None]
    assert {s.parent_id for s in variants} <= {i.id for i in items}
    assert all(s.transforms for s in variants)
    # a model that is right on originals and always repeats the original answer
    original_answer = {i.id: i.answer for i in items}
    correct = {s.id: s.answer == original_answer[s.parent_id or s.id] for s in samples}
    scores = {s.metric: s for s in family_scores(outcomes_from_samples(samples, correct))}
    assert scores["family_accuracy_original"].value == 1.0
    assert scores["family_accuracy_reconstruction"].value == 1.0
    changed = [s for s in variants if s.transforms[-1].kind == "counterfactual"]
    kept = sum(correct[s.id] for s in changed) / len(changed)
    assert scores["family_accuracy_variants"].value == pytest.approx(kept)
    assert kept < 1.0  # the edits did change some answers


def test_reconstruction_from_code_is_pixel_identical() -> None:
    result = reconstruct(GDP)
    assert result.run.status == "ok", result.run.stderr
    assert result.identical and result.png is not None


def test_render_family_redraws_the_reconstruction_from_code() -> None:
    from chartproof.variants.images import to_rgb

    family = build_family(GDP, seeds=range(2))
    pngs = render_family(family)
    assert list(pngs) == [m.id for m in family.members]
    assert pngs["c1~code"] == reconstruct(GDP).png  # the sandboxed script's own image
    assert (to_rgb(pngs["c1~code"]) == to_rgb(pngs["c1"])).all() and pngs["c1~cf0"] != pngs["c1"]


def test_label_removal_preserves_answer_values() -> None:
    spec = GDP.model_copy(update={"style": GDP.style.model_copy(update={"value_labels": True})})
    items = make_questions(spec, seed=1, per_chart=8, with_premises=False)
    for variant in variants_for(spec, ["label_removal"], [1], "c1"):
        assert variant.transform.answer_preserved and variant.spec is not None
        readable = 0
        for item in items:
            result = execute(item.program, item.args, variant.spec)  # type: ignore[arg-type]
            if result is None:
                # the program finds the answer too fine to read off bar heights alone: the
                # data (and so the answer) are unchanged, the question just got harder
                continue
            readable += 1
            got, want = result.answer, item.answer
            assert (got.kind, got.value, got.unit) == (want.kind, want.value, want.unit)
            assert got.tolerance >= want.tolerance  # reading heights earns more slack
        assert readable >= len(items) // 2


# --------------------------------------------------------------------------- property test

LABELS = ["Alpha", "Bravo", "Delta", "Echo", "Fox", "Golf", "Hotel", "India"]

ORACLES: dict[str, Callable[[dict[str, float], dict[str, Any]], Any]] = {
    "value_at": lambda col, a: col[a["x"]],
    "max_value": lambda col, a: max(col.values()),
    "min_value": lambda col, a: min(col.values()),
    "argmax_x": lambda col, a: max(col, key=col.__getitem__),
    "argmin_x": lambda col, a: min(col, key=col.__getitem__),
    "sum_two": lambda col, a: col[a["x"]] + col[a["x2"]],
    "diff_two": lambda col, a: abs(col[a["x"]] - col[a["x2"]]),
    "total": lambda col, a: sum(col.values()),
    "average": lambda col, a: statistics.fmean(col.values()),
    "compare_less": lambda col, a: col[a["x"]] < col[a["x2"]],
}


@st.composite
def charts(draw: st.DrawFn) -> ChartSpec:
    n = draw(st.integers(3, 7))
    labels = draw(st.permutations(LABELS))[:n]
    k = draw(st.integers(1, 2))
    chart_type = draw(st.sampled_from(["vbar", "line"] if k == 1 else ["grouped_bar", "line"]))
    series = {
        f"S{j}": draw(st.lists(st.integers(1, 400), min_size=n, max_size=n)) for j in range(k)
    }
    return _spec(chart_type, labels, {s: [v / 4 for v in vs] for s, vs in series.items()})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spec=charts(),
    seed=st.integers(0, 9),
    program=st.sampled_from(sorted(ORACLES)),
    pick=st.randoms(use_true_random=False),
)
def test_rederived_answer_matches_recomputation(
    spec: ChartSpec, seed: int, program: str, pick: Any
) -> None:
    labels = list(spec.table.labels("X"))
    x, x2 = pick.sample(labels, 2)
    args = {"series": spec.encoding.y[0], "x": x, "x2": x2}
    result = execute(program, args, spec)
    if result is None:  # ambiguous on the original (e.g. a tie): nothing to re-derive
        return
    item = make_item(result, item_id="q", chart_id=spec.id, paraphrase=0, with_premises=False)
    member = counterfactual(spec, seed)
    assert member is not None
    family = build_family(spec, seeds=[seed], reconstruction=False)
    got = dict((m.role, it) for m, it in family_items(family, [item]))
    if "counterfactual" not in got:
        return  # ambiguous on the edited chart, so the program declined to answer
    new_args = dict(args)
    if member.renamed is not None:
        old, new = member.renamed
        new_args = {key: new if v == old else v for key, v in args.items()}
    table = member.spec.table
    column = dict(zip(table.labels("X"), table.numbers(str(args["series"])), strict=True))
    want = ORACLES[program](column, new_args)  # type: ignore[arg-type]
    answer = got["counterfactual"].answer.value
    if isinstance(want, bool):
        assert answer is want
    elif isinstance(want, str):
        assert answer == want
    else:
        assert answer == pytest.approx(want, rel=1e-3, abs=1e-9)
