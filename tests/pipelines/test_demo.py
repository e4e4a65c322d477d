"""The demo pipeline end to end on a tiny setting: generate → eval → derender → families →
report, with the offline reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.pipelines.demo import demo


@pytest.mark.slow
def test_tiny_demo_runs_every_step(tmp_path: Path) -> None:
    pytest.importorskip("rapidocr")
    said: list[str] = []
    result = demo(
        tmp_path / "demo",
        n=2,
        per_chart=1,
        variants=(),
        protocols=("direct",),
        derender_charts=2,
        counterfactuals=1,
        audit_charts=0,
        say=said.append,
    )
    assert [p.name for p in result.runs] == ["direct", "families"]
    assert result.derender is not None
    derendered = [
        json.loads(line)
        for line in (result.derender / "run" / "results.jsonl").read_text().splitlines()
    ]
    assert len(derendered) == 2 and all(r["prediction"] == "ok" for r in derendered)
    families = json.loads((result.runs[1] / "summary.json").read_text())
    assert families["counts"]["results"] > 0 and families["families"]
    html = result.report.read_text(encoding="utf-8")
    assert "Counterfactual families" in html and "builtin:reader · direct (families)" in html
    assert any("redraws faithful" in line for line in said)
