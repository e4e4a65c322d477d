"""The viewer page of two runs of 50,000 synthetic results each (100,000 rows) opens and
filters in Debian's Chromium under the budget (2 s each by default); exits 1 above it.

Measured in the browser: "open" is navigation start to the first rows drawn (the JSON
parsed, facets built, the list drawn; `performance.now()` when the viewer's script ends);
"filter" is selecting one outcome and one chart type and typing a search term, each
until the count is updated (the search index is built when the page is first idle; its
time is printed apart). Also printed: page size and the Python time (CPU) to write it.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_viewer.py [--n 100000] [--budget 2]
[--repeat 3]; the open counted is the best of the repeats, as the machine may be shared.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

from chartproof.reports.viewer import view
from chartproof.runs import RunFolder
from chartproof.types import ChainStepRecord, SampleResult

CHART_TYPES = ("vbar", "hbar", "line", "pie", "scatter", "box", "area", "stacked_bar")
TASKS = ("VE", "PR", "NC", "SO", "TI", "VC", "MM")
PERTURBATIONS = ("original", "blur", "noise", "watermark", "label_removal")
PROMPT = (
    "[image: chart-{c}.png]\nLook at the chart and answer the question. Write your reply in "
    "exactly this form:\nThe answer is: <answer>. Explanation: <explanation>\nThe answer is "
    "a single word, a number or a short phrase.\n\nQuestion: {q}"
)


def _result(i: int, model: str) -> SampleResult:
    h = hashlib.sha1(f"{model}/{i}".encode()).digest()
    chart = i // 4
    question = f"What is the value of series {h[1] % 9} at position {h[2] % 12} in chart {chart}?"
    gold = str(h[3] * 7 % 1000)
    right = h[0] < 160
    prediction = gold if right else str((h[3] * 7 + 13) % 1000)
    pert = PERTURBATIONS[h[4] % len(PERTURBATIONS)]
    groups = {
        "chart_type": CHART_TYPES[chart % len(CHART_TYPES)],
        "task_type": TASKS[h[5] % len(TASKS)],
        "question_type": "reasoning" if h[6] % 2 else "descriptive",
        "perturbation": pert,
        "split": "test",
    }
    if pert != "original":
        groups["level"] = str(1 + h[7] % 5)
    steps = ()
    if i % 10 == 0:
        steps = tuple(
            ChainStepRecord(
                id=k,
                task_type=TASKS[k],
                question=f"step {k} of {question}",
                gold=gold,
                prediction=prediction,
                output=f"The answer is: {gold}.",
                correct=right,
            )
            for k in range(3)
        )
    return SampleResult(
        sample_id=f"chart-{chart:06d}/q{i % 4}",
        protocol="direct",
        model=model,
        prediction=prediction,
        output=f"The answer is: {prediction}. Explanation: the bar labelled {h[8]} reaches it.",
        explanation=f"the bar labelled {h[8]} reaches it.",
        scores={"accuracy": float(right), "relaxed_accuracy": float(right), "anls": float(right)},
        groups=groups,
        steps=steps,
        cached=1 if h[9] % 3 == 0 else 0,
        calls=1,
        latency_s=0.05 + h[10] / 1000,
        question=question,
        gold=gold,
        prompt="chartqax@1",
        prompt_text=PROMPT.format(c=chart, q=question),
    )


def _run(folder: Path, model: str, n: int) -> Path:
    with RunFolder.open(folder, {"model": model}, "sha256:bench") as run:
        run.append(_result(i, model) for i in range(n))
        run.finish({"protocol": "direct", "model": model}, {"total": n})
    return folder


JS_COUNT = "document.getElementById('cp-count').textContent"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100_000, help="results in all (two runs)")
    ap.add_argument("--budget", type=float, default=2.0, help="seconds allowed per step")
    ap.add_argument("--repeat", type=int, default=3, help="opens measured (the best counts)")
    args = ap.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        print("Debian chromium is not installed; nothing measured")
        return 2
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a = _run(root / "a", "scripted:a", args.n // 2)
        b = _run(root / "b", "scripted:b", args.n - args.n // 2)
        t0 = time.process_time()
        page_path = view(a, b, out=root / "view.html", images="none")
        write_cpu = time.process_time() - t0
        size = page_path.stat().st_size
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            opens = []
            for _ in range(args.repeat):
                page.goto(page_path.as_uri(), wait_until="load", timeout=120_000)
                page.wait_for_function("window.cpViewer !== undefined", timeout=120_000)
                opens.append(
                    page.evaluate(
                        "[cpViewer.readyMs, cpViewer.startMs, cpViewer.parseMs].map(x => x / 1000)"
                    )
                )
            # the least disturbed open of the repeats (the machine is shared)
            opened, started, parsed = min(opens)
            total = page.evaluate("window.cpViewer.total")
            steps = [
                ("outcome = wrong", "select[data-facet=outcome]", "wrong"),
                ("chart type = pie", "select[data-facet='g:chart_type']", "pie"),
            ]
            timings = []
            for name, selector, value in steps:
                label = next(
                    x
                    for x in page.locator(f"{selector} option").all_inner_texts()
                    if x.rsplit(" (", 1)[0] == value
                )
                before = page.evaluate("performance.now()")
                page.select_option(selector, label=label)
                after = page.evaluate("window.cpViewer.lastFilterAt")
                timings.append((name, (after - before) / 1000, page.evaluate(JS_COUNT)))
            before = page.evaluate("performance.now()")
            page.fill("#cp-search", "position 3")
            page.wait_for_function(f"{JS_COUNT}.indexOf('of') > 0 && window.cpViewer.lastFilterAt > {before} + 150")  # fmt: skip
            after = page.evaluate("window.cpViewer.lastFilterAt")
            # the search waits 150 ms for typing to pause; that wait is not the filter's
            timings.append(("search 'position 3'", (after - before - 150) / 1000,
                            page.evaluate(JS_COUNT)))  # fmt: skip
            index = page.evaluate("window.cpViewer.indexMs") / 1000
            browser.close()
    print(f"rows: {total:,}  page: {size / 1e6:.1f} MB  written in {write_cpu:.2f} s CPU")
    print(
        f"open (navigation start to first rows drawn, best of {args.repeat}): {opened:.2f} s "
        f"(script started at {started:.2f} s, JSON.parse {parsed:.2f} s); all opens: "
        + ", ".join(f"{o[0]:.2f}" for o in opens)
    )
    for name, seconds, count in timings:
        print(f"filter {name}: {seconds:.3f} s -> {count}")
    print(
        f"search index (panel data parsed, replies lower-cased; built when the page is idle "
        f"after load, else on the first search): {index:.2f} s"
    )
    worst = max([opened] + [t for _, t, _ in timings])
    if worst > args.budget:
        print(f"FAIL: {worst:.2f} s is above the {args.budget:.1f} s budget")
        return 1
    print(f"ok: every step under {args.budget:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
