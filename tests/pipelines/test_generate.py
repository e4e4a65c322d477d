"""`generate`: deterministic folders whose samples carry programs, chains, premises and
explanations, with perturbation variants sharing their original's questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.datasets import load_samples
from chartproof.pipelines.generate import generate


def test_generate_is_deterministic_and_independent_of_workers(tmp_path: Path) -> None:
    a = generate("chartr", 4, tmp_path / "a", seed=3, per_chart=3, workers=1)
    b = generate("chartr", 4, tmp_path / "b", seed=3, per_chart=3, workers=2)
    assert a.charts == b.charts == 4
    assert (tmp_path / "a/samples.jsonl").read_bytes() == (
        tmp_path / "b/samples.jsonl"
    ).read_bytes()
    for png in sorted((tmp_path / "a/images").glob("*.png")):
        assert png.read_bytes() == (tmp_path / "b/images" / png.name).read_bytes()


def test_samples_carry_checkable_reasoning(tmp_path: Path) -> None:
    generate("chartqax", 6, tmp_path, seed=0, per_chart=4, workers=1)
    loaded = load_samples(tmp_path)
    assert not loaded.errors
    samples = loaded.samples
    assert len(samples) >= 12
    for s in samples:
        assert s.program and s.explanation and s.spec is not None
        assert s.chart_type in ("vbar", "hbar", "line", "pie")
        assert s.groups["suite"] == "chartqax" and "domain" in s.groups
        truths = [p.truth for p in s.premises]
        assert truths and truths.count(False) == 3 * truths.count(True)
    manifest = json.loads((tmp_path / "dataset.json").read_text())
    assert manifest["samples"] == len(samples)
    dags = [json.loads(line) for line in (tmp_path / "dags.jsonl").read_text().splitlines()]
    chained = {s.id for s in samples if s.chain}
    assert {d["sample_id"] for d in dags} == chained


@pytest.mark.slow
def test_variants_share_questions(tmp_path: Path) -> None:
    res = generate(
        "chartqax",
        2,
        tmp_path,
        per_chart=2,
        variants=("blur:2", "label_removal"),
        workers=1,
    )
    assert res.variants == 2 * (2 + 1)
    samples = load_samples(tmp_path).samples
    originals = {s.id: s for s in samples if s.parent_id is None}
    variants = [s for s in samples if s.parent_id is not None]
    assert len(variants) == len(originals) * 3
    for v in variants:
        parent = originals[v.parent_id or ""]
        assert (v.question, v.answer) == (parent.question, parent.answer)
        labels = v.group_labels()
        assert labels["perturbation"] in ("blur", "label_removal") and labels["level"] in ("1", "2")
        assert v.image.path != parent.image.path
        assert (tmp_path / v.image.path).exists()


def test_unknown_perturbation_fails_before_work(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown perturbation 'smudge'"):
        generate("chartr", 2, tmp_path, variants=("smudge",))
    assert not (tmp_path / "samples.jsonl").exists()


def test_chartr_gives_every_chart_one_chain_then_other_questions(tmp_path: Path) -> None:
    generate("chartr", 8, tmp_path, seed=4, per_chart=3, workers=1)
    samples = load_samples(tmp_path).samples
    by_chart: dict[str, list[str]] = {}
    for s in samples:
        by_chart.setdefault(s.id.split("/")[0], []).append(s.program or "")
    assert len(by_chart) == 8
    for chart, programs in by_chart.items():
        assert len(programs) == 3, chart
        assert programs[0].startswith("chain_"), chart  # the chain opens the chart
        assert not any(p.startswith("chain_") for p in programs[1:]), chart
    chained = [s for s in samples if s.chain]
    assert len(chained) == 8 and all(4 <= len(s.chain) <= 10 for s in chained)
    assert json.loads((tmp_path / "dataset.json").read_text())["chains_per_chart"] == 1


def test_a_level_a_perturbation_lacks_fails_before_work(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"'label_removal' has levels \[1\], not \[2\]"):
        generate("chartr", 2, tmp_path, variants=("blur", "label_removal"), levels=2)
    assert not (tmp_path / "samples.jsonl").exists()


def test_progress_starts_at_zero_and_counts_every_chart(tmp_path: Path) -> None:
    # the first call announces the work before any chart is drawn, so a fresh folder is
    # never reported as "1 done already (resuming)"
    calls: list[tuple[int, int]] = []
    generate(
        "chartr",
        3,
        tmp_path,
        seed=0,
        per_chart=1,
        workers=1,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_regenerating_smaller_leaves_no_stale_images(tmp_path: Path) -> None:
    import json

    generate("chartr", 3, tmp_path, seed=3, per_chart=2, workers=1)
    (tmp_path / "images" / "notes.txt").write_text("mine")  # not a chart file: kept
    generate("chartr", 2, tmp_path, seed=3, per_chart=2, workers=1)
    rows = [json.loads(x) for x in (tmp_path / "samples.jsonl").read_text().splitlines()]
    shown = {r["image"]["path"] for r in rows}
    pngs = {f"images/{p.name}" for p in (tmp_path / "images").glob("*.png")}
    assert pngs == shown
    geometry = {p.name.split(".geometry")[0] for p in (tmp_path / "images").glob("*.geometry.json")}
    assert (
        geometry <= {p.rsplit("/", 1)[1].removesuffix(".png") for p in shown} and len(geometry) == 2
    )
    assert (tmp_path / "images" / "notes.txt").exists()
