"""Local Hugging Face backend on a tiny Idefics3 (SmolVLM architecture) built in the test.

The checkpoint is saved and reloaded through the Auto* classes like a downloaded one, then
overfit so that batched greedy generation (left padding, mixed prompt lengths, different
images) has known answers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from chartproof.models import load_backend
from chartproof.models.prompts import build_request
from chartproof.types import GenerationConfig, ModelRequest

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[ModelRequest, str]]]:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from PIL import Image

    from chartproof.testing.tiny_vlm import build_tiny_idefics3, overfit_tiny_vlm

    root = tmp_path_factory.mktemp("tiny_vlm")
    red, blue = root / "red.png", root / "blue.png"
    Image.new("RGB", (80, 60), (220, 30, 30)).save(red)
    Image.new("RGB", (40, 90), (20, 40, 210)).save(blue)
    question = "What is the value of the bar?"
    examples = [
        (build_request("short", red, question, request_id="red"), "42"),
        # same text, other image: the answer can only come from the pixels
        (build_request("short", blue, question, request_id="blue"), "7"),
        # another prompt, shorter: left padding in the batch
        (build_request("premise", blue, "The blue bar is tallest.", request_id="p"), "False"),
    ]
    folder = build_tiny_idefics3(root / "ckpt")
    loss = overfit_tiny_vlm(folder, examples, steps=120)
    assert loss < 0.05
    return folder, examples


@pytest.mark.slow
def test_batched_greedy_generation_reproduces_trained_answers(
    tiny: tuple[Path, list[tuple[ModelRequest, str]]],
) -> None:
    folder, examples = tiny
    backend = load_backend(f"hf:{folder}?device=cpu&dtype=float32&batch_size=4")
    try:
        requests = [r for r, _ in examples] + [examples[0][0].model_copy(update={"id": "again"})]
        out = backend.generate(requests)
        one_by_one = [backend.generate([r])[0] for r in requests]
    finally:
        backend.close()
    expected = [t for _, t in examples] + ["42"]
    assert [r.request_id for r in out] == ["red", "blue", "p", "again"]
    assert [r.error for r in out] == [None] * 4
    assert [r.text for r in out] == expected
    assert [r.text for r in one_by_one] == expected
    assert out[2].parsed is not None and out[2].parsed.truth is False
    assert out[0].usage.output_tokens == len(backend_tokens(folder, "42")) + 1  # + end token
    assert out[0].usage.input_tokens is not None
    assert out[2].usage.input_tokens is not None
    assert out[2].usage.input_tokens < out[0].usage.input_tokens


def backend_tokens(folder: Path, text: str) -> list[int]:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    return list(tok(text, add_special_tokens=False)["input_ids"])


@pytest.mark.slow
def test_errors_stay_per_request_and_identity_fingerprints_the_folder(
    tiny: tuple[Path, list[tuple[ModelRequest, str]]], tmp_path: Path
) -> None:
    from chartproof.models.hf import HFBackend, HFSettings, checkpoint_fingerprint

    folder, examples = tiny
    gone = tmp_path / "gone.png"
    gone.write_bytes((folder.parent / "red.png").read_bytes())
    lost = build_request("short", gone, "Q?", request_id="lost")
    gone.unlink()
    backend = HFBackend(folder, HFSettings(batch_size=2))
    try:
        capped = examples[0][0].model_copy(
            update={"id": "capped", "config": GenerationConfig(max_tokens=1)}
        )
        stopped = examples[0][0].model_copy(
            update={"id": "stopped", "config": GenerationConfig(stop=("2",))}
        )
        sampled = examples[0][0].model_copy(
            update={"id": "sampled", "config": GenerationConfig(temperature=0.8, seed=3)}
        )
        out = backend.generate([lost, examples[0][0], capped, stopped, sampled])
    finally:
        backend.close()
    assert out[0].error is not None and "cannot read image" in out[0].error
    assert out[1].text == "42"
    assert out[2].usage.output_tokens == 1  # its own settings, in its own batch
    assert out[3].text == "4"  # stop strings end generation and are not returned
    assert out[4].error is None
    assert backend.identity.kind == "hf" and backend.identity.model == "ckpt"
    assert backend.identity.revision == checkpoint_fingerprint(folder)


def test_missing_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="only loads local folders"):
        load_backend(f"hf:{tmp_path / 'SmolVLM-256M-Instruct'}")
    with pytest.raises(FileNotFoundError, match=r"no config\.json"):
        load_backend(f"hf:{tmp_path}")


def test_core_imports_stay_light() -> None:
    code = (
        "import sys, chartproof.models, chartproof.models.cache, chartproof.models.registry;"
        "heavy = [m for m in ('torch', 'transformers', 'openai', 'aiohttp') if m in sys.modules];"
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
