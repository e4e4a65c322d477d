"""ChartX's own QA grading prompt (GPT-acc, UniModal4Reasoning/ChartVLM
`eval/metric/gpt_acc.py`) as the versioned prompt `chartx_qa@1`: the instruction, its four
worked examples in order and the query in ChartX's `<question> ... <groundtruth answer> ...
<answer> ...` form, and a run judged with it reads the judge's True/False."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.datasets.answers import type_answer
from chartproof.models.prompts import default_prompts
from chartproof.pipelines.evaluate import evaluate
from chartproof.testing import ScriptedBackend
from chartproof.types import ImageRef, ModelRequest, Sample, TextPart


def test_chartx_qa_prompt_text() -> None:
    template = default_prompts().get("chartx_qa")
    assert template.id == "chartx_qa@1" and template.output == "verdict"
    _, text = template.render({"question": "Q?", "reference": "100 million", "candidate": "95"})
    assert text.startswith("Given multiple question-answer pairs and the corresponding")
    assert 'The output should be only "True" or "False".' in text
    blocks = text.split("\n\n")
    assert len(blocks) == 6  # instruction, four examples, the query
    assert [b.rsplit("AI: ", 1)[-1].strip() for b in blocks[1:5]] == [
        "False",
        "True",
        "True",
        "True",
    ]
    assert "<groundtruth answer> 5 million $ <answer> 20\n</s>" in blocks[1]
    assert blocks[5] == (
        "\n    User: <question> Q? <groundtruth answer> 100 million <answer> 95\n    AI:"
    )


def test_a_run_judged_with_chartx_qa(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "images").mkdir(parents=True)
    rows = {"x0": ("100", "95"), "x1": ("100", "80")}
    samples = []
    for sid, (gold, _) in rows.items():
        Image.new("RGB", (8, 8)).save(root / "images" / f"{sid}.png")
        samples.append(
            Sample(
                id=sid,
                image=ImageRef(path=f"images/{sid}.png"),
                question=f"What is the value of {sid}?",
                answer=type_answer(gold),
                source={"dataset": "chartx", "answer_raw": gold},
            )
        )
    save_samples(samples, root)

    def judge(request: ModelRequest) -> str:
        assert request.prompt == "chartx_qa@1"
        text = request.messages[0].content[0]
        assert isinstance(text, TextPart)
        return "True" if text.text.rstrip().endswith("<answer> 95\n    AI:") else "False"

    record = evaluate(
        root,
        out=tmp_path / "run",
        backend=ScriptedBackend(lambda r: rows[str(r.metadata["sample_id"])][1]),
        cache=False,
        judge=ScriptedBackend(judge, name="scripted:judge"),
        judge_prompt="chartx_qa",
    )
    section = record.read_summary().section("judge")
    assert section["prompt"] == "chartx_qa@1" and section["n"] == 2
    assert section["judge"] == pytest.approx(1 / 2)
