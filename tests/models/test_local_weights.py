"""Every local model chartproof loads stays local: no checkpoint code and, under
transformers 5, no Hugging Face Hub kernels (`model_files.local_weights`). Hub kernels
are on by default there wherever the `kernels` package is installed, and on CUDA a model
entering `train()` or `eval()` then fetches and runs a kernel repository's code (seen on an
H100: LoRA training failed offline at its first step). The kernels themselves only run on a
GPU, so here the check is the flag each loaded model carries."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from chartproof.testing.tiny_lm import build_tiny_llama
    from chartproof.testing.tiny_vlm import build_tiny_idefics3

    root = tmp_path_factory.mktemp("local_weights")
    return {"vlm": build_tiny_idefics3(root / "vlm"), "text": build_tiny_llama(root / "text")}


def _kernels_off(model: Any) -> bool:
    return not getattr(model, "use_kernels", False)


def test_options_forbid_remote_code_and_hub_kernels() -> None:
    transformers = pytest.importorskip("transformers")
    from chartproof.model_files import local_weights

    options = local_weights()
    assert options["local_files_only"] is True and options["trust_remote_code"] is False
    major = int(transformers.__version__.split(".")[0])
    assert options.get("use_kernels") is (False if major >= 5 else None)


def test_hf_and_text_backends_load_without_hub_kernels(checkpoints: dict[str, Path]) -> None:
    from chartproof.models import load_backend

    for spec in (f"hf:{checkpoints['vlm']}?device=cpu", f"text:{checkpoints['text']}?device=cpu"):
        backend: Any = load_backend(spec)
        try:
            backend.generate([])  # loads the model
            model = backend.model
            assert model is not None and _kernels_off(model), spec
        finally:
            backend.close()


@pytest.mark.parametrize("kind", ["vlm", "text"])
def test_finetune_base_loads_without_hub_kernels(checkpoints: dict[str, Path], kind: str) -> None:
    from chartproof.pipelines.finetune._base import load_base

    base = load_base(str(checkpoints[kind]), device="cpu")
    assert _kernels_off(base.model)
    base.model.train()  # where transformers 5 would kernelize for training
    assert _kernels_off(base.model)
