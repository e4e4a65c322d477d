"""`report`: one self-contained HTML file per run (or comparing several runs): headline
metrics, the ChartQA-X Table-3-style grid, breakdowns, chain / premise / robustness sections
and a gallery of samples with every model output escaped."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from chartproof.reports.gallery import gallery, run_samples
from chartproof.reports.html import Html, el, page
from chartproof.reports.sections import (
    breakdowns,
    comparison,
    failures,
    header,
    headline,
    report_sections,
    run_names,
    table3,
)
from chartproof.runs import load_run
from chartproof.types import RunRecord, SampleResult

__all__ = ["report"]

log = logging.getLogger(__name__)


def report(*runs: str | Path, out: str | Path | None = None) -> Path:
    """Write the HTML report of one or more run folders; returns its path.

    With one run the file defaults to `RUN/report.html`; with several, a comparison table
    of all of them comes first, then each run's sections.
    """
    if not runs:
        raise ValueError("report needs at least one run folder")
    loaded = [(Path(r), *load_run(r)) for r in runs]
    target = Path(out) if out is not None else loaded[0][0] / "report.html"
    path0, record0, _ = loaded[0]
    body: list[Html] = [header(record0, path0, several=len(loaded) > 1)]
    if len(loaded) > 1:
        body.append(comparison([(p, r) for p, r, _ in loaded]))
    titles = run_names([(p, r) for p, r, _ in loaded])
    for (path, record, results), title in zip(loaded, titles, strict=True):
        if len(loaded) > 1:
            body.append(el("h1", title, cls="run"))
            body.append(el("p", str(path), cls="note"))
        body.extend(_run_sections(record, results))
    html_text = page(f"chartproof report · {record0.id}", *body)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html_text, encoding="utf-8")
    return target


def _run_sections(record: RunRecord, results: Sequence[SampleResult]) -> list[Html]:
    """Every section about one run, in reading order."""
    from chartproof.reports.bias import audit_sections, is_audit

    if is_audit(record):
        return audit_sections(record, results)
    summary = record.read_summary()
    parts = [
        headline(record),
        table3([(summary.model if summary.model is not None else record.id, summary)]),
        breakdowns(summary),
    ]
    parts.extend(section.render(summary) for section in report_sections(summary))
    parts.append(failures(summary))
    parts.append(gallery(results, run_samples(record)))
    return parts
