"""`evaluate`: scores match hand-computed values, cached reruns call no model, interrupted
runs resume to the same summary without losing or double-counting a sample."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.pipelines.evaluate import evaluate
from chartproof.runs import load_run
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample

N = 12


def _dataset(root: Path, n: int = N) -> list[Sample]:
    (root / "images").mkdir(parents=True, exist_ok=True)
    samples = []
    for i in range(n):
        path = root / "images" / f"c{i}.png"
        Image.new("RGB", (8, 8), (i * 20 % 256, 0, 0)).save(path)
        samples.append(
            Sample(
                id=f"s{i:02d}",
                image=ImageRef(path=f"images/c{i}.png"),
                question=f"What is value {i}?",
                answer=Answer.number(float(i * 10)),
                chart_type="vbar" if i % 2 else "line",
                question_type="descriptive" if i % 3 else "reasoning",
            )
        )
    save_samples(samples, root)
    return samples


def _answer(request: ModelRequest) -> str:
    """Right on even samples (within 5 %), wrong on odd ones."""
    sid = str(request.metadata["sample_id"])
    i = int(sid[1:])
    value = i * 10 * 1.04 if i % 2 == 0 else i * 10 + 50
    return f"The answer is: {value:g}. Explanation: the bar is that tall."


def test_direct_scores_and_breakdowns(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    backend = ScriptedBackend(_answer)
    record = evaluate(tmp_path / "data", out=tmp_path / "run", backend=backend, cache=False)
    assert record.status == "done"
    assert backend.calls == N
    metrics = {m["metric"]: m for m in record.summary["metrics"]}
    # even ids are right (6 of 12); s00's gold is 0 and 0 * 1.04 = 0 is exactly right
    assert metrics["accuracy"]["value"] == pytest.approx(6 / 12)
    assert metrics["relaxed_accuracy"]["value"] == pytest.approx(6 / 12)
    # exact match needs the very string: only s00 ("0")
    assert metrics["exact_match"]["value"] == pytest.approx(1 / 12)
    by_chart = {
        s["group"]["chart_type"]: s["value"]
        for s in record.summary["breakdowns"]["chart_type"]
        if s["metric"] == "accuracy"
    }
    assert by_chart == {"line": 1.0, "vbar": 0.0}
    _, results = load_run(tmp_path / "run")
    assert sorted(r.sample_id for r in results) == [f"s{i:02d}" for i in range(N)]
    assert results[0].explanation == "the bar is that tall."


def test_cached_rerun_makes_no_model_call(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    cache = tmp_path / "cache.sqlite"
    first = ScriptedBackend(_answer)
    a = evaluate(tmp_path / "data", out=tmp_path / "run1", backend=first, cache=cache)
    second = ScriptedBackend(_answer)
    b = evaluate(tmp_path / "data", out=tmp_path / "run2", backend=second, cache=cache)
    assert first.calls == N and second.calls == 0
    assert b.summary["counts"]["cached_calls"] == N
    assert a.summary["metrics"] == b.summary["metrics"]


def test_failures_are_counted_and_retried_on_resume(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")

    def flaky(request: ModelRequest) -> str:
        if request.metadata["sample_id"] in ("s03", "s07"):
            raise TimeoutError("server timed out")
        return _answer(request)

    rec = evaluate(
        tmp_path / "data", out=tmp_path / "run", backend=ScriptedBackend(flaky), cache=False
    )
    assert rec.summary["counts"]["failed"] == 2
    assert {f["sample_id"] for f in rec.summary["failures"]} == {"s03", "s07"}
    again = ScriptedBackend(_answer)
    rec2 = evaluate(tmp_path / "data", out=tmp_path / "run", backend=again, cache=False)
    assert again.calls == 2
    assert rec2.summary["counts"]["failed"] == 0 and rec2.summary["counts"]["results"] == N


_CHILD = textwrap.dedent(
    """
    import sys, time
    from chartproof.testing import ScriptedBackend
    from chartproof.pipelines.evaluate import evaluate

    def answer(request):
        time.sleep(0.05)
        i = int(str(request.metadata["sample_id"])[1:])
        return f"The answer is: {i * 10 if i % 3 else i * 10 + 99}."

    evaluate(sys.argv[1], out=sys.argv[2], backend=ScriptedBackend(answer, name="scripted:kill"),
             cache=False, batch_size=3)
    """
)


@pytest.mark.slow
def test_sigkill_and_resume_gives_the_same_summary(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _dataset(data, n=60)
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, str(script), str(data)]
    subprocess.run([*cmd, str(tmp_path / "clean")], check=True, env=env, timeout=120)
    rng = random.Random(7)
    for attempt in range(3):
        proc = subprocess.Popen([*cmd, str(tmp_path / "killed")], env=env)
        results = tmp_path / "killed" / "results.jsonl"
        deadline = time.monotonic() + 60
        # kill at a random moment once the run has started writing results
        while proc.poll() is None and time.monotonic() < deadline:
            if results.exists() and results.stat().st_size > 0:
                break
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 1.0))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        if attempt == 0:
            lines = (tmp_path / "killed" / "results.jsonl").read_text().splitlines()
            assert 0 < len(lines) < 60, "the kill should land mid-run"
    subprocess.run([*cmd, str(tmp_path / "killed")], check=True, env=env, timeout=120)
    clean = json.loads((tmp_path / "clean" / "summary.json").read_text())
    killed = json.loads((tmp_path / "killed" / "summary.json").read_text())
    assert killed["metrics"] == clean["metrics"]
    assert killed["counts"]["results"] == clean["counts"]["results"] == 60
    _, results = load_run(tmp_path / "killed")
    ids = [r.sample_id for r in results]
    assert len(ids) == len(set(ids)) == 60
