"""Run folders: append-only results, torn lines dropped, no double counting, config guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from chartproof.runs import RunBusyError, RunConfigMismatch, RunFolder, load_run
from chartproof.types import SampleResult


def _res(i: int, value: float = 1.0) -> SampleResult:
    return SampleResult(sample_id=f"s{i}", protocol="direct", model="m", scores={"acc": value})


def test_append_and_resume(tmp_path: Path) -> None:
    with RunFolder.open(tmp_path, {"model": "m"}, "fp") as run:
        assert run.append([_res(0), _res(1)]) == 2
    with RunFolder.open(tmp_path, {"model": "m"}, "fp") as run:
        assert run.is_done("s0", "direct", "m")
        assert not run.is_done("s2", "direct", "m")
        # a repeated sample is not recorded twice
        assert run.append([_res(1, 0.0), _res(2)]) == 1
        assert [r.sample_id for r in run.results()] == ["s0", "s1", "s2"]
        assert run.results()[1].scores["acc"] == 1.0
    record, results = load_run(tmp_path)
    assert record.status == "running" and len(results) == 3


def test_torn_last_line_is_dropped_and_truncated(tmp_path: Path) -> None:
    with RunFolder.open(tmp_path, {}, "fp") as run:
        run.append([_res(0), _res(1)])
    results = tmp_path / "results.jsonl"
    data = results.read_bytes()
    results.write_bytes(data + _res(2).model_dump_json().encode()[:17])
    with RunFolder.open(tmp_path, {}, "fp") as run:
        assert run.dropped_lines == 1
        assert len(run) == 2
        run.append([_res(2)])
    assert results.read_bytes().count(b"\n") == 3
    _, again = load_run(tmp_path)
    assert [r.sample_id for r in again] == ["s0", "s1", "s2"]


def test_config_or_dataset_change_refuses_resume(tmp_path: Path) -> None:
    RunFolder.open(tmp_path, {"model": "a", "limit": 3}, "fp").close()
    with pytest.raises(RunConfigMismatch, match="differs in: model"):
        RunFolder.open(tmp_path, {"model": "b", "limit": 3}, "fp")
    with pytest.raises(RunConfigMismatch, match="different dataset"):
        RunFolder.open(tmp_path, {"model": "a", "limit": 3}, "other")


def test_second_writer_is_refused(tmp_path: Path) -> None:
    with RunFolder.open(tmp_path, {}, "fp"), pytest.raises(RunBusyError, match="in use"):
        RunFolder.open(tmp_path, {}, "fp")


def test_finish_writes_summary_and_status(tmp_path: Path) -> None:
    with RunFolder.open(tmp_path, {}, "fp") as run:
        run.append([_res(0)])
        rec = run.finish({"accuracy": 1.0}, {"total": 1, "done": 1})
    assert rec.status == "done"
    record, _ = load_run(tmp_path)
    assert record.summary == {"accuracy": 1.0} and record.counts["done"] == 1
    assert (tmp_path / "summary.json").exists()


def test_failed_result_is_retried_and_superseded(tmp_path: Path) -> None:
    failed = SampleResult(sample_id="s0", protocol="direct", model="m", error="timeout")
    with RunFolder.open(tmp_path, {}, "fp") as run:
        run.append([failed, _res(1)])
        assert not run.is_done("s0", "direct", "m")
        assert run.is_done("s0", "direct", "m", retry_failed=False)
    with RunFolder.open(tmp_path, {}, "fp") as run:
        assert run.append([_res(0)]) == 1
        assert run.append([failed]) == 0
    _, results = load_run(tmp_path)
    by_id = {r.sample_id: r for r in results}
    assert len(results) == 2 and by_id["s0"].error is None


def test_corrupt_middle_line_is_quarantined_and_the_rest_kept(tmp_path: Path) -> None:
    with RunFolder.open(tmp_path, {}, "fp") as run:
        run.append([_res(i) for i in range(10)])
    results = tmp_path / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    lines[3] = b'{"sample_id": "s3", "proto\xff garbage\n'
    results.write_bytes(b"".join(lines))
    with (
        pytest.warns(RuntimeWarning, match=r"results.jsonl: line 4 is not a valid result"),
        RunFolder.open(tmp_path, {}, "fp") as run,
    ):
        # every valid line is kept, only the bad one is asked again
        assert sorted(r.sample_id for r in run.results()) == sorted(
            f"s{i}" for i in range(10) if i != 3
        )
        assert not run.is_done("s3", "direct", "m")
        assert run.append([_res(3)]) == 1
    assert (tmp_path / "results.quarantine.jsonl").read_bytes() == lines[3]
    _, again = load_run(tmp_path)
    assert sorted(r.sample_id for r in again) == sorted(f"s{i}" for i in range(10))
    # the file is clean again: no warning on the next open
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RunFolder.open(tmp_path, {}, "fp").close()
