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


def test_sections_read_typed_and_keep_their_file_form() -> None:
    s = RunSummary.model_validate(LEGACY)
    assert s.premise is not None
    kind, figures = next(iter(LEGACY["premise"]["by_kind"].items()))
    assert s.premise.by_kind[kind].dcp == figures["dcp"]
    assert s.premise.accuracy == LEGACY["premise"]["accuracy"]
    # a section written against the file reads it the file's way
    assert s["premise"] == LEGACY["premise"] and "premise" in s and "chain" not in s
    assert s["metrics"][0]["metric"] == LEGACY["metrics"][0]["metric"]
    with pytest.raises(KeyError):
        s["chain"]


def test_a_partial_or_foreign_summary_reads_with_zero_counts() -> None:
    s = RunSummary.read({"model": "m", "overall": {"faithful": 3}}, protocol="direct")
    assert (s.model, s.protocol, s.counts.results, s.counts.failed) == ("m", "direct", 0, 0)
    assert s.section("overall") == {"faithful": 3}
    assert RunSummary.read({}).protocol == "unknown"
    with pytest.raises(ValidationError, match=r"counts\.answered"):
        RunSummary.read({"counts": {"answered": "many"}})
