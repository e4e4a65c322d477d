"""Rendering throughput per chart type: chartproof's renderer (PNG + geometry sidecar) against
the naive pyplot script (`naive_render.py`) on the same specs, timed in the same run.

    .venv/bin/python bench/bench_render.py [--n 50] [--repeat 3] [--seed 0]

Specs come from the chartr suite (realcqa for extra log and scatter charts), n per chart type.
Each spec is rendered by both, alternating which goes first, `repeat` times; the fastest time
of each counts (as timeit does), so load from other processes hits both alike and little.

Target: chartproof renders at least as many charts per second as the naive script
(`--target 1.0`, the ratio naive time / chartproof time over all chart types), although it
also writes the geometry sidecar of every mark and label: the sidecar must come at no cost in
throughput. The exit status is 1 below the target.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from chartproof.charts import generate_specs, render
from chartproof.types import ChartSpec
from naive_render import naive_render

TYPES = ("vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "scatter", "box")


def specs_per_type(n: int, seed: int) -> dict[str, list[ChartSpec]]:
    """n specs of each chart type, drawn from the suites in order."""
    found: dict[str, list[ChartSpec]] = defaultdict(list)
    for suite in ("chartr", "realcqa"):
        for spec in generate_specs(suite, 60 * n, seed):
            bucket = found[spec.chart_type]
            if len(bucket) < n:
                bucket.append(spec)
            if all(len(found[t]) >= n for t in TYPES):
                return dict(found)
    return dict(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=50, help="charts per chart type")
    parser.add_argument("--repeat", type=int, default=3, help="timings per spec (min counts)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--target", type=float, default=1.0, help="minimum overall speed ratio against naive"
    )
    args = parser.parse_args()
    specs = specs_per_type(args.n, args.seed)
    # warm both paths (font cache, imports) before timing
    warm = specs["vbar"][0]
    render(warm)
    naive_render(warm)

    print(f"{'chart type':<12} {'n':>4} {'chartproof/s':>13} {'naive/s':>9} {'ratio':>7}")
    total = {"ours": 0.0, "naive": 0.0}
    count = 0
    for kind in TYPES:
        batch = specs.get(kind, [])
        ours = naive = 0.0
        for i, spec in enumerate(batch):
            best = {render: float("inf"), naive_render: float("inf")}
            for r in range(args.repeat):
                order = (render, naive_render) if (i + r) % 2 == 0 else (naive_render, render)
                for fn in order:
                    t0 = time.perf_counter()
                    fn(spec)
                    best[fn] = min(best[fn], time.perf_counter() - t0)
            ours += best[render]
            naive += best[naive_render]
        if not batch:
            continue
        total["ours"] += ours
        total["naive"] += naive
        count += len(batch)
        print(
            f"{kind:<12} {len(batch):>4} {len(batch) / ours:>13.1f} {len(batch) / naive:>9.1f} "
            f"{naive / ours:>6.2f}x"
        )
    ratio = total["naive"] / total["ours"]
    print(
        f"{'all':<12} {count:>4} {count / total['ours']:>13.1f} {count / total['naive']:>9.1f} "
        f"{ratio:>6.2f}x"
    )
    ok = ratio >= args.target
    print(f"{'PASS' if ok else 'BELOW TARGET'}: {ratio:.2f}x the naive script (target >= "
          f"{args.target:.2f}x)")  # fmt: skip
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
