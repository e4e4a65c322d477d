"""Helpers shared by the ROSCOE model scorers: lazy torch import, local-folder checks, unit
rows and length-sorted batching."""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from chartproof.model_files import SMOLLM2_GGUF as SMOLLM2_GGUF
from chartproof.model_files import cache_root as cache_root

Matrix = NDArray[np.float64]
INSTALL_TEXT = "pip install 'chartproof[text]'"
BACKENDS = ("auto", "onnx", "torch")

log = logging.getLogger("chartproof.metrics.roscoe")


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'auto', 'onnx' or 'torch', got {backend!r}")
    return backend


def onnx_session(backend: str, what: str, make: Callable[[], Any]) -> Any:
    """`make()` (an onnxruntime session over an exported graph) as `backend` asks: never for
    "torch"; for "onnx" required, errors raised; for "auto" when `onnx` and `onnxruntime`
    import, else None, and any export or load failure logged with its reason and None (the
    caller stays on PyTorch)."""
    if backend == "torch":
        return None
    if not all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime")):
        if backend == "onnx":
            raise ImportError(f"backend='onnx' needs onnx and onnxruntime: {INSTALL_TEXT}")
        return None
    try:
        return make()
    except Exception as error:  # any export/runtime failure leaves the PyTorch path
        if backend == "onnx":
            raise
        log.warning("%s: onnxruntime backend off, PyTorch instead (%s)", what, error)
        return None


def import_torch() -> Any:
    """torch, imported on first use (a missing one names the extra to install)."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"ROSCOE model scorers need torch and transformers: {INSTALL_TEXT}"
        ) from exc
    return torch


def local_dir(path: str | Path, what: str) -> Path:
    """`path` as an existing folder, or a FileNotFoundError naming the model it was for."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{what}: {folder} is not a local model folder (model hubs are not reached; "
            "download the checkpoint and pass its folder)"
        )
    return folder


def unit_rows(matrix: Any) -> Matrix:
    """Rows scaled to unit length (zero rows stay zero), as float64."""
    rows = np.asarray(matrix, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] == 0:
        return rows.reshape(0, rows.shape[-1] if rows.ndim == 2 else 0)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(rows / np.where(norms == 0, 1.0, norms), dtype=np.float64)


def length_batches(lengths: Sequence[int], batch_size: int) -> Iterator[list[int]]:
    """Indices grouped into batches of similar length (less padding)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def token_batches(
    lengths: Sequence[int],
    max_rows: int,
    max_tokens: int,
    max_padding: float = 0.1,
    free_padding: int = 128,
) -> Iterator[list[int]]:
    """Indices sorted by length, in batches of at most `max_rows` rows, `max_tokens` padded
    tokens and a `max_padding` share of padding beyond `free_padding` pad tokens (CPU
    inference is bound by work: large batches of a long-tailed length mix would be mostly
    pads, while a few pads among short rows cost less than another batch)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batch: list[int] = []
    real = 0
    for i in order:
        rows, padded = len(batch) + 1, (len(batch) + 1) * lengths[i]
        waste = padded - real - lengths[i]
        if batch and (
            rows > max_rows
            or padded > max_tokens
            or waste > max(max_padding * padded, free_padding)
        ):
            yield batch
            batch, real = [], 0
        batch.append(i)
        real += lengths[i]
    if batch:
        yield batch
