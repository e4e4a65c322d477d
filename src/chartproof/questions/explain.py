"""Reference explanations from a program's trace: at most four plain sentences that name
the marks read (colour, position, bar height, wedge, labels) and the operations done."""

from __future__ import annotations

from collections.abc import Sequence

from chartproof.questions.trace import Op, value_text

__all__ = ["GENERATOR", "MAX_SENTENCES", "explain"]

GENERATOR = "chartproof.questions.explain@1"
"""Names this trace-to-text generator. Samples whose reference explanation it wrote carry it
as `source["explanation_generator"]`; a backend whose own explanations come from the same
code declares it as its `explanation_generator`, so reports can tell that an overlap score
against those references measures the template, not the model."""

MAX_SENTENCES = 4
"""ChartQA-X limits explanations to four sentences."""

_READS = frozenset({"read", "read_box", "color_of", "recall"})
"""Operations whose notes join into one sentence (what was read, or recalled from earlier
steps)."""


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
    """The explanation of a trace, in execution order: runs of reads become one sentence,
    other operations one each, merged so that with the closing sentence (the final
    operation and the answer) there are at most four."""
    if not ops:
        raise ValueError("cannot explain an empty trace")
    *before, final = ops
    groups: list[list[str]] = []
    for op in before:
        if not op.note:
            continue
        if op.op in _READS and groups and groups[-1][0] == "read":
            groups[-1].append(op.note)
        else:
            groups.append(["read" if op.op in _READS else "step", op.note])
    clauses = [g[1:] for g in groups]
    budget = MAX_SENTENCES - 1
    if len(clauses) > budget:
        # contiguous chunks keep the order of the reasoning
        size, extra = divmod(len(clauses), budget)
        chunks, i = [], 0
        for k in range(budget):
            n = size + (1 if k < extra else 0)
            chunks.append([c for group in clauses[i : i + n] for c in group])
            i += n
        clauses = chunks
    sentences = [_sentence(c) for c in clauses]
    sentences.append(_sentence([f"{final.note}, so the answer is {value_text(final.value)}"]))
    return " ".join(s for s in sentences if s)
