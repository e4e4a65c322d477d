"""Local Hugging Face vision-language models: AutoProcessor + AutoModelForImageTextToText.

Loads a checkpoint folder (never the Hub), renders requests with the processor's chat
template, and generates greedily in batches with left padding. torch and transformers are
imported inside the functions that need them, so the core never pays for them.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import importlib
import inspect
import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import Field

from chartproof.model_files import local_weights
from chartproof.models.base import (
    BackendIdentity,
    answered,
    failed,
    note_answered,
    progress_wanted,
)
from chartproof.models.registry import BackendSpec, require, spec_settings
from chartproof.types import GenerationConfig, ImagePart, ModelRequest, ModelResponse, Record, Usage

if TYPE_CHECKING:
    from PIL import Image

__all__ = [
    "HFBackend",
    "HFSettings",
    "adapter_fingerprint",
    "adapter_folder",
    "chat_inputs",
    "checkpoint_fingerprint",
    "conversation",
    "cut_at_stop",
    "eos_ids",
    "generation_chunks",
    "generation_kwargs",
    "resolve_device_dtype",
    "row_progress",
]

T = TypeVar("T")

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf")
_FINGERPRINT_FILES = (
    "config.json",
    "generation_config.json",
    "preprocessor_config.json",
    "processor_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "chat_template.jinja",
    "chat_template.json",
)
_EDGE_BYTES = 1 << 20


class HFSettings(Record):
    """Options of the local Hugging Face backend (spec query string or config `[options]`)."""

    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    """Weight dtype; auto is bfloat16 on a GPU that supports it, else float32."""
    device: str = "auto"
    """"cpu", "cuda", "cuda:1", "mps", or auto (the first GPU when there is one)."""
    batch_size: int = Field(default=4, ge=1)
    """Requests per generate call."""
    attn_implementation: str | None = None
    """Attention kernel ("sdpa", "eager", "flash_attention_2"); None for the model default."""
    adapter: str | None = None
    """Folder of a LoRA adapter (peft `save_pretrained` output, what `chartproof finetune`
    writes) applied on top of the checkpoint."""
    revision: str = ""
    """Revision for the response cache; "" to fingerprint the folder's (and adapter's) files."""


def checkpoint_fingerprint(folder: Path, *, full: bool = False) -> str:
    """A short content fingerprint of a checkpoint folder, for the response cache.

    Hashes the config, tokenizer and processor files whole, and each weights file by name,
    size and its first and last MiB: fast on multi-GB folders, and any retrained or
    re-quantised weights change it. `full` hashes the weight files whole (a merged LoRA
    may change only tensors in the middle of a file).
    """
    h = hashlib.sha256()
    for name in _FINGERPRINT_FILES:
        p = folder / name
        if p.is_file():
            h.update(name.encode())
            h.update(p.read_bytes())
    for p in sorted(folder.iterdir()):
        if p.is_file() and p.name.endswith(_WEIGHT_SUFFIXES):
            size = p.stat().st_size
            h.update(f"{p.name}:{size}".encode())
            with p.open("rb") as f:
                if full:
                    for block in iter(lambda: f.read(1 << 24), b""):
                        h.update(block)
                    continue
                h.update(f.read(_EDGE_BYTES))
                if size > 2 * _EDGE_BYTES:
                    f.seek(size - _EDGE_BYTES)
                    h.update(f.read(_EDGE_BYTES))
    return h.hexdigest()[:16]


def adapter_folder(path: str | os.PathLike[str], *, kind: str = "hf") -> Path:
    """The resolved LoRA adapter folder; FileNotFoundError naming it when it has no
    adapter_config.json (`kind` names the backend in the message)."""
    p = Path(path).expanduser()
    if not (p / "adapter_config.json").is_file():
        raise FileNotFoundError(
            f"{kind}: adapter {str(p)!r} is not a LoRA adapter folder (no adapter_config.json); "
            "pass the folder `chartproof finetune` wrote (its adapter/ subfolder)"
        )
    return p.resolve()


def adapter_fingerprint(folder: Path) -> str:
    """Content fingerprint of a LoRA adapter folder: its config as canonical JSON (keys
    sorted, `target_modules` sorted: peft keeps them as a set, so the saved order changes
    with the interpreter's hash seed) and its weight files whole (adapters are small)."""
    config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
    if isinstance(config.get("target_modules"), list):
        config["target_modules"] = sorted(config["target_modules"])
    h = hashlib.sha256(json.dumps(config, sort_keys=True).encode())
    for p in sorted(folder.iterdir()):
        if p.is_file() and p.name.endswith(_WEIGHT_SUFFIXES):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _load_image(part: ImagePart) -> Image.Image:
    from PIL import Image

    with Image.open(part.path) as im:
        return im.convert("RGB")


def conversation(request: ModelRequest) -> list[dict[str, Any]]:
    """The request as a transformers chat conversation, images loaded as RGB PIL images."""
    out: list[dict[str, Any]] = []
    for message in request.messages:
        content: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, ImagePart):
                content.append({"type": "image", "image": _load_image(part)})
            else:
                content.append({"type": "text", "text": part.text})
        out.append({"role": message.role, "content": content})
    return out


def chat_inputs(processor: Any, conversations: Sequence[list[dict[str, Any]]]) -> Any:
    """Tokenised, left-padded model inputs for a batch of conversations.

    Uses the processor's own chat template and image handling (each model family nests
    images its own way), with a generation prompt appended.
    """
    kwargs: dict[str, Any] = {
        "add_generation_prompt": True,
        "tokenize": True,
        "return_dict": True,
        "return_tensors": "pt",
    }
    if "processor_kwargs" in inspect.signature(processor.apply_chat_template).parameters:
        kwargs["processor_kwargs"] = {"padding": True}
    else:  # transformers 4.x takes processor options as keyword arguments
        kwargs["padding"] = True
    return processor.apply_chat_template(list(conversations), **kwargs)


class HFBackend:
    """A local transformers VLM: ``hf:/path/to/checkpoint?dtype=bfloat16&device=cpu&batch_size=4``.

    Loads with ``AutoProcessor`` and ``AutoModelForImageTextToText`` from the folder only
    (``local_files_only=True``; ``trust_remote_code`` is never set), renders each request with
    the processor's chat template, and generates in batches with left padding: greedy when
    the request's temperature is 0, sampling otherwise. The same code loads real SmolVLM,
    Idefics3, LLaVA / LLaVA-NeXT and Qwen2-VL / Qwen2.5-VL folders; Qwen2-VL's image processor
    (and transformers 5's fast processors in general) need torchvision, so install it
    alongside torch for those. ``?adapter=DIR`` applies a LoRA adapter (peft) on top; the
    name, identity and cache revision then carry it. A failed batch becomes error responses,
    never an exception.
    """

    def __init__(self, path: str | os.PathLike[str], settings: HFSettings | None = None) -> None:
        self.path = _checkpoint_folder(path)
        require("torch", "hf", what="the Hugging Face backend (hf:)")
        require("transformers", "hf", what="the Hugging Face backend (hf:)")
        self.settings = settings or HFSettings()
        self.adapter = (
            adapter_folder(self.settings.adapter) if self.settings.adapter is not None else None
        )
        if self.adapter is not None:
            require("peft", "hf", what="a LoRA adapter on the hf backend (hf:...?adapter=)")
        self._name = f"hf:{self.path}" + (f"?adapter={self.adapter}" if self.adapter else "")
        revision = self.settings.revision or "-".join(
            [checkpoint_fingerprint(self.path)]
            + ([adapter_fingerprint(self.adapter)] if self.adapter else [])
        )
        model = self.path.name + (f"+lora:{self.adapter.name}" if self.adapter else "")
        self.identity = BackendIdentity(kind="hf", model=model, revision=revision)
        self.processor, self.model, self.device = _load(self.path, self.settings, self.adapter)
        self._first = True  # the first chunk is generated alone (`generation_chunks`)

    @classmethod
    def from_spec(cls, spec: BackendSpec) -> HFBackend:
        """Build from ``hf:PATH[?option=value...]``."""
        settings = spec_settings(spec, HFSettings)
        return cls(spec.target, settings)

    @property
    def name(self) -> str:
        """``hf:`` and the checkpoint folder (plus its adapter)."""
        return self._name

    def close(self) -> None:
        """Drop the model and free accelerator memory."""
        import torch

        self.model = None
        self.processor = None
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """Answer requests in batches of `batch_size` (same settings and image count per batch)."""
        if self.model is None:
            return [failed(r, self._name, "backend is closed") for r in requests]
        out: dict[int, ModelResponse] = {}
        ready: dict[tuple[GenerationConfig, int], list[tuple[int, list[dict[str, Any]]]]] = {}
        for i, request in enumerate(requests):
            try:
                conv = conversation(request)
            except (OSError, ValueError) as e:
                out[i] = failed(request, self._name, f"cannot read image: {e}")
                note_answered(1)
                continue
            n_images = sum(
                1 for m in request.messages for p in m.content if isinstance(p, ImagePart)
            )
            ready.setdefault((request.config, n_images), []).append((i, conv))
        for (config, _), items in ready.items():
            for chunk in generation_chunks(items, self.settings.batch_size, self._first):
                self._first = False
                batch = [requests[i] for i, _ in chunk]
                for (i, _), response in zip(
                    chunk, self._run([c for _, c in chunk], batch, config), strict=True
                ):
                    out[i] = response
        return [out[i] for i in range(len(requests))]

    def _run(
        self,
        conversations: list[list[dict[str, Any]]],
        requests: list[ModelRequest],
        config: GenerationConfig,
    ) -> list[ModelResponse]:
        import torch

        started = time.monotonic()
        tokenizer = self.processor.tokenizer
        rows = row_progress(len(requests), self.model, tokenizer.pad_token_id)
        try:
            inputs = chat_inputs(self.processor, conversations).to(self.device)
            if "pixel_values" in inputs:
                inputs["pixel_values"] = inputs["pixel_values"].to(self.model.dtype)
            with torch.inference_mode():
                if config.seed is not None:
                    torch.manual_seed(config.seed)
                generated = self.model.generate(
                    **inputs,
                    **self._generation_kwargs(config),
                    **(rows.kwargs() if rows is not None else {}),
                )
        except Exception as e:  # one bad batch must not end the run
            if rows is not None:
                rows.rest()
            latency = time.monotonic() - started
            error = f"generation failed: {type(e).__name__}: {e}"
            return [failed(r, self._name, error[:500], latency_s=latency) for r in requests]
        if rows is not None:
            rows.rest()
        latency = (time.monotonic() - started) / len(requests)
        prompt_len = inputs["input_ids"].shape[1]
        new_tokens = generated[:, prompt_len:]
        texts = tokenizer.batch_decode(new_tokens, skip_special_tokens=True)
        eos = eos_ids(self.model)
        responses = []
        for row, (request, text) in enumerate(zip(requests, texts, strict=True)):
            usage = Usage(
                input_tokens=int(inputs["attention_mask"][row].sum()),
                output_tokens=_generated_length(new_tokens[row].tolist(), eos),
            )
            responses.append(
                answered(
                    request,
                    self._name,
                    cut_at_stop(text, config.stop).strip(),
                    usage=usage,
                    latency_s=latency,
                )
            )
        return responses

    def _generation_kwargs(self, config: GenerationConfig) -> dict[str, Any]:
        tokenizer = self.processor.tokenizer
        pad = tokenizer.pad_token_id or tokenizer.eos_token_id
        return generation_kwargs(self.model, tokenizer, config, pad_fallback=pad)


def generation_kwargs(
    model: Any, tokenizer: Any, config: GenerationConfig, *, pad_fallback: int | None
) -> dict[str, Any]:
    """``generate`` keyword arguments for `config`: a copy of the model's generation config
    set to sample or decode greedily, with `pad_fallback` as pad id when it has none, plus
    the stop strings (which ``generate`` matches through the tokenizer)."""
    import copy

    gen = copy.deepcopy(model.generation_config)
    gen.max_new_tokens = config.max_tokens
    if config.temperature > 0:
        gen.do_sample = True
        gen.temperature = config.temperature
        gen.top_p = config.top_p
    else:
        # a checkpoint's sampling defaults must not leak into greedy decoding
        gen.do_sample = False
        gen.temperature = None
        gen.top_p = None
        gen.top_k = None
    if gen.pad_token_id is None:
        gen.pad_token_id = pad_fallback
    kwargs: dict[str, Any] = {"generation_config": gen}
    if config.stop:
        kwargs["stop_strings"] = list(config.stop)
        kwargs["tokenizer"] = tokenizer
    return kwargs


def resolve_device_dtype(device: str, dtype: str) -> tuple[str, Any]:
    """(device, torch dtype) for settings that may say "auto": CUDA when present, and
    bfloat16 on a GPU that supports it, else float32."""
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if dtype == "auto":
        gpu_bf16 = device.startswith("cuda") and torch.cuda.is_bf16_supported()
        dtype = "bfloat16" if gpu_bf16 else "float32"
    return device, getattr(torch, dtype)


def _checkpoint_folder(path: str | os.PathLike[str]) -> Path:
    p = Path(path).expanduser()
    if not p.exists():
        raise FileNotFoundError(
            f"hf: checkpoint folder {str(p)!r} does not exist. The hf backend only loads local "
            "folders (it never downloads); fetch the model on a connected machine, e.g. "
            "`huggingface-cli download ORG/MODEL --local-dir DIR`, and pass hf:DIR"
        )
    if not p.is_dir() or not (p / "config.json").is_file():
        raise FileNotFoundError(
            f"hf: {str(p)!r} is not a Hugging Face checkpoint folder (no config.json in it)"
        )
    return p.resolve()


def _load(folder: Path, settings: HFSettings, adapter: Path | None) -> tuple[Any, Any, str]:

    # transformers' partial annotations fight strict mypy; the module is used as Any here
    transformers: Any = importlib.import_module("transformers")
    device, dtype = resolve_device_dtype(settings.device, settings.dtype)
    processor = transformers.AutoProcessor.from_pretrained(
        folder, local_files_only=True, trust_remote_code=False
    )
    # batched generation needs the prompt on the right edge: pad on the left
    processor.tokenizer.padding_side = "left"
    major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
    dtype_key = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"
    kwargs: dict[str, Any] = {dtype_key: dtype, **local_weights()}
    if settings.attn_implementation:
        kwargs["attn_implementation"] = settings.attn_implementation
    model = transformers.AutoModelForImageTextToText.from_pretrained(folder, **kwargs)
    if adapter is not None:
        peft: Any = importlib.import_module("peft")
        model = peft.PeftModel.from_pretrained(model, adapter, is_trainable=False)
    model.to(device)
    model.eval()
    return processor, model, device


def eos_ids(model: Any) -> set[int]:
    """The ids that end generation in `model`'s generation config."""
    eos = model.generation_config.eos_token_id
    if eos is None:
        return set()
    return set(eos) if isinstance(eos, list) else {int(eos)}


class RowProgress:
    """Reports each row of a batch to `note_answered` as its generation ends, so a caller's
    progress moves per sample inside one long `generate` call. Pass `kwargs()` to
    ``model.generate`` (a stopping criterion that never stops a row: it watches for an end
    or pad token, which also follows a row a stop string ended) and call `rest()` once
    ``generate`` returns or fails: it reports the rows that ran to the token limit."""

    def __init__(self, rows: int, ends: set[int]) -> None:
        self.rows = rows
        self.told = 0
        self._ends = sorted(ends)
        self._done: Any = None

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        last = input_ids[:, -1]
        ended = torch.isin(last, torch.tensor(self._ends, dtype=last.dtype, device=last.device))
        if self._done is None:
            self._done = torch.zeros_like(ended)
        new = int((ended & ~self._done).sum())
        if new:
            self._done |= ended
            self.told += new
            note_answered(new)
        return torch.zeros_like(ended)

    def kwargs(self) -> dict[str, Any]:
        """``generate`` keyword arguments adding this watcher to the stopping criteria (none
        for a batch of one row, whose end is the batch's)."""
        if self.rows < 2:
            return {}
        transformers: Any = importlib.import_module("transformers")
        return {"stopping_criteria": transformers.StoppingCriteriaList([_watcher()(self)])}

    def rest(self) -> None:
        """Report the rows not reported yet (they ran to the limit, or the batch failed)."""
        note_answered(self.rows - self.told)
        self.told = self.rows


def generation_chunks(items: Sequence[T], size: int, first: bool) -> Iterator[Sequence[T]]:
    """`items` in chunks of `size` to generate together; when `first` (the first chunk a
    loaded model generates) that chunk is one item alone. A batch's first row ends only
    after the prefill of every row, and on a CPU that takes most of ten seconds for a
    batch of eight tables, so one item first moves the caller's progress bar (and gives it
    a rate) within seconds of the model loading, for the price of one more chunk. Every
    later chunk has `size` items."""
    start = 0
    if first and size > 1 and len(items) > 1:
        yield items[:1]
        start = 1
    for i in range(start, len(items), size):
        yield items[i : i + size]


def row_progress(rows: int, model: Any, pad: int | None) -> RowProgress | None:
    """A `RowProgress` for a batch of `rows` on `model` (its end tokens and `pad`), or None
    when no caller listens to `note_answered`."""
    if not progress_wanted():
        return None
    return RowProgress(rows, eos_ids(model) | ({pad} if pad is not None else set()))


@functools.cache
def _watcher() -> Any:
    """The transformers stopping criterion that hands each step to a `RowProgress`."""
    transformers: Any = importlib.import_module("transformers")

    class RowsEnded(transformers.StoppingCriteria):  # type: ignore[misc]
        def __init__(self, progress: RowProgress) -> None:
            self.progress = progress

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            return self.progress(input_ids, scores)

    return RowsEnded


def _generated_length(tokens: list[int], eos: set[int]) -> int:
    """Tokens the model generated: up to and including the first end-of-sequence token."""
    for i, t in enumerate(tokens):
        if t in eos:
            return i + 1
    return len(tokens)


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """The text before the first stop string (the API convention: stop strings excluded)."""
    cut = len(text)
    for s in stop:
        i = text.find(s)
        if i != -1:
            cut = min(cut, i)
    return text[:cut]
