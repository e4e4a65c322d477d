"""Benchmark: OpenAI-compatible backend throughput against a loopback server, and cache speedup.

The server (a separate process) replies after 200 ms with at most 64 requests in service, so
its ideal throughput is 64 / 0.2 s = 320 requests/s. 2,000 requests go through
CachedBackend(OpenAIBackend) with a fresh cache; then the same requests again, all cached.
Then `chartproof eval` itself runs 2,000 samples against the same server (dataset load,
fingerprint, batches, run folder, summary) and reruns them into a new run folder from the
cache. Targets, each checked, the exit status 1 when one is missed: first run (backend and
eval) >= 90 % of ideal; cached rerun (backend and eval) >= 20x faster than the first.
Requests carry real charts: `--charts` (default 12) suite charts rendered once and sent in
turn, 20-60 kB PNGs of different bytes, so image encoding and hashing cost what they cost in
a real run (`--charts 0 --chart-kb K` sends a noise PNG of K kB instead).
A bare aiohttp client sends the same number of requests first: the baseline of what the
server and this machine allow right now (on a busy machine both fall short of the ideal
together).

    .venv/bin/python bench/bench_backend.py [--n 2000] [--delay 0.2] [--concurrency 64]
        [--http auto|aiohttp|httpx|openai] [--charts 12] [--chart-kb 0] [--no-eval]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

from chartproof.models.cache import CachedBackend, ResponseCache
from chartproof.models.openai_compat import OpenAIBackend, OpenAISettings
from chartproof.models.prompts import build_request
from chartproof.types import ModelRequest


def _start_server(delay: float, concurrency: int) -> tuple[subprocess.Popen[str], str]:
    cmd = [
        sys.executable,
        "-m",
        "chartproof.testing.loopback",
        "--delay",
        str(delay),
        "--max-concurrency",
        str(concurrency),
    ]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise SystemExit(f"loopback server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


def _stop_server(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate("", timeout=30)
    return out.strip()


def _raw_server_ceiling(url: str, n: int, concurrency: int, image_url: str) -> float:
    """Requests/s a bare aiohttp client gets from the server: the machine's ceiling right now."""
    import aiohttp

    body = {
        "model": "bench",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": image_url}},
                    {"type": "text", "text": "Question?"},
                ],
            }
        ],
    }

    async def run() -> float:
        sem = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit=concurrency)
        async with aiohttp.ClientSession(connector=connector) as session:

            async def one(i: int) -> None:
                async with sem:
                    headers = {"X-Chartproof-Request": f"raw{i}"}
                    async with session.post(
                        f"{url}/chat/completions", json=body, headers=headers
                    ) as r:
                        await r.read()

            start = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n)))
            return n / (time.perf_counter() - start)

    return asyncio.run(run())


def _evaluation(
    url: str, charts: list[Path], n: int, concurrency: int, tmp: Path
) -> dict[str, float]:
    """`chartproof eval` end to end (dataset load, fingerprint, batches, run folder, summary)
    against the server: a first run into a fresh cache, then a rerun into a new run folder
    that the cache answers."""
    from chartproof.datasets import save_samples
    from chartproof.pipelines.evaluate import evaluate
    from chartproof.types import Answer, ImageRef, Sample

    data = tmp / "eval-data"
    (data / "images").mkdir(parents=True)
    for k, chart in enumerate(charts):
        shutil.copy(chart, data / "images" / f"chart{k}.png")
    samples = [
        Sample(
            id=f"e{i}",
            image=ImageRef(path=f"images/chart{i % len(charts)}.png"),
            question=f"What is the value of bar {i}?",
            answer=Answer.number(float(i)),
        )
        for i in range(n)
    ]
    save_samples(samples, data)
    spec = f"openai:bench-vlm@{url}?concurrency={concurrency}&timeout_s=60&max_retries=2"
    cache = tmp / "eval-cache.sqlite"
    t0 = time.perf_counter()
    first = evaluate(data, spec, tmp / "eval-run-1", prompt="short", cache=cache)
    first_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    second = evaluate(data, spec, tmp / "eval-run-2", prompt="short", cache=cache)
    second_s = time.perf_counter() - t0
    return {
        "first_s": first_s,
        "second_s": second_s,
        "answered": float(first.counts.get("answered", 0)),
        "cached": float(second.summary.get("counts", {}).get("cached_calls", 0)),
    }


def _requests(charts: list[Path], n: int) -> list[ModelRequest]:
    return [
        build_request(
            "short", charts[i % len(charts)], f"What is the value of bar {i}?", request_id=f"s{i}"
        )
        for i in range(n)
    ]


def _suite_charts(folder: Path, k: int) -> list[Path]:
    """k charts of the chartqax suite rendered to PNG files (what an eval sends)."""
    from chartproof.charts import generate_specs, render

    paths = []
    for i, spec in enumerate(generate_specs("chartqax", k, 0)):
        path = folder / f"suite{i}.png"
        path.write_bytes(render(spec).png)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=64, help="server cap")
    parser.add_argument(
        "--client-concurrency",
        type=int,
        default=None,
        help="requests the backend keeps in flight (default: the server cap)",
    )
    parser.add_argument(
        "--http",
        choices=["auto", "aiohttp", "httpx", "openai"],
        default="auto",
        help="the backend's HTTP transport (openai: the official client's)",
    )
    parser.add_argument(
        "--charts", type=int, default=12, help="suite charts sent in turn (0: one synthetic PNG)"
    )
    parser.add_argument(
        "--chart-kb",
        type=int,
        default=0,
        help="with --charts 0: a noise PNG of about this size instead of a tiny blank one",
    )
    parser.add_argument(
        "--no-eval", action="store_true", help="skip the `chartproof eval` pipeline stage"
    )
    args = parser.parse_args()
    ideal = args.concurrency / args.delay

    with tempfile.TemporaryDirectory() as tmp:
        chart = Path(tmp) / "chart.png"
        if args.charts > 0:
            charts = _suite_charts(Path(tmp), args.charts)
        elif args.chart_kb:
            side = max(8, int((args.chart_kb * 1024 / 3) ** 0.5))
            noise = random.Random(0).randbytes(side * side * 3)
            Image.frombytes("RGB", (side, side), noise).save(chart)
            charts = [chart]
        else:
            Image.new("RGB", (320, 240), (250, 250, 250)).save(chart)
            charts = [chart]
        chart = charts[0]
        from chartproof.models.images import data_url

        chart_bytes = sum(c.stat().st_size for c in charts) / len(charts)
        proc, url = _start_server(args.delay, args.concurrency)
        try:
            cpu0 = time.process_time()
            ceiling = _raw_server_ceiling(url, args.n, args.concurrency, data_url(chart))
            bare_cpu_s = time.process_time() - cpu0

            t0 = time.perf_counter()
            requests = _requests(charts, args.n)
            build_s = time.perf_counter() - t0

            in_flight = args.client_concurrency or args.concurrency
            settings = OpenAISettings(
                concurrency=in_flight, timeout_s=60, max_retries=2, http=args.http
            )
            cache_path = Path(tmp) / "responses.sqlite"
            first = CachedBackend(
                OpenAIBackend("bench-vlm", url, settings=settings), ResponseCache(cache_path)
            )
            load_before = os.getloadavg()[0]
            t0, cpu0 = time.perf_counter(), time.process_time()
            out1 = first.generate(requests)
            run1_s, cpu1_s = time.perf_counter() - t0, time.process_time() - cpu0
            inner = first.inner
            assert isinstance(inner, OpenAIBackend)
            sent = inner.stats()
            first.close()

            # a fresh wrapper and cache connection, as a rerun in a new process would open
            second = CachedBackend(
                OpenAIBackend("bench-vlm", url, settings=settings), ResponseCache(cache_path)
            )
            t0 = time.perf_counter()
            out2 = second.generate(requests)
            run2_s = time.perf_counter() - t0
            inner2 = second.inner
            assert isinstance(inner2, OpenAIBackend)
            calls2 = inner2.stats().get("requests", 0)
            second.close()
            ev = None
            if not args.no_eval:
                ev = _evaluation(url, charts, args.n, in_flight, Path(tmp))
        finally:
            served = _stop_server(proc)
            server_cpu_s = sum(resource.getrusage(resource.RUSAGE_CHILDREN)[:2])

    ok1 = sum(r.ok for r in out1)
    chart_kb = chart_bytes / 1024
    ok2 = sum(r.ok and r.cached for r in out2)
    throughput = args.n / run1_s
    print(
        f"requests: {args.n}; server delay {args.delay * 1000:.0f} ms, cap {args.concurrency}; "
        f"backend concurrency {args.client_concurrency or args.concurrency}, "
        f"transport {args.http}, {len(charts)} distinct chart(s) of {chart_kb:.0f} kB on average"
    )
    print(f"server report: {served}")
    print(f"ideal throughput:            {ideal:8.1f} req/s  (= {args.concurrency}/{args.delay} s)")
    print(
        f"bare aiohttp client:         {ceiling:8.1f} req/s  ({ceiling / ideal:.1%} of ideal: "
        "what the server and this machine allow right now)"
    )
    print(f"building {args.n} requests:   {build_s:7.3f} s")
    print(
        f"first run (all misses):      {throughput:8.1f} req/s  in {run1_s:.2f} s  "
        f"-> {throughput / ideal:.1%} of ideal (target >= 90%), {throughput / ceiling:.1%} of "
        f"the bare client; answered {ok1}/{args.n}; "
        f"attempts {sent.get('attempts', 0)}, retries {sent.get('retries', 0)}"
    )
    print(
        f"cached rerun:                {args.n / run2_s:8.1f} req/s  in {run2_s:.3f} s  "
        f"-> {run1_s / run2_s:.1f}x faster (target >= 20x); cached {ok2}/{args.n}; "
        f"model calls {calls2}"
    )
    if ev is not None:
        eval_rate = args.n / ev["first_s"]
        print(
            f"chartproof eval (pipeline):  {eval_rate:8.1f} samples/s in {ev['first_s']:.2f} s  "
            f"-> {eval_rate / ideal:.1%} of ideal, {eval_rate / ceiling:.1%} of the bare client; "
            f"answered {ev['answered']:.0f}/{args.n}; cached rerun {ev['second_s']:.2f} s "
            f"({ev['first_s'] / ev['second_s']:.1f}x faster, {ev['cached']:.0f} cached calls)"
        )
    client_ms = 1000 * cpu1_s / args.n
    answered = json.loads(served).get("answered", 2 * args.n) if served.startswith("{") else 0
    server_ms = 1000 * server_cpu_s / max(1, answered or 2 * args.n)
    print(
        f"CPU per request: client {client_ms:.2f} ms (bare client "
        f"{1000 * bare_cpu_s / args.n:.2f} ms), server {server_ms:.2f} ms -> at the ideal "
        f"rate the pair needs {ideal * (client_ms + server_ms) / 1000:.2f} CPU cores; "
        f"load average before the run {load_before:.1f} on {os.cpu_count()} cores"
    )
    checks = {
        "backend first run >= 90% of ideal": throughput / ideal >= 0.9,
        "backend cached rerun >= 20x faster": run1_s / run2_s >= 20,
        "every request answered, then cached": ok1 == ok2 == args.n,
    }
    if ev is not None:
        checks["eval first run >= 90% of ideal"] = args.n / ev["first_s"] / ideal >= 0.9
        checks["eval cached rerun >= 20x faster"] = ev["first_s"] / ev["second_s"] >= 20
        checks["eval answered every sample"] = ev["answered"] == args.n
    for name, ok in checks.items():
        print(f"  {'ok  ' if ok else 'MISS'} {name}")
    verdict = all(checks.values())
    print("PASS" if verdict else "BELOW TARGET")
    if not verdict:
        sys.exit(1)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
