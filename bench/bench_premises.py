"""Benchmark: VPP premise generation from chart specs, streamed to JSONL, with flat memory.

RealCQA-V2 released about 10 million premises; chartproof must generate 10 million in under
10 minutes on this 2-core machine: >= 16,667 premises/s in all, i.e. >= 8,334 per process
with 2 processes. Each worker draws specs from the synthetic suites (its own seed), asks
`--per-chart` questions per chart and streams their premise sequences (the same as
`make_questions` attaches) with `write_premises_jsonl`, one JSON line per premise, to its own
file. Measured in the same run: a single worker (the per-core rate), the workers together,
and a baseline that only serialises and writes already-built rows (the I/O floor).

What users run is `chartproof generate` (premises are on by default): the last stage runs
`generate` on the same charts with and without premises, so the premises' share of a real
generate run, and their rate inside it, are measured rather than inferred from the library
call. The exit status is 1 when the streamed rate misses the target (10 million in 10
minutes at the measured rate) or the premise stage of `generate` runs below the per-process
target rate.

    .venv/bin/python bench/bench_premises.py [--premises 200000] [--workers 2] [--per-chart 8]
        [--generate-charts 60]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

TARGET_PREMISES = 10_000_000
TARGET_SECONDS = 600.0
SUITES = ("chartr", "chartqax", "realcqa")


def _rss_mb() -> float:
    """Current resident set size in MiB (Linux /proc)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _worker(args: tuple[int, int, int, str]) -> dict[str, Any]:
    """Generate at least `quota` premises into `path`; report counts, time and memory."""
    index, quota, per_chart, path = args
    from chartproof.charts import generate_specs
    from chartproof.questions.export import write_premises_jsonl

    start_rss, start_peak = _rss_mb(), _peak_mb()
    n = charts = 0
    mid_rss = start_rss
    t0 = time.perf_counter()
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as out:
        k = 0
        while n < quota:
            suite = SUITES[k % len(SUITES)]
            seed = 1000 * index + k
            k += 1
            for spec in generate_specs(suite, 400, seed):
                charts += 1
                n += write_premises_jsonl([spec], out, seed=seed, per_chart=per_chart)
                if n >= quota // 2 and mid_rss == start_rss:
                    mid_rss = _rss_mb()
                if n >= quota:
                    break
    seconds = time.perf_counter() - t0
    return {
        "worker": index,
        "premises": n,
        "charts": charts,
        "seconds": seconds,
        "rss_start": start_rss,
        "rss_mid": mid_rss,
        "rss_end": _rss_mb(),
        "peak_start": start_peak,
        "peak_end": _peak_mb(),
        "bytes": Path(path).stat().st_size,
    }


def _run(
    workers: int, quota: int, per_chart: int, folder: Path
) -> tuple[float, list[dict[str, Any]]]:
    jobs = [
        (i, quota, per_chart, str(folder / f"premises_{workers}w_{i}.jsonl"))
        for i in range(workers)
    ]
    ctx = mp.get_context("fork")
    t0 = time.perf_counter()
    with ctx.Pool(workers) as pool:
        reports = pool.map(_worker, jobs)
    return time.perf_counter() - t0, reports


def _baseline(path: Path, n: int) -> float:
    """Rows/s of serialising and writing rows that already exist (the I/O floor)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line, _ in zip(f, range(5000), strict=False):
            rows.append(json.loads(line))
    target = path.with_suffix(".baseline")
    encode = json.JSONEncoder(separators=(",", ":")).encode
    t0 = time.perf_counter()
    with open(target, "w", encoding="utf-8", buffering=1 << 20) as out:
        for i in range(n):
            out.write(encode(rows[i % len(rows)]) + "\n")
    rate = n / (time.perf_counter() - t0)
    target.unlink()
    return rate


def _report(title: str, wall: float, reports: list[dict[str, Any]]) -> float:
    total = sum(r["premises"] for r in reports)
    print(f"\n{title}: {total:,} premises, {sum(r['charts'] for r in reports):,} charts, "
          f"wall {wall:.1f} s")  # fmt: skip
    for r in reports:
        rate = r["premises"] / r["seconds"]
        print(
            f"  worker {r['worker']}: {rate:,.0f} premises/s in {r['seconds']:.1f} s; "
            f"RSS {r['rss_start']:.0f} -> {r['rss_mid']:.0f} -> {r['rss_end']:.0f} MiB "
            f"(start, half, end); peak RSS {r['peak_start']:.0f} -> {r['peak_end']:.0f} MiB; "
            f"{r['bytes'] / r['premises']:.0f} bytes/premise"
        )
    return total / wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--premises", type=int, default=200_000, help="premises in the timed run")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--per-chart", type=int, default=8)
    ap.add_argument("--out", type=Path, default=None, help="folder for the JSONL files")
    ap.add_argument(
        "--generate-charts", type=int, default=60, help="charts in the `generate` stage (0: skip)"
    )
    ns = ap.parse_args()

    print(f"parent peak RSS at start: {_peak_mb():.0f} MiB; {os.cpu_count()} CPUs; "
          f"target {TARGET_PREMISES:,} premises in {TARGET_SECONDS:.0f} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        folder = ns.out or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        quota = ns.premises // ns.workers
        wall1, single = _run(1, quota, ns.per_chart, folder)
        rate1 = _report("1 worker (per-core rate)", wall1, single)
        wallw, multi = _run(ns.workers, quota, ns.per_chart, folder)
        rate = _report(f"{ns.workers} workers", wallw, multi)
        base = _baseline(folder / "premises_1w_0.jsonl", quota)

    steady = sum(r["premises"] / r["seconds"] for r in multi)
    per_core = steady / ns.workers
    startup = wallw - max(r["seconds"] for r in multi)
    eta = TARGET_PREMISES / rate
    eta_steady = startup + TARGET_PREMISES / steady
    print(f"\nbaseline (serialise + write existing rows only): {base:,.0f} rows/s per process; "
          f"generation runs at {single[0]['premises'] / single[0]['seconds'] / base:.2f}x the "
          f"I/O floor")  # fmt: skip
    print(f"per-core rate: {per_core:,.0f} premises/s with {ns.workers} workers "
          f"({rate1:,.0f}/s for 1 worker alone, wall clock incl. start-up)")  # fmt: skip
    made = sum(r["premises"] for r in multi)
    if made >= TARGET_PREMISES:
        print(f"measured: {made:,} premises in {wallw / 60:.1f} min (target "
              f"{TARGET_PREMISES:,} in {TARGET_SECONDS / 60:.0f} min: "
              f"{'met' if wallw <= TARGET_SECONDS * made / TARGET_PREMISES else 'MISSED'})")  # fmt: skip
    else:
        print(f"extrapolated: {TARGET_PREMISES:,} premises in {eta / 60:.1f} min at the measured "
              f"{ns.workers}-worker wall rate of {rate:,.0f}/s (target {TARGET_SECONDS / 60:.0f} "
              f"min: {'met' if eta <= TARGET_SECONDS else 'MISSED'}); an extrapolation from "
              f"{made:,} premises, not a {TARGET_PREMISES:,} run")  # fmt: skip
    print(f"  with the one-off start-up ({startup:.1f} s: imports, pool) counted once and the "
          f"steady rate {steady:,.0f}/s: {eta_steady / 60:.1f} min")  # fmt: skip
    load = os.getloadavg()[0]
    print(f"  load average during the run: {load:.1f} on {os.cpu_count()} CPUs (other "
          f"processes share these cores; rates are per process under that load)")  # fmt: skip
    checks = {"streamed: 10 million in 10 minutes at the measured rate": eta <= TARGET_SECONDS}
    if ns.generate_charts > 0:
        in_generate = _generate_stage(ns.generate_charts, ns.per_chart)
        need = TARGET_PREMISES / TARGET_SECONDS / ns.workers
        checks[f"premise stage of `generate` >= {need:,.0f}/s per process"] = in_generate >= need
    print(f"parent peak RSS at end: {_peak_mb():.0f} MiB")
    for name, ok in checks.items():
        print(f"  {'ok  ' if ok else 'MISS'} {name}")
    verdict = all(checks.values())
    print("PASS" if verdict else "BELOW TARGET")
    if not verdict:
        raise SystemExit(1)


def _generate_stage(n: int, per_chart: int) -> float:
    """`generate` (one process, as `--workers 1`) on n chartr charts with premises and
    without; returns premises per second of the premise stage (the difference)."""
    from chartproof.datasets import load_samples
    from chartproof.pipelines.generate import generate

    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        generate("chartr", 2, Path(tmp) / "warm", per_chart=per_chart, workers=1)
        for premises in (False, True, False, True):  # alternate: load hits both alike
            out = Path(tmp) / f"p{premises}"
            shutil.rmtree(out, ignore_errors=True)
            t0 = time.perf_counter()
            generate("chartr", n, out, per_chart=per_chart, workers=1, premises=premises)
            dt = time.perf_counter() - t0
            times[premises] = min(times.get(premises, dt), dt)
        count = sum(len(s.premises) for s in load_samples(Path(tmp) / "pTrue").samples)
    extra = max(times[True] - times[False], 1e-9)
    rate = count / extra
    print(f"\n`generate` on {n} charts, {per_chart} questions each, 1 process: "
          f"{times[False]:.2f} s without premises, {times[True]:.2f} s with "
          f"({count:,} premises, {100 * extra / times[True]:.0f} % of the run); premise stage "
          f"{rate:,.0f} premises/s")  # fmt: skip
    return rate


if __name__ == "__main__":
    main()
