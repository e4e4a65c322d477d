"""Dataset IO throughput and peak memory for 10,000 samples: chartproof JSONL and Parquet
against a stdlib json dump/load of the same dicts, measured in the same run.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_io.py [--n 10000]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from chartproof.datasets import (
    iter_samples,
    load_parquet,
    load_samples,
    save_parquet,
    save_samples,
)
from chartproof.types import (
    Answer,
    ChartSpec,
    Column,
    DataTable,
    Encoding,
    ImageRef,
    Premise,
    Sample,
    Step,
    Style,
)

N_IMAGES = 100  # samples share image files: the bench measures records, not PNG writes
DOMAINS = ("energy", "retail", "health", "transport", "education", "finance")


def make_samples(n: int, seed: int = 0) -> list[Sample]:
    """Realistic synthetic samples: a 6-12 row table with 1-3 series, a spec, a 4-step
    chain and 4 premises each (no rendering: the charts module is not needed)."""
    rng = random.Random(seed)
    out: list[Sample] = []
    for i in range(n):
        n_rows, n_series = rng.randint(6, 12), rng.randint(1, 3)
        years = [str(2000 + k) for k in range(n_rows)]
        series = [f"Series {chr(65 + s)}" for s in range(n_series)]
        table = DataTable(
            columns=(
                Column(name="Year", kind="time"),
                *(Column(name=s, unit="million USD") for s in series),
            ),
            rows=tuple((y, *(round(rng.uniform(0, 500), 1) for _ in series)) for y in years),
        )
        spec = ChartSpec(
            id=f"chart-{i}",
            chart_type="line" if n_series > 1 else "vbar",
            table=table,
            encoding=Encoding(x="Year", y=tuple(series)),
            style=Style(title=f"Revenue by year ({i})", y_title="million USD"),
            seed=i,
            domain=rng.choice(DOMAINS),
        )
        target = table.rows[0][1]
        assert isinstance(target, float)
        chain = tuple(
            Step(
                id=k,
                question=f"What is the value of {series[0]} in {years[k]}?",
                depends_on=(k - 1,) if k else (),
                answer=Answer.number(float(table.rows[k][1] or 0.0)),
                task_type="VE",
            )
            for k in range(4)
        )
        premises = tuple(
            Premise(
                id=f"p{k}",
                kind="data",
                text=f"The {series[0]} value in {years[0]} is {target + k * 10:g}.",
                truth=k == 0,
                template="value_at",
                slot=f"value:{years[0]}",
                logic={"op": "eq", "args": [years[0], target + k * 10]},
            )
            for k in range(4)
        )
        out.append(
            Sample(
                id=f"bench-{i:06d}",
                image=ImageRef(path=f"images/{i % N_IMAGES}.png"),
                question=f"What was {series[0]} in {years[0]}?",
                answer=Answer.number(target, unit="million USD"),
                table=table,
                spec=spec,
                chart_type=spec.chart_type,
                question_type="VE",
                task_type="VE",
                chain=chain,
                premises=premises,
                explanation=f"The first bar of {series[0]} reaches {target:g}.",
                split="test",
                groups={"domain": spec.domain or ""},
                source={"generator": "bench", "index": i},
            )
        )
    return out


def stdlib_dump(rows: list[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row))
            f.write("\n")


def stdlib_load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def measure(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best seconds of `repeat` calls (the machine is shared: the minimum is the least
    disturbed), then peak traced Python memory (MiB) of one more call."""
    seconds = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        seconds = min(seconds, time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per phase (best kept)")
    args = parser.parse_args()
    n: int = args.n

    start = time.perf_counter()
    samples = make_samples(n)
    gen_s = time.perf_counter() - start
    dicts = [s.model_dump(mode="json") for s in samples]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ds"
        (folder / "images").mkdir(parents=True)
        for k in range(N_IMAGES):
            Image.new("RGB", (8, 8), (k, 0, 0)).save(folder / "images" / f"{k}.png")
        baseline = Path(tmp) / "baseline.jsonl"
        parquet = Path(tmp) / "samples.parquet"

        def count_streamed() -> int:
            return sum(1 for _ in iter_samples(folder, errors=[]))

        phases: list[tuple[str, str, Callable[[], object]]] = [
            ("write", "stdlib json.dumps (baseline)", lambda: stdlib_dump(dicts, baseline)),
            ("write", "chartproof JSONL", lambda: save_samples(samples, folder)),
            ("write", "chartproof Parquet (zstd)", lambda: save_parquet(samples, parquet)),
            ("read", "stdlib json.loads (baseline)", lambda: stdlib_load(baseline)),
            ("read", "chartproof JSONL load_samples", lambda: load_samples(folder)),
            ("read", "chartproof JSONL iter_samples", count_streamed),
            ("read", "chartproof Parquet", lambda: load_parquet(parquet)),
        ]
        results: dict[str, tuple[str, float, float]] = {}
        for kind, name, fn in phases:
            seconds, peak = measure(fn, args.repeat)
            results[name] = (kind, seconds, peak)
        sizes = {
            "stdlib json (baseline)": baseline.stat().st_size,
            "chartproof JSONL": (folder / "samples.jsonl").stat().st_size,
            "chartproof Parquet": parquet.stat().st_size,
        }
        loaded = load_samples(folder)
        assert loaded.samples == samples and not loaded.errors, "JSONL round trip lost data"
        assert load_parquet(parquet).samples == samples, "Parquet round trip lost data"

    print(f"{n} samples generated in {gen_s:.2f} s ({n / gen_s:,.0f}/s, records only)")
    print(f"{'phase':<6} {'format':<32} {'samples/s':>11} {'vs baseline':>12} {'peak MiB':>9}")
    base = {
        "write": results["stdlib json.dumps (baseline)"][1],
        "read": results["stdlib json.loads (baseline)"][1],
    }
    for name, (kind, seconds, peak) in results.items():
        ratio = base[kind] / seconds
        print(f"{kind:<6} {name:<32} {n / seconds:>11,.0f} {ratio:>11.2f}x {peak:>9.1f}")
    print("file sizes: " + ", ".join(f"{k} {v / 2**20:.1f} MiB" for k, v in sizes.items()))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS {rss:.0f} MiB (includes the {n} samples and dicts held in memory)")
    print(
        f"samples/s = best of {args.repeat} runs. baseline = stdlib json of the same dicts,"
        " without validation; 'vs baseline' > 1 is faster. Peak MiB = traced Python"
        " allocations during the phase (tracemalloc)."
    )


if __name__ == "__main__":
    main()
