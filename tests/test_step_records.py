"""Step records are typed: chain steps and premise verdicts by their `type` (or, in results
written before they were typed, by their fields); other pipelines' records stay dicts."""

from __future__ import annotations

from chartproof.types import ChainStepRecord, PremiseStepRecord, SampleResult

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
    derender = {"status": "ok", "reason": None, "spec": "specs/a.json"}
    (step,) = _result(derender).steps
    assert step == derender
