"""Scaling of CPU-bound work over workers: generate and the built-in reader's eval on one
process, on a 2-worker local pool and on a 2-CPU Ray cluster, as throughput ratios measured
in the same run (target: >= 1.8x at 2 workers). Outputs are checked identical to the single
process's. Exits 1 below target. The load average is printed beside every figure: on a
shared machine the ratio measures the cores this run got, not the code alone.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_scale.py [--charts 96] [--eval-charts 32]
     [--no-ray] [--target 1.8]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from chartproof.executors import load_backend_on, open_executor
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def _sorted(path: Path, drop: tuple[str, ...] = ()) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        for key in drop:
            row.pop(key, None)
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def _strip_latency(path: Path) -> list[str]:
    # a result's latency is wall time, the one field that may differ between runs
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for step in row.get("responses", []) or []:
            if isinstance(step, dict):
                step.pop("latency_s", None)
        row.pop("latency_s", None)
        out.append(json.dumps(row, sort_keys=True))
    return sorted(out)


def bench_generate(root: Path, charts: int, executors: list[tuple[str, Any]]) -> dict[str, float]:
    rates: dict[str, float] = {}
    reference: list[str] | None = None
    for label, ex in executors:
        # warm-up: every worker imports the chart stack and renders once before timing
        generate("chartr", 8, root / f"warm-gen-{label}", seed=3, per_chart=1, executor=ex)
        t = time.perf_counter()
        result = generate("chartr", charts, root / f"gen-{label}", seed=1, per_chart=3, executor=ex)
        rate = charts / (time.perf_counter() - t)
        rows = _sorted(result.folder / "samples.jsonl")
        reference = reference or rows
        same = rows == reference
        rates[label] = rate
        print(f"generate {label:<8} {rate:7.2f} charts/s  same output: {same}  ({_load()})")
        if not same:
            raise SystemExit(f"generate on {label} wrote different samples")
    return rates


def bench_eval(
    data: Path, warm: Path, root: Path, executors: list[tuple[str, Any]]
) -> dict[str, float]:
    rates: dict[str, float] = {}
    reference: list[str] | None = None
    for label, ex in executors:
        # no disk readings: each executor must read every chart itself to be timed fairly
        backend = load_backend_on("builtin:reader?disk_cache=false", ex)
        try:
            # warm every worker (OCR sessions load on first use) on charts not measured
            evaluate(warm, out=root / f"warm-{label}", backend=backend, cache=False)
            t = time.perf_counter()
            record = evaluate(data, out=root / f"eval-{label}", backend=backend, cache=False)
            elapsed = time.perf_counter() - t
        finally:
            backend.close()
        n = record.counts["samples"]
        rates[label] = n / elapsed
        rows = _strip_latency(root / f"eval-{label}" / "results.jsonl")
        reference = reference or rows
        same = rows == reference
        print(
            f"reader eval {label:<8} {rates[label]:6.2f} samples/s ({n} samples)  "
            f"same results: {same}  ({_load()})"
        )
        if not same:
            raise SystemExit(f"reader eval on {label} gave different results")
    return rates


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--charts", type=int, default=96, help="charts to generate per executor")
    p.add_argument("--eval-charts", type=int, default=32, help="charts (3 questions each) to eval")
    p.add_argument("--no-ray", action="store_true", help="skip the Ray cluster")
    p.add_argument("--no-local", action="store_true", help="skip the local pool")
    p.add_argument("--target", type=float, default=1.8)
    a = p.parse_args()
    print(f"cores: {os.cpu_count()}  start ({_load()})")
    autogroup = Path("/proc/sys/kernel/sched_autogroup_enabled")
    busy = os.getloadavg()[0] > (os.cpu_count() or 1)
    if busy and autogroup.exists() and autogroup.read_text().strip() == "1":
        print(
            "warning: the machine is busy and autogroup scheduling is on, so `nice` cannot "
            "give this run the cores; the ratios measure the share it got (docs/scale.md)"
        )
    local: list[tuple[str, Any]] = [("local:1", "local:1"), ("local:2", "local:2")]
    ratios: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="chartproof-bench-scale-") as tmp:
        root = Path(tmp)
        # in this process, so every module a chart needs is loaded before any timing (forked
        # workers then inherit them; the single-process baseline does not pay for them)
        data = generate(
            "chartr", a.eval_charts, root / "evaldata", seed=7, per_chart=3, executor="local:1"
        ).folder
        # 4 charts x 3 questions: 4 chunks, so every worker of a 2-worker pool reads some
        warm = generate("chartr", 4, root / "warmdata", seed=99, per_chart=3, executor="local:1")
        warm = warm.folder
        # the local pools first: Ray's driver threads would make later pools spawn, not fork
        if not a.no_local:
            gen = bench_generate(root, a.charts, local)
            ev = bench_eval(data, warm, root, local)
            ratios["generate local:2"] = gen["local:2"] / gen["local:1"]
            ratios["reader eval local:2"] = ev["local:2"] / ev["local:1"]
        if not a.no_ray:
            # Ray starts its workers at niceness 15 (to keep its raylet responsive): on a
            # machine shared with other work they would lose to the single-process baseline
            # whatever the code does, so they run at this process's own niceness
            os.environ.setdefault("RAY_worker_niceness", str(os.nice(0)))
            t = time.perf_counter()
            ray_ex = open_executor("ray?num_cpus=2&workers=2")
            print(f"ray cluster up in {time.perf_counter() - t:.1f} s ({_load()})")
            try:
                ray_runs: list[tuple[str, Any]] = [("local:1", "local:1"), ("ray:2", ray_ex)]
                # the Ray ratios are against a single process measured beside them
                rg = bench_generate(root / "r", a.charts, ray_runs)
                re_ = bench_eval(data, warm, root / "r", ray_runs)
                ratios["generate ray:2"] = rg["ray:2"] / rg["local:1"]
                ratios["reader eval ray:2"] = re_["ray:2"] / re_["local:1"]
            finally:
                ray_ex.close()
    failed = False
    for name, ratio in ratios.items():
        ok = ratio >= a.target
        failed |= not ok
        print(
            f"{name:<22} {ratio:5.2f}x vs 1 process (target {a.target}x) {'ok' if ok else 'BELOW'}"
        )
    print(f"end ({_load()})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
