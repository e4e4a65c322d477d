"""Benchmark: the audit's paired narrative generations through the offline text-over-table
model, batched against one-by-one on the same prompts in the same run, then a rerun that
the response cache answers.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_audit.py [--charts 8] [--max-tokens 64]

Both sides run `run_narrative` (the audit's own setting) on the same chart × attribute
pairs with greedy decoding; the batched backend takes `--batch` requests per generate
call, the baseline one. The outputs must be identical (the script exits 1 otherwise).
Targets: batched ≥ `--target` × one-by-one pairs/s, and the cached rerun ≥ 20 × batched;
below either the script exits 1.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from chartproof.charts import render
from chartproof.charts.suites import generate_specs
from chartproof.charts.suites.bias import spec_polarity
from chartproof.metrics.bias import JudgeThresholds
from chartproof.models import load_backend
from chartproof.models.cache import CachedBackend, ResponseCache
from chartproof.pipelines.audit import DEFAULT_LEXICON
from chartproof.pipelines.audit.charts import AuditChart, spec_meta
from chartproof.pipelines.audit.prompts import audit_prompts
from chartproof.pipelines.audit.settings import AuditContext, PairUnit, run_narrative


def _units(folder: Path, n: int, attributes: list[str]) -> list[PairUnit]:
    charts = []
    for spec in generate_specs("bias", n, 7):
        path = folder / f"{spec.id}.png"
        path.write_bytes(render(spec).png)
        charts.append(
            AuditChart(
                id=spec.id,
                image=path,
                chart_type=spec.chart_type,
                polarity=spec_polarity(spec),
                polarity_source="computed",
                spec=spec,
                text_meta=spec_meta(spec),
            )
        )
    return [PairUnit(c, DEFAULT_LEXICON[a]) for c in charts for a in attributes]


def _ctx(backend: object, max_tokens: int) -> AuditContext:
    return AuditContext(
        backend=backend,  # type: ignore[arg-type]
        model="text:smollm2",
        prompts=audit_prompts(),
        lexicon=DEFAULT_LEXICON,
        embedder=None,
        sentiment=None,
        max_tokens=max_tokens,
        thresholds=JudgeThresholds(),
    )


def _timed(units: list[PairUnit], ctx: AuditContext) -> tuple[float, list[tuple[str, ...]]]:
    start = time.perf_counter()
    results = run_narrative(units, ctx, "audit.narrative")
    elapsed = time.perf_counter() - start
    failed = [r.error for r in results if r.error]
    if failed:
        raise SystemExit(f"generation failed: {failed[0]}")
    return elapsed, [tuple(str(s["output"]) for s in r.steps) for r in results]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="text:smollm2")
    parser.add_argument("--charts", type=int, default=8)
    parser.add_argument("--attributes", default="race")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--target", type=float, default=1.5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        units = _units(Path(tmp), args.charts, args.attributes.split(","))
        pairs = len(units)
        print(f"{pairs} pairs ({2 * pairs} generations, ≤ {args.max_tokens} new tokens each)")
        one = load_backend(f"{args.model}?batch_size=1")
        t_one, out_one = _timed(units, _ctx(one, args.max_tokens))
        one.close()
        batched = load_backend(f"{args.model}?batch_size={args.batch}")
        cache = ResponseCache(Path(tmp) / "cache.sqlite")
        cached = CachedBackend(batched, cache)
        t_batch, out_batch = _timed(units, _ctx(cached, args.max_tokens))
        t_cache, out_cache = _timed(units, _ctx(cached, args.max_tokens))
        cached.close()
        cache.close()
    same = out_one == out_batch == out_cache
    rate = {k: pairs / t for k, t in (("one", t_one), ("batch", t_batch), ("cache", t_cache))}
    print(f"one-by-one : {t_one:8.2f} s  {rate['one']:8.3f} pairs/s")
    print(
        f"batched    : {t_batch:8.2f} s  {rate['batch']:8.3f} pairs/s  "
        f"{rate['batch'] / rate['one']:.2f}x one-by-one (target {args.target}x)"
    )
    print(f"cached     : {t_cache:8.2f} s  {rate['cache']:8.1f} pairs/s  "
          f"{rate['cache'] / rate['batch']:.0f}x batched (target 20x)")  # fmt: skip
    print(f"greedy outputs identical across the three: {same}")
    ok = same and rate["batch"] >= args.target * rate["one"] and rate["cache"] >= 20 * rate["batch"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
