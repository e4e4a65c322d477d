"""Ray executor on a local 2-CPU cluster started by the test: generate and eval give the same
files as one process, and a Ray worker killed mid-run loses and doubles nothing."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chartproof.executors import FanOutBackend, open_executor
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate

from .helpers import dataset, hashed, sorted_lines

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path, "OMP_NUM_THREADS": "1"}},
    )
    try:
        yield ray
    finally:
        ray.shutdown()


def test_generate_on_ray_matches_one_process(cluster: Any, tmp_path: Path) -> None:
    one = generate("chartr", 3, tmp_path / "one", seed=2, per_chart=2, executor="local:1")
    executor = open_executor("ray")  # joins the test's cluster, leaves it running
    assert executor.workers == 2
    on_ray = generate("chartr", 3, tmp_path / "ray", seed=2, per_chart=2, executor=executor)
    for name in ("samples.jsonl", "dags.jsonl"):
        assert sorted_lines(one.folder / name) == sorted_lines(on_ray.folder / name)
    for png in (one.folder / "images").glob("*.png"):
        assert png.read_bytes() == (on_ray.folder / "images" / png.name).read_bytes()


def test_eval_on_ray_actors_matches_one_process(cluster: Any, tmp_path: Path) -> None:
    data = dataset(tmp_path / "data", 30)
    evaluate(data, out=tmp_path / "single", backend=hashed()(), cache=False)
    backend = FanOutBackend(hashed(), open_executor("ray"), chunk=4)
    try:
        evaluate(data, out=tmp_path / "ray", backend=backend, cache=False)
    finally:
        backend.close()
    a = sorted_lines(tmp_path / "single" / "results.jsonl")
    assert a == sorted_lines(tmp_path / "ray" / "results.jsonl") and len(a) == 30


def test_a_killed_ray_worker_loses_and_doubles_nothing(cluster: Any, tmp_path: Path) -> None:
    data = dataset(tmp_path / "data", 40)
    evaluate(data, out=tmp_path / "expected", backend=hashed()(), cache=False)
    backend = FanOutBackend(hashed(work_s=0.05), open_executor("ray"), chunk=2)
    pool: Any = backend._pool
    victim = pool.pids()[0]

    def kill_soon() -> None:
        time.sleep(0.5)
        os.kill(victim, signal.SIGKILL)

    killer = threading.Thread(target=kill_soon)
    try:
        killer.start()
        record = evaluate(data, out=tmp_path / "run", backend=backend, cache=False, batch_size=8)
        killer.join()
        assert victim not in pool.pids()  # the actor came back in a new process
    finally:
        backend.close()
    assert record.counts["answered"] == 40 and record.counts["failed"] == 0
    lines = sorted_lines(tmp_path / "run" / "results.jsonl")
    assert lines == sorted_lines(tmp_path / "expected" / "results.jsonl")
    ids = [json.loads(line)["sample_id"] for line in lines]
    assert len(ids) == len(set(ids)) == 40


def test_derender_on_ray_matches_one_process(cluster: Any, tmp_path: Path) -> None:
    """The derender pipeline's sandbox runs and scoring as Ray tasks: the same run folder."""
    from chartproof.charts import spec_to_script
    from chartproof.datasets import load_dataset
    from chartproof.pipelines.derender import derender_dataset
    from chartproof.pipelines.derender_code import DerenderConfig
    from chartproof.sandbox import SandboxPolicy
    from chartproof.testing import ScriptedBackend
    from chartproof.types import ModelRequest

    data = generate("chartqax", 2, tmp_path / "data", seed=5, per_chart=1, executor="local:1")
    specs = {s.spec.id: s.spec for s in load_dataset(data.folder).samples if s.spec is not None}

    def coder(request: ModelRequest) -> str:
        return f"```python\n{spec_to_script(specs[str(request.metadata['sample_id'])])}```"

    config = DerenderConfig(policy=SandboxPolicy(timeout_s=60, cpu_s=60))
    outs = {}
    for label, executor in (("one", "local:1"), ("ray", open_executor("ray"))):
        out = tmp_path / label
        derender_dataset(
            data.folder,
            ScriptedBackend(coder, name="scripted:coder"),
            out,
            config=config,
            cache=False,
            executor=executor,
        )
        rows = [json.loads(line) for line in (out / "run" / "results.jsonl").open()]
        for row in rows:
            row.pop("latency_s", None)
            for step in row["steps"]:
                step.get("sandbox", {}).pop("duration_s", None)
        outs[label] = rows
    assert outs["one"] == outs["ray"] and len(outs["ray"]) == 2
    assert all(r["scores"]["faithful"] == 1.0 for r in outs["ray"])
