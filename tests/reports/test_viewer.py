"""The viewer page: self-contained, escaped, and, driven in Debian's Chromium through
Playwright, its filter counts, sample panel and McNemar p-values match what results.jsonl
says (computed here independently, the p-value by scipy and statsmodels)."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chartproof.metrics.registry import correct_value
from chartproof.reports.viewer import view

from .viewer_runs import HOSTILE, two_runs

CHROMIUM = shutil.which("chromium")
SCREENS = os.environ.get("CHARTPROOF_SCREENSHOTS")
"""A folder to save the viewer's screenshots into (top, filtered, sample, comparison)."""


@pytest.fixture(scope="module")
def page_and_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("viewer")
    _, a, b = two_runs(root)
    return view(a, b, out=root / "view.html"), a, b


def _lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]


def _right(line: dict[str, Any]) -> bool:
    return line["error"] is None and correct_value(line["scores"]) == 1.0


def test_page_is_self_contained_and_model_text_cannot_close_the_data(
    page_and_runs: tuple[Path, Path, Path],
) -> None:
    path, a, b = page_and_runs
    html = path.read_text()
    assert any(HOSTILE in line["output"] for line in _lines(a))
    # three scripts: the list data, the panel data and the inlined viewer; nothing loaded
    # from elsewhere
    assert html.count("<script") == 3 and html.count("</script>") == 3
    assert "<link" not in html and not re.search(r"""src=["']?https?:""", html)
    data = {}
    for name in ("cp-data", "cp-detail"):
        text = html.split(f'<script type="application/json" id="{name}">')[1].split("</script>")[0]
        assert "<" not in text and ">" not in text
        data[name] = json.loads(text)
    payload = data["cp-data"]
    assert len(payload["cols"]["i"]) == len(data["cp-detail"]) == len(_lines(a)) + len(_lines(b))
    assert any(HOSTILE in d["x"] for d in data["cp-detail"])
    assert all(src.startswith("data:image/png;base64,") for src in payload["images"].values())


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("Debian chromium not installed")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright not installed")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


@pytest.mark.slow
def test_viewer_in_chromium_matches_results_jsonl(
    page_and_runs: tuple[Path, Path, Path], browser: Any
) -> None:
    from scipy.stats import binomtest

    path, run_a, run_b = page_and_runs
    lines_a, lines_b = _lines(run_a), _lines(run_b)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    total = len(lines_a) + len(lines_b)
    assert page.inner_text("#cp-count") == f"{total} of {total} samples"
    _shot(page, "1-top")

    # filter: wrong answers on box plots, in both runs
    page.select_option("select[data-facet=outcome]", label=_option(page, "outcome", "wrong"))
    before_box = _option(page, "g:chart_type", "box")
    page.select_option("select[data-facet='g:chart_type']", label=_option(page, "g:chart_type", "box"))  # fmt: skip
    expected = sum(
        1
        for line in lines_a + lines_b
        if line["groups"].get("chart_type") == "box" and line["error"] is None
        and not _right(line) and correct_value(line["scores"]) is not None
    )  # fmt: skip
    assert expected > 0
    # the chart type's options counted what they would show under the outcome filter
    assert before_box == f"box ({expected})"
    assert page.inner_text("#cp-count") == f"{expected} of {total} samples"
    assert page.locator("#cp-rows .cp-row").count() == expected
    _shot(page, "2-filtered")

    # open the first listed sample: its prompt and gold are those of results.jsonl
    row = page.locator("#cp-rows .cp-row").first
    row.click()
    sample_id = page.inner_text("#cp-sample-id")
    run_label = page.inner_text(".cp-panelbar .muted")
    lines = lines_a if run_label.endswith("(run_a)") or "scripted:a" in run_label else lines_b
    line = next(x for x in lines if x["sample_id"] == sample_id)
    assert page.inner_text("#cp-gold") == line["gold"]
    assert page.inner_text("#cp-prompt") == line["prompt_text"]
    assert "Does" in line["prompt_text"] or line["question"] in line["prompt_text"]
    # the hostile reply is shown as text and ran nothing
    assert HOSTILE in page.inner_text("#cp-panel")
    assert page.evaluate("window.pwned") is None
    _shot(page, "3-sample")
    page.click("#cp-close")

    # comparison: the McNemar p of accuracy equals scipy's on the same 2x2 table
    page.click("button[data-tab=compare]")
    by_b = {x["sample_id"]: x for x in lines_b}
    shared = [(x, by_b[x["sample_id"]]) for x in lines_a if x["sample_id"] in by_b]
    a_only = sum(1 for x, y in shared if _right(x) and not _right(y))
    b_only = sum(1 for x, y in shared if not _right(x) and _right(y))
    assert a_only + b_only > 0
    cell = page.locator("[data-compare='0'] .cp-p[data-metric=accuracy]")
    shown = float(cell.get_attribute("data-p"))
    assert shown == pytest.approx(binomtest(a_only, a_only + b_only, 0.5).pvalue, rel=1e-12)
    table = [[len(shared) - a_only - b_only, a_only], [b_only, 0]]
    try:
        from statsmodels.stats.contingency_tables import mcnemar
    except ImportError:
        pass
    else:
        assert shown == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    warning = page.inner_text(".cp-differ")
    assert f"{len(shared)} shared, {len(lines_a) - len(shared)} only in" in warning
    assert page.locator("[data-list='0:a_right'] .cp-card").count() == min(a_only, 120)
    _shot(page, "4-compare", full=True)
    assert errors == []


def _option(page: Any, facet: str, value: str) -> str:
    """The label of a facet's option for `value` ("value (count)")."""
    labels = page.locator(f"select[data-facet='{facet}'] option").all_inner_texts()
    return next(x for x in labels if x.rsplit(" (", 1)[0] == value)


def _shot(page: Any, name: str, *, full: bool = False) -> None:
    if SCREENS:
        Path(SCREENS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENS) / f"{name}.png"), full_page=full)


def test_view_command_writes_the_page(
    page_and_runs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from chartproof.cli import _register, app

    _register()
    _, a, b = page_and_runs
    out = tmp_path / "cli.html"
    result = CliRunner().invoke(
        app, ["view", str(a), str(b), "--out", str(out), "--images", "none"]
    )
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "cp-detail" in html and "data:image/png" not in html
    missing = CliRunner().invoke(app, ["view", str(tmp_path / "nope")])
    assert missing.exit_code != 0
