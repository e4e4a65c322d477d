"""Benchmark: the built-in reader on every ChartR chain step, given the gold earlier answers.

Reads a folder written by `chartproof generate --suite chartr` and answers every step of
every chain the way the chain protocol asks it: the step's question with the (question,
gold answer) pairs of its `depends_on` steps only, numbered by their steps. The chart is
the view of its spec (the gold table), so what is measured is whether a step can be
answered from what its request carries, not how well the chart is read. Steps are counted
right by ChartR's exact match (`metrics.chains.step_right`) and grouped by the operation
that wrote them (re-executed from the sample's program and arguments), with the steps
that refer to earlier answers ("the answer to step N", listed steps, named results) apart.

    .venv/bin/chartproof generate --suite chartr --n 200 --seed 3 -o /tmp/chartr
    .venv/bin/python bench/bench_chain_steps.py /tmp/chartr [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any


def _steps(folder: Path) -> list[dict[str, Any]]:
    """One row per chain step: its op, whether it refers to earlier steps, the reply."""
    from chartproof.metrics.chains import step_right
    from chartproof.questions.ops.steps import refers_to_steps
    from chartproof.questions.program import execute
    from chartproof.questions.view import chart_view
    from chartproof.reader.solver import solve
    from chartproof.types import Sample

    rows = []
    with (folder / "samples.jsonl").open(encoding="utf-8") as f:
        for line in f:
            sample = Sample.model_validate_json(line)
            if not sample.chain or sample.spec is None or sample.program is None:
                continue
            args = (sample.source or {}).get("program_args") or {}
            assert isinstance(args, dict)
            result = execute(sample.program, args, sample.spec)
            if result is None:
                raise SystemExit(f"{sample.id}: its program {sample.program} no longer runs")
            view = chart_view(sample.spec)
            for st in sample.chain:
                earlier = [
                    (sample.chain[d].question, sample.chain[d].answer.text()) for d in st.depends_on
                ]
                got = solve(st.question, view, earlier, [d + 1 for d in st.depends_on])
                rows.append(
                    {
                        "sample": sample.id,
                        "step": st.id + 1,
                        "op": result.ops[st.id].op,
                        "refers": refers_to_steps(st.question),
                        "question": st.question,
                        "gold": st.answer.text(),
                        "reply": got.answer,
                        "right": step_right(got.answer, st.answer, "exact"),
                    }
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder `chartproof generate` wrote")
    parser.add_argument("--json", type=Path, help="write every step's reply here")
    a = parser.parse_args()
    start = time.process_time()
    rows = _steps(a.folder)
    cpu = time.process_time() - start
    total, right = Counter[str](), Counter[str]()
    for r in rows:
        for key in (
            r["op"],
            "refers to earlier steps" if r["refers"] else "reads the chart",
            "all",
        ):
            total[key] += 1
            right[key] += r["right"]
    print(f"{len(rows)} steps of {len({r['sample'] for r in rows})} chains, {cpu:.1f} s CPU")
    for key in sorted(total, key=lambda k: (-total[k], k)):
        print(f"  {key:28s} {right[key]:5d} / {total[key]:5d} right")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
