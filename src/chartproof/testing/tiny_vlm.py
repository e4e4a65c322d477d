"""Tiny random Idefics3 (SmolVLM architecture) checkpoints for tests of real transformers code.

No weights can be downloaded here, so tests build a ~60k-parameter model from a config and a
locally trained byte-level BPE tokenizer, save it like a real checkpoint, and can overfit it
on a few requests so that generation has a known answer. See DEVELOPERS.md for the pitfalls.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from chartproof.model_files import local_weights
from chartproof.models.hf import chat_inputs, conversation
from chartproof.testing._tiny import byte_level_tokenizer, seeded_model, tiny_llama_config
from chartproof.types import ModelRequest

__all__ = ["CHAT_TEMPLATE", "build_tiny_idefics3", "overfit_tiny_vlm"]

SPECIAL_TOKENS = (
    "<unk>",
    "<pad>",
    "<|im_start|>",
    "<end_of_utterance>",
    "<image>",
    "<fake_token_around_image>",
    "<global-img>",
)

CHAT_TEMPLATE = (
    "<|im_start|>{% for message in messages %}{{ message['role'] | capitalize }}"
    "{% if message['content'][0]['type'] == 'image' %}{{ ':' }}{% else %}{{ ': ' }}{% endif %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% elif part['type'] == 'image' %}{{ '<image>' }}{% endif %}"
    "{% endfor %}<end_of_utterance>\n{% endfor %}"
    "{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)
"""SmolVLM's chat layout in miniature: ``<|im_start|>User:<image>text<end_of_utterance>``."""

_CORPUS = (
    "User: Look at the chart and answer the question. What is the value of the bar?",
    "Assistant: The answer is: 42. Explanation: The red bar reaches 42 on the axis.",
    "True False Yes No Final answer: 0 1 2 3 4 5 6 7 8 9 . , : ; ? ! % ( ) - +",
    "Statement: The blue line is above the green line. Describe the chart.",
)


def build_tiny_idefics3(
    folder: str | os.PathLike[str],
    *,
    corpus: Iterable[str] = _CORPUS,
    seed: int = 0,
    hidden_size: int = 32,
    image_size: int = 32,
) -> Path:
    """Write a tiny random Idefics3 checkpoint (model, tokenizer, image processor, processor).

    The folder reloads through ``AutoProcessor`` / ``AutoModelForImageTextToText`` exactly
    as a downloaded SmolVLM would. Images are resized to at most `image_size` pixels, not
    split, and become 4 image tokens. ``initializer_range=0.2`` keeps the random logits
    spread out enough for a few hundred Adam steps to overfit a handful of examples.
    """
    # transformers' partial annotations fight strict mypy; the modules are used as Any here
    transformers: Any = importlib.import_module("transformers")
    idefics3: Any = importlib.import_module("transformers.models.idefics3.configuration_idefics3")

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = byte_level_tokenizer(
        corpus,
        SPECIAL_TOKENS,
        unk="<unk>",
        pad="<pad>",
        bos="<|im_start|>",
        eos="<end_of_utterance>",
        additional=["<image>", "<fake_token_around_image>", "<global-img>"],
    )
    # without torchvision, transformers 5 offers only the PIL image processor for Idefics3
    image_processor_type = getattr(
        transformers, "Idefics3ImageProcessorPil", transformers.Idefics3ImageProcessor
    )
    image_processor = image_processor_type(
        size={"longest_edge": 2 * image_size},
        max_image_size={"longest_edge": image_size},
        do_image_splitting=False,
    )
    patch = 8
    scale = 2
    image_seq_len = (image_size // patch) ** 2 // scale**2
    processor = transformers.Idefics3Processor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        image_seq_len=image_seq_len,
        chat_template=CHAT_TEMPLATE,
    )
    ids = {
        "pad_token_id": tokenizer.pad_token_id,
        "bos_token_id": tokenizer.bos_token_id,
        "eos_token_id": tokenizer.eos_token_id,
    }
    text_config = tiny_llama_config(tokenizer, hidden_size=hidden_size, max_positions=512)
    vision_config = idefics3.Idefics3VisionConfig(
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=1,
        num_attention_heads=2,
        image_size=image_size,
        patch_size=patch,
        initializer_range=0.2,
    )
    config = transformers.Idefics3Config(
        text_config=text_config.to_dict(),
        vision_config=vision_config.to_dict(),
        scale_factor=scale,
        image_token_id=tokenizer.convert_tokens_to_ids("<image>"),
        **ids,
    )
    model = seeded_model(transformers.Idefics3ForConditionalGeneration, config, tokenizer, seed)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def overfit_tiny_vlm(
    folder: str | os.PathLike[str],
    examples: Sequence[tuple[ModelRequest, str]],
    *,
    steps: int = 300,
    lr: float = 1e-2,
    seed: int = 0,
) -> float:
    """Train the checkpoint in `folder` to answer each request with its text; save it back.

    Prompts are built by the HF backend's own `chat_inputs`, one example at a time (no
    padding, so positions match what batched generation with left padding recomputes).
    Returns the last loss.
    """
    import torch

    transformers: Any = importlib.import_module("transformers")
    path = Path(folder)
    torch.manual_seed(seed)
    processor = transformers.AutoProcessor.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModelForImageTextToText.from_pretrained(path, **local_weights())
    tokenizer = processor.tokenizer
    batches: list[dict[str, Any]] = []
    for request, target in examples:
        prompt = chat_inputs(processor, [conversation(request)])
        answer = tokenizer(
            target + tokenizer.eos_token, add_special_tokens=False, return_tensors="pt"
        )
        n_prompt = prompt["input_ids"].shape[1]
        input_ids = torch.cat([prompt["input_ids"], answer["input_ids"]], dim=1)
        labels = input_ids.clone()
        labels[:, :n_prompt] = -100
        batch = {k: v for k, v in prompt.items() if k not in ("input_ids", "attention_mask")}
        batch.update(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), labels=labels)
        batches.append(batch)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_value = float("nan")
    for step in range(steps):
        batch = batches[step % len(batches)]
        loss = model(**batch).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_value = float(loss.detach())
    model.eval()
    model.save_pretrained(path)
    return loss_value
