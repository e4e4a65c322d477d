"""Reference explanations from a program's trace: at most four plain sentences that name
the marks read (colour, position, bar height, wedge, labels) and the operations done."""

from __future__ import annotations

from collections.abc import Sequence

from chartproof.questions.trace import Op, value_text

__all__ = ["MAX_SENTENCES", "explain"]

MAX_SENTENCES = 4
"""ChartQA-X limits explanations to four sentences."""

_READS = frozenset({"read", "read_box", "color_of"})


def _sentence(clauses: Sequence[str]) -> str:
    parts = [c for c in clauses if c]
    if not parts:
        return ""
    if len(parts) == 1:
        body = parts[0]
    elif len(parts) == 2:
        body = f"{parts[0]} and {parts[1]}"
    else:
        body = "; ".join(parts[:-1]) + f"; and {parts[-1]}"
    return body[0].upper() + body[1:] + "."


def explain(ops: Sequence[Op]) -> str:
    """The explanation of a trace: what was read, what was computed, and the answer."""
    if not ops:
        raise ValueError("cannot explain an empty trace")
    *before, final = ops
    reads = [op.note for op in before if op.op in _READS]
    middle = [op.note for op in before if op.op not in _READS]
    sentences = [_sentence(reads)] if reads else []
    # the middle gets at most two sentences so the whole stays within four
    if len(middle) <= 2:
        sentences.extend(_sentence([m]) for m in middle)
    else:
        half = (len(middle) + 1) // 2
        sentences.extend([_sentence(middle[:half]), _sentence(middle[half:])])
    answer = value_text(final.value)
    sentences.append(_sentence([f"{final.note}, so the answer is {answer}"]))
    return " ".join(s for s in sentences if s)
