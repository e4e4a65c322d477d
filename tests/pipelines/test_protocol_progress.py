"""Progress inside one unit of work under the chain and premise protocols: each request a
backend reports ready (`note_answered`) moves the bar by its share of a sample, so a local
model's long waves show progress before the unit is recorded, and the count ends at the
number of samples."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace

import pytest

from chartproof.models.base import note_answered
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate
from chartproof.testing.scripted import ScriptedBackend
from chartproof.types import ModelRequest, ModelResponse


class _RequestByRequest(ScriptedBackend):
    """Answers "1" to every request and reports each as it is answered, as a local model
    reports each row of its batch; one batch holds every sample (`batch_size`)."""

    def __init__(self) -> None:
        super().__init__(lambda _: "1", name="builtin:rows")
        self.settings = SimpleNamespace(batch_size=1000)
        self.asked = 0

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        out = []
        for request in requests:
            out += super().generate([request])
            self.asked += 1
            note_answered(1)
        return out


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data") / "chartr"
    generate("chartr", 3, out, seed=5, per_chart=2, levels=1, workers=1)
    return out


@pytest.mark.parametrize("protocol", ["chain", "premise"])
def test_requests_move_the_bar_by_their_share_of_a_sample(
    data: Path, tmp_path: Path, protocol: str
) -> None:
    backend = _RequestByRequest()
    seen: list[int] = []
    record = evaluate(
        data, out=tmp_path / protocol, protocol=protocol, backend=backend, cache=False,  # type: ignore[arg-type]
        progress=lambda done, total: seen.append(done),
    )  # fmt: skip
    n = record.counts["applicable"]
    assert n >= 2 and backend.asked > n  # several requests a sample
    # the one unit is recorded at the end: every earlier move came from requests, one
    # sample at a time, reaching (nearly: a wave's shares are its mean) every sample
    assert seen[0] == 0 and seen[-1] == n
    moves = seen[:-1]
    assert all(b - a in (0, 1) for a, b in pairwise(moves))
    assert moves[-1] >= n - 1


def test_a_judge_moves_no_bar(data: Path, tmp_path: Path) -> None:
    """A judge grading each unit after it is answered reports its requests too; they are not
    counted again, so the bar never runs ahead of the answers and back."""
    backend = _RequestByRequest()
    backend.settings = SimpleNamespace(batch_size=2)
    judge = _RequestByRequest()
    seen: list[int] = []
    record = evaluate(
        data, out=tmp_path / "judged", backend=backend, judge=judge, cache=False,  # type: ignore[arg-type]
        progress=lambda done, total: seen.append(done),
    )  # fmt: skip
    n = record.counts["applicable"]
    assert judge.asked > 0 and seen[-1] == n
    assert seen == sorted(seen) and max(seen) == n, seen
