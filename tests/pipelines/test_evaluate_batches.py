"""How `evaluate` feeds a backend: an API backend one sample per call, as many calls at once
as it has request slots, each result recorded as it finishes; a local model its own batch
size, one batch at a time, results in order."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.models.base import accepts_overlap, answered, in_flight
from chartproof.pipelines.evaluate import evaluate
from chartproof.runs import load_run
from chartproof.types import Answer, ImageRef, ModelRequest, ModelResponse, Sample


class _Recorder:
    """A backend that answers each question with its number after a short wait, and
    records how many `generate` calls ran at once and how big they were."""

    def __init__(self, concurrency: int | None) -> None:
        self.settings = SimpleNamespace(concurrency=concurrency) if concurrency else None
        self.name = "recorder"
        self.sizes: list[int] = []
        self.running = self.peak = 0
        self._lock = threading.Lock()

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        with self._lock:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.sizes.append(len(requests))
        time.sleep(0.05)
        with self._lock:
            self.running -= 1
        return [
            answered(r, self.name, f"The answer is: {r.id.split('/')[0][1:]}.") for r in requests
        ]

    def close(self) -> None:
        pass


class _Wrapper:
    def __init__(self, inner: object) -> None:
        self.inner = inner


CASES: list[tuple[str, object, int, bool]] = [
    ("API backend", SimpleNamespace(settings=SimpleNamespace(concurrency=64)), 64, True),
    (
        "wrapped API backend",
        _Wrapper(SimpleNamespace(settings=SimpleNamespace(concurrency=8))),
        8,
        True,
    ),
    ("local model", SimpleNamespace(settings=SimpleNamespace(batch_size=4)), 4, False),
    ("no settings", SimpleNamespace(), 1, False),
    ("bool is not a size", SimpleNamespace(settings=SimpleNamespace(batch_size=True)), 1, False),
]


@pytest.mark.parametrize(
    ("backend", "slots", "overlap"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_in_flight_and_overlap(backend: object, slots: int, overlap: bool) -> None:
    assert in_flight(backend) == slots
    assert accepts_overlap(backend) is overlap


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    (folder / "images").mkdir(parents=True)
    Image.new("RGB", (40, 30), (200, 200, 200)).save(folder / "images" / "c.png")
    samples = [
        Sample(
            id=f"s{i}",
            image=ImageRef(path="images/c.png"),
            question=f"Question {i}?",
            answer=Answer.number(float(i)),
        )
        for i in range(100)
    ]
    save_samples(samples, folder)
    return folder


@pytest.mark.parametrize(("concurrency", "peak", "size"), [(8, 8, 1), (None, 1, 1)])
def test_api_backends_answer_sample_by_sample_in_parallel(
    data: Path, tmp_path: Path, concurrency: int | None, peak: int, size: int
) -> None:
    backend = _Recorder(concurrency)
    record = evaluate(data, out=tmp_path / "run", prompt="short", backend=backend, cache=False)  # type: ignore[arg-type]
    assert backend.peak == peak
    assert set(backend.sizes) == {size} and sum(backend.sizes) == 100
    assert record.counts["answered"] == 100
    metrics = {m["metric"]: m["value"] for m in record.summary["metrics"]}
    assert metrics["accuracy"] == 1.0
    _, results = load_run(tmp_path / "run")
    ids = [r.sample_id for r in results]
    if concurrency:  # recorded as they finish
        assert sorted(ids) == sorted(f"s{i}" for i in range(100))
    else:
        assert ids == [f"s{i}" for i in range(100)]


def test_a_local_model_gets_its_own_batch_size(data: Path, tmp_path: Path) -> None:
    backend = _Recorder(None)
    backend.settings = SimpleNamespace(batch_size=12)
    evaluate(data, out=tmp_path / "run", prompt="short", backend=backend, cache=False)  # type: ignore[arg-type]
    assert backend.peak == 1 and backend.sizes == [12] * 8 + [4]


def test_a_batch_answered_in_parts_moves_the_bar(data: Path, tmp_path: Path) -> None:
    """A backend that answers its batch in parts (a fanned-out model, chunk by chunk) moves
    the progress hook inside the batch; what is recorded still comes per batch."""
    from chartproof.models.base import note_answered

    class _Chunked(_Recorder):
        def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
            out = []
            for start in range(0, len(requests), 10):
                out += super().generate(requests[start : start + 10])
                note_answered(len(requests[start : start + 10]))
            return out

    backend = _Chunked(None)
    backend.settings = SimpleNamespace(batch_size=50)
    seen: list[tuple[int, int]] = []
    evaluate(
        data, out=tmp_path / "run", prompt="short", backend=backend, cache=False,  # type: ignore[arg-type]
        progress=lambda done, total: seen.append((done, total)),
    )  # fmt: skip
    assert [d for d, _ in seen] == [0, 10, 20, 30, 40, 50, 50, 60, 70, 80, 90, 100, 100]
    assert {t for _, t in seen} == {100}
