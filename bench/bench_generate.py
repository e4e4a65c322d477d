"""Generation throughput and peak memory: `chartproof.generate` writing a suite of about
10,000 samples, against its own parts measured in the same run (spec generation alone, then
specs + questions, then the full pipeline with rendering on 1 and on 2 worker processes).

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_generate.py [--charts 2000] [--per-chart 5]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from chartproof.charts.suites import generate_specs
from chartproof.pipelines.generate import generate
from chartproof.questions import make_questions


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="chartr")
    parser.add_argument("--charts", type=int, default=2000)
    parser.add_argument("--per-chart", type=int, default=5)
    parser.add_argument("--render-charts", type=int, default=400, help="charts for the render runs")
    args = parser.parse_args()

    t = time.perf_counter()
    specs = list(generate_specs(args.suite, args.charts, 0))
    spec_s = time.perf_counter() - t
    print(f"specs only:          {args.charts / spec_s:9.1f} charts/s")

    t = time.perf_counter()
    n_questions = 0
    for spec in specs:
        n_questions += len(make_questions(spec, seed=0, per_chart=args.per_chart))
    q_s = time.perf_counter() - t
    print(
        f"specs + questions:   {args.charts / (spec_s + q_s):9.1f} charts/s, "
        f"{n_questions / (spec_s + q_s):9.1f} samples/s ({n_questions} samples, premises included)"
    )
    del specs

    rates = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            res = generate(
                args.suite,
                args.render_charts,
                Path(tmp) / "out",
                per_chart=args.per_chart,
                workers=workers,
            )
            dt = time.perf_counter() - t
            size = sum(p.stat().st_size for p in (Path(tmp) / "out").rglob("*") if p.is_file())
        rates[workers] = res.samples / dt
        print(
            f"full, {workers} worker(s):  {res.charts / dt:9.1f} charts/s, {res.samples / dt:9.1f} "
            f"samples/s ({res.samples} samples, {size / 2**20:.1f} MiB written)"
        )
    print(f"speed-up of 2 workers over 1: {rates[2] / rates[1]:.2f}x")
    est = 10_000 / rates[2]
    print(f"estimated time for 10,000 samples with 2 workers: {est:.0f} s")
    print(f"peak RSS of this process: {_peak_mib():.0f} MiB")


if __name__ == "__main__":
    main()
