"""Sentences for ROSCOE: the hypothesis steps (an explanation's sentences, split with pysbd)
and the source context (instruction, context, question, answer)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from chartproof.metrics.roscoe._types import RoscoeItem

__all__ = ["source_sentences", "split_sentences"]


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    try:
        import pysbd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("sentence splitting needs pysbd: pip install 'chartproof[text]'") from exc
    return pysbd.Segmenter(language="en", clean=False)


@lru_cache(maxsize=65536)
def _split_line(line: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in _segmenter().segment(line) if s.strip())


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`: lines first (a line break always ends a step), then pysbd."""
    out: list[str] = []
    for line in text.splitlines():
        if line.strip():
            out.extend(_split_line(line.strip()))
    return out


def source_sentences(item: RoscoeItem) -> list[str]:
    """The source context s: instruction, context, question, then the answer verbatim."""
    out: list[str] = []
    for part in (item.instruction, item.context, item.question):
        if part:
            out.extend(split_sentences(part))
    if item.answer is not None and item.answer.strip():
        out.append(item.answer.strip())
    return out
