"""`report`: one self-contained HTML file per run (or comparing several runs): headline
metrics, the ChartQA-X Table-3-style grid, breakdowns, chain / premise / robustness sections
and a gallery of samples with every model output escaped."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path

from chartproof.reports import scoring_sections  # noqa: F401  (registers its sections)
from chartproof.reports.gallery import gallery, run_samples
from chartproof.reports.glossary import glossary
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
from chartproof.reports.viewer import view
from chartproof.runs import load_run
from chartproof.types import RunRecord, SampleResult

__all__ = ["report", "viewer_path"]

log = logging.getLogger(__name__)


def report(*runs: str | Path, out: str | Path | None = None, viewer: bool = True) -> Path:
    """Write the HTML report of one or more run folders; returns its path.

    With one run the file defaults to `RUN/report.html`; with several, a comparison table
    of all of them comes first, then each run's sections. With `viewer`, the sample viewer
    of the same runs (`view`) is written beside it (`view.html` next to a `report.html`,
    else `NAME.view.html`) and the report links to it.
    """
    if not runs:
        raise ValueError("report needs at least one run folder")
    loaded = [(Path(r), *load_run(r)) for r in runs]
    target = Path(out) if out is not None else loaded[0][0] / "report.html"
    path0, record0, _ = loaded[0]
    body: list[Html] = [header(record0, path0, several=len(loaded) > 1)]
    if viewer:
        page_path = viewer_path(target)
        view(*(p for p, _, _ in loaded), out=page_path)
        what = "compare the runs sample by sample" if len(loaded) > 1 else "filter, search"
        body.append(
            el(
                "a",
                f"Every sample in the viewer ({what}) → {page_path.name}",
                href=page_path.name,
                cls="viewer",
            )
        )
    if len(loaded) > 1:
        body.append(comparison([(p, r) for p, r, _ in loaded]))
    titles = run_names([(p, r) for p, r, _ in loaded])
    for (path, record, results), title in zip(loaded, titles, strict=True):
        if len(loaded) > 1:
            body.append(el("h1", title, cls="run"))
            body.append(el("p", str(path), cls="note"))
        body.extend(_run_sections(record, results))
    body.append(glossary())
    html_text = page(f"chartproof report · {record0.id}", *with_contents(body))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html_text, encoding="utf-8")
    return target


_H2 = re.compile(r"<h2>(.*?)</h2>", re.DOTALL)


def with_contents(body: Sequence[Html]) -> list[Html]:
    """The body with a table of contents after its first part (the header): every plain
    `<h2>` gets an id and a link (its text is markup this module built, already escaped)."""
    text = Html("".join(body[1:]))
    titles: list[str] = []

    def anchor(match: re.Match[str]) -> str:
        titles.append(match.group(1))
        return f'<h2 id="s{len(titles)}">{match.group(1)}</h2>'

    text = Html(_H2.sub(anchor, text))
    links = [el("li", el("a", Html(t), href=f"#s{i}")) for i, t in enumerate(titles, start=1)]
    links.append(el("li", el("a", "Glossary", href="#glossary")))
    toc = el("nav", el("b", "Contents"), el("ol", *links), cls="toc")
    return [*body[:1], toc, text]


def viewer_path(report_path: Path) -> Path:
    """Where `report` writes the viewer page beside the report at `report_path`."""
    if report_path.name == "report.html":
        return report_path.with_name("view.html")
    return report_path.with_name(report_path.stem + ".view.html")


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
