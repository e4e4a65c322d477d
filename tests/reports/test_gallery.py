"""The report's gallery samples the whole run (chart types, perturbations, outcomes), keeps to
two results per chart, collapses past GALLERY_VISIBLE and gives step tables the width."""

from __future__ import annotations

from collections import Counter

from chartproof.reports.gallery import GALLERY_SIZE, GALLERY_VISIBLE, gallery, pick
from chartproof.types import SampleResult

TYPES = ("vbar", "line", "pie", "scatter", "box")
PERTS = ("original", "blur", "label_removal")


def _run() -> list[SampleResult]:
    """40 charts of 5 types, 3 questions each, each on the original and 2 variants; the
    first charts are all right answers on vertical bars (what a head-of-file pick shows)."""
    out = []
    for c in range(40):
        chart_type = "vbar" if c < 8 else TYPES[c % 5]
        for q in range(3):
            for pert in PERTS:
                sid = f"chart-{c}/q{q}" + ("" if pert == "original" else f"~{pert}-1")
                right = c < 8 or (c + q) % 3 != 0
                out.append(
                    SampleResult(
                        sample_id=sid,
                        protocol="direct",
                        model="m",
                        prediction="1",
                        scores={"accuracy": 1.0 if right else 0.0},
                        groups={"chart_type": chart_type, "perturbation": pert},
                        error="timeout" if c == 39 and q == 0 else None,
                    )
                )
    return out


def test_pick_samples_the_whole_run() -> None:
    results = _run()
    picked = pick(results)
    assert len(picked) == GALLERY_SIZE
    assert {r.groups["chart_type"] for r in picked} == set(TYPES)
    assert {r.groups["perturbation"] for r in picked} == set(PERTS)
    outcomes = Counter(
        "failed" if r.error else ("right" if r.scores["accuracy"] == 1.0 else "wrong")
        for r in picked
    )
    assert outcomes["right"] and outcomes["wrong"] and outcomes["failed"]
    charts = Counter(r.sample_id.split("~")[0].split("/")[0] for r in picked)
    assert max(charts.values()) <= 2 and len(charts) >= GALLERY_SIZE // 2
    # the first dozen already cover every chart type: the head of the file does not dominate
    assert {r.groups["chart_type"] for r in picked[:GALLERY_VISIBLE]} == set(TYPES)
    assert pick(results) == picked  # fixed for a given run


def test_long_gallery_collapses_and_step_tables_get_room() -> None:
    step = {"task_type": "VE", "question": "q?", "gold": "1", "prediction": "1", "correct": True}
    results = [r.model_copy(update={"steps": (step,)}) for r in _run()]
    page = str(gallery(results, ({}, None)))
    head, _, tail = page.partition("<details>")
    assert head.count('class="item') == GALLERY_VISIBLE
    assert tail.count('class="item') == GALLERY_SIZE - GALLERY_VISIBLE
    assert f"{GALLERY_SIZE - GALLERY_VISIBLE} more samples" in tail
    assert page.count('class="item wide"') == GALLERY_SIZE
