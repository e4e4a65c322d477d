"""What the tiny random test checkpoints share: a byte-level BPE tokenizer trained on a few
sentences, a two-layer Llama config over it, and a seeded model whose generation config
knows the pad and end tokens."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["byte_level_tokenizer", "seeded_model", "tiny_llama_config"]


def byte_level_tokenizer(
    corpus: Iterable[str],
    special_tokens: Sequence[str],
    *,
    unk: str,
    pad: str,
    bos: str,
    eos: str,
    additional: Sequence[str] = (),
) -> Any:
    """A left-padding fast tokenizer with a 400-entry byte-level BPE trained on `corpus`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    # transformers' partial annotations fight strict mypy; the module is used as Any here
    transformers: Any = importlib.import_module("transformers")
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(
        list(corpus),
        trainers.BpeTrainer(
            vocab_size=400,
            special_tokens=list(special_tokens),
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    # only named when there are some, so the saved tokenizer files stay as they were
    extra: dict[str, Any] = {"additional_special_tokens": list(additional)} if additional else {}
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        unk_token=unk,
        pad_token=pad,
        bos_token=bos,
        eos_token=eos,
        **extra,
        padding_side="left",
    )


def tiny_llama_config(tokenizer: Any, *, hidden_size: int, max_positions: int, **extra: Any) -> Any:
    """A two-layer, two-head Llama config over `tokenizer`'s vocabulary and special ids;
    ``initializer_range=0.2`` keeps random logits spread out enough to overfit quickly."""
    transformers: Any = importlib.import_module("transformers")
    return transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=max_positions,
        initializer_range=0.2,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **extra,
    )


def seeded_model(model_class: Any, config: Any, tokenizer: Any, seed: int) -> Any:
    """`model_class(config)` initialised from `seed`, generating with the tokenizer's pad
    and end tokens."""
    import torch

    torch.manual_seed(seed)
    model = model_class(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return model
