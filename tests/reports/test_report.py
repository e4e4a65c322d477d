"""Reports: self-contained HTML, model outputs escaped, renders in headless Chromium."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.pipelines.evaluate import evaluate
from chartproof.reports import report
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _run(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    samples = []
    for i in range(8):
        Image.new("RGB", (60, 40), (40 * i, 120, 200)).save(data / "images" / f"c{i}.png")
        samples.append(
            Sample(
                id=f"s{i}",
                image=ImageRef(path=f"images/c{i}.png"),
                question=f"What is the value of bar {i}?",
                answer=Answer.number(float(i)),
                chart_type=("vbar", "hbar", "line", "pie")[i % 4],
                question_type="descriptive" if i % 2 else "reasoning",
            )
        )
    save_samples(samples, data)

    def answer(request: ModelRequest) -> str:
        i = int(str(request.metadata["sample_id"])[1:])
        if i == 3:
            return f"The answer is: {HOSTILE}. Explanation: {HOSTILE}"
        return f"The answer is: {i if i % 2 else i + 7}. Explanation: the bar reaches {i}."

    evaluate(data, out=tmp_path / "run", backend=ScriptedBackend(answer), cache=False)
    return tmp_path / "run"


def test_report_is_self_contained_and_escaped(tmp_path: Path) -> None:
    run = _run(tmp_path)
    path = report(run)
    html = path.read_text()
    assert path == run / "report.html"
    assert "<script" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "onerror=alert" not in html.replace("&lt;img src=x onerror=alert(1)&gt;", "")
    assert 'src="data:image/png;base64,' in html
    assert "http://" not in html and "https://" not in html
    # Table 3 layout: chart types, question types and overall, in percent
    assert "layout of ChartQA-X Table 3" in html
    for label in ("hbar", "vbar", "line", "pie", "descriptive", "reasoning", "overall"):
        assert f"<th>{label}</th>" in html


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed")
def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    path = report(_run(tmp_path))
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
            "--window-size=1280,1800", f"--screenshot={shot}", path.as_uri(),
        ],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    pixels = np.asarray(Image.open(shot).convert("L"))
    assert pixels.shape == (1800, 1280)
    # a rendered page: mostly white background with a fair amount of dark text
    assert (pixels > 240).mean() > 0.5
    assert (pixels < 100).mean() > 0.005


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        ([("a", "m", "direct"), ("b", "m", "chain")], ["m · direct", "m · chain"]),
        (
            [("runs/direct", "m", "direct"), ("runs/families", "m", "direct"), ("x", "n", "")],
            ["m · direct (direct)", "m · direct (families)", "n"],
        ),
    ],
)
def test_run_names_tell_apart_runs_of_one_model_and_protocol(
    runs: list[tuple[str, str, str]], expected: list[str]
) -> None:
    from chartproof.reports.sections import run_names
    from chartproof.types import RunRecord

    records = [
        (
            Path(path),
            RunRecord(
                id=path,
                created="2026-01-01T00:00:00+00:00",
                config={},
                dataset_fingerprint="sha256:0",
                code_version="0",
                summary={"model": model, **({"protocol": protocol} if protocol else {})},
            ),
        )
        for path, model, protocol in runs
    ]
    assert run_names(records) == expected


def test_report_writes_and_links_the_viewer_and_keeps_overall_in_sight(tmp_path: Path) -> None:
    import json

    run = _run(tmp_path)
    path = report(run, run, out=tmp_path / "both.html")
    html = path.read_text()
    page = tmp_path / "both.view.html"
    assert 'href="both.view.html"' in html and page.exists()
    data = page.read_text().split('id="cp-data">')[1].split("</script>")[0]
    assert len(json.loads(data)["cols"]["i"]) == 16
    # the runs' comparison table: "overall" right after the metric, inside a scroll box
    compare = html.split(">Runs compared</h2>")[1].split("</table>")[0]
    assert '<div class="scroll"><table' in compare
    heads = [h.split("</th>")[0] for h in compare.split("<th>")[1:4]]
    assert heads == ["run", "metric", "overall"]
    # grouped bars per chart type, one bar per run (no task types or programs here)
    assert compare.count("by chart_type per run") == 0  # the plot follows the table
    after = html.split(">Runs compared</h2>")[1]
    assert 'alt="accuracy by chart_type per run"' in after
    assert "by task_type per run" not in after and "by program per run" not in after
    assert (run / "report.html").exists() is False
    assert report(run).name == "report.html" and (run / "view.html").exists()


def test_report_has_a_table_of_contents_linking_every_section(tmp_path: Path) -> None:
    import re

    html = report(_run(tmp_path), viewer=False).read_text()
    toc = html.split('<nav class="toc">')[1].split("</nav>")[0]
    targets = re.findall(r'href="#([^"]+)"', toc)
    assert len(targets) >= 4 and targets[-1] == "glossary"
    for target in targets:
        assert html.count(f'id="{target}"') == 1
    assert '<h2 id="s1">' in html and "Accuracy by chart type and question type" in toc
