"""Wall time of the demo (`chartproof demo`, offline defaults) in one process and on every core,
each from cold caches (a fresh response cache and no stored chart readings, as on a new
machine), with the outputs checked identical: every run's results and summary numbers, the
derender summary and the bias audit's results. Prints both walls, their ratio and the time
of each stage; exits 1 when the all-core demo takes longer than the target (100 s, issue 16)
or the outputs differ.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_demo.py [--target 100] [--audit-charts 2]
     [--skip-single]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_RUN = """
import json, sys, time
t0 = time.perf_counter()
stages = []
from chartproof.pipelines.demo import demo
def say(message):
    stages.append((round(time.perf_counter() - t0, 2), message))
executor = sys.argv[2] if sys.argv[2] != "default" else None
demo(sys.argv[1], executor=executor, audit_charts=int(sys.argv[3]), say=say)
stages.append((round(time.perf_counter() - t0, 2), "done"))
print(json.dumps(stages))
"""

# fields that record how a result was obtained (time, cache), not what it is
_VOLATILE = {"latency_s", "cached", "cached_calls", "duration_s", "model_seconds"}


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _outputs(out: Path) -> dict[str, Any]:
    """What the demo computed: every results file (sorted), and the summaries' numbers."""
    found: dict[str, Any] = {}
    for results in sorted(out.rglob("results.jsonl")):
        rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
        found[str(results.relative_to(out))] = sorted(
            json.dumps(_clean(r), sort_keys=True) for r in rows
        )
    for summary in sorted(out.rglob("summary.json")):
        body = json.loads(summary.read_text(encoding="utf-8"))
        if isinstance(body, dict):
            # counts say how many calls were cached and how long they took; dataset, where
            body = {k: v for k, v in body.items() if k not in ("counts", "dataset")}
        found[str(summary.relative_to(out))] = _clean(body)
    return found


def run_demo(root: Path, label: str, executor: str, audit_charts: int) -> tuple[float, list[Any]]:
    out = root / label
    env = dict(os.environ)
    # cold: a new machine has neither cached responses nor stored chart readings
    env["CHARTPROOF_CACHE"] = str(root / f"cache-{label}" / "responses.sqlite")
    env["CHARTPROOF_READINGS"] = str(root / f"readings-{label}")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MPLBACKEND", "Agg")
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(out), executor, str(audit_charts)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"the demo ({label}) failed:\n{proc.stderr[-3000:]}")
    stages = json.loads(proc.stdout.strip().splitlines()[-1])
    return wall, stages


def _print_stages(label: str, wall: float, stages: list[Any]) -> None:
    print(f"demo {label}: {wall:.1f} s wall (load {os.getloadavg()[0]:.1f})")
    previous = 0.0
    for at, message in stages:
        print(f"  {at - previous:6.1f} s  until: {message}")
        previous = at


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", type=float, default=100.0, help="seconds, all-core demo")
    p.add_argument("--audit-charts", type=int, default=2, help="the demo's bias audit (0: off)")
    p.add_argument("--skip-single", action="store_true", help="only the all-core demo")
    a = p.parse_args()
    print(f"cores: {os.cpu_count()}  load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="chartproof-bench-demo-") as tmp:
        root = Path(tmp)
        wall, stages = run_demo(root, "all-cores", "default", a.audit_charts)
        _print_stages("on every core (default)", wall, stages)
        failed = wall > a.target
        if not a.skip_single:
            single, single_stages = run_demo(root, "one-process", "local:1", a.audit_charts)
            _print_stages("in one process (local:1)", single, single_stages)
            many, one = _outputs(root / "all-cores"), _outputs(root / "one-process")
            same = many == one
            print(f"same outputs: {same} ({len(many)} results and summary files)")
            for name in sorted(set(many) | set(one)):
                if many.get(name) != one.get(name):
                    print(f"  differs: {name}")
            print(f"speed-up on every core: {single / wall:.2f}x")
            failed = failed or not same
        verdict = "ok" if wall <= a.target else "ABOVE"
        print(f"all-core demo {wall:.1f} s (target {a.target:.0f} s) {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
