"""onnxruntime backends for the ROSCOE model scorers, each graph exported once and cached by a
hash of the checkpoint files: a plain Llama (SmolLM2) as packed rows → next-token NLLs, and
a sentence-transformers encoder (MiniLM) as token ids → last hidden states."""

from __future__ import annotations

import bisect
import hashlib
import os
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.jit._trace import TracerWarning

from chartproof.metrics.roscoe._common import Matrix, token_batches
from chartproof.metrics.roscoe._llama import fused_layers, llama_dims

GRAPH_VERSION = 2  # part of the cached file name: a changed graph is exported afresh
ENCODER_VERSION = 1


class _LlamaNll(torch.nn.Module):
    """Next-token NLL at chosen positions of packed rows, written with ops that export to
    plain ONNX.

    Inputs: `input_ids`, `position_ids` and `segment_ids` (batch, length): several
    BOS-started sequences share a row one after another, each with positions from 0 and its
    own segment id, so a token attends only to the earlier tokens of its own sequence (the
    same arithmetic as one sequence per row, without pad tokens to compute); `scored` (n,):
    flat row-major indices of the positions whose next token is scored; `targets` (n,):
    those next tokens. Output `nll` (n,). Logits are formed only at the scored positions,
    and the NLL is −log softmax (onnxruntime's fused softmax kernel is max-shifted and
    ~3x cheaper than the separate subtract / exp / sum nodes; ReduceLogSumExp shifted every
    row mean by ~2e-4 on SmolLM2). The embedding is read from the (tied or not) output
    matrix only when the checkpoint ties them, so the weights are stored once.
    """

    head: torch.Tensor

    def __init__(self, model: Any, max_length: int) -> None:
        super().__init__()
        base = model.model
        self.heads, self.kv_heads, self.head_dim, self.eps = llama_dims(model.config)
        embed = base.embed_tokens.weight.detach()
        head = model.get_output_embeddings().weight.detach()
        self.tied = embed.data_ptr() == head.data_ptr()
        self.embed: torch.Tensor = embed
        # a buffer becomes one initializer that every node using it shares (a plain tensor
        # attribute would be copied into each node as its own constant)
        self.register_buffer("head", head.t().contiguous())
        self.final_norm = base.norm.weight.detach()
        probe = torch.zeros(1, max_length, self.head_dim)
        cos, sin = base.rotary_emb(probe, torch.arange(max_length).unsqueeze(0))
        self.cos, self.sin = cos[0].detach(), sin[0].detach()
        # matrices as (in × out) for `x @ w`; the norm weights as they are
        self.blocks = [
            tuple(w if w.dim() == 1 else w.t().contiguous() for w in layer)
            for layer in fused_layers(model)
        ]

    def _norm(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * weight

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        half = self.head_dim // 2
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin

    def _embed(self, input_ids: torch.Tensor) -> torch.Tensor:
        if not self.tied:
            return self.embed[input_ids]
        batch, length = input_ids.shape
        columns = torch.index_select(self.head, 1, input_ids.reshape(-1))  # (hidden, b·l)
        return columns.t().reshape(batch, length, -1)

    def forward(
        self,
        input_ids: torch.Tensor,
        position_ids: torch.Tensor,
        segment_ids: torch.Tensor,
        scored: torch.Tensor,
        targets: torch.Tensor,
    ) -> torch.Tensor:
        batch, length = input_ids.shape
        h = self._embed(input_ids)
        cos, sin = self.cos[position_ids][:, None], self.sin[position_ids][:, None]
        later = torch.triu(torch.ones((length, length), dtype=torch.bool), 1)
        other = segment_ids[:, :, None] != segment_ids[:, None, :]
        blocked = torch.logical_or(later[None], other)  # (batch, length, length)
        mask = torch.where(blocked, float("-inf"), 0.0)[:, None, None]
        q_width, kv_width = self.heads * self.head_dim, self.kv_heads * self.head_dim
        group = self.heads // self.kv_heads
        for norm_in, qkv_w, o_w, norm_post, gate_up_w, down_w in self.blocks:
            qkv = self._norm(h, norm_in) @ qkv_w
            q = qkv[..., :q_width].reshape(batch, length, self.heads, self.head_dim)
            k = qkv[..., q_width : q_width + kv_width]
            v = qkv[..., q_width + kv_width :]
            k = k.reshape(batch, length, self.kv_heads, self.head_dim).transpose(1, 2)
            v = v.reshape(batch, length, self.kv_heads, self.head_dim).transpose(1, 2)
            q = self._rotate(q.transpose(1, 2), cos, sin)
            k = self._rotate(k, cos, sin)
            # grouped queries against their shared key/value head, without repeating K/V
            q = q.reshape(batch, self.kv_heads, group * length, self.head_dim)
            scores = (q @ k.transpose(-1, -2)) * (self.head_dim**-0.5)
            scores = scores.reshape(batch, self.kv_heads, group, length, length) + mask
            weights = torch.softmax(scores, -1).reshape(
                batch, self.kv_heads, group * length, length
            )
            out = (weights @ v).reshape(batch, self.heads, length, self.head_dim)
            h = h + out.transpose(1, 2).reshape(batch, length, q_width) @ o_w
            gate, up = (self._norm(h, norm_post) @ gate_up_w).chunk(2, dim=-1)
            h = h + (torch.nn.functional.silu(gate) * up) @ down_w
        picked = h.reshape(batch * length, -1)[scored]
        logits = self._norm(picked, self.final_norm) @ self.head
        chosen = torch.gather(torch.softmax(logits, -1), -1, targets[:, None])[:, 0]
        return -torch.log(chosen)


def checkpoint_digest(folder: Path) -> str:
    """sha256 (16 hex digits) of the checkpoint's config and weight files."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        if name == "config.json" or name.endswith((".safetensors", ".bin")):
            digest.update(name.encode())
            with open(folder / name, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 22), b""):
                    digest.update(block)
    return digest.hexdigest()[:16]


def _export(
    module: torch.nn.Module,
    example: tuple[torch.Tensor, ...],
    target: Path,
    inputs: dict[str, dict[int, str]],
    outputs: dict[str, dict[int, str]],
) -> Path:
    """`module` traced on `example` into an ONNX graph at `target`, written atomically
    (inputs and outputs: name → dynamic axes)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=".export-", suffix=".onnx", dir=target.parent)
    os.close(handle)
    try:
        # the TorchScript exporter (pinned torch) warns that it is legacy, and the tracer that
        # shape checks become constants: each graph is checked against PyTorch by the tests
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.simplefilter("ignore", TracerWarning)
            warnings.filterwarnings("ignore", message="Exporting aten::index", category=UserWarning)
            torch.onnx.export(
                module.eval(),
                example,
                staging,
                input_names=list(inputs),
                output_names=list(outputs),
                dynamic_axes={**inputs, **outputs},
                opset_version=17,
                dynamo=False,
            )
        os.chmod(staging, 0o644)  # mkstemp makes it private; the cache is shared
        os.replace(staging, target)
    finally:
        if os.path.exists(staging):
            os.remove(staging)
    return target


def _session(graph: Path) -> Any:
    """An onnxruntime CPU session on as many threads as torch uses."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = torch.get_num_threads()
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])


def _cached_graph(
    folder: Path, cache_root: Path, kind: str, version: int, export: Callable[[Path], Path]
) -> Path:
    """The `kind` graph of the checkpoint in `folder` under `cache_root`, exported on first
    use; the same checkpoint's `kind` graphs of other versions (~0.1-0.6 GB) are removed."""
    stem = f"{folder.name}-{checkpoint_digest(folder)}-{kind}"
    graph = cache_root / f"{stem}-v{version}.onnx"
    if not graph.exists():
        export(graph)
        for stale in [cache_root / f"{stem}.onnx", *cache_root.glob(f"{stem}-v*.onnx")]:
            if stale != graph:
                stale.unlink(missing_ok=True)
    return graph


def export_nll_graph(model: Any, target: Path, max_length: int) -> Path:
    """Export `model` (a plain transformers Llama) as the packed-row NLL graph of `_LlamaNll`
    to `target`."""
    rows = torch.ones((2, 8), dtype=torch.long)
    example = (rows, torch.arange(8).repeat(2, 1), rows, torch.arange(7), rows[0, :7])
    batch = {0: "batch", 1: "length"}
    names = ("input_ids", "position_ids", "segment_ids")
    return _export(
        _LlamaNll(model, max_length),
        example,
        target,
        {**{k: batch for k in names}, "scored": {0: "n"}, "targets": {0: "n"}},
        {"nll": {0: "n"}},
    )


def pack_rows(lengths: Sequence[int], width: int) -> list[list[int]]:
    """Sequence indices packed into rows: longest first, each into the row whose free space
    fits it most tightly (best fit decreasing); a row holds `width` tokens, or one longer
    sequence and whatever fits after it."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    rows: list[list[int]] = []
    free: list[tuple[int, int]] = []  # (free tokens, row), sorted
    for i in order:
        n = lengths[i]
        at = bisect.bisect_left(free, (n, -1))
        if at < len(free):
            space, row = free.pop(at)
            rows[row].append(i)
            space -= n
        else:
            rows.append([i])
            row, space = len(rows) - 1, max(width, n) - n
        if space > 0:
            bisect.insort(free, (space, row))
    return rows


class OnnxNll:
    """An onnxruntime session over the exported NLL graph.

    Sequences are packed into rows of `width` tokens (no padding to compute beyond the rows'
    ends) and rows of similar length batched up to `max_batch_tokens`: small batches keep
    the (tokens × vocabulary) logits and the layer outputs in cache; on 2 cores, 1,024-token
    batches ran the SmolLM2 pass ~15% faster than 8,192-token ones.
    """

    def __init__(self, graph: Path, width: int = 128, max_batch_tokens: int = 1024) -> None:
        self.session = _session(graph)
        self.width = width
        self.max_batch_tokens = max_batch_tokens

    def token_nll(self, rows: Sequence[Sequence[int]]) -> list[Matrix]:
        """NLL of every token after the first of each BOS-started row (a token whose NLL
        overflows float32, > ~100 nats, comes back as inf)."""
        lengths = [len(r) for r in rows]
        packed = pack_rows(lengths, self.width)
        used = [sum(lengths[i] for i in row) for row in packed]
        out: list[Matrix] = [np.zeros(0)] * len(rows)
        for batch in token_batches(
            used, max(1, self.max_batch_tokens // self.width), self.max_batch_tokens
        ):
            self._run([packed[b] for b in batch], max(used[b] for b in batch), rows, out)
        return out

    def _run(
        self,
        packed: list[list[int]],
        width: int,
        rows: Sequence[Sequence[int]],
        out: list[Matrix],
    ) -> None:
        ids = np.zeros((len(packed), width), dtype=np.int64)
        positions = np.zeros_like(ids)
        segments = np.full_like(ids, -1)
        scored: list[Any] = []
        targets: list[Any] = []
        spans: list[tuple[int, int, int]] = []  # sequence, first scored index, count
        count = 0
        for r, members in enumerate(packed):
            at = 0
            for k, i in enumerate(members):
                n = len(rows[i])
                ids[r, at : at + n] = rows[i]
                positions[r, at : at + n] = np.arange(n)
                segments[r, at : at + n] = k
                scored.append(r * width + at + np.arange(n - 1))
                targets.append(ids[r, at + 1 : at + n])
                spans.append((i, count, n - 1))
                count += n - 1
                at += n
        feeds = {
            "input_ids": ids,
            "position_ids": positions,
            "segment_ids": segments,
            "scored": np.concatenate(scored).astype(np.int64),
            "targets": np.concatenate(targets).astype(np.int64),
        }
        nll = np.asarray(self.session.run(None, feeds)[0], dtype=np.float64)
        for i, begin, n in spans:
            out[i] = nll[begin : begin + n]


def load_onnx_nll(model: Any, folder: Path, cache_root: Path, max_length: int) -> OnnxNll:
    """The cached NLL graph of the checkpoint in `folder` (exported on first use, ~20 s)."""
    return OnnxNll(
        _cached_graph(
            folder,
            cache_root,
            str(max_length),
            GRAPH_VERSION,
            lambda target: export_nll_graph(model, target, max_length),
        )
    )


class _Encoder(torch.nn.Module):
    """A transformers encoder as (input_ids, attention_mask) → last hidden states."""

    def __init__(self, transformer: Any) -> None:
        super().__init__()
        self.transformer = transformer

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out = self.transformer(input_ids=input_ids, attention_mask=attention_mask)
        hidden: torch.Tensor = out.last_hidden_state
        return hidden


class OnnxEncoder:
    """An onnxruntime session over an exported encoder (~1.3x faster than PyTorch for
    all-MiniLM-L6-v2 on 2 cores; hidden states within ~1e-4)."""

    def __init__(self, graph: Path) -> None:
        self.session = _session(graph)

    def hidden(self, input_ids: Any, attention_mask: Any) -> Any:
        """(batch, length, hidden) float32 last hidden states."""
        feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
        return self.session.run(None, feeds)[0]


def load_onnx_encoder(transformer: Any, folder: Path, cache_root: Path) -> OnnxEncoder:
    """The cached graph of the encoder whose checkpoint is in `folder` (exported on first
    use, a few seconds for MiniLM)."""

    def export(target: Path) -> Path:
        ids = torch.ones((2, 8), dtype=torch.long)
        axes = {0: "batch", 1: "length"}
        return _export(
            _Encoder(transformer),
            (ids, ids),
            target,
            {"input_ids": axes, "attention_mask": axes},
            {"hidden": {0: "batch", 1: "length"}},
        )

    return OnnxEncoder(_cached_graph(folder, cache_root, "encoder", ENCODER_VERSION, export))
