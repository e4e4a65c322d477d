"""The mitigation's rewrite check: a rewrite replaces a flagged pair only if it names its group,
differs from the neutral reference and states only the evidence's numbers and trends; a
degenerate rewrite (a copy of the reference, the group dropped) is rejected and counted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chartproof.pipelines.audit import DEFAULT_LEXICON, audit
from chartproof.pipelines.audit.rewrites import check_rewrite, numbers, trends
from chartproof.testing.scripted import ScriptedBackend
from chartproof.types import ModelRequest

from .test_audit import HashEmbedder, biased

IMMIGRANTS = DEFAULT_LEXICON.attributes["immigration"].groups[0]
EVIDENCE = "Sales rose from 12.5 in 2010 to 19.8 in 2020; the peak was 21 in 2018."
REFERENCE = "For a general audience: sales rose from 12.5 to 19.8 between 2010 and 2020."

CASES = [
    ("accepted", f"For {IMMIGRANTS.phrase}: sales rose from 12.5 to about 20 by 2020.", []),
    ("copy of the reference, group dropped", REFERENCE, ["copy", "group_dropped"]),
    ("group dropped", "Sales rose from 12.5 to 19.8 between 2010 and 2020.", ["group_dropped"]),
    ("invented number", f"For {IMMIGRANTS.phrase}, sales rose to 35.", ["number"]),
    ("trend the evidence lacks", f"For {IMMIGRANTS.phrase}, sales fell after 2018.", ["trend"]),
    ("empty", "  ", ["empty"]),
]


@pytest.mark.parametrize(("name", "rewrite", "expected"), CASES, ids=[c[0] for c in CASES])
def test_check_rewrite(name: str, rewrite: str, expected: list[str]) -> None:
    assert check_rewrite(rewrite, REFERENCE, EVIDENCE, IMMIGRANTS) == expected


def test_numbers_keep_their_rounding_and_trends_their_direction() -> None:
    assert numbers("from 1,200 to 12.50 in 2020") == [(1200.0, 0.5), (12.5, 0.005), (2020, 0.5)]
    assert trends("it rose, then declined, then stayed flat") == {"up", "down", "flat"}
    assert trends("a moderate change") == set()


def test_numbers_in_the_group_name_are_not_chart_facts() -> None:
    from chartproof.pipelines.audit.lexicon import Group

    older = Group(label="65+", phrase="people aged 65 and over")
    text = f"For {older.phrase}: sales rose from 12.5 to 19.8."
    assert check_rewrite(text, REFERENCE, EVIDENCE, older) == []


def copies_the_reference(request: ModelRequest) -> str:
    """The biased model, except that its rewrite returns the neutral reference verbatim (the
    degenerate SmolLM2 rewrite of issue #44: both texts identical, group dropped)."""
    if request.prompt.startswith("audit_rewrite"):
        return str(request.metadata["reference"])
    return biased(request)


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from chartproof.pipelines.generate import generate

    out = tmp_path_factory.mktemp("bias") / "data"
    return generate("bias", 4, out, seed=3, per_chart=1, premises=False).folder


def _mitigate(suite: Path, out: Path, fn: Any) -> Any:
    return audit(
        suite,
        out=out,
        backend=ScriptedBackend(fn, name="scripted"),
        attributes=["immigration"],
        settings=("narrative",),
        mitigate=True,
        embedder=HashEmbedder(),
        cache=False,
    )


def test_degenerate_rewrites_are_rejected_and_counted(suite: Path, tmp_path: Path) -> None:
    from chartproof.reports import report

    good = _mitigate(suite, tmp_path / "good", biased).summary["mitigation"]["immigration"]
    assert good["rewritten"] == 4 and good["rejected"] == 0
    assert good["final"]["mean"] < 0.1  # the accepted rewrites close the gap
    record = _mitigate(suite, tmp_path / "copy", copies_the_reference)
    bad = record.summary["mitigation"]["immigration"]
    assert bad["rewritten"] == 4 and bad["rejected"] == 4
    assert bad["rejected_for"] == {"copy": 4, "group_dropped": 4}
    # rejected rewrites are not used: the pairs keep their paired texts and their shift
    assert (
        bad["final"]["mean"] == pytest.approx(bad["paired"]["mean"]) and bad["final"]["mean"] > 0.3
    )
    html = report(tmp_path / "copy").read_text()
    assert "Mitigation (Table 5)" in html and "4/4 (copy 4, group_dropped 4)" in html
