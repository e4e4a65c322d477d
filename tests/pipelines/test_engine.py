"""The run engine (`pipelines.engine`): resume, batching, overlap, post-stages, one progress
total over several stages, and what it closes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

import chartproof.executors as executors
from chartproof.pipelines.engine import Stage, open_run
from chartproof.runs import Interrupted, RunConfigMismatch, load_run
from chartproof.testing.scripted import ScriptedBackend
from chartproof.types import SampleResult


@dataclass(frozen=True)
class Item:
    id: str


def items(n: int, prefix: str = "u") -> list[Item]:
    return [Item(f"{prefix}{i}") for i in range(n)]


class Solver:
    """Answers a batch with one result each; remembers the batches it saw."""

    def __init__(self, protocol: str = "p", model: str = "m", fail: set[str] | None = None):
        self.protocol, self.model, self.fail = protocol, model, fail or set()
        self.batches: list[list[str]] = []

    def __call__(self, batch: Sequence[Item]) -> list[SampleResult]:
        self.batches.append([u.id for u in batch])
        return [
            SampleResult(
                sample_id=u.id,
                protocol=self.protocol,
                model=self.model,
                prediction=u.id.upper(),
                error="down" if u.id in self.fail else None,
            )
            for u in batch
        ]


def test_resume_skips_done_units_and_asks_failed_ones_again(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = Solver(fail={"u2"})
    with open_run(out, cache=False) as run:
        run.start({"x": 1}, "fp")
        asked = run.execute([Stage("p", "m", items(5), first, batch_size=2)])
        run.finish({"n": len(run.results())}, {"results": len(run.results())})
    assert asked == 5
    assert first.batches == [["u0", "u1"], ["u2", "u3"], ["u4"]]
    again = Solver()
    seen: list[tuple[int, int]] = []
    with open_run(out, cache=False) as run:
        run.start({"x": 1}, "fp")
        asked = run.execute(
            [Stage("p", "m", items(5), again, batch_size=2)],
            progress=lambda d, t: seen.append((d, t)),
        )
        assert [r.error for r in run.results("p")] == [None] * 5
    assert asked == 1
    assert again.batches == [["u2"]]
    # the bar starts at the 4 units done and ends at all 5
    assert seen[0] == (4, 5) and seen[-1] == (5, 5)
    record, results = load_run(out)
    assert len(results) == 5 and record.summary == {"n": 5}


def test_a_changed_configuration_is_refused(tmp_path: Path) -> None:
    with open_run(tmp_path / "run", cache=False) as run:
        run.start({"x": 1}, "fp")
    with (
        pytest.raises(RunConfigMismatch, match="differs in: x"),
        open_run(tmp_path / "run", cache=False) as run,
    ):
        run.start({"x": 2}, "fp")


def test_a_folder_of_other_files_is_refused_before_anything_loads(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(RunConfigMismatch, match=r"notes\.txt"), open_run(tmp_path):
        raise AssertionError("the run must not open")


def test_several_stages_share_one_progress_total(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    a, b = Solver("a"), Solver("b")
    with open_run(tmp_path / "run", cache=False) as run:
        run.start({}, "fp")
        run.execute(
            [Stage("a", "m", items(3), a, batch_size=3), Stage("b", "m", items(2), b)],
            progress=lambda d, t: seen.append((d, t)),
        )
        assert len(run.results("a")) == 3 and len(run.results("b")) == 2
    assert seen == [(0, 5), (3, 5), (4, 5), (5, 5)]
    assert b.batches == [["u0"], ["u1"]]  # no backend: one unit a batch


def test_post_stages_score_each_batch_before_it_is_recorded(tmp_path: Path) -> None:
    def double(results: list[SampleResult]) -> list[SampleResult]:
        return [r.model_copy(update={"scores": {"k": float(len(results))}}) for r in results]

    with open_run(tmp_path / "run", cache=False) as run:
        run.start({}, "fp")
        run.execute([Stage("p", "m", items(3), Solver(), batch_size=2, after=(double,))])
        assert [r.scores["k"] for r in run.results()] == [2.0, 2.0, 1.0]


def test_a_result_under_another_key_is_refused(tmp_path: Path) -> None:
    with open_run(tmp_path / "run", cache=False) as run:
        run.start({}, "fp")
        with pytest.raises(RuntimeError, match="recorded as protocol 'p', model 'other'"):
            run.execute([Stage("p", "m", items(1), Solver(model="other"))])


def test_a_streaming_stage_records_what_it_yields(tmp_path: Path) -> None:
    def answers(todo: Sequence[Item]) -> Iterator[list[SampleResult]]:
        for u in todo:
            yield Solver()([u])

    with open_run(tmp_path / "run", cache=False) as run:
        run.start({}, "fp")
        assert run.execute([Stage("p", "m", items(3), answers=answers)]) == 3
    with pytest.raises(ValueError, match="exactly one of solve or answers"):
        Stage("p", "m", items(1))


class Configured(ScriptedBackend):
    """A scripted backend declaring an API's request slots or a local model's batch."""

    def __init__(self, **settings: int) -> None:
        super().__init__(lambda r: "ok")
        self.settings = SimpleNamespace(**settings)


def test_an_api_backend_gets_several_batches_at_once_in_completion_order(
    tmp_path: Path,
) -> None:
    backend = Configured(concurrency=4)
    running, most = 0, 0
    lock = threading.Lock()

    def solve(batch: Sequence[Item]) -> list[SampleResult]:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        # the first unit is slow: the others are recorded before it
        time.sleep(0.3 if batch[0].id == "u0" else 0.02)
        with lock:
            running -= 1
        return Solver()(batch)

    with open_run(tmp_path / "run", cache=False) as run:
        run.start({}, "fp")
        run.execute([Stage("p", "m", items(6), solve, backend=backend)])
        order = [r.sample_id for r in run.results()]
    assert most == 4  # one unit a batch, `in_flight` batches at once
    assert order[-1] == "u0" and sorted(order) == [f"u{i}" for i in range(6)]


def test_a_local_backend_gets_its_own_batch_size_one_batch_at_a_time(tmp_path: Path) -> None:
    backend = Configured(batch_size=4)
    solver = Solver()
    with open_run(tmp_path / "run", cache=False) as run:
        run.start({}, "fp")
        run.execute([Stage("p", "m", items(6), solver, backend=backend)])
    assert solver.batches == [["u0", "u1", "u2", "u3"], ["u4", "u5"]]


def test_ctrl_c_keeps_the_batches_recorded(tmp_path: Path) -> None:
    def solve(batch: Sequence[Item]) -> list[SampleResult]:
        if batch[0].id == "u2":
            raise KeyboardInterrupt
        return Solver()(batch)

    with pytest.raises(Interrupted) as info, open_run(tmp_path / "run", cache=False) as run:
        run.start({}, "fp")
        run.execute([Stage("p", "m", items(4), solve)])
    assert (info.value.kept, info.value.total) == (2, 4)
    assert len(load_run(tmp_path / "run").results) == 2


def test_loaded_backends_are_closed_given_ones_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[ScriptedBackend] = []

    def load(spec: str, executor: object = None, **kw: object) -> ScriptedBackend:
        backend = ScriptedBackend(lambda r: "ok", name=spec)
        loaded.append(backend)
        return backend

    monkeypatch.setattr(executors, "load_backend_on", load)
    mine = ScriptedBackend(lambda r: "ok", name="given:model")
    with open_run(tmp_path / "run", cache=tmp_path / "cache.sqlite") as run:
        wrapped = run.backend("scripted:a")
        given = run.backend(mine)
        assert run.loaded(wrapped) is loaded[0] and run.loaded(given) is mine
        assert wrapped.name == "scripted:a" and given.name == "given:model"
        run.start({}, "fp")
    assert loaded[0].closed and not mine.closed


def test_a_model_that_fails_to_load_closes_what_was_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = ScriptedBackend(lambda r: "ok", name="scripted:a")

    def load(spec: str, executor: object = None, **kw: object) -> ScriptedBackend:
        if spec == "scripted:b":
            raise ValueError("no such model scripted:b")
        return first

    monkeypatch.setattr(executors, "load_backend_on", load)
    with pytest.raises(ValueError, match="scripted:b"), open_run(tmp_path / "run") as run:
        run.backend("scripted:a", cached=False)
        run.backend("scripted:b")
    assert first.closed
