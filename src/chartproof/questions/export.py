"""Bulk export of premise sequences as JSON lines, one premise a line, streamed so memory
stays flat however many charts pass through (RealCQA-V2 scale: millions of premises)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

from chartproof.questions.items import premise_sequences
from chartproof.types import ChartSpec

__all__ = ["write_premises_jsonl"]

_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class _Writer(Protocol):
    def write(self, text: str, /) -> int: ...


def write_premises_jsonl(
    specs: Iterable[ChartSpec],
    out: _Writer,
    *,
    seed: int = 0,
    per_chart: int = 5,
    families: Iterable[str] | None = None,
) -> int:
    """Write every premise of every chart's sequences (see `premise_sequences`) to `out`,
    one JSON object a line: {"chart", "sequence", and the `Premise` fields}. Returns the
    number of premises written.
    """
    fams = tuple(families) if families is not None else None
    n = 0
    for spec in specs:
        # a chart's structural statements recur in every question's sequence: their logic
        # is serialised once per chart
        logic_json: dict[int, tuple[Any, str]] = {}
        chart = _encode(spec.id)
        for seq_id, rows in premise_sequences(spec, seed=seed, per_chart=per_chart, families=fams):
            head = f'{{"chart":{chart},"sequence":{_encode(seq_id)},'
            lines = []
            for row in rows:
                logic = row["logic"]
                hit = logic_json.get(id(logic))
                if hit is None or hit[0] is not logic:
                    hit = (logic, _encode(logic))
                    logic_json[id(logic)] = hit
                lines.append(
                    f'{head}"id":{_encode(row["id"])},"kind":"{row["kind"]}",'
                    f'"text":{_encode(row["text"])},"truth":{"true" if row["truth"] else "false"},'
                    f'"template":"{row["template"]}","paraphrase":{row["paraphrase"]},'
                    f'"slot":{_encode(row["slot"])},"logic":{hit[1]}}}\n'
                )
            out.write("".join(lines))
            n += len(rows)
    return n
