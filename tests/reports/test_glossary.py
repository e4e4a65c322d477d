"""The glossary spells out every task type, premise kind and registered metric."""

from __future__ import annotations

from typing import get_args

from chartproof.metrics import registry
from chartproof.reports.glossary import CODES, glossary
from chartproof.types.data import TaskType


def test_every_code_and_metric_is_explained() -> None:
    html = glossary()
    codes = {c for c, _, _ in CODES}
    assert set(get_args(TaskType)) <= codes
    assert {"SP", "DP", "RP", "MP"} <= codes
    for m in registry.metrics().values():
        assert f"<td>{m.name}</td>" in html
    assert "(no description)" not in html.split("roscoe")[0]
    # the two accuracies a reader sees side by side say how they differ
    assert "relaxed accuracy where a gold sets its own tolerance" in html
