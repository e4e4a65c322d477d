"""DVQA is scored by exact match: its loader gives number answers no tolerance, so on the
DVQA convention's case table (verdicts of VLMEvalKit's exact accuracy, recorded side by side)
a run's `accuracy` and `official` disagree only where chartproof reads an answer the way a
person would ("3." or "$3" for 3), never on a number that is merely close."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chartproof.datasets import load_dataset
from chartproof.pipelines.evaluate import evaluate
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest

WritePng = Callable[..., Path]

CASES = Path(__file__).resolve().parents[1] / "metrics" / "cases" / "convention_dvqa.json"

BY_DESIGN = {
    # chartproof's reading accepts these; VLMEvalKit's string equality does not
    "trailing period", "in a sentence", "one decimal", "thousands separator or percent sign",
    "with a scale word", "currency sign", "hedged", "quoted", "leading yes", "leading no",
    "true", "one", "zero",
}  # fmt: skip
CLOSE_NUMBERS = {"3 % off", "6 % off", "exactly 5 % below", "one more"}


def _cases() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(CASES.read_text(encoding="utf-8"))
    return rows


def _release(root: Path, write_png: WritePng, rows: list[dict[str, Any]]) -> None:
    """A DVQA release folder (images/, qa/val_easy_qa.json) asking one question per case."""
    write_png(root / "images" / "bar_val_easy_00000001.png")
    qa = [
        {
            "image": "bar_val_easy_00000001.png",
            "question": f"Question {i}?",
            "answer": row["gold"],
            "question_id": i,
            "template_id": "data",
            "answer_bbox": [],
        }
        for i, row in enumerate(rows)
    ]
    (root / "qa").mkdir(parents=True)
    (root / "qa" / "val_easy_qa.json").write_text(json.dumps(qa), encoding="utf-8")


def test_dvqa_numbers_have_no_tolerance(tmp_path: Path, write_png: WritePng) -> None:
    rows = _cases()
    _release(tmp_path / "DVQA", write_png, rows)
    result = load_dataset(f"dvqa:{tmp_path / 'DVQA'}")
    numbers = [s for s in result.samples if s.answer.kind == "number"]
    assert result.n_bad == 0 and len(result.samples) == len(rows)
    assert numbers and all(s.answer.tolerance == 0.0 for s in numbers)


def test_dvqa_accuracy_and_official_agree_on_the_case_table(
    tmp_path: Path, write_png: WritePng
) -> None:
    rows = _cases()
    _release(tmp_path / "DVQA", write_png, rows)
    by_id = {f"dvqa-val_easy-{i}": row for i, row in enumerate(rows)}

    def answer(request: ModelRequest) -> str:
        return str(by_id[str(request.metadata["sample_id"])]["prediction"])

    out = tmp_path / "run"
    record = evaluate(
        f"dvqa:{tmp_path / 'DVQA'}",
        out=out,
        backend=ScriptedBackend(answer),
        prompt="short",
        cache=False,
    )
    section = record.read_summary().section("conventions")["exact"]
    assert section["n"] == len(rows)
    # the answer parser reads "about 3" as 3 before any scorer sees it; a prediction it
    # leaves alone gets the verdict VLMEvalKit gave it
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    kept = [r for r in results if r["prediction"] == by_id[r["sample_id"]]["prediction"].strip()]
    assert len(kept) >= 100
    assert all(r["scores"]["official"] == by_id[r["sample_id"]]["vlmevalkit"] for r in kept)
    kinds = {by_id[d["sample_id"]]["kind"] for d in section["disagreements"]}
    assert section["disagree"] == len(section["disagreements"]) > 0
    # chartproof is never stricter than exact match, and never lenient on a close number
    assert section["official_only"] == 0
    assert kinds <= BY_DESIGN and not kinds & CLOSE_NUMBERS
    close = [r for r in results if by_id[r["sample_id"]]["kind"] in CLOSE_NUMBERS]
    assert len(close) >= 30 and all(r["scores"]["accuracy"] == 0.0 for r in close)
