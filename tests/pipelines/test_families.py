"""Counterfactual families end to end: generate families, score them, export DPO pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.datasets import load_samples
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate
from chartproof.pipelines.pairs import export_pairs
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest, Sample


@pytest.fixture(scope="module")
def family_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Sample]]:
    root = tmp_path_factory.mktemp("families")
    generate("chartqax", 3, root, seed=2, per_chart=2, counterfactuals=3, workers=1)
    return root, {s.id: s for s in load_samples(root).samples}


def _scores(summary: dict[str, object]) -> dict[str, float | None]:
    fam = summary["families"]
    return {s["metric"]: s["value"] for s in fam["scores"]}  # type: ignore[index]


def test_family_samples_are_marked(family_data: tuple[Path, dict[str, Sample]]) -> None:
    _, samples = family_data
    members = {s.group_labels()["family_member"] for s in samples.values()}
    assert "original" in members and "reconstruction" in members
    assert members - {"original", "reconstruction"}, "some counterfactual edits"
    for s in samples.values():
        assert s.family_id is not None
        if s.parent_id is not None:
            assert samples[s.parent_id].family_id == s.family_id


def test_reconstruction_samples_show_the_redrawn_image(
    family_data: tuple[Path, dict[str, Sample]],
) -> None:
    """The "~code" member points at the image its code drew in the sandbox, not at the
    original's file (same pixels, its own file)."""
    root, samples = family_data
    from chartproof.variants.images import to_rgb

    redrawn = [s for s in samples.values() if s.group_labels()["family_member"] == "reconstruction"]
    assert redrawn
    for s in redrawn:
        original = samples[s.parent_id or ""]
        assert s.image.path != original.image.path and s.image.path.endswith("~code.png")
        got, want = (root / s.image.path).read_bytes(), (root / original.image.path).read_bytes()
        assert (to_rgb(got) == to_rgb(want)).all()


def test_family_metrics(family_data: tuple[Path, dict[str, Sample]], tmp_path: Path) -> None:
    root, samples = family_data

    def gold(request: ModelRequest) -> str:
        return f"The answer is: {samples[str(request.metadata['sample_id'])].answer.text()}."

    rec = evaluate(root, out=tmp_path / "gold", backend=ScriptedBackend(gold), cache=False)
    got = _scores(rec.summary)
    assert got["family_accuracy_original"] == got["family_accuracy_variants"] == 1.0
    assert got["family_consistency"] == 1.0

    def stubborn(request: ModelRequest) -> str:
        # always gives the original chart's answer: right on originals, wrong on changed edits
        s = samples[str(request.metadata["sample_id"])]
        base = samples[s.parent_id] if s.parent_id else s
        return f"The answer is: {base.answer.text()}."

    rec2 = evaluate(root, out=tmp_path / "stubborn", backend=ScriptedBackend(stubborn), cache=False)
    got2 = _scores(rec2.summary)
    assert got2["family_accuracy_original"] == 1.0
    assert got2["family_accuracy_variants"] is not None and got2["family_accuracy_variants"] < 1.0
    assert got2["family_consistency"] is not None and got2["family_consistency"] < 1.0
    breaks = rec2.summary["families"]["edit_break_rate"]
    assert breaks and all(0.0 <= b["value"] <= 1.0 for b in breaks)


def test_pairs_export(family_data: tuple[Path, dict[str, Sample]], tmp_path: Path) -> None:
    root, samples = family_data
    res = export_pairs(root, tmp_path / "pairs.jsonl", budget=4, per_original=2)
    rows = [json.loads(line) for line in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    assert res.written == len(rows) == min(4, res.candidates)
    sims = [r["similarity"] for r in rows]
    assert sims == sorted(sims)
    for r in rows:
        cf, orig = samples[r["id"]], samples[r["original_id"]]
        assert r["chosen"] == cf.answer.text() and r["rejected"] == orig.answer.text()
        assert r["chosen"] != r["rejected"] and Path(r["images"][0]).exists()
