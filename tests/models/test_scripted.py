"""ScriptedBackend: answers in order, turns exceptions into error records, counts calls."""

from __future__ import annotations

from chartproof.models import Backend
from chartproof.testing import ScriptedBackend
from chartproof.types import Message, ModelRequest, TextPart


def _req(i: int, prompt: str = "short@1") -> ModelRequest:
    return ModelRequest(
        id=f"r{i}",
        messages=(Message(role="user", content=(TextPart(text=str(i)),)),),
        prompt=prompt,
    )


def test_scripted_answers_in_order_and_fails_honestly() -> None:
    def script(req: ModelRequest) -> str:
        n = int(req.id[1:])
        if n == 2:
            raise RuntimeError("model down")
        return f"The answer is {n * 10}."

    backend = ScriptedBackend(script)
    assert isinstance(backend, Backend)
    out = backend.generate([_req(i) for i in range(4)])
    assert [r.request_id for r in out] == ["r0", "r1", "r2", "r3"]
    assert [r.parsed.answer if r.parsed else None for r in out] == ["0", "10", None, "30"]
    assert out[2].error == "RuntimeError: model down" and not out[2].ok
    assert backend.calls == 4 and backend.batches == 1


def test_parsing_follows_the_prompt() -> None:
    backend = ScriptedBackend(lambda r: "False.")
    (resp,) = backend.generate([_req(0, prompt="premise@1")])
    assert resp.parsed is not None and resp.parsed.truth is False
