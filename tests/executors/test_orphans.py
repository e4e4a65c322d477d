"""No process of a killed run survives it: after SIGKILL of the process that owns a
``local:N`` pool, its workers and multiprocessing's resource tracker end within seconds
(fork and spawn workers alike)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")

PARENT = """
import json, os, sys, threading, time
sys.path.insert(0, sys.argv[2])
from multiprocessing import resource_tracker
from chartproof.executors.base import Stateless
from chartproof.executors.local import LocalPool

if sys.argv[1] == "spawn":  # a second thread makes the pool spawn its workers
    threading.Thread(target=time.sleep, args=(300,), daemon=True).start()
pool = LocalPool(3)
pool._start()
threading.Thread(target=lambda: list(pool.map(Stateless(time.sleep), [300] * 6)),
                 daemon=True).start()
while len(pool._pool._processes) < 3:
    time.sleep(0.05)
pids = list(pool._pool._processes)
tracker = resource_tracker._resource_tracker._pid
print(json.dumps({"workers": pids, "tracker": tracker}), flush=True)
time.sleep(300)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pool_workers_die_with_a_killed_parent(method: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, method, SRC], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        started = json.loads(parent.stdout.readline())
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    pids = list(started["workers"])
    if started["tracker"] is not None:
        pids.append(started["tracker"])
    if method == "spawn":
        assert started["tracker"] is not None  # spawn workers' locks start the tracker
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = [p for p in pids if _alive(p)]
    for pid in survivors:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert survivors == [], f"{len(survivors)} of {len(pids)} processes outlived the run"
