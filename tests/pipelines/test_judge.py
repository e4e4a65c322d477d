"""Judge scoring: any backend grades each answer with the versioned judge prompt, through
the response cache (a rerun asks nothing), unreadable verdicts are counted and left out,
and the agreement with the rule-based scores is reported; the OpenAI backend as judge
against the loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import save_samples
from chartproof.datasets.answers import type_answer
from chartproof.metrics.conventions import convention_lines
from chartproof.metrics.judging import agreement
from chartproof.pipelines.evaluate import evaluate
from chartproof.testing import ScriptedBackend
from chartproof.types import ImageRef, ModelRequest, Sample, TextPart

# id: (gold, model's answer, judge's reply)
ROWS = {
    "s0": ("12", "12", "Correct"),  # both right
    "s1": ("Asia", "Asia, the largest", "Correct"),  # judge right, rule wrong
    "s2": ("52", "60", "Incorrect"),  # both wrong
    "s3": ("7", "7", "Incorrect."),  # rule right, judge wrong
    "s4": ("3", "3", "I cannot tell"),  # not graded
}


def _dataset(root: Path) -> None:
    (root / "images").mkdir(parents=True, exist_ok=True)
    samples = []
    for i, (sid, (gold, _, _)) in enumerate(ROWS.items()):
        Image.new("RGB", (8, 8), (i * 30, 0, 0)).save(root / "images" / f"{sid}.png")
        samples.append(
            Sample(
                id=sid,
                image=ImageRef(path=f"images/{sid}.png"),
                question=f"Question {sid}?",
                answer=type_answer(gold),
                source={"dataset": "opencqa", "answer_raw": gold},
            )
        )
    save_samples(samples, root)


def _model(request: ModelRequest) -> str:
    return ROWS[str(request.metadata["sample_id"])][1]


def _sid(request: ModelRequest) -> str:
    (message,) = request.messages
    (text,) = message.content  # text only: the judge gets no image
    assert isinstance(text, TextPart)
    question = text.text.split("Question: ", 1)[1].split("?", 1)[0]
    return question.split()[-1]


def _judge(request: ModelRequest) -> str:
    assert request.prompt == "judge_answer@1"
    sid = _sid(request)
    gold, answer, verdict = ROWS[sid]
    text = request.messages[0].content[0]
    assert isinstance(text, TextPart)
    assert f"Reference answer: {gold}\nCandidate answer: {answer}" in text.text
    return verdict


def test_judge_scores_and_agreement(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    judge = ScriptedBackend(_judge, name="scripted:judge")
    cache = tmp_path / "cache.sqlite"
    record = evaluate(
        tmp_path / "data",
        out=tmp_path / "run",
        backend=ScriptedBackend(_model),
        cache=cache,
        judge=judge,
    )
    assert judge.calls == 5
    summary = record.read_summary()
    section = summary.section("judge")
    assert section["n"] == 4 and section["ungraded"] == 1
    assert section["judge"] == pytest.approx(2 / 4)  # s0, s1
    agree = section["agreement"]["accuracy"]
    assert agree["n"] == 4 and agree["agreement"] == pytest.approx(2 / 4)  # s0, s2
    # judge right on s0, s1; rule right on s0, s3: po = 0.5, pe = 0.5 -> kappa 0
    assert agree["kappa"] == pytest.approx(0.0)
    assert {d["sample_id"] for d in section["disagreements"]} == {"s1", "s3"}
    assert section["model"] == "scripted:judge" and section["prompt"] == "judge_answer@1"
    assert record.config["judge"] == {"model": "scripted:judge", "prompt": "judge_answer@1"}
    lines = convention_lines(summary.model_dump(mode="json"))
    assert any("judge scripted:judge" in ln and "50.00 % of 4 graded" in ln for ln in lines)
    from chartproof.reports import report

    html = report(tmp_path / "run").read_text(encoding="utf-8")
    assert "judge vs rule" in html and "Asia, the largest" in html

    # the same run in another folder: every verdict comes from the response cache
    again = ScriptedBackend(_judge, name="scripted:judge")
    evaluate(
        tmp_path / "data",
        out=tmp_path / "run2",
        backend=ScriptedBackend(_model),
        cache=cache,
        judge=again,
    )
    assert again.calls == 0


def test_openai_backend_as_judge(tmp_path: Path) -> None:
    pytest.importorskip("aiohttp", reason="the loopback server needs aiohttp (dev extra)")
    from chartproof.testing.loopback import LoopbackServer

    _dataset(tmp_path / "data")
    seen: list[str] = []

    def reply(key: str, body: dict[str, object]) -> str:
        messages = body["messages"]
        assert isinstance(messages, list)
        text = str(messages[-1]["content"])
        seen.append(text)
        return "Correct" if "Candidate answer: 12" in text else "Incorrect"

    with LoopbackServer(reply=reply) as server:
        record = evaluate(
            tmp_path / "data",
            out=tmp_path / "run",
            backend=ScriptedBackend(_model),
            cache=False,
            judge=f"openai:judge@{server.base_url}",
        )
    assert len(seen) == 5 and all("Reference answer:" in t for t in seen)
    section = record.read_summary().section("judge")
    assert section["n"] == 5 and section["judge"] == pytest.approx(1 / 5)
    assert record.config["judge"]["model"].startswith("openai:judge@")


@pytest.mark.parametrize(
    ("a", "b", "share", "kappa"),
    [
        ([True, True, False, False], [True, True, False, False], 1.0, 1.0),
        ([True, False, True, False], [False, True, False, True], 0.0, -1.0),
        ([True, True, True], [True, True, True], 1.0, None),  # no chance correction possible
    ],
)
def test_agreement(a: list[bool], b: list[bool], share: float, kappa: float | None) -> None:
    got = agreement(a, b)
    assert got["agreement"] == pytest.approx(share)
    assert got["kappa"] == (None if kappa is None else pytest.approx(kappa))


# CharXiv: id -> (kind, template id or instruction category, gold, model answer, judge reply)
CHARXIV = {
    "r1": ("reasoning", 3, "0.01", "0.012", '{"extracted_answer": "0.012", "score": 0}'),
    "r2": ("reasoning", 1, "(b)", "b", '```json\n{"extracted_answer": "b", "score": 1}\n```'),
    "d1": ("descriptive", 10, "4", "four lines", '{"extract_answer_T1": 4, "score_T1": 1}'),
    "d2": ("descriptive", 13, "A, B", "B, A", "no json here"),
}


def _charxiv_dataset(root: Path) -> None:
    (root / "images").mkdir(parents=True, exist_ok=True)
    samples = []
    for i, (sid, (kind, ident, gold, _, _)) in enumerate(CHARXIV.items()):
        Image.new("RGB", (8, 8), (i * 30, 0, 0)).save(root / "images" / f"{sid}.png")
        ids = {"inst_category": ident} if kind == "reasoning" else {"qid": ident}
        samples.append(
            Sample(
                id=sid,
                image=ImageRef(path=f"images/{sid}.png"),
                question=f"Asked {sid} with instructions",
                answer=type_answer(gold),
                source={
                    "dataset": "charxiv",
                    "answer_raw": gold,
                    "charxiv_kind": kind,
                    "raw_question": f"Raw question {sid}",
                    **ids,
                },
            )
        )
    save_samples(samples, root)


def test_charxiv_samples_get_charxiv_grading_prompts(tmp_path: Path) -> None:
    _charxiv_dataset(tmp_path / "data")
    prompts: dict[str, str] = {}

    def judge(request: ModelRequest) -> str:
        text = request.messages[0].content[0]
        assert isinstance(text, TextPart)
        for sid, (kind, _, gold, answer, reply) in CHARXIV.items():
            if kind == "reasoning" and f"* Question: Raw question {sid}" in text.text:
                assert f"* Ground Truth: {gold}\n    * Response: {answer}" in text.text
                prompts[sid] = request.prompt
                return reply
            if (
                kind == "descriptive"
                and f"Response 1: {answer}\nGround Truth 1: {gold}" in text.text
            ):
                prompts[sid] = request.prompt
                return reply
        raise AssertionError(text.text[-300:])

    def model(request: ModelRequest) -> str:
        return CHARXIV[str(request.metadata["sample_id"])][3]

    record = evaluate(
        tmp_path / "data",
        out=tmp_path / "run",
        backend=ScriptedBackend(model),
        cache=False,
        judge=ScriptedBackend(judge, name="scripted:judge"),
    )
    assert prompts == {
        "r1": "charxiv_reasoning_3@1",
        "r2": "charxiv_reasoning_1@1",
        "d1": "charxiv_descriptive_quant@1",
        "d2": "charxiv_descriptive_enum@1",
    }
    from chartproof.runs import load_run

    judged = {r.sample_id: r.scores["judge"] for r in load_run(tmp_path / "run")[1]}
    assert judged == {"r1": 0.0, "r2": 1.0, "d1": 1.0, "d2": None}
    assert record.read_summary().section("judge")["ungraded"] == 1


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ('{"extracted_answer": "b", "score": 1}', True),
        ('{"extract_answer_T1": "x", "score_T1": 0}', False),
        ('Sure: {"score": 1}', True),
        ('{"score": -1}', None),
        ('{"score": 0.5}', None),
        ("Correct", None),
        ("{not json}", None),
    ],
)
def test_json_score(text: str, score: bool | None) -> None:
    from chartproof.pipelines.judge import json_score

    assert json_score(text) is score


# ChartX QA: (gold, model's answer, ChartX judge's reply, judge score)
CHARTX = {
    "x1": ("42", "42.5", "True", 1.0),
    "x2": ("Asia", "Europe", "False", 0.0),
    "x3": ("7", "7", "Maybe", None),
}


def test_chartx_samples_get_chartx_grading_prompt(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "images").mkdir(parents=True)
    samples = []
    for i, (sid, (gold, _, _, _)) in enumerate(CHARTX.items()):
        Image.new("RGB", (8, 8), (0, i * 30, 0)).save(root / "images" / f"{sid}.png")
        samples.append(
            Sample(
                id=sid,
                image=ImageRef(path=f"images/{sid}.png"),
                question=f"What is shown in chart {sid}?",
                answer=type_answer(gold),
                source={"dataset": "chartx"},
            )
        )
    save_samples(samples, root)
    asked: dict[str, str] = {}

    def judge(request: ModelRequest) -> str:
        text = request.messages[0].content[0]
        assert isinstance(text, TextPart)
        for sid, (gold, answer, reply, _) in CHARTX.items():
            query = f"<question> What is shown in chart {sid}? <groundtruth answer> {gold}"
            if query in text.text:
                assert text.text.endswith(f"<answer> {answer}\n    AI:")
                asked[sid] = request.prompt
                return reply
        raise AssertionError(text.text[-300:])

    evaluate(
        root,
        out=tmp_path / "run",
        backend=ScriptedBackend(lambda r: CHARTX[str(r.metadata["sample_id"])][1]),
        cache=False,
        judge=ScriptedBackend(judge, name="scripted:judge"),
    )
    assert asked == dict.fromkeys(CHARTX, "chartx_qa@1")
    from chartproof.runs import load_run

    judged = {r.sample_id: r.scores["judge"] for r in load_run(tmp_path / "run")[1]}
    assert judged == {sid: row[3] for sid, row in CHARTX.items()}
