"""Simulate the internet-scale evaluation plan (docs/scale.md) on this machine: items in Parquet
shards by a stable hash of their id, work units of (shard, model), one result file per unit
written atomically, a driver killed mid-way (SIGKILL of its whole process group) and
resumed; then check that every (item, model) pair is answered exactly once.

    python bench/sim_scale.py --items 100000 --shards 64 --models 3 --kill-at 0.4

Exit status 0 when the resumed run is complete with nothing lost or doubled, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from chartproof.executors import open_executor


def shard_of(sample_id: str, shards: int) -> int:
    """Stable shard of an id: the same on every machine, run and Python version."""
    return int.from_bytes(hashlib.sha256(sample_id.encode()).digest()[:8], "big") % shards


def write_shards(root: Path, items: int, shards: int) -> None:
    """The dataset as `shards` Parquet files, each item in the shard its id hashes to."""
    ids = [f"chart-{i:07d}-q{i % 3}" for i in range(items)]
    buckets: list[list[str]] = [[] for _ in range(shards)]
    for sid in ids:
        buckets[shard_of(sid, shards)].append(sid)
    (root / "data").mkdir(parents=True, exist_ok=True)
    for k, bucket in enumerate(buckets):
        table = pa.table({"sample_id": bucket, "question": [f"value of {s}?" for s in bucket]})
        pq.write_table(table, root / "data" / f"shard-{k:05d}.parquet")


def unit_path(root: Path, model: str, shard: int) -> Path:
    return root / "results" / model / f"shard-{shard:05d}.jsonl"


def run_unit(args: tuple[str, str, int, float]) -> int:
    """Answer one (shard, model) unit and publish its result file atomically; a unit whose
    file exists is done and is skipped (idempotent: rerunning a unit never doubles it)."""
    root_s, model, shard, work_s = args
    root = Path(root_s)
    out = unit_path(root, model, shard)
    if out.exists():
        return 0
    table = pq.read_table(root / "data" / f"shard-{shard:05d}.parquet")
    lines = []
    for sid in table.column("sample_id").to_pylist():
        answer = int.from_bytes(hashlib.sha256(f"{model}/{sid}".encode()).digest()[:2], "big")
        lines.append(json.dumps({"sample_id": sid, "model": model, "answer": answer % 100}))
    end = time.perf_counter() + work_s  # the model's compute per unit
    while time.perf_counter() < end:
        pass
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.partial")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, out)  # a killed worker leaves at most a .partial, never a half file
    return len(lines)


def drive(root: Path, models: list[str], shards: int, executor: str, work_s: float) -> int:
    """Run every unit not yet done; returns the items answered by this call."""
    units = [
        (str(root), m, k, work_s)
        for m in models
        for k in range(shards)
        if not unit_path(root, m, k).exists()
    ]
    ex = open_executor(executor)
    try:
        return sum(ex.map(run_unit, units))
    finally:
        ex.close()


def verify(root: Path, items: int, models: list[str], shards: int) -> dict[str, int]:
    seen: dict[tuple[str, str], int] = {}
    for m in models:
        for k in range(shards):
            for line in unit_path(root, m, k).read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                assert shard_of(row["sample_id"], shards) == k, "item in the wrong shard"
                key = (row["sample_id"], m)
                seen[key] = seen.get(key, 0) + 1
    return {
        "pairs_expected": items * len(models),
        "pairs_found": len(seen),
        "doubled": sum(1 for v in seen.values() if v > 1),
        "partial_files_left": len(list((root / "results").rglob("*.partial"))),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=100_000)
    p.add_argument("--shards", type=int, default=64)
    p.add_argument("--models", type=int, default=3)
    p.add_argument("--kill-at", type=float, default=0.4, help="fraction of units done at kill")
    p.add_argument("--work-s", type=float, default=0.05, help="CPU seconds per unit")
    p.add_argument("--executor", default="local")
    p.add_argument("--root", type=Path, default=None)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    models = [f"model-{i}" for i in range(a.models)]
    root = a.root or Path(tempfile.mkdtemp(prefix="chartproof-sim-"))
    if a.child:
        drive(root, models, a.shards, a.executor, a.work_s)
        return 0
    if root.exists() and a.root is not None:
        shutil.rmtree(root)
    t0 = time.perf_counter()
    write_shards(root, a.items, a.shards)
    t_shard = time.perf_counter() - t0
    units = a.shards * a.models
    cmd = [sys.executable, __file__, "--child", "--root", str(root), "--items", str(a.items)]
    cmd += ["--shards", str(a.shards), "--models", str(a.models), "--work-s", str(a.work_s)]
    cmd += ["--executor", a.executor]
    child = subprocess.Popen(cmd, start_new_session=True)
    while True:
        done = (
            len(list((root / "results").rglob("shard-*.jsonl")))
            if (root / "results").exists()
            else 0
        )
        if done >= a.kill_at * units or child.poll() is not None:
            break
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGKILL)  # the driver and every worker: a node failure
    child.wait()
    finished = list((root / "results").rglob("shard-*.jsonl"))
    done_at_kill = len(finished)
    items_done_at_kill = sum(len(f.read_text(encoding="utf-8").splitlines()) for f in finished)
    partial_at_kill = len(list((root / "results").rglob("*.partial")))
    t1 = time.perf_counter()
    resumed = drive(root, models, a.shards, a.executor, a.work_s)
    t_resume = time.perf_counter() - t1
    # a second resume finds nothing to do: idempotent
    again = drive(root, models, a.shards, a.executor, a.work_s)
    # stale .partial files of killed workers are garbage, never results; sweep them
    for stale in (root / "results").rglob("*.partial"):
        stale.unlink()
    check = verify(root, a.items, models, a.shards)
    report = {
        "items": a.items,
        "models": a.models,
        "shards": a.shards,
        "units": units,
        "units_done_at_kill": done_at_kill,
        "partial_files_at_kill": partial_at_kill,
        "items_done_at_kill": items_done_at_kill,
        "items_answered_on_resume": resumed,
        "items_answered_on_second_resume": again,
        "sharding_s": round(t_shard, 2),
        "resume_s": round(t_resume, 2),
        "loadavg": os.getloadavg()[0],
        **check,
    }
    print(json.dumps(report, indent=2))
    ok = (
        check["pairs_found"] == check["pairs_expected"]
        and check["doubled"] == 0
        and again == 0
        # the resume did exactly the work the kill left: nothing redone, nothing skipped
        and items_done_at_kill + resumed == check["pairs_expected"]
    )
    print("OK" if ok else "FAILED: lost, doubled or redone work")
    if a.root is None:
        shutil.rmtree(root)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
