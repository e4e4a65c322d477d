"""A new evaluation protocol is one file: a `Protocol` subclass registered here with
`@register_protocol` is accepted by `evaluate(protocol=...)`, asks its own requests, scores
its own metrics, and its runs are summarised like every protocol's."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.models import build_request
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.protocols import (
    PROTOCOLS,
    Protocol,
    RunContext,
    Scored,
    answer_scores,
    register_protocol,
)
from chartproof.runs import load_run
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, ModelResponse, Sample


@pytest.fixture
def twice() -> Iterator[None]:
    @register_protocol
    class AskTwice(Protocol):
        """The question twice; right only when both answers are, `agreement` when equal."""

        name = "twice"

        def requests(self, sample: Sample, ctx: RunContext) -> list[ModelRequest]:
            return [
                build_request(
                    ctx.prompt,
                    ctx.image_parts(sample),
                    sample.question,
                    request_id=f"{sample.id}/{turn}",
                    config=ctx.config,
                    prompts=ctx.prompts,
                    metadata={"sample_id": sample.id, "turn": turn},
                )
                for turn in (1, 2)
            ]

        def score(
            self, sample: Sample, replies: Sequence[ModelResponse], ctx: RunContext
        ) -> Scored:
            first, second = (r.parsed.answer if r.parsed else "" for r in replies)
            both = [answer_scores(a, sample, "direct")["accuracy"] for a in (first, second)]
            return Scored(
                prediction=second,
                output=replies[1].text,
                scores={
                    "accuracy": float(all(v == 1.0 for v in both)),
                    "agreement": float(first == second),
                },
            )

    yield
    PROTOCOLS.unregister("twice")


def _data(root: Path) -> None:
    (root / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8), (0, 120, 0)).save(root / "images" / "c.png")
    save_samples(
        [
            Sample(
                id=f"s{i}",
                image=ImageRef(path="images/c.png"),
                question=f"What is {i}?",
                answer=Answer.of_text(str(i)),
            )
            for i in range(3)
        ],
        root,
    )


def test_a_protocol_added_in_one_file(tmp_path: Path, twice: None) -> None:
    _data(tmp_path / "data")
    assert "twice" in PROTOCOLS and "twice" in list(PROTOCOLS)

    def answer(request: ModelRequest) -> str:
        # s0 right twice, s1 right then wrong, s2 wrong twice (the same wrong answer)
        sample, turn = str(request.metadata["sample_id"]), request.metadata["turn"]
        right = sample == "s0" or (sample == "s1" and turn == 1)
        return f"The answer is: {sample[1:] if right else 'x'}."

    record = evaluate(
        tmp_path / "data",
        out=tmp_path / "run",
        backend=ScriptedBackend(answer),
        protocol="twice",
        cache=False,
    )
    assert record.summary["protocol"] == "twice"
    assert record.summary["counts"]["calls"] == 6
    assert record.summary["scores"]["accuracy"] == pytest.approx(1 / 3)
    assert record.summary["scores"]["agreement"] == pytest.approx(2 / 3)
    _, results = load_run(tmp_path / "run")
    assert [(r.protocol, r.prediction) for r in results] == [
        ("twice", "0"),
        ("twice", "x"),
        ("twice", "x"),
    ]


def test_an_unregistered_protocol_is_refused(tmp_path: Path) -> None:
    _data(tmp_path / "data")
    with pytest.raises(ValueError, match="unknown protocol 'twice'"):
        evaluate(
            tmp_path / "data",
            out=tmp_path / "run",
            backend=ScriptedBackend(lambda r: "1"),
            protocol="twice",
            cache=False,
        )
