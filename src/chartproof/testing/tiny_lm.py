"""A tiny random Llama causal LM with a SmolLM2-style chat template, for tests of the
text-over-table backend and of fine-tuning without real weights (see tiny_vlm.py for
the VLM counterpart and DEVELOPERS.md for the pitfalls both share)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from chartproof.testing._tiny import byte_level_tokenizer, seeded_model, tiny_llama_config

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
    transformers: Any = importlib.import_module("transformers")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = byte_level_tokenizer(
        corpus,
        ["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        unk="<|endoftext|>",
        pad="<|im_end|>",
        bos="<|im_start|>",
        eos="<|im_end|>",
    )
    tokenizer.chat_template = TEXT_CHAT_TEMPLATE
    config = tiny_llama_config(
        tokenizer,
        hidden_size=hidden_size,
        max_positions=2048,
        tie_word_embeddings=False,  # an untied head can take a LoRA adapter in tests
    )
    model = seeded_model(transformers.LlamaForCausalLM, config, tokenizer, seed)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
