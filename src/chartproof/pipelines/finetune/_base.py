"""What SFT and DPO share: the base model (a local VLM or a text-over-table causal LM), how a
request plus a target become token ids with the prompt masked, the padding collator, the LoRA
config, and the memory estimate of `--dry-run`. torch/transformers/peft load on first use."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from chartproof.model_files import local_weights
from chartproof.models.base import loading
from chartproof.models.hf import adapter_fingerprint as _adapter_fingerprint
from chartproof.models.hf import chat_inputs, checkpoint_fingerprint, conversation
from chartproof.models.registry import backend_kind, looks_like_spec, parse_spec, require
from chartproof.models.text_llm import NAMED_MODELS, resolve_text_model, text_messages
from chartproof.types import ModelRequest, Record

__all__ = [
    "IGNORE",
    "BaseCheckpoint",
    "Encoded",
    "LoRASettings",
    "ModelKind",
    "TrainSettings",
    "base_kind",
    "collate",
    "estimate_memory",
    "load_base",
]

IGNORE = -100
"""Label of a token left out of the loss (the prompt's tokens and the padding)."""

ModelKind = Literal["text", "vlm"]
"""A text-over-table causal LM or an image-text-to-text VLM."""


class LoRASettings(Record):
    """The LoRA adapter trained on top of the frozen base (peft `LoraConfig`)."""

    r: int = Field(default=8, ge=1)
    """Rank of the update matrices."""
    alpha: int = Field(default=16, ge=1)
    """Scale numerator: the update is multiplied by alpha / r."""
    dropout: float = Field(default=0.05, ge=0, lt=1)
    """Dropout on the adapter's input."""
    target_modules: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj")
    """Module names that get adapters (attention projections of Llama-family models)."""


class TrainSettings(Record):
    """Optimiser and loop settings shared by SFT and DPO (Hugging Face Trainer arguments)."""

    max_steps: int = Field(default=200, ge=1)
    """Optimiser steps."""
    batch_size: int = Field(default=4, ge=1)
    """Examples per device step."""
    grad_accum: int = Field(default=1, ge=1)
    """Steps of gradient accumulation per optimiser step."""
    learning_rate: float = Field(default=2e-4, gt=0)
    """Peak learning rate (linear decay after warm-up)."""
    warmup_steps: int = Field(default=0, ge=0)
    """Linear warm-up steps."""
    seed: int = 0
    """Seed of initialisation, dropout and data order (same seed, same adapter)."""
    save_steps: int = Field(default=50, ge=1)
    """Checkpoint every this many steps (resume restarts from the last one)."""
    eval_steps: int = Field(default=50, ge=1)
    """Validation loss every this many steps (when there is a validation split)."""
    logging_steps: int = Field(default=5, ge=1)
    """Training loss logged every this many steps."""
    device: str = "auto"
    """"cpu", "cuda", or auto (the GPU when there is one)."""
    dtype: Literal["auto", "float32", "bfloat16"] = "auto"
    """Weight dtype: auto is bfloat16 on a GPU that supports it (bf16 mixed precision),
    float32 on CPU."""
    max_length: int = Field(default=1024, ge=16)
    """Longest prompt + target in tokens; longer examples are dropped and counted."""


@dataclass
class Encoded:
    """One training sequence: prompt + target ids, labels with the prompt masked, and for
    VLMs the processor's image tensors."""

    input_ids: list[int]
    """Prompt tokens then target tokens (the end-of-turn token last)."""
    labels: list[int]
    """`IGNORE` on the prompt, the token id on the target."""
    extras: dict[str, Any] = field(default_factory=dict)
    """Image tensors (pixel_values, pixel_attention_mask, image_grid_thw...), batch of 1."""

    @property
    def n_prompt(self) -> int:
        """Tokens of the prompt (masked out of the loss)."""
        return sum(1 for x in self.labels if x == IGNORE)


@dataclass
class BaseCheckpoint:
    """A loaded base model and how to turn requests into its training inputs."""

    kind: ModelKind
    """text (chart as text) or vlm (chart as image)."""
    path: Path
    """Checkpoint folder."""
    name: str
    """What the user passed (``smollm2``, a path, ``text:...``, ``hf:...``)."""
    model: Any
    """The transformers model (float32 on CPU)."""
    processing: Any
    """Tokenizer (text) or processor (vlm) — trl's `processing_class`."""
    tokenizer: Any
    """The tokenizer (the processor's, for VLMs)."""
    device: str
    """Where the model runs."""

    def eval_spec(self, adapter: Path | None = None, *, merged: Path | None = None) -> str:
        """The `chartproof eval --model` spec that asks this model: the base alone, with a
        LoRA `adapter` on top (``text:NAME?adapter=DIR`` / ``hf:PATH?adapter=DIR``), or a
        `merged` checkpoint folder written by ``--merge``."""
        prefix = "text" if self.kind == "text" else "hf"
        if merged is not None:
            return f"{prefix}:{merged}"
        query = f"?adapter={adapter}" if adapter is not None else ""
        target = self.name if self.kind == "text" else str(self.path)
        return f"{prefix}:{target}{query}"

    @property
    def end_token(self) -> str:
        """The token that ends the assistant's turn (generation stops there)."""
        eos = self.model.generation_config.eos_token_id
        if isinstance(eos, list):
            eos = eos[0]
        if eos is None:
            return str(self.tokenizer.eos_token)
        return str(self.tokenizer.convert_ids_to_tokens(int(eos)))

    def prompt(self, request: ModelRequest) -> tuple[list[int], dict[str, Any]]:
        """Token ids of the request exactly as the eval backend renders it (generation prompt
        included), and for VLMs the image tensors."""
        if self.kind == "text":
            from chartproof.models.chart_text import chart_text_from_metadata

            def gold(req: ModelRequest, _part: object) -> Any:
                found = chart_text_from_metadata(req.metadata)
                if found is None:
                    raise ValueError(f"request {req.id}: no chart table to train on")
                return found

            ids = self.tokenizer.apply_chat_template(
                text_messages(request, gold), add_generation_prompt=True, tokenize=True
            )
            if hasattr(ids, "keys"):
                ids = ids["input_ids"]
            return [int(t) for t in ids], {}
        inputs = chat_inputs(self.processing, [conversation(request)])
        ids = [int(t) for t in inputs["input_ids"][0].tolist()]
        extras = {k: v for k, v in inputs.items() if k not in ("input_ids", "attention_mask")}
        return ids, extras

    def prompt_text(self, request: ModelRequest) -> str:
        """The prompt as one string (what trl's DPOTrainer tokenizes for text pairs)."""
        ids, _ = self.prompt(request)
        return str(self.tokenizer.decode(ids, skip_special_tokens=False))

    def target_ids(self, target: str) -> list[int]:
        """Token ids of a target text followed by the end-of-turn token."""
        ids = self.tokenizer(target, add_special_tokens=False)["input_ids"]
        end = self.tokenizer.convert_tokens_to_ids(self.end_token)
        return [int(t) for t in ids] + [int(end)]

    def encode(self, request: ModelRequest, target: str) -> Encoded:
        """Prompt + target with the prompt's labels masked (`IGNORE`)."""
        prompt, extras = self.prompt(request)
        target_ids = self.target_ids(target)
        return Encoded(
            input_ids=prompt + target_ids,
            labels=[IGNORE] * len(prompt) + target_ids,
            extras=extras,
        )

    def fingerprint(self) -> str:
        """Content fingerprint of the base checkpoint."""
        return checkpoint_fingerprint(self.path)


def base_kind(base: str) -> tuple[ModelKind, str, Path]:
    """(kind, name, folder) of a ``--base``: ``smollm2``, a spec whose backend kind reads the
    table (``text:...``) or the image (``hf:...``) as it declares (`BackendKind.reads`), or
    a folder (a VLM when it has a processor config, else a causal LM). FileNotFoundError when
    absent; ValueError for a spec whose kind is no local checkpoint (an API, a built-in)."""
    if base in NAMED_MODELS:
        return "text", base, resolve_text_model(base)
    reads: str | None = None
    target = base
    if looks_like_spec(base):
        spec = parse_spec(base)
        reads = backend_kind(spec.kind).reads
        if reads is None:
            raise ValueError(
                f"finetune: base {base!r} is a {spec.kind!r} model, not a local checkpoint; "
                f"pass a folder, or one of {list(NAMED_MODELS)}"
            )
        target = spec.target
        if reads == "table":
            return "text", target, resolve_text_model(target)
    folder = Path(target).expanduser()
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(
            f"finetune: base {base!r} is not a local checkpoint folder (no config.json). "
            f"Pass a folder, or one of {list(NAMED_MODELS)}; models are never downloaded"
        )
    if reads == "image" or any(
        (folder / n).is_file() for n in ("preprocessor_config.json", "processor_config.json")
    ):
        return "vlm", str(folder.resolve()), folder.resolve()
    return "text", str(folder.resolve()), folder.resolve()


def _device(wanted: str) -> str:
    import torch

    if wanted == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return wanted


def training_dtype(device: str, dtype: str = "auto") -> str:
    """ "bfloat16" on a GPU that has it when `dtype` is auto, else float32 (CPU training)."""
    import torch

    if dtype != "auto":
        return dtype
    gpu_bf16 = device.startswith("cuda") and torch.cuda.is_bf16_supported()
    return "bfloat16" if gpu_bf16 else "float32"


def load_base(base: str, *, device: str = "auto", dtype: str = "auto") -> BaseCheckpoint:
    """Load the base weights (float32 on CPU, bfloat16 on a GPU with auto), never from a hub;
    the caller's announcer (`models.base.loading`) shows the load."""
    kind, name, folder = base_kind(base)
    for module in ("torch", "transformers", "peft", "trl", "datasets"):
        require(module, "hf", what="chartproof finetune")
    with loading(base):
        return _load_base(kind, name, folder, device, dtype)


def _load_base(kind: ModelKind, name: str, folder: Path, device: str, dtype: str) -> BaseCheckpoint:
    import torch

    transformers: Any = importlib.import_module("transformers")
    where = _device(device)
    common: dict[str, Any] = {
        "dtype": getattr(torch, training_dtype(where, dtype)),
        **local_weights(),
    }
    if kind == "text":
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            folder, local_files_only=True, trust_remote_code=False
        )
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        model = transformers.AutoModelForCausalLM.from_pretrained(folder, **common)
        processing = tokenizer
    else:
        processing = transformers.AutoProcessor.from_pretrained(
            folder, local_files_only=True, trust_remote_code=False
        )
        tokenizer = processing.tokenizer
        model = transformers.AutoModelForImageTextToText.from_pretrained(folder, **common)
    model.to(where)
    return BaseCheckpoint(
        kind=kind,
        path=folder,
        name=name,
        model=model,
        processing=processing,
        tokenizer=tokenizer,
        device=where,
    )


def lora_config(settings: LoRASettings, kind: ModelKind) -> Any:
    """peft's LoraConfig; for VLMs the adapters go on the language model's projections only
    (the vision tower stays frozen and adapter-free)."""
    peft: Any = importlib.import_module("peft")
    targets: Any = list(settings.target_modules)
    if kind == "vlm":
        names = "|".join(t for t in settings.target_modules if t != "lm_head")
        targets = rf".*(?:language_model|text_model)\..*(?:{names})$"
        if "lm_head" in settings.target_modules:  # the output head sits outside the LM
            targets += r"|(?:.*\.)?lm_head$"
    return peft.LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=targets,
        bias="none",
        task_type="CAUSAL_LM",
    )


def collate(items: list[Encoded], pad_id: int) -> dict[str, Any]:
    """A right-padded batch (positions of real tokens stay 0..n-1, as at inference) with
    padding masked out of the loss; VLM image tensors are concatenated along the batch."""
    import torch

    width = max(len(e.input_ids) for e in items)
    ids = torch.full((len(items), width), pad_id, dtype=torch.long)
    labels = torch.full((len(items), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(items), width), dtype=torch.long)
    for row, e in enumerate(items):
        n = len(e.input_ids)
        ids[row, :n] = torch.tensor(e.input_ids, dtype=torch.long)
        labels[row, :n] = torch.tensor(e.labels, dtype=torch.long)
        mask[row, :n] = 1
    batch: dict[str, Any] = {"input_ids": ids, "attention_mask": mask, "labels": labels}
    for key in items[0].extras:
        batch[key] = torch.cat([e.extras[key] for e in items], dim=0)
    return batch


def adapter_fingerprint(folder: Path) -> str:
    """Hash of an adapter folder's config and weights (the card records it; the same
    function keys the eval backends' caches): stable across processes, see
    `chartproof.models.hf.adapter_fingerprint`."""
    return _adapter_fingerprint(folder)


# ----------------------------------------------------------------------------- memory


class MemoryEstimate(Record):
    """A rough peak-memory budget of one LoRA training step, in GiB (see `estimate_memory`)."""

    parameters: int
    """Parameters of the base model."""
    lora_parameters: int
    """Trainable adapter parameters."""
    weights_gib: float
    """Frozen base weights at the training dtype."""
    adapter_and_optimizer_gib: float
    """Adapter weights, gradients and AdamW's two moments (float32)."""
    activations_gib: float
    """Activations kept for the backward pass (no gradient checkpointing)."""
    total_gib: float
    """Sum, plus 10 % for allocator slack and the CUDA context."""


def _config_dims(config: dict[str, Any]) -> tuple[int, int, int, int, int]:
    text = config.get("text_config") or config
    hidden = int(text.get("hidden_size", 0))
    layers = int(text.get("num_hidden_layers", 0))
    heads = int(text.get("num_attention_heads", 1))
    vocab = int(text.get("vocab_size", 0))
    inter = int(text.get("intermediate_size", 4 * hidden))
    return hidden, layers, heads, vocab, inter


def estimate_memory(
    folder: Path,
    lora: LoRASettings,
    *,
    batch_size: int,
    seq_len: int,
    dtype_bytes: int = 4,
    parameters: int | None = None,
) -> MemoryEstimate:
    """Peak memory of a LoRA step from the checkpoint's config (weights are not loaded).

    Parameters: the weight files' sizes / `dtype_bytes` of their stored dtype when not
    given. Adapter: r × (d_in + d_out) per targeted projection (q, k, v, o at hidden ×
    hidden; k/v shrink with grouped-query heads, ignored here: an upper bound). Optimiser:
    weights + gradient + two AdamW moments, float32. Activations (Korthikanti et al. 2022,
    no recomputation): per layer s·b·h·(34 + 5·a·s/h) bytes at 16-bit, doubled at 32-bit,
    plus the logits s·b·V·4 bytes twice (forward and its gradient).
    """
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    hidden, layers, heads, vocab, _ = _config_dims(config)
    if parameters is None:
        stored = sum(
            p.stat().st_size
            for p in folder.iterdir()
            if p.is_file() and p.suffix in (".safetensors", ".bin")
        )
        dtype = str(config.get("torch_dtype") or config.get("dtype") or "float32")
        parameters = stored // (2 if "16" in dtype else 4)
    per_target = lora.r * (hidden + hidden)
    targets = len([t for t in lora.target_modules if t.endswith("_proj")])
    lora_params = per_target * targets * layers
    gib = 1024.0**3
    weights = parameters * dtype_bytes / gib
    adapter = lora_params * 4 * 4 / gib
    act_16 = seq_len * batch_size * hidden * (34 + 5 * heads * seq_len / max(hidden, 1)) * layers
    activations = (act_16 * (dtype_bytes / 2) + 2 * seq_len * batch_size * vocab * 4) / gib
    total = (weights + adapter + activations) * 1.1
    return MemoryEstimate(
        parameters=int(parameters),
        lora_parameters=int(lora_params),
        weights_gib=round(weights, 6),
        adapter_and_optimizer_gib=round(adapter, 6),
        activations_gib=round(activations, 6),
        total_gib=round(total, 6),
    )


def peak_rss_gib() -> float:
    """Peak resident memory of this process so far, GiB (Linux ru_maxrss is in KiB)."""
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2, 3)


def progress_callback(
    hook: Callable[[int, int], None], *, examples: Callable[[int], None] | None = None
) -> Any:
    """A transformers `TrainerCallback` that reports (optimiser steps done, max steps) to
    `hook` when training starts (a resumed run's steps count as done) and after each step;
    `examples`, when given, first hears how many training examples there are."""
    transformers: Any = importlib.import_module("transformers")

    class Progress(transformers.TrainerCallback):  # type: ignore[misc]
        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            loader = kwargs.get("train_dataloader")
            dataset = getattr(loader, "dataset", None)
            if examples is not None and dataset is not None and hasattr(dataset, "__len__"):
                examples(len(dataset))
            hook(int(state.global_step), int(state.max_steps or args.max_steps))
            return control

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            hook(int(state.global_step), int(state.max_steps or args.max_steps))
            return control

    return Progress()
