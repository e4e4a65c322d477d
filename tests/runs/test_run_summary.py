"""The typed run summary reads the summaries earlier versions wrote, and keeps sections that
later scorers add."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from chartproof.types import RunSummary

LEGACY = json.loads(
    (Path(__file__).parent / "cases" / "summary_premise_8f7acfd.json").read_text("utf-8")
)


def test_a_summary_written_before_reads_typed() -> None:
    s = RunSummary.model_validate(LEGACY)
    assert s.protocol == "premise" and s.counts.results == LEGACY["counts"]["results"]
    assert [m.metric for m in s.metrics][:2] == ["premise_accuracy", "acc_vpp"]
    assert s.section("premise") == LEGACY["premise"]
    assert s.section("robustness") is None
    assert s.dataset is not None and s.dataset.samples == LEGACY["dataset"]["samples"]


def test_sections_of_later_scorers_are_kept() -> None:
    s = RunSummary.model_validate({**LEGACY, "bias": {"gap": 0.1}})
    assert s.section("bias") == {"gap": 0.1}


def test_a_malformed_summary_names_the_field() -> None:
    broken = {**LEGACY, "counts": {**LEGACY["counts"], "answered": "many"}}
    with pytest.raises(ValidationError, match=r"counts\.answered"):
        RunSummary.model_validate(broken)
