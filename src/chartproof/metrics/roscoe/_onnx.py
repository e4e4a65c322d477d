"""onnxruntime backend for the perplexity scorer: a plain Llama (SmolLM2) exported once to an
ONNX graph that maps token ids to next-token NLLs, cached by a hash of the checkpoint files."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from chartproof.metrics.roscoe._common import Matrix


class _LlamaNll(torch.nn.Module):
    """Next-token NLL of every position of right-padded rows, written with ops that export
    to plain ONNX: real-valued rotary, explicit causal attention (right padding means a real
    token never sees a pad), and a max-shifted logsumexp (onnxruntime's ReduceLogSumExp
    shifted every row mean by ~2e-4 on SmolLM2)."""

    def __init__(self, model: Any, max_length: int) -> None:
        super().__init__()
        base, config = model.model, model.config
        self.heads = int(config.num_attention_heads)
        self.kv_heads = int(config.num_key_value_heads)
        self.head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // self.heads)
        self.eps = float(config.rms_norm_eps)
        self.embed = base.embed_tokens.weight.detach()
        self.head = model.get_output_embeddings().weight.detach().t()
        self.final_norm = base.norm.weight.detach()
        probe = torch.zeros(1, max_length, self.head_dim)
        cos, sin = base.rotary_emb(probe, torch.arange(max_length).unsqueeze(0))
        self.cos, self.sin = cos[0].detach(), sin[0].detach()
        self.blocks: list[tuple[torch.Tensor, ...]] = []
        for layer in base.layers:
            attn, mlp = layer.self_attn, layer.mlp
            qkv = torch.cat([attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight])
            gate_up = torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight])
            self.blocks.append(
                tuple(
                    w.detach().contiguous()
                    for w in (
                        layer.input_layernorm.weight,
                        qkv.t(),
                        attn.o_proj.weight.t(),
                        layer.post_attention_layernorm.weight,
                        gate_up.t(),
                        mlp.down_proj.weight.t(),
                    )
                )
            )

    def _norm(self, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * weight

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        half = self.head_dim // 2
        return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        batch, length = input_ids.shape
        h = self.embed[input_ids]
        cos, sin = self.cos[:length][None, None], self.sin[:length][None, None]
        causal = torch.triu(torch.full((length, length), float("-inf")), 1)
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
            k = self._rotate(k, cos, sin).repeat_interleave(group, 1)
            scores = (q @ k.transpose(-1, -2)) * (self.head_dim**-0.5) + causal
            out = torch.softmax(scores, -1) @ v.repeat_interleave(group, 1)
            h = h + out.transpose(1, 2).reshape(batch, length, q_width) @ o_w
            gate, up = (self._norm(h, norm_post) @ gate_up_w).chunk(2, dim=-1)
            h = h + (torch.nn.functional.silu(gate) * up) @ down_w
        logits: torch.Tensor = self._norm(h, self.final_norm)[:, :-1] @ self.head
        top = logits.amax(-1, keepdim=True)
        lse = top[..., 0] + torch.log(torch.exp(logits - top).sum(-1))
        return lse - torch.gather(logits, -1, input_ids[:, 1:, None])[..., 0]


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


def export_nll_graph(model: Any, target: Path, max_length: int) -> Path:
    """Export `model` (a plain transformers Llama) as an ONNX graph `input_ids` (batch,
    length) → `nll` (batch, length − 1) to `target`, written atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(prefix=".export-", suffix=".onnx", dir=target.parent)
    os.close(handle)
    try:
        with torch.no_grad():
            module = _LlamaNll(model, max_length).eval()
            torch.onnx.export(
                module,
                (torch.ones((2, 8), dtype=torch.long),),
                staging,
                input_names=["input_ids"],
                output_names=["nll"],
                dynamic_axes={"input_ids": {0: "batch", 1: "length"}, "nll": {0: "batch", 1: "n"}},
                opset_version=17,
                dynamo=False,
            )
        os.chmod(staging, 0o644)  # mkstemp makes it private; the cache is shared
        os.replace(staging, target)
    finally:
        if os.path.exists(staging):
            os.remove(staging)
    return target


class OnnxNll:
    """An onnxruntime session over the exported graph, on as many threads as torch uses."""

    def __init__(self, graph: Path) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])

    def nll(self, input_ids: np.ndarray[Any, np.dtype[np.int64]]) -> Matrix:
        """(batch, length − 1) NLL of each next token; meaningless after a row's end."""
        out = self.session.run(None, {"input_ids": input_ids})[0]
        return np.asarray(out, dtype=np.float64)


def load_onnx_nll(model: Any, folder: Path, cache_root: Path, max_length: int) -> OnnxNll:
    """The cached graph of the checkpoint in `folder` (exported on first use, ~20-40 s)."""
    graph = cache_root / f"{folder.name}-{checkpoint_digest(folder)}-{max_length}.onnx"
    if not graph.exists():
        export_nll_graph(model, graph, max_length)
    return OnnxNll(graph)
