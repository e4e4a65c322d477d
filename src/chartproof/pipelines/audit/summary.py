"""The audit's summary: every registered audit statistic (`metrics.bias_summary.
AUDIT_STATISTICS`) whose protocol ran, computed per attribute from the run's results."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from typing import Any

from chartproof.metrics.bias_statistics import opinion_source
from chartproof.metrics.bias_summary import AUDIT_STATISTICS
from chartproof.pipelines.audit.lexicon import Attribute
from chartproof.types import SampleResult

__all__ = ["opinion_source", "summarize_audit"]


def summarize_audit(
    results: Sequence[SampleResult], attributes: Sequence[Attribute], protocols: Collection[str]
) -> dict[str, Any]:
    """The `AuditSummary` fields the statistics fill, typed: per statistic whose protocol is
    among `protocols` (the tasks that ran), one section per attribute from the attribute's
    results of that protocol (failed units left out and counted under "failed")."""
    by: dict[str, dict[str, list[SampleResult]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        if r.error is None:
            by[r.protocol][r.groups.get("attribute", "")].append(r)
    out: dict[str, Any] = {"failed": sum(1 for r in results if r.error is not None)}
    for key, stat in AUDIT_STATISTICS.items():
        if stat.protocol not in protocols or (stat.only_with_results and not by[stat.protocol]):
            continue
        sections = {
            a.name: section
            for a in attributes
            if (section := stat.compute(by[stat.protocol].get(a.name, []), a.labels)) is not None
        }
        if sections or not stat.skip_empty:
            out[key] = sections
    return out
