"""Ctrl-C during a real `chartproof eval` process: every result finished before the signal
is in results.jsonl (none twice), the process says how many are kept and exits 130 without
a traceback, and rerunning the same command finishes equal to a run never interrupted."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chartproof.pipelines.generate import generate

# a scripted model that answers "1" after a pause, logging each answer (in answer order);
# with CONCURRENCY set it says it takes that many calls at once, as an API backend does
SCRIPT = """
import sys, threading, time, types
from chartproof.models.registry import register_builtin
from chartproof.testing.scripted import ScriptedBackend

log, pause, concurrency = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
lock = threading.Lock()

def answer(request):
    time.sleep(pause)
    with lock, open(log, "a") as f:
        f.write(request.id + "\\n")
    return "1"

def build(spec):
    backend = ScriptedBackend(answer, name="builtin:slow")
    if concurrency:
        backend.settings = types.SimpleNamespace(concurrency=concurrency)
    return backend

register_builtin("slow", build)
sys.argv = ["chartproof", *sys.argv[4:]]
from chartproof.cli import main
main()
"""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data") / "chartqax"
    generate("chartqax", 6, out, seed=3, per_chart=2, levels=1, premises=False, workers=1)
    return out


def _start(
    tmp: Path, dataset: Path, out: Path, concurrency: int, pause: float = 0.15
) -> subprocess.Popen[str]:
    script = tmp / "slow_eval.py"
    script.write_text(SCRIPT)
    args = ["eval", "-d", str(dataset), "-o", str(out), "-m", "builtin:slow"]
    args += ["--executor", "local:1", "-q", "--no-cache", "--no-report"]
    env = {**os.environ, "CHARTPROOF_DEBUG": "", "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, str(script), str(tmp / f"{out.name}.log"), str(pause), str(concurrency),
         *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _results(run: Path) -> list[dict[str, object]]:
    path = run / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _comparable(run: Path) -> list[str]:
    rows = _results(run)
    for row in rows:
        for volatile in ("latency_s", "cached", "calls"):
            row.pop(volatile, None)
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


@pytest.mark.slow
@pytest.mark.parametrize(("concurrency", "seed"), [(0, 1), (0, 2), (4, 3)])
def test_sigint_keeps_every_finished_result(
    dataset: Path, tmp_path: Path, concurrency: int, seed: int
) -> None:
    total = sum(1 for _ in (dataset / "samples.jsonl").open())
    stop_after = random.Random(seed).randint(1, total - 3)
    run = tmp_path / "run"
    proc = _start(tmp_path, dataset, run, concurrency)
    deadline = time.monotonic() + 120
    while len(_results(run)) < stop_after and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    rows = _results(run)
    kept = len(rows)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == (
        f"error: interrupted: {kept} of {total} results kept; rerun the same command to resume"
    ), err
    assert stop_after <= kept < total
    ids = [str(r["sample_id"]) for r in rows]
    assert len(set(ids)) == kept  # none twice
    # request ids are SAMPLE/direct
    answered = [a.rsplit("/", 1)[0] for a in (tmp_path / "run.log").read_text().split()]
    # every answer given before the signal is recorded, but those still being scored or
    # recorded when it came (at most the units in flight)
    in_flight = max(1, concurrency)
    assert set(ids) <= set(answered) and len(set(answered) - set(ids)) <= in_flight

    again = _start(tmp_path, dataset, run, concurrency, pause=0.0)
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    whole = _start(tmp_path, dataset, tmp_path / "whole", concurrency, pause=0.0)
    _, err = whole.communicate(timeout=120)
    assert whole.returncode == 0, err
    assert _comparable(run) == _comparable(tmp_path / "whole")
    assert len(_results(run)) == total
    summary = json.loads((run / "summary.json").read_text())
    assert (
        summary["metrics"]
        == json.loads((tmp_path / "whole" / "summary.json").read_text())["metrics"]
    )


# the console script held up while it imports the commands (as a slow disk would)
STARTUP = """
import sys, time
import chartproof.cli as cli

real = cli._register

def slow():
    sys.stderr.write("importing\\n")
    sys.stderr.flush()
    time.sleep(60)
    real()

cli._register = slow
sys.argv = ["chartproof", "version"]
cli.main()
"""


def test_sigint_while_the_commands_import_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", STARTUP], stderr=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, env={**os.environ, "CHARTPROOF_DEBUG": ""},
    )  # fmt: skip
    assert proc.stderr is not None
    assert proc.stderr.readline() == "importing\n"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert out == "" and "Traceback" not in err and "Aborted" not in err, err
    assert err == "error: interrupted before the command started; nothing was written\n"
