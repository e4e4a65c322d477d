"""Executors: spec strings, ordered results identical to one process on generate and eval,
a worker killed mid-run loses and doubles nothing, setup errors surface in the driver, and
Ray stays out of the import path."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import pytest

from chartproof.executors import (
    FanOutBackend,
    LocalExecutor,
    fans_out,
    open_executor,
    parse_executor,
)
from chartproof.models.base import in_flight
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate
from chartproof.testing.hashed import HashedBackend

from .helpers import (
    audit_script,
    broken_setup,
    dataset,
    hashed,
    kill_one,
    setup_seven,
    slow_backend_square,
    sorted_lines,
    square_plus,
)

CASES = json.loads((Path(__file__).parent / "cases" / "executor_specs.json").read_text())


@pytest.mark.parametrize("case", CASES["valid"], ids=lambda c: c["spec"] or "none")
def test_spec_strings(case: dict[str, object]) -> None:
    parsed = parse_executor(case["spec"])  # type: ignore[arg-type]
    got = parsed.model_dump(exclude={"source"})
    assert got == case["parsed"]


@pytest.mark.parametrize("case", CASES["invalid"], ids=lambda c: c["spec"])
def test_bad_spec_strings_name_the_culprit(case: dict[str, str]) -> None:
    with pytest.raises(ValueError, match=case["match"]):
        parse_executor(case["spec"])


def test_pool_map_keeps_input_order_and_state() -> None:
    for workers in (1, 2):
        pool = LocalExecutor(workers).pool(setup_seven)
        try:
            assert list(pool.map(square_plus, range(23), chunksize=3)) == [
                x * x + 7 for x in range(23)
            ]
            # the state lives on for a second map
            assert list(pool.map(square_plus, [2])) == [11]
        finally:
            pool.close()


def test_setup_error_reaches_the_driver_with_its_message() -> None:
    pool = LocalExecutor(2).pool(broken_setup)
    try:
        with pytest.raises(ImportError, match="pip install x"):
            list(pool.map(square_plus, [1, 2]))
    finally:
        pool.close()


def test_generate_same_folder_in_process_and_pool(tmp_path: Path) -> None:
    one = generate("chartr", 3, tmp_path / "one", seed=5, per_chart=2, executor="local:1")
    two = generate("chartr", 3, tmp_path / "two", seed=5, per_chart=2, executor="local:2")
    for name in ("samples.jsonl", "dags.jsonl"):
        assert sorted_lines(one.folder / name) == sorted_lines(two.folder / name)
    images = sorted(p.name for p in (one.folder / "images").iterdir())
    assert images == sorted(p.name for p in (two.folder / "images").iterdir())
    for name in images:
        assert (one.folder / "images" / name).read_bytes() == (
            two.folder / "images" / name
        ).read_bytes()


def test_eval_fanned_out_matches_one_process(tmp_path: Path) -> None:
    data = dataset(tmp_path / "data", 40)
    single = hashed()()
    evaluate(data, out=tmp_path / "single", backend=single, cache=False)
    backend = FanOutBackend(hashed(), open_executor("local:2"), chunk=3)
    try:
        assert backend.name == single.name and backend.identity == single.identity
        # two workers x three requests x eight chunks each, so no batch ends with idle workers
        assert in_flight(backend) == 48
        # a batching model: each chunk is one of its batches, two per worker in a batch
        batching = FanOutBackend(partial(HashedBackend, batch_size=8), open_executor("local:2"))
        try:
            assert in_flight(batching) == 2 * 8 * 2
        finally:
            batching.close()
        evaluate(data, out=tmp_path / "pool", backend=backend, cache=False)
    finally:
        backend.close()
    for name in ("results.jsonl",):
        a, b = sorted_lines(tmp_path / "single" / name), sorted_lines(tmp_path / "pool" / name)
        assert a == b and len(a) == 40


def test_a_killed_worker_loses_and_doubles_nothing(tmp_path: Path) -> None:
    data = dataset(tmp_path / "data", 48)
    pids = tmp_path / "pids"
    pids.mkdir()
    expected = tmp_path / "expected"
    evaluate(data, out=expected, backend=hashed()(), cache=False)
    executor = open_executor("local:2")
    backend = FanOutBackend(hashed(work_s=0.03, pid_dir=pids), executor, chunk=2)
    killed: list[int] = []

    def on_progress(done: int, total: int) -> None:
        if 0 < done < total and not killed:
            killed.append(kill_one(pids))

    try:
        # batches of 8: the kill lands while later batches are still to run
        record = evaluate(
            data,
            out=tmp_path / "run",
            backend=backend,
            cache=False,
            batch_size=8,
            progress=on_progress,
        )
    finally:
        backend.close()
    assert killed, "the test never killed a worker"
    assert record.counts["answered"] == 48 and record.counts["failed"] == 0
    lines = sorted_lines(tmp_path / "run" / "results.jsonl")
    assert lines == sorted_lines(expected / "results.jsonl")
    ids = [json.loads(line)["sample_id"] for line in lines]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 48


def test_a_worker_killed_inside_a_map_is_replaced(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    pool = LocalExecutor(2).pool(hashed(pid_dir=pids))
    try:
        killer = threading.Thread(target=kill_one, args=(pids,))
        killer.start()
        out = list(pool.map(slow_backend_square, range(60), chunksize=2))
        killer.join()
    finally:
        pool.close()
    assert out == [x * x for x in range(60)]
    assert pool.restarts >= 1


def test_only_cpu_bound_models_fan_out(monkeypatch: pytest.MonkeyPatch) -> None:
    import chartproof.executors.backend as module

    assert fans_out("builtin:reader")
    assert fans_out("hf:/ckpt?device=cpu")
    assert fans_out("text:smollm2?device=cpu")
    assert not fans_out("openai:m@http://127.0.0.1:1/v1")
    # "auto" picks a GPU when there is one: then keep one copy; without one it is the CPU
    monkeypatch.setattr(module, "has_accelerator", lambda: True)
    assert not fans_out("text:smollm2") and not fans_out("hf:/ckpt")
    assert fans_out("text:smollm2?device=cpu")
    monkeypatch.setattr(module, "has_accelerator", lambda: False)
    assert fans_out("text:smollm2") and fans_out("hf:/ckpt")
    assert not fans_out("hf:/ckpt?device=cuda")


def test_ray_is_not_imported_by_the_pipelines() -> None:
    code = (
        "import sys, chartproof.executors, chartproof.pipelines.evaluate,"
        " chartproof.pipelines.generate, chartproof.cli;"
        "print('ray' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_ray_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    from chartproof.models.registry import MissingDependencyError

    with pytest.raises(MissingDependencyError, match=r"pip install 'chartproof\[ray\]'"):
        open_executor("ray")


@pytest.mark.slow
def test_reader_eval_on_a_pool_matches_one_process(tmp_path: Path) -> None:
    pytest.importorskip("rapidocr")
    data = generate("chartr", 2, tmp_path / "data", seed=4, per_chart=2, executor="local:1")
    runs = {}
    for executor in ("local:1", "local:2"):
        out = tmp_path / executor.replace(":", "-")
        evaluate(data.folder, "builtin:reader", out, cache=False, executor=executor)
        rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        for row in rows:
            row.pop("latency_s", None)  # wall time: the one field allowed to differ
        runs[executor] = sorted(json.dumps(r, sort_keys=True) for r in rows)
    assert runs["local:1"] == runs["local:2"] and len(runs["local:1"]) == 4


@pytest.mark.parametrize(
    ("images", "size", "chunks"),
    [
        ("aaabbbcccddd", 4, ["aaa", "bbb", "ccc", "ddd"]),  # a chart is never split
        ("aabbccdd", 4, ["aabb", "ccdd"]),  # small runs are packed
        ("aaaaaaaaab", 4, ["aaaa", "aaaa", "ab"]),  # a run longer than a chunk is cut
        ("abcde", 2, ["ab", "cd", "e"]),
        ("", 3, []),
    ],
)
def test_chunks_follow_images(images: str, size: int, chunks: list[str]) -> None:
    from chartproof.executors.backend import by_image
    from chartproof.types import ImagePart, Message, ModelRequest, TextPart

    requests = [
        ModelRequest(
            id=f"r{i}",
            prompt="short@1",
            messages=(
                Message(
                    role="user",
                    content=(ImagePart(path=f"/{k}.png", sha256=k), TextPart(text="q?")),
                ),
            ),
        )
        for i, k in enumerate(images)
    ]
    got = by_image(requests, size)
    assert ["".join(r.messages[0].content[0].sha256 for r in c) for c in got] == chunks  # type: ignore[union-attr]
    assert [r.id for c in got for r in c] == [r.id for r in requests]


# ------------------------------------------------------------------------------ audit


@pytest.fixture(scope="module")
def bias_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate("bias", 4, tmp_path_factory.mktemp("bias") / "data", seed=2,
                    per_chart=1, premises=False).folder  # fmt: skip


def _audit_kw() -> dict[str, object]:
    return {
        "attributes": ["race", "gender"],
        "settings": ("narrative", "hallucination", "polarity", "cue"),
        "mitigate": True,
        "embedder": None,
        "cache": False,
        "batch_size": 5,
    }


def _audit_lines(path: Path) -> list[str]:
    # byte-identical after sorting: the scripted model reports no latency of its own
    return sorted_lines(path / "results.jsonl")


def test_audit_on_two_workers_matches_one_process(bias_suite: Path, tmp_path: Path) -> None:
    from functools import partial

    from chartproof.pipelines.audit import audit
    from chartproof.testing.scripted import ScriptedBackend

    one = audit(bias_suite, out=tmp_path / "one", backend=ScriptedBackend(audit_script),
                **_audit_kw())  # fmt: skip
    backend = FanOutBackend(partial(ScriptedBackend, audit_script), open_executor("local:2"),
                            chunk=3)  # fmt: skip
    try:
        two = audit(bias_suite, out=tmp_path / "two", backend=backend, **_audit_kw())
    finally:
        backend.close()
    lines = _audit_lines(tmp_path / "one")
    assert lines == _audit_lines(tmp_path / "two") and len(lines) > 40
    assert one.summary["hallucination"] == two.summary["hallucination"]
    assert one.summary["cue_narrative"] == two.summary["cue_narrative"]


def test_audit_on_workers_resumes_without_doubling(bias_suite: Path, tmp_path: Path) -> None:
    from functools import partial

    from chartproof.pipelines.audit import audit
    from chartproof.testing.scripted import ScriptedBackend

    audit(bias_suite, out=tmp_path / "ref", backend=ScriptedBackend(audit_script), **_audit_kw())

    class Stop(Exception):
        pass

    def stop_midway(done: int, total: int) -> None:
        if 0 < done < total // 2:
            raise Stop

    executor = open_executor("local:2")
    backend = FanOutBackend(partial(ScriptedBackend, audit_script), executor, chunk=3)
    try:
        with pytest.raises(Stop):
            audit(bias_suite, out=tmp_path / "run", backend=backend, progress=stop_midway,
                  **_audit_kw())  # fmt: skip
        kept = len(sorted_lines(tmp_path / "run" / "results.jsonl"))
        assert 0 < kept < len(sorted_lines(tmp_path / "ref" / "results.jsonl"))
        # the resumed run completes the folder without doubling any unit
        audit(bias_suite, out=tmp_path / "run", backend=backend, **_audit_kw())
    finally:
        backend.close()
        executor.close()
    lines = _audit_lines(tmp_path / "run")
    assert lines == _audit_lines(tmp_path / "ref")
    ids = [(json.loads(x)["sample_id"], json.loads(x)["protocol"]) for x in lines]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("report", [False, True])
def test_a_fanned_out_batch_moves_the_bar_as_workers_report(report: bool) -> None:
    """Workers' `note_answered` reaches the driver's progress (row by row, not chunk by
    chunk); without reports the chunks move it; a batch never counts more than its size,
    nor a later batch its predecessor's reports."""
    from chartproof.models import build_request
    from chartproof.models.base import answering

    setup = partial(HashedBackend, work_s=0.02, report=report)
    backend = FanOutBackend(setup, open_executor("local:2"), chunk=10)
    requests = [build_request("short", None, f"q{i}", request_id=f"r{i}") for i in range(40)]
    try:
        for _ in range(2):
            seen: list[int] = []
            with answering(seen.append):
                answers = backend.generate(requests)
            assert [a.request_id for a in answers] == [r.id for r in requests]
            assert sum(seen) == 40
            if report:
                assert len(seen) > 4 and min(seen) < 10, seen
            else:
                assert seen == [10, 10, 10, 10]
    finally:
        backend.close()
