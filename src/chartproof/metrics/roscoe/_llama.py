"""A lean forward pass for plain Llama-architecture causal LMs (SmolLM2) on right-padded
batches: the same weights and arithmetic as transformers' forward, with fewer memory passes."""

from __future__ import annotations

from typing import Any

from chartproof.metrics.roscoe._common import import_torch


def llama_dims(config: Any) -> tuple[int, int, int, float]:
    """(query heads, key/value heads, head dimension, RMSNorm epsilon) of a Llama config."""
    heads = int(config.num_attention_heads)
    head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // heads)
    return heads, int(config.num_key_value_heads), head_dim, float(config.rms_norm_eps)


def fused_layers(model: Any, head_order: Any = None) -> list[tuple[Any, ...]]:
    """Each decoder layer's weights, detached, in `nn.Linear` layout (out × in): (input norm,
    Q/K/V stacked, O, post-attention norm, gate/up stacked, down). `head_order` permutes the
    dimensions within every query and key head (the same for both leaves q·k unchanged)."""
    torch = import_torch()
    heads, kv_heads, head_dim, _ = llama_dims(model.config)
    layers: list[tuple[Any, ...]] = []
    with torch.no_grad():
        for layer in model.model.layers:
            attn, mlp = layer.self_attn, layer.mlp
            q, k = attn.q_proj.weight, attn.k_proj.weight
            if head_order is not None:
                q = q.view(heads, head_dim, -1)[:, head_order].flatten(0, 1)
                k = k.view(kv_heads, head_dim, -1)[:, head_order].flatten(0, 1)
            layers.append(
                tuple(
                    w.detach().contiguous()
                    for w in (
                        layer.input_layernorm.weight,
                        torch.cat([q, k, attn.v_proj.weight]),
                        attn.o_proj.weight,
                        layer.post_attention_layernorm.weight,
                        torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight]),
                        mlp.down_proj.weight,
                    )
                )
            )
    return layers


class LeanLlama:
    """Last hidden states of a transformers `LlamaForCausalLM`'s base model, for right-padded
    rows only (each row's real tokens come first).

    Why it exists: on CPU, transformers' Llama forward spends about a third of its time
    outside the matrix products (RMSNorm in five passes, rotary embeddings with a `cat` per
    head tensor, a 4-D padding mask that sends attention down the slow masked path). Here
    Q/K/V and gate/up are one matrix product each, RMSNorm is torch's fused kernel, rotary
    is applied to queries and keys together, and attention is causal-only: with right
    padding a real token never sees a pad, so the padding mask changes no real position and
    the fused causal attention kernel can run. Outputs at pad positions are meaningless.
    """

    def __init__(self, model: Any) -> None:
        torch = import_torch()
        base = model.model
        self.heads, self.kv_heads, self.head_dim, self.eps = llama_dims(model.config)
        self.scaling = float(self.head_dim**-0.5)
        self.embed = base.embed_tokens.weight
        self.rotary = base.rotary_emb
        self.final_norm = base.norm.weight
        half = self.head_dim // 2
        # q·k is unchanged when both permute their head dimensions alike: pairing dimension
        # i with i + half makes rotary a complex product (one op instead of seven)
        interleave = torch.stack([torch.arange(half), torch.arange(half) + half], 1).flatten()
        self.layers = fused_layers(model, interleave)

    @staticmethod
    def supports(model: Any) -> bool:
        """Whether `model` is a plain Llama (no biases, default rotary, SiLU MLP, eval mode)
        whose forward this class reproduces."""
        config = getattr(model, "config", None)
        if config is None or getattr(config, "model_type", None) != "llama":
            return False
        rope = getattr(config, "rope_parameters", None) or {}
        return (
            not getattr(config, "attention_bias", True)
            and not getattr(config, "mlp_bias", True)
            and getattr(config, "hidden_act", None) == "silu"
            and rope.get("rope_type", "default") == "default"
            and int(getattr(config, "pretraining_tp", 1)) == 1
            and not model.training
        )

    def hidden(self, input_ids: Any) -> Any:
        """(batch, length, hidden) last hidden states after the final norm."""
        torch = import_torch()
        functional = torch.nn.functional
        batch, length = input_ids.shape
        h = functional.embedding(input_ids, self.embed)
        cos, sin = self.rotary(h, torch.arange(length).unsqueeze(0))
        half = self.head_dim // 2
        turn = torch.complex(cos[0, :, None, :half], sin[0, :, None, :half])  # (length, 1, half)
        qk_heads = self.heads + self.kv_heads
        q_width, qk_width = self.heads * self.head_dim, qk_heads * self.head_dim
        dims = (h.shape[-1],)
        for norm_in, qkv_w, o_w, norm_post, gate_up_w, down_w in self.layers:
            qkv = functional.linear(functional.rms_norm(h, dims, norm_in, self.eps), qkv_w)
            pairs = qkv[..., :qk_width].reshape(batch, length, qk_heads, half, 2)
            rotated = torch.view_as_real(torch.view_as_complex(pairs) * turn).flatten(-2)
            out = functional.scaled_dot_product_attention(
                rotated[:, :, : self.heads].transpose(1, 2),
                rotated[:, :, self.heads :].transpose(1, 2),
                qkv[..., qk_width:].unflatten(-1, (self.kv_heads, self.head_dim)).transpose(1, 2),
                is_causal=True,
                scale=self.scaling,
                enable_gqa=True,
            )
            h = h + functional.linear(out.transpose(1, 2).reshape(batch, length, q_width), o_w)
            gate, up = functional.linear(
                functional.rms_norm(h, dims, norm_post, self.eps), gate_up_w
            ).chunk(2, dim=-1)
            h = h + functional.linear(functional.silu(gate) * up, down_w)
        return functional.rms_norm(h, dims, self.final_norm, self.eps)
