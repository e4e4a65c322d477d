"""The audit summary read typed however old it is: a summary written before its sections
were typed (no position effect, no tag counts, no selection, no call counts) still renders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from chartproof.metrics.bias_summary import AuditSummary
from chartproof.reports.bias import audit_sections
from chartproof.types import RunRecord

OLDER = json.loads((Path(__file__).parent / "cases" / "audit_summary_v0.json").read_text())


def test_older_summary_reads_missing_counts_as_zero() -> None:
    s = AuditSummary.read(OLDER)
    assert s.selection == "generate" and s.opinion_fallback == "none"
    assert s.calls == 0 and s.failed == 0 and s.counterfactual_charts == 0
    assert s.narrative is not None and s.narrative["race"].not_computed == 0
    assert s.narrative["race"].opinions is None  # not counted then: unknown, not zero
    assert s.hallucination is not None and s.hallucination["race"].position is None
    assert s.eligibility["age"].unchecked == 0
    assert s.cue is not None and s.mitigation is None and s.causal is None


def test_older_summary_still_renders() -> None:
    record = RunRecord(id="old", created="2026-01-01T00:00:00+00:00",
                       config={"pipeline": "audit"}, dataset_fingerprint="x",
                       code_version="0", summary=OLDER)  # fmt: skip
    html = "".join(audit_sections(record, []))
    assert "Narrative shift (Table 2)" in html and "Group hallucination (Table 3)" in html
    assert "0.27" in html  # race's mean dissimilarity
    assert "model calls</b>: 0 (0 cached)" in html
    assert "not recorded (older summary)" in html  # cue stance written without tag counts


def test_malformed_summary_names_the_field() -> None:
    bad = {**OLDER, "narrative": {"race": {"n": "many"}}}
    with pytest.raises(ValidationError, match=r"narrative\.race\.n"):
        AuditSummary.read(bad)


def test_heatmap_scale_is_fixed_and_cells_show_n() -> None:
    import io

    import numpy as np
    from PIL import Image

    from chartproof.reports.bias import heatmap

    def dark_red_share(png: bytes) -> float:
        px = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
        dark = (px[..., 0] > 90) & (px[..., 0] < 200) & (px[..., 1] < 40) & (px[..., 2] < 50)
        return float(dark.mean())

    # 0.17 against 0.20 on a 0-1 scale: two light cells, no dark-red cell (only the thin
    # colour bar holds dark red); a stretched scale painted 0.20 dark red
    close = heatmap({"m": {"a": 0.17, "b": 0.20}}, title="t", counts={"m": {"a": 40, "b": 38}})
    far = heatmap({"m": {"a": 0.17, "b": 0.95}}, title="t")
    assert dark_red_share(close) < 0.03 < dark_red_share(far)
