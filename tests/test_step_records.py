"""Step records are typed: chain steps and premise verdicts by their `type` (or, in results
written before they were typed, by their fields); other pipelines' records stay dicts."""

from __future__ import annotations

import json
from pathlib import Path

from chartproof.runs import load_run
from chartproof.types import (
    CandidateStepRecord,
    ChainStepRecord,
    DerenderStepRecord,
    PremiseStepRecord,
    RunRecord,
    SampleResult,
)

LEGACY_CHAIN = {
    "id": 0,
    "task_type": "VE",
    "depends_on": [],
    "question": "What is A?",
    "gold": "3",
    "prediction": "3",
    "output": "3",
    "correct": True,
}
LEGACY_PREMISE = {
    "id": "p0",
    "kind": "data",
    "slot": "max",
    "statement": "A is the largest.",
    "truth": True,
    "prediction": False,
    "output": "False",
    "correct": False,
}


def _result(*steps: object) -> SampleResult:
    return SampleResult.model_validate(
        {"sample_id": "s", "protocol": "chain", "model": "m", "steps": list(steps)}
    )


def test_legacy_step_dicts_read_as_typed_records() -> None:
    r = _result(LEGACY_CHAIN, LEGACY_PREMISE)
    chain, premise = r.steps
    assert isinstance(chain, ChainStepRecord) and chain.correct and chain.depends_on == ()
    assert isinstance(premise, PremiseStepRecord) and premise.prediction is False


def test_typed_records_round_trip_with_their_type() -> None:
    r = _result(LEGACY_CHAIN, LEGACY_PREMISE)
    dumped = r.model_dump(mode="json")
    assert [st["type"] for st in dumped["steps"]] == ["chain", "premise"]
    assert SampleResult.model_validate_json(r.model_dump_json()) == r


def test_other_records_stay_dicts() -> None:
    audit = {"stage": "select", "prompt": "p", "output": "A", "choice": "a", "first_listed": "a"}
    (step,) = _result(audit).steps
    assert step == audit


# a derender result and an explain candidate as they were written before their steps were typed
LEGACY_DERENDER_LINE = (
    '{"sample_id":"c0","protocol":"derender","model":"builtin:reader","prediction":"ok",'
    '"output":"import matplotlib","scores":{"ssim":0.98,"data_agreement":1.0,"faithful":1.0},'
    '"groups":{"chart_type":"pie","status":"ok"},"steps":[{"status":"ok","reason":null,'
    '"sandbox":{"status":"ok","reason":null,"duration_s":1.83,"isolation":["process",'
    '"rlimits"]},"spec":"specs/c0.json"}],"error":null,"cached":0,"calls":1,"latency_s":0.01}'
)
LEGACY_NO_CODE = {"status": "no_code", "reason": "the reply held no code block"}
LEGACY_CANDIDATE = {
    "model": "scripted:m0",
    "round": 1,
    "reply": "Because A is 3.",
    "explanation": "Because A is 3.",
    "error": None,
    "scores": {"FS": 0.5},
    "score_notes": {},
    "aggregate": 0.5,
    "aggregate_note": None,
    "rank": 1,
    "status": "accepted",
    "reason": "accepted: 3 of 5 verifiers said Correct, 3 needed",
    "votes": [{"verifier": "scripted:m1", "verdict": True, "reply": "Correct", "error": None}],
    "correct": 1,
    "needed": 3,
}


def test_a_derender_line_written_before_steps_were_typed_loads_typed(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    record = RunRecord(id="run", created="2026-01-01T00:00:00+00:00", config={},
                       dataset_fingerprint="fp", code_version="0")  # fmt: skip
    (run / "run.json").write_text(record.model_dump_json(), encoding="utf-8")
    (run / "results.jsonl").write_text(LEGACY_DERENDER_LINE + "\n", encoding="utf-8")
    (result,) = load_run(run).results
    (step,) = result.steps
    assert isinstance(step, DerenderStepRecord)
    assert step.spec == "specs/c0.json" and step.sandbox is not None
    assert step.sandbox.isolation == ("process", "rlimits") and step.sandbox.duration_s == 1.83
    # written back as it was, plus its type
    dumped = json.loads(result.model_dump_json())["steps"][0]
    assert dumped == {"type": "derender", **json.loads(LEGACY_DERENDER_LINE)["steps"][0]}


def test_a_redraw_without_code_is_written_without_sandbox_or_spec_keys() -> None:
    (step,) = _result(LEGACY_NO_CODE).steps
    assert isinstance(step, DerenderStepRecord) and step.status == "no_code"
    assert step.sandbox is None and step.spec is None
    assert step.model_dump(mode="json") == {"type": "derender", **LEGACY_NO_CODE}
    assert SampleResult.model_validate_json(_result(step).model_dump_json()).steps == (step,)


def test_an_explain_candidate_written_before_steps_were_typed_loads_typed() -> None:
    (step,) = _result(LEGACY_CANDIDATE).steps
    assert isinstance(step, CandidateStepRecord)
    assert step.status == "accepted" and step.votes[0].verdict is True
    assert step.model_dump(mode="json") == {"type": "explain_candidate", **LEGACY_CANDIDATE}


def test_a_record_with_an_unknown_type_stays_a_dict() -> None:
    later = {"type": "someday", "status": "ok", "reason": None}
    (step,) = _result(later).steps
    assert step == later
