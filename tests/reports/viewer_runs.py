"""Two scripted runs of one small generated dataset, for the viewer tests: model A answers
right where a hash of the sample id says so, model B on another hash, both sometimes with
hostile text; the second run also misses some samples and has one more."""

from __future__ import annotations

import hashlib
from pathlib import Path

from chartproof.datasets import load_dataset
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest, Sample

HOSTILE = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"


def _bucket(sample_id: str, salt: str) -> int:
    return hashlib.sha1((salt + sample_id).encode()).digest()[0]


def scripted(samples: dict[str, Sample], salt: str, right_below: int) -> ScriptedBackend:
    def answer(request: ModelRequest) -> str:
        sample = samples[str(request.metadata["sample_id"])]
        b = _bucket(sample.id, salt)
        if b % 17 == 0:
            raise RuntimeError("scripted timeout")
        if b < right_below:
            text = sample.answer.text()
            if sample.choices:
                text = "ABCDEFGH"[sample.choices.index(text)]
            return f"The answer is: {text}. Explanation: read off the chart."
        return f"The answer is: {HOSTILE}. Explanation: {HOSTILE}"

    return ScriptedBackend(answer, name=f"scripted:{salt}")


def two_runs(root: Path, n_charts: int = 3) -> tuple[Path, Path, Path]:
    """(data folder, run A, run B); run B leaves out the last three samples of A."""
    data = root / "data"
    generate(out=data, n=n_charts, seed=3, variants=("blur",), levels=2)
    samples = {s.id: s for s in load_dataset(data).samples}
    evaluate(data, out=root / "run_a", backend=scripted(samples, "a", 170), cache=False)  # fmt: skip
    evaluate(data, out=root / "run_b", backend=scripted(samples, "b", 120), cache=False,
             limit=len(samples) - 3)  # fmt: skip
    return data, root / "run_a", root / "run_b"
