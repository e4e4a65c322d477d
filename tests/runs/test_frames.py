"""Runs as data: results record what was asked, summaries a flat `scores`, and
`load_run(...).results_frame()` round-trips every field of `results.jsonl`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PIL import Image

import chartproof
from chartproof.datasets import save_samples
from chartproof.pipelines.evaluate import evaluate
from chartproof.runs import RunFolder
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample, SampleResult


def _run(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "images").mkdir(parents=True)
    samples = []
    for i in range(6):
        Image.new("RGB", (40, 30), (30 * i, 90, 160)).save(data / "images" / f"c{i}.png")
        mc = i >= 4
        samples.append(
            Sample(
                id=f"s{i}",
                image=ImageRef(path=f"images/c{i}.png"),
                question=f"Which value does bar {i} show?",
                answer=Answer.option("b") if mc else Answer.number(float(i)),
                choices=("a", "b", "c") if mc else (),
                chart_type=("vbar", "line")[i % 2],
                question_type="descriptive",
            )
        )
    save_samples(samples, data)

    def answer(request: ModelRequest) -> str:
        i = int(str(request.metadata["sample_id"])[1:])
        if i == 1:
            raise RuntimeError("scripted failure")
        return "The answer is: B" if i >= 4 else f"The answer is: {i if i % 3 else i + 1}"

    evaluate(data, out=tmp_path / "run", backend=ScriptedBackend(answer), cache=False)
    return tmp_path / "run"


def test_direct_results_record_what_was_asked(tmp_path: Path) -> None:
    run = chartproof.load_run(_run(tmp_path))
    by_id = {r.sample_id: r for r in run.results}
    s0, s4 = by_id["s0"], by_id["s4"]
    assert s0.question == "Which value does bar 0 show?" and s0.gold == "0"
    assert s0.images == ("images/c0.png",) and s0.choices == ()
    assert s0.prompt is not None and s0.prompt.startswith("chartqax@")
    assert s0.prompt_text is not None
    assert s0.prompt_text.startswith("[image: c0.png]\n")
    assert "Which value does bar 0 show?" in s0.prompt_text
    assert s4.choices == ("a", "b", "c") and s4.gold == "b"
    assert "Options:" in (s4.prompt_text or "")
    # a failed sample still says what was asked
    assert by_id["s1"].error and by_id["s1"].question == "Which value does bar 1 show?"


def test_summary_has_flat_scores_equal_to_the_overall_rows(tmp_path: Path) -> None:
    path = _run(tmp_path)
    summary = json.loads((path / "summary.json").read_text())
    overall = {m["metric"]: m["value"] for m in summary["metrics"] if not m["group"]}
    assert summary["scores"] == overall and "relaxed_accuracy" in summary["scores"]
    # 2, 4, 5 right (0 answered 1, 3 answered 4, 1 failed): 3 of 6
    assert summary["scores"]["relaxed_accuracy"] == pytest.approx(3 / 6)
    assert chartproof.load_run(path).summary.scores == overall


def test_results_frame_round_trips_every_field(tmp_path: Path) -> None:
    path = _run(tmp_path)
    frame = chartproof.load_run(path).results_frame()
    lines = [json.loads(x) for x in (path / "results.jsonl").read_text().splitlines()]
    assert len(frame) == len(lines)
    fields = list(SampleResult.model_fields)
    assert set(lines[0]) == set(fields)
    for line, (_, row) in zip(lines, frame.iterrows(), strict=True):
        restored = SampleResult.model_validate({f: row[f] for f in fields})
        assert restored.model_dump(mode="json") == line
    # flat analysis columns beside them
    assert frame["run"].unique().tolist() == ["run"]
    acc = frame["scores.relaxed_accuracy"]
    # the failed s1 recorded no score; the summary counts it as 0
    assert acc.dtype == "float64" and acc.isna().tolist() == [r == "s1" for r in frame.sample_id]
    assert acc.fillna(0).mean() == pytest.approx(3 / 6) and acc.mean() == pytest.approx(3 / 5)
    assert sorted(frame["groups.chart_type"].unique()) == ["line", "vbar"]


def test_summary_frame_lists_overall_breakdowns_and_grid(tmp_path: Path) -> None:
    run = chartproof.load_run(_run(tmp_path))
    frame = run.summary_frame()
    overall = frame[frame["table"] == "overall"].set_index("metric")["value"].to_dict()
    assert overall == run.summary.scores
    by_type = frame[(frame["table"] == "by chart_type") & (frame["metric"] == "relaxed_accuracy")]
    values = dict(zip(by_type["groups.chart_type"], by_type["value"], strict=True))
    # vbar: s0 wrong, s2 and s4 right; line: s1 failed, s3 wrong, s5 right
    assert values["vbar"] == pytest.approx(2 / 3) and values["line"] == pytest.approx(1 / 3)
    assert (frame["table"] == "grid").any()


def test_old_results_without_the_new_fields_still_load(tmp_path: Path) -> None:
    with RunFolder.open(tmp_path, {}, "fp") as folder:
        folder.append([SampleResult(sample_id="a", protocol="direct", model="m")])
    line = json.loads((tmp_path / "results.jsonl").read_text())
    old = {k: v for k, v in line.items() if k not in ("question", "gold", "choices")}
    old = {k: v for k, v in old.items() if k not in ("images", "prompt", "prompt_text")}
    (tmp_path / "results.jsonl").write_text(json.dumps(old) + "\n")
    record, results = chartproof.load_run(tmp_path)
    assert results[0].question is None and results[0].images == ()
    frame = chartproof.load_run(tmp_path).results_frame()
    assert frame.loc[0, "gold"] is None and not math.isnan(len(frame))
    assert record.read_summary().scores == {}
