"""A tiny random Llama causal LM with a SmolLM2-style chat template, for tests of the
text-over-table backend and of fine-tuning without real weights (see models/tiny_vlm.py for
the VLM counterpart and DEVELOPERS.md for the pitfalls both share)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["TEXT_CHAT_TEMPLATE", "build_tiny_llama"]

TEXT_CHAT_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""SmolLM2's chat layout without its default system turn."""

_CORPUS = (
    "The chart is given as text (its data table) instead of an image. Chart type: pie chart",
    "Title: Sales X-axis title: Year Data table (CSV): Category,Share (%) Year,Value",
    "Look at the chart and answer the question. Question: What is the largest value?",
    "Answer: 42. Explanation: The tallest bar is labelled 42, so the answer is 42.",
    "0 1 2 3 4 5 6 7 8 9 . , : ; ? ! % ( ) - + True False Yes No",
)


def build_tiny_llama(
    folder: str | os.PathLike[str],
    *,
    corpus: Iterable[str] = _CORPUS,
    seed: int = 0,
    hidden_size: int = 64,
) -> Path:
    """Write a ~50k-parameter Llama checkpoint (model, byte-level BPE tokenizer, chat
    template) that loads back through AutoTokenizer / AutoModelForCausalLM."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    transformers: Any = importlib.import_module("transformers")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(
        list(corpus),
        trainers.BpeTrainer(
            vocab_size=400,
            special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        unk_token="<|endoftext|>",
        pad_token="<|im_end|>",
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
        padding_side="left",
    )
    tokenizer.chat_template = TEXT_CHAT_TEMPLATE
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        initializer_range=0.2,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,  # an untied head can take a LoRA adapter in tests
    )
    torch.manual_seed(seed)
    model = transformers.LlamaForCausalLM(config)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
