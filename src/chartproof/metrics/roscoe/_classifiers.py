"""Sentence classifiers for ROSCOE: NLI contradiction (SRC/SFC) and grammatical acceptability
(GS) from local checkpoints, and Debian's link-grammar parser as the offline GS scorer."""

from __future__ import annotations

import atexit
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np

from chartproof.metrics.roscoe._common import Matrix, import_torch, length_batches, local_dir
from chartproof.model_files import local_weights


def _load_classifier(path: str | Path, device: str, what: str) -> tuple[Any, Any]:
    import_torch()
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = local_dir(path, what)
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(folder, **local_weights())
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
    torch = import_torch()
    lengths = [len(a) + (len(second[i]) if second else 0) for i, a in enumerate(first)]
    probs: list[Any] = [None] * len(first)
    for batch in length_batches(lengths, batch_size):
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
        # keep warnings and errors; drop the library's Info/Debug chatter about locales,
        # printed to stderr on every dictionary load (process-wide: link-grammar has one
        # handler, and nothing else in chartproof uses it)
        lg.LG_Error.set_handler(_quiet_link_grammar)
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


def _quiet_link_grammar(error: Any, data: Any) -> None:
    """link-grammar message handler: pass on warnings and errors (severity below Info)."""
    if error.severity_label not in ("Info", "Debug", "Trace"):
        import linkgrammar

        linkgrammar.LG_Error._default_handler(error, data)
