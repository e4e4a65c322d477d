"""Report sections built from hand-made summaries: aligned tables, one figure per metric, the
premise baseline and the self-template flag."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from chartproof.reports.html import table
from chartproof.reports.sections import roscoe_section


class _Rows(HTMLParser):
    """Cells per table row: (table index, header cells, data cells) for each <tr>."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[int, int, int]] = []
        self._tables = -1
        self._th = self._td = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._tables += 1
        elif tag == "tr":
            self._th = self._td = 0
        elif tag == "th":
            self._th += 1
        elif tag == "td":
            self._td += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr":
            self.rows.append((self._tables, self._th, self._td))


def misaligned_rows(page: str) -> list[tuple[int, int, int]]:
    """Rows whose cell count differs from their table's header row."""
    parser = _Rows()
    parser.feed(page)
    width: dict[int, int] = {}
    bad = []
    for t, th, td in parser.rows:
        if td == 0:
            width[t] = th
        elif t in width and td + th != width[t]:
            bad.append((t, th, td))
    return bad


def test_table_refuses_a_row_that_does_not_fit_its_headers() -> None:
    with pytest.raises(ValueError, match="row 1 has 3 cells for 2 headers"):
        table(["a", "b"], [[1, 2], [1, 2, 3]])


def test_roscoe_table_has_a_header_for_every_cell() -> None:
    names = ("fs", "ft", "is", "ic", "src", "sfc", "ps", "pc", "gs", "as", "as_renormalised")
    summary = {
        "model": "m",
        "metrics": [{"metric": f"roscoe_{n}", "value": 0.5, "n": 3} for n in names],
    }
    page = str(roscoe_section(summary))
    assert misaligned_rows(page) == []
    assert page.count("<th>") == 12 and page.count("<td>") == 12


def test_premise_section_shows_the_baseline_and_the_rule() -> None:
    from chartproof.reports.sections import premise_section

    figures = {"accuracy": 0.8, "balanced_accuracy": 0.6, "mcc": 0.25, "acc_vpp": 0.2}
    base = {"answer": "false", "accuracy": 0.75, "balanced_accuracy": 0.5, "mcc": 0.0}
    summary = {
        "premise": {
            **figures,
            "dcp": 0.5,
            "n": 40,
            "by_kind": {"data": {**figures, "dcp": 0.5, "n": 40}},
            "baseline": {**base, "acc_vpp": 0.0},
            "rule": "over every premise; failures count as wrong",
            "failed": 1,
        }
    }
    page = str(premise_section(summary))
    assert misaligned_rows(page) == []
    assert "baseline: always &#x27;false&#x27;" in page or "baseline: always 'false'" in page
    assert "75.00" in page and "failures count as wrong" in page


def test_failures_table_aligns_its_text_left() -> None:
    from chartproof.reports.html import _CSS
    from chartproof.reports.sections import failures

    summary = {
        "protocol": "direct",
        "counts": {"failed": 1},
        "failures": [{"sample_id": "s1", "error": "timeout after 30 s"}],
    }
    page = failures(summary)
    assert '<table class="grid text">' in page and "timeout after 30 s" in page
    assert "table.grid.text th, table.grid.text td { text-align: left; }" in _CSS
