"""`explain`: scripted models whose candidates, scores and votes are known: the best candidate is
accepted, a rejected one gives way to the next best, a round with no winner is regenerated,
majority thresholds, failed calls, resume after an interruption, provenance, Table-9 summary."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from chartproof.datasets import load_dataset, save_samples
from chartproof.metrics.roscoe import RoscoeItem
from chartproof.models.base import Backend
from chartproof.pipelines.explain import SUMMARY_FILE, UNACCEPTED_FILE, explain
from chartproof.runs import load_run
from chartproof.testing import ScriptedBackend
from chartproof.types import (
    Answer,
    DataTable,
    ImageRef,
    ModelRequest,
    ModelResponse,
    Sample,
    TextPart,
)

MODELS = tuple(f"scripted:m{i}" for i in range(6))
CODES = ("FS", "FT", "IS", "IC", "SRC", "SFC", "PS", "PC", "GS")
TEXT = re.compile(r"^(\S+) explains (\S+) in round (\d+)\.$")
ROUND = re.compile(r"/r(\d+)/c\d+$")


def _dataset(root: Path, n: int = 1) -> list[Sample]:
    (root / "images").mkdir(parents=True, exist_ok=True)
    samples = []
    for i in range(n):
        Image.new("RGB", (8, 8), (i * 30 % 256, 0, 0)).save(root / "images" / f"c{i}.png")
        samples.append(
            Sample(
                id=f"s{i}",
                image=ImageRef(path=f"images/c{i}.png"),
                question=f"Which year has the highest value in chart {i}?",
                answer=Answer.of_text(f"20{10 + i}"),
                table=DataTable.from_csv(f"year,value\n2009,3\n20{10 + i},5\n") if i == 0 else None,
                chart_type="vbar",
                explanation="A reference explanation from the generator." if i == 0 else None,
            )
        )
    save_samples(samples, root)
    return samples


@dataclass
class Script:
    """Known candidates (one text per model, sample and round), AS values and votes."""

    quality: dict[tuple[str, str, int], float] = field(default_factory=dict)
    """(sample, author, round) → AS; default 0.5 − 0.05 × model index (m0 best)."""
    correct: dict[tuple[str, str, int], set[str]] = field(default_factory=dict)
    """(sample, author, round) → verifiers that say Correct (others say Incorrect)."""
    fail_generation: set[tuple[str, str]] = field(default_factory=set)
    """(sample, model) whose candidate call fails."""
    fail_votes: set[tuple[str, str]] = field(default_factory=set)
    """(sample, verifier) whose verification calls fail."""
    mute: set[tuple[str, str]] = field(default_factory=set)
    """(sample, verifier) replying without a verdict."""

    @staticmethod
    def text(model: str, sid: str, rnd: int) -> str:
        return f"{model} explains {sid} in round {rnd}."

    def as_value(self, model: str, sid: str, rnd: int) -> float:
        default = 0.5 - 0.05 * int(model.rsplit("m", 1)[1])
        return self.quality.get((sid, model, rnd), default)

    def reply(self, model: str, request: ModelRequest) -> str:
        sid = str(request.metadata["sample_id"])
        if request.prompt == "explain_candidate@1":
            if (sid, model) in self.fail_generation:
                raise ConnectionError(f"{model} is down")
            m = ROUND.search(request.id)
            assert m is not None, request.id
            return self.text(model, sid, int(m.group(1)))
        assert request.prompt == "explain_verify@1"
        if (sid, model) in self.fail_votes:
            raise TimeoutError(f"{model} timed out")
        if (sid, model) in self.mute:
            return "I cannot tell."
        found = TEXT.match(str(request.metadata["explanation"]))
        assert found is not None
        author, about, rnd = found.group(1), found.group(2), int(found.group(3))
        assert about == sid and author != model, "never its own candidate"
        return "Correct" if model in self.correct.get((sid, author, rnd), set()) else "Incorrect"

    def backends(self, names: Sequence[str] = MODELS) -> list[ScriptedBackend]:
        return [_backend(name, self.reply, name) for name in names]

    def scorer(self, items: Sequence[RoscoeItem]) -> list[dict[str, float | None]]:
        """Nine ROSCOE codes whose renormalised AS is exactly the scripted value: every
        available score equals it (PS/PC raw = 1 − value, mapped back by 1 − x), no NLI."""
        out = []
        for item in items:
            found = TEXT.match(item.explanation)
            assert found is not None
            v = self.as_value(found.group(1), found.group(2), int(found.group(3)))
            out.append(
                {**dict.fromkeys(CODES, v), "SRC": None, "SFC": None, "PS": 1 - v, "PC": 1 - v}
            )
        return out


def _backend(
    name: str, reply: Callable[[str, ModelRequest], str], as_model: str
) -> ScriptedBackend:
    """A scripted backend called `name` answering as `as_model` of the script."""
    return ScriptedBackend(partial(reply, as_model), name=name)


def _others(author: str, names: Sequence[str] = MODELS) -> set[str]:
    return {n for n in names if n != author}


def _run(
    tmp_path: Path, script: Script, backends: Sequence[Backend] | None = None, **kwargs: Any
) -> Any:
    return explain(
        tmp_path / "data",
        backends if backends is not None else script.backends(),
        tmp_path / "out",
        scorer=script.scorer,
        **kwargs,
    )


def _written(tmp_path: Path) -> list[Sample]:
    return load_dataset(tmp_path / "out").samples


def _prov(sample: Sample) -> dict[str, Any]:
    """The explain provenance a written sample carries."""
    prov = sample.source["explain"]
    assert isinstance(prov, dict)
    return prov


def _text(request: ModelRequest) -> str:
    part = request.messages[0].content[-1]
    assert isinstance(part, TextPart)
    return part.text


def _unaccepted(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "out" / UNACCEPTED_FILE).read_text()
    return [json.loads(line) for line in text.splitlines()]


# ------------------------------------------------------------------------- selection


def test_best_candidate_is_accepted_with_full_provenance(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    script = Script(quality={("s0", "scripted:m3", 1): 0.9})
    script.correct[("s0", "scripted:m3", 1)] = _others("scripted:m3")
    backends = script.backends()
    result = _run(tmp_path, script, backends)
    assert (result.accepted, result.rejected, result.failed) == (1, 0, 0)
    # six candidates, then the five other models vote on the best one only
    assert [b.calls for b in backends] == [2, 2, 2, 1, 2, 2]

    (sample,) = _written(tmp_path)
    assert sample.explanation == "scripted:m3 explains s0 in round 1."
    prov = _prov(sample)
    assert (prov["status"], prov["model"], prov["round"], prov["rounds"]) == (
        "accepted", "scripted:m3", 1, 1,
    )  # fmt: skip
    assert prov["input_explanation"] == "A reference explanation from the generator."
    cands = prov["candidates"]
    assert isinstance(cands, list) and [c["model"] for c in cands] == list(MODELS)
    by_model = {c["model"]: c for c in cands}
    best = by_model["scripted:m3"]
    assert best["rank"] == 1 and best["status"] == "accepted"
    assert best["aggregate"] == pytest.approx(0.9)
    assert best["aggregate_note"] == (
        "weights renormalised over FS, FT, IS, IC, PS, PC, GS (SRC, SFC missing)"
    )
    assert set(best["scores"]) == set(CODES) and best["scores"]["SRC"] is None
    assert best["scores"]["PS"] == pytest.approx(0.1)
    assert [v["verifier"] for v in best["votes"]] == [m for m in MODELS if m != "scripted:m3"]
    assert all(v["verdict"] is True and v["reply"] == "Correct" for v in best["votes"])
    assert (best["correct"], best["needed"]) == (5, 3)
    assert best["reason"] == "accepted: 5 of 5 verifiers said Correct, 3 needed"
    # the rest ranked by their AS (0.5, 0.45, 0.4, 0.3, 0.25), never verified
    assert [by_model[m]["rank"] for m in MODELS] == [2, 3, 4, 1, 5, 6]
    for m in ("scripted:m0", "scripted:m5"):
        assert by_model[m]["status"] == "not_verified" and by_model[m]["votes"] == []
        assert "better-ranked candidate was accepted" in by_model[m]["reason"]
    settings = prov["settings"]
    assert isinstance(settings, dict)
    assert settings["prompts"] == {"candidate": "explain_candidate@1", "verify": "explain_verify@1"}
    assert _unaccepted(tmp_path) == []


def test_requests_carry_chart_question_answer_and_table(tmp_path: Path) -> None:
    _dataset(tmp_path / "data", n=2)
    script = Script()
    for sid in ("s0", "s1"):
        script.correct[(sid, "scripted:m0", 1)] = _others("scripted:m0")
    backends = script.backends()
    _run(tmp_path, script, backends)
    first = backends[1].requests
    by_id = {r.id: r for r in first}
    cand = by_id["s0/explain/r1/c1"]
    text = _text(cand)
    assert cand.messages[0].content[0].type == "image"
    assert "Question: Which year has the highest value in chart 0?\nAnswer: 2010" in text
    assert "The chart's data table (CSV):\nyear,value\n2009,3\n2010,5" in text
    assert cand.config.temperature == 0.0
    no_table = _text(by_id["s1/explain/r1/c1"])
    assert "Answer: 2011" in no_table and "CSV" not in no_table
    vote = by_id["s0/explain/r1/c0/v1"]
    vote_text = _text(vote)
    assert "Explanation to check: scripted:m0 explains s0 in round 1." in vote_text
    assert "year,value" in vote_text and "Answer: 2010" in vote_text


def test_rejected_best_gives_way_to_the_next_best(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    script = Script(quality={("s0", "scripted:m3", 1): 0.9, ("s0", "scripted:m1", 1): 0.8})
    script.correct[("s0", "scripted:m3", 1)] = {"scripted:m0", "scripted:m1"}
    script.correct[("s0", "scripted:m1", 1)] = {"scripted:m0", "scripted:m2", "scripted:m5"}
    backends = script.backends()
    result = _run(tmp_path, script, backends)
    assert result.accepted == 1
    (sample,) = _written(tmp_path)
    assert sample.explanation == "scripted:m1 explains s0 in round 1."
    cands = {c["model"]: c for c in _prov(sample)["candidates"]}
    assert cands["scripted:m3"]["status"] == "rejected"
    assert cands["scripted:m3"]["reason"] == "rejected: 2 of 5 verifiers said Correct, 3 needed"
    assert cands["scripted:m1"]["status"] == "accepted" and cands["scripted:m1"]["correct"] == 3
    assert cands["scripted:m0"]["status"] == "not_verified"
    assert sum(b.calls for b in backends) == 6 + 5 + 5


def test_no_winner_regenerates_every_candidate(tmp_path: Path) -> None:
    _dataset(tmp_path / "data", n=2)
    script = Script(quality={("s0", "scripted:m2", 2): 0.95})
    script.correct[("s0", "scripted:m2", 2)] = {"scripted:m0", "scripted:m1", "scripted:m3"}
    script.correct[("s1", "scripted:m0", 1)] = _others("scripted:m0")
    backends = script.backends()
    result = _run(tmp_path, script, backends)
    assert result.accepted == 2
    samples = {s.id: s for s in _written(tmp_path)}
    assert samples["s0"].explanation == "scripted:m2 explains s0 in round 2."
    prov = _prov(samples["s0"])
    assert (prov["round"], prov["rounds"]) == (2, 2)
    cands = prov["candidates"]
    assert isinstance(cands, list) and len(cands) == 12
    assert all(c["status"] == "rejected" for c in cands if c["round"] == 1)
    # round 2 is sampled with a per-sample seed, under new request ids
    regen = [
        r for r in backends[4].requests if "/r2/" in r.id and r.prompt == "explain_candidate@1"
    ]
    assert [r.id for r in regen] == ["s0/explain/r2/c4"]
    assert regen[0].config.temperature == 0.7 and regen[0].config.seed is not None
    seeds = {
        r.config.seed for b in backends for r in b.requests if r.id.endswith(("/r2/c0", "/r2/c5"))
    }
    assert len(seeds) == 1  # one seed per sample and round, shared by the models
    summary = json.loads((tmp_path / "out" / SUMMARY_FILE).read_text())
    assert summary["rounds"] == [
        {"round": 1, "samples": 2, "accepted": 1, "not_accepted": 1, "candidates": 12,
         "failed_candidates": 0, "verified_candidates": 7, "rejected_candidates": 6},
        {"round": 2, "samples": 1, "accepted": 1, "not_accepted": 0, "candidates": 6,
         "failed_candidates": 0, "verified_candidates": 1, "rejected_candidates": 0},
    ]  # fmt: skip
    assert summary["wins"] == {**dict.fromkeys(MODELS, 0), "scripted:m0": 1, "scripted:m2": 1}


@pytest.mark.parametrize("rounds", [1, 2])
def test_a_sample_without_winner_is_recorded_not_dropped(tmp_path: Path, rounds: int) -> None:
    _dataset(tmp_path / "data")
    script = Script()
    result = _run(tmp_path, script, max_rounds=rounds)
    assert (result.accepted, result.rejected, result.failed) == (0, 1, 0)
    assert _written(tmp_path) == []
    (line,) = _unaccepted(tmp_path)
    assert (line["sample_id"], line["status"], line["rounds"], line["error"]) == (
        "s0", "rejected", rounds, None,
    )  # fmt: skip
    assert line["answer"] == "2010" and line["question"].startswith("Which year")
    assert len(line["candidates"]) == 6 * rounds
    assert all(c["status"] == "rejected" and len(c["votes"]) == 5 for c in line["candidates"])


# ------------------------------------------------------------------------- majority


@pytest.mark.parametrize(
    ("majority", "n_correct", "accepted"),
    [
        (None, 3, True),  # more than half of five
        (None, 2, False),
        (5, 5, True),  # unanimity
        (5, 4, False),
        (1, 1, True),
        (1, 0, False),
    ],
)
def test_majority_threshold(
    tmp_path: Path, majority: int | None, n_correct: int, accepted: bool
) -> None:
    _dataset(tmp_path / "data")
    voters = [m for m in MODELS if m != "scripted:m0"][:n_correct]
    script = Script(correct={("s0", "scripted:m0", 1): set(voters)})
    result = _run(tmp_path, script, majority=majority, max_rounds=1)
    assert result.accepted == int(accepted)
    outcome = json.loads((tmp_path / "out" / "run" / "results.jsonl").read_text().splitlines()[0])
    best = outcome["steps"][0]
    assert best["needed"] == (3 if majority is None else majority)
    assert best["correct"] == n_correct


def test_default_majority_follows_the_number_of_verifiers(tmp_path: Path) -> None:
    # four models: each candidate has three verifiers, so two Correct votes are enough
    _dataset(tmp_path / "data")
    names = MODELS[:4]
    script = Script(correct={("s0", "scripted:m0", 1): {"scripted:m1", "scripted:m3"}})
    result = _run(tmp_path, script, script.backends(names), max_rounds=1)
    assert result.accepted == 1
    (sample,) = _written(tmp_path)
    best = _prov(sample)["candidates"][0]
    assert (best["correct"], best["needed"], len(best["votes"])) == (2, 2, 3)


def test_separate_verifiers_judge_every_candidate(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    script = Script(correct={("s0", "scripted:m0", 1): {"scripted:m3", "scripted:m4"}})
    verifiers = script.backends(MODELS[2:5])
    result = _run(tmp_path, script, script.backends(MODELS[:2]), verifiers=verifiers)
    assert result.accepted == 1
    (sample,) = _written(tmp_path)
    best = _prov(sample)["candidates"][0]
    assert [v["verifier"] for v in best["votes"]] == list(MODELS[2:5])
    assert (best["correct"], best["needed"]) == (2, 2)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"majority": 6}, "majority 6 cannot be reached"),
        ({"majority": 0}, "majority must be at least 1"),
        ({"max_rounds": 0}, "max_rounds must be at least 1"),
        ({"weights": "heavy"}, "unknown weight set 'heavy'"),
    ],
)
def test_bad_settings_are_refused(tmp_path: Path, kwargs: dict[str, Any], message: str) -> None:
    _dataset(tmp_path / "data")
    with pytest.raises(ValueError, match=message):
        _run(tmp_path, Script(), **kwargs)


def test_models_must_be_distinct_and_verifiable(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    script = Script()
    with pytest.raises(ValueError, match="no verifier for the candidates of scripted:m0"):
        _run(tmp_path, script, script.backends(MODELS[:1]))
    twice = [*script.backends(MODELS[:2]), *script.backends(MODELS[1:2])]
    with pytest.raises(ValueError, match=r"named twice: \['scripted:m1'\]"):
        _run(tmp_path, script, twice)
    with pytest.raises(ValueError, match="is the input dataset's folder"):
        explain(tmp_path / "data", script.backends(), tmp_path / "data", scorer=script.scorer)


# ------------------------------------------------------------------------- failures


def test_failed_calls_are_recorded_and_not_counted(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    script = Script(
        fail_generation={("s0", "scripted:m5")},
        fail_votes={("s0", "scripted:m4")},
        mute={("s0", "scripted:m2")},
    )
    # m0 is best; m1 and m3 say Correct, m4 fails, m2 gives no verdict, m5 says Incorrect
    script.correct[("s0", "scripted:m0", 1)] = {"scripted:m1", "scripted:m3", "scripted:m4"}
    script.correct[("s0", "scripted:m1", 1)] = {"scripted:m0", "scripted:m3", "scripted:m5"}
    result = _run(tmp_path, script, max_rounds=1)
    assert result.accepted == 1
    (sample,) = _written(tmp_path)
    cands = {c["model"]: c for c in _prov(sample)["candidates"]}
    failed = cands["scripted:m5"]
    assert failed["status"] == "failed" and failed["rank"] is None and failed["votes"] == []
    assert failed["reason"] == "generation failed: ConnectionError: scripted:m5 is down"
    first = cands["scripted:m0"]
    assert first["status"] == "rejected"
    assert first["reason"] == (
        "rejected: 2 of 5 verifiers said Correct, 3 needed "
        "(1 call(s) failed; 1 reply without a verdict)"
    )
    votes = {v["verifier"]: v for v in first["votes"]}
    assert votes["scripted:m4"]["verdict"] is None
    assert votes["scripted:m4"]["error"] == "TimeoutError: scripted:m4 timed out"
    assert votes["scripted:m2"] == {
        "verifier": "scripted:m2", "verdict": None, "reply": "I cannot tell.", "error": None,
    }  # fmt: skip
    assert cands["scripted:m1"]["status"] == "accepted"
    summary = json.loads((tmp_path / "out" / SUMMARY_FILE).read_text())
    assert summary["verifiers"]["scripted:m4"] == {
        "votes": 2, "correct": 0, "incorrect": 0, "no_verdict": 0, "failed": 2,
    }  # fmt: skip
    assert summary["models"]["scripted:m5"]["failed"] == 1


def test_a_sample_lost_to_failed_calls_is_asked_again(tmp_path: Path) -> None:
    _dataset(tmp_path / "data", n=2)
    script = Script(fail_votes={("s1", "scripted:m4")})
    script.correct[("s0", "scripted:m0", 1)] = _others("scripted:m0")
    # only m4's vote could carry s1's candidates: with m4 down nothing passes
    for m in MODELS:
        script.correct[("s1", m, 1)] = {"scripted:m4", *list(_others(m) - {"scripted:m4"})[:2]}
    result = _run(tmp_path, script, max_rounds=1)
    assert (result.accepted, result.failed) == (1, 1)
    (line,) = _unaccepted(tmp_path)
    assert line["status"] == "failed" and "model call(s) failed" in line["error"]

    script.fail_votes.clear()
    backends = script.backends()
    again = _run(tmp_path, script, backends, max_rounds=1)
    assert (again.accepted, again.failed) == (2, 0)
    # s0 was done and is not asked again; of s1 only the failed vote misses the cache
    sent = [(b.name, r.id) for b in backends for r in b.requests]
    assert sent == [("scripted:m4", "s1/explain/r1/c0/v4")]
    _, results = load_run(tmp_path / "out" / "run")
    assert sorted(r.sample_id for r in results) == ["s0", "s1"]


class _Interrupt(RuntimeError):
    pass


class _Breaking:
    """Wraps a backend and raises, as a killed process would stop, when first asked to verify
    a candidate of sample `at` (that batch's candidates and some votes are cached by then)."""

    def __init__(self, inner: ScriptedBackend, at: str) -> None:
        self.inner, self.at = inner, at

    @property
    def name(self) -> str:
        return self.inner.name

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        if any(
            r.metadata["sample_id"] == self.at and r.prompt == "explain_verify@1" for r in requests
        ):
            raise _Interrupt("killed")
        return self.inner.generate(requests)

    def close(self) -> None:
        pass


def _mixed_script() -> Script:
    script = Script()
    script.correct[("s0", "scripted:m0", 1)] = _others("scripted:m0")
    script.correct[("s1", "scripted:m1", 2)] = _others("scripted:m1")
    script.correct[("s2", "scripted:m1", 1)] = {"scripted:m0", "scripted:m2", "scripted:m3"}
    script.correct[("s3", "scripted:m0", 1)] = _others("scripted:m0")
    return script


def test_resume_after_interruption_gives_the_same_dataset(tmp_path: Path) -> None:
    _dataset(tmp_path / "data", n=5)
    script = _mixed_script()
    clean = explain(
        tmp_path / "data", script.backends(), tmp_path / "clean", scorer=script.scorer,
        batch_size=2, regen_temperature=0.0, cache=tmp_path / "clean-cache.sqlite",
    )  # fmt: skip
    # the first batch (s0, s1: two rounds) finishes; m3 breaks during the second (s2, s3)
    broken: list[Backend] = list(script.backends())
    broken[3] = _Breaking(script.backends(["scripted:m3"])[0], at="s3")
    with pytest.raises(_Interrupt):
        explain(
            tmp_path / "data", broken, tmp_path / "out", scorer=script.scorer,
            batch_size=2, regen_temperature=0.0,
        )  # fmt: skip
    lines = (tmp_path / "out" / "run" / "results.jsonl").read_text().splitlines()
    assert [json.loads(x)["sample_id"] for x in lines] == ["s0", "s1"]
    assert not (tmp_path / "out" / "samples.jsonl").exists()

    backends = script.backends()
    resumed = explain(
        tmp_path / "data", backends, tmp_path / "out", scorer=script.scorer,
        batch_size=2, regen_temperature=0.0,
    )  # fmt: skip
    assert {r.metadata["sample_id"] for b in backends for r in b.requests} == {"s2", "s3", "s4"}
    assert (tmp_path / "out" / "samples.jsonl").read_bytes() == (
        tmp_path / "clean" / "samples.jsonl"
    ).read_bytes()
    assert (tmp_path / "out" / UNACCEPTED_FILE).read_bytes() == (
        tmp_path / "clean" / UNACCEPTED_FILE
    ).read_bytes()
    for key in ("counts", "rounds", "wins", "models", "verifiers", "weight_sensitivity"):
        assert resumed.summary[key] == clean.summary[key], key
    assert resumed.summary["counts"] == {"samples": 5, "accepted": 4, "rejected": 1, "failed": 0}
    assert resumed.summary["calls"]["cached"] > 0  # the batch in flight came back from cache
    _, results = load_run(tmp_path / "out" / "run")
    assert sorted(r.sample_id for r in results) == ["s0", "s1", "s2", "s3", "s4"]

    # a finished run asks nothing and rewrites the same files
    idle = script.backends()
    explain(
        tmp_path / "data", idle, tmp_path / "out", scorer=script.scorer,
        batch_size=2, regen_temperature=0.0,
    )  # fmt: skip
    assert sum(b.calls for b in idle) == 0
    assert (tmp_path / "out" / "samples.jsonl").read_bytes() == (
        tmp_path / "clean" / "samples.jsonl"
    ).read_bytes()


def test_a_larger_limit_extends_the_run(tmp_path: Path) -> None:
    _dataset(tmp_path / "data", n=4)
    script = _mixed_script()
    first = _run(tmp_path, script, limit=2)
    assert first.summary["counts"]["samples"] == 2
    backends = script.backends()
    seen: list[tuple[int, int]] = []
    second = _run(
        tmp_path, script, backends, limit=4, batch_size=1, progress=lambda d, t: seen.append((d, t))
    )
    assert seen == [(2, 4), (3, 4), (4, 4)]
    assert {r.metadata["sample_id"] for b in backends for r in b.requests} == {"s2", "s3"}
    assert second.summary["counts"] == {"samples": 4, "accepted": 4, "rejected": 0, "failed": 0}
    assert [s.id for s in _written(tmp_path)] == ["s0", "s1", "s2", "s3"]


def test_samples_without_a_gold_answer_are_skipped(tmp_path: Path) -> None:
    samples = _dataset(tmp_path / "data", n=2)
    blank = samples[1].model_copy(update={"answer": Answer.of_text("  ")})
    save_samples([samples[0], blank], tmp_path / "data")
    script = Script(correct={("s0", "scripted:m0", 1): _others("scripted:m0")})
    result = _run(tmp_path, script)
    assert result.summary["counts"]["samples"] == 1
    assert result.summary["dataset"]["without_gold_answer"] == 1


# ------------------------------------------------------------------------- summary


def _codes(faith: float, fluency: float) -> dict[str, float | None]:
    """FS, FT, IS, IC = faith; GS = fluency; PS, PC = fluency on the paper's scale."""
    return {
        "FS": faith, "FT": faith, "IS": faith, "IC": faith, "SRC": None, "SFC": None,
        "PS": 1 - fluency, "PC": 1 - fluency, "GS": fluency,
    }  # fmt: skip


def test_summary_holds_the_weight_sensitivity_matrix(tmp_path: Path) -> None:
    # s0: X is faithful (0.9) but not fluent (0.1); Y the reverse (0.5, 1.0). Renormalised
    # over the seven available scores, by hand: original 0.75 vs 0.594 → X; uniform 0.557 vs
    # 0.714 → Y; fluency 0.45 vs 0.781 → Y; faithfulness 0.811 vs 0.556 → X;
    # informativeness 0.80 vs 0.5625 → X; perturbed 0.742 vs 0.599 → X.
    # s1: X dominates everywhere, so every set picks it.
    _dataset(tmp_path / "data", n=2)
    table = {
        ("s0", "scripted:m0"): _codes(0.9, 0.1), ("s0", "scripted:m1"): _codes(0.5, 1.0),
        ("s1", "scripted:m0"): _codes(0.9, 0.9), ("s1", "scripted:m1"): _codes(0.5, 0.5),
    }  # fmt: skip

    def scorer(items: Sequence[RoscoeItem]) -> list[dict[str, float | None]]:
        found = [TEXT.match(i.explanation) for i in items]
        return [table[(m.group(2), m.group(1))] for m in found if m is not None]

    script = Script(correct={("s0", "scripted:m0", 1): {"scripted:m1"}})
    script.correct[("s1", "scripted:m0", 1)] = {"scripted:m1"}
    result = explain(
        tmp_path / "data", script.backends(MODELS[:2]), tmp_path / "out", scorer=scorer
    )
    sens = result.summary["weight_sensitivity"]
    names = sens["names"]
    assert names == [
        "original", "uniform", "random_uniform", "random_gaussian", "fluency",
        "faithfulness", "informativeness", "perturbed",
    ]  # fmt: skip
    agree = {
        (a, b): sens["agreement"][i][j] for i, a in enumerate(names) for j, b in enumerate(names)
    }
    assert agree[("original", "fluency")] == 0.5
    assert agree[("original", "uniform")] == 0.5
    assert agree[("original", "faithfulness")] == 1.0
    assert agree[("original", "perturbed")] == 1.0
    assert agree[("uniform", "fluency")] == 1.0
    assert agree[("informativeness", "fluency")] == 0.5
    assert sens["all_agree"] == 0.5 and sens["n_samples"] == 2
    # the run itself ranked with the original weights: X first in both samples
    assert result.summary["wins"] == {"scripted:m0": 2, "scripted:m1": 0}
    assert result.summary["models"]["scripted:m0"]["mean_aggregate"] == pytest.approx(
        (0.75 + 0.9) / 2
    )


def test_weight_sensitivity_needs_roscoe_scores(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    script = Script(correct={("s0", "scripted:m0", 1): _others("scripted:m0")})
    result = explain(
        tmp_path / "data", script.backends(), tmp_path / "out",
        scorer=lambda items: [0.5 for _ in items],
    )  # fmt: skip
    assert result.accepted == 1
    sens = result.summary["weight_sensitivity"]
    assert sens["value"] is None and sens["note"].startswith("not computed")
    (sample,) = _written(tmp_path)
    first = _prov(sample)["candidates"][0]
    assert first["scores"] == {} and first["aggregate"] == 0.5
    assert first["aggregate_note"] == "from a custom scorer"


def test_candidates_without_as_are_verified_in_model_order(tmp_path: Path) -> None:
    _dataset(tmp_path / "data")
    script = Script(correct={("s0", "scripted:m2", 1): _others("scripted:m2")})
    script.correct[("s0", "scripted:m1", 1)] = {"scripted:m0"}
    result = _run(tmp_path, script, missing="not_computed", max_rounds=1)
    assert result.accepted == 1
    (sample,) = _written(tmp_path)
    cands = _prov(sample)["candidates"]
    assert [c["status"] for c in cands] == [
        "rejected", "rejected", "accepted", "not_verified", "not_verified", "not_verified",
    ]  # fmt: skip
    assert cands[0]["aggregate"] is None
    assert cands[0]["aggregate_note"].startswith("not computed: SRC, SFC missing")


# ------------------------------------------------------------------------- real scorer, CLI


@pytest.mark.slow
def test_real_roscoe_scorer_prefers_the_relevant_explanation(tmp_path: Path) -> None:
    from chartproof.metrics.roscoe import RoscoeScorer

    _dataset(tmp_path / "data")
    texts = {
        "scripted:m0": "Bananas are a yellow fruit. Cats like to sleep in the sun.",
        "scripted:m1": "The bar for 2010 is the tallest in the chart. It reaches 5, above "
        "the bar for 2009 at 3. So 2010 has the highest value.",
        "scripted:m2": "Some colours appear. The picture has shapes.",
    }

    def reply(name: str, request: ModelRequest) -> str:
        return texts[name] if request.prompt == "explain_candidate@1" else "Correct"

    backends = [_backend(n, reply, n) for n in texts]
    result = explain(
        tmp_path / "data", backends, tmp_path / "out", scorer=RoscoeScorer(lm=None), max_rounds=1
    )
    (sample,) = _written(tmp_path)
    assert sample.explanation == texts["scripted:m1"]
    cands = {c["model"]: c for c in _prov(sample)["candidates"]}
    assert cands["scripted:m1"]["rank"] == 1
    assert cands["scripted:m1"]["aggregate"] > cands["scripted:m0"]["aggregate"]
    scores = cands["scripted:m1"]["scores"]
    assert scores["SRC"] is None and scores["PS"] is None and 0 < scores["FS"] <= 1
    assert "no NLI model" in cands["scripted:m1"]["score_notes"]["SRC"]
    assert result.summary["settings"]["ranking"]["scorer"]["nli"] is None


def test_cli_runs_with_spec_strings(tmp_path: Path) -> None:
    from chartproof.cli import _register, app
    from chartproof.models import register_builtin

    _register()
    _dataset(tmp_path / "data", n=2)
    script = Script()
    names = [f"builtin:explain-cli-{i}" for i in range(3)]
    for name in names:
        backend = _backend(name, script.reply, f"scripted:m{name[-1]}")
        register_builtin(name.split(":")[1], partial(lambda b, _spec: b, backend))
    for sid in ("s0", "s1"):
        script.correct[(sid, "scripted:m0", 1)] = {"scripted:m1", "scripted:m2"}
    args = [
        "explain", "--data", str(tmp_path / "data"), "--models", ",".join(names),
        "--out", str(tmp_path / "out"), "--embedder", "none", "--lm", "none",
        "--grammar", "none", "--rounds", "1", "-q",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "accepted 2, rejected 0, failed 0 of 2 samples" in result.output
    written = _written(tmp_path)
    assert [s.explanation for s in written] == [
        "scripted:m0 explains s0 in round 1.",
        "scripted:m0 explains s1 in round 1.",
    ]
    settings = _prov(written[0])["settings"]
    assert settings["ranking"]["scorer"] == {
        "embedder": None, "lm": None, "nli": None, "grammar": None,
        "options": {"variant": "reference", "token_attention": "masked"},
    }  # fmt: skip
    refused = CliRunner().invoke(app, [*args[:-1], "--majority", "3"])
    assert refused.exit_code == 2 and "majority 3 cannot be reached" in refused.output


_CHILD = textwrap.dedent(
    """
    import sys, time
    from chartproof.testing import ScriptedBackend
    from chartproof.pipelines.explain import explain

    NAMES = ["scripted:a", "scripted:b", "scripted:c"]

    def reply(name, request):
        time.sleep(0.01)
        sid = str(request.metadata["sample_id"])
        if request.prompt.startswith("explain_candidate"):
            return f"{name} explains {sid} in {request.id.split('/')[2]}."
        i = int(sid[1:])
        # sample i: accepted in round 1, round 2, or never, depending on i mod 3
        said = str(request.metadata["explanation"])
        ok = (i % 3 == 0) or (i % 3 == 1 and " r2." in said)
        return "Correct" if ok else "Incorrect"

    def scorer(items):
        return [0.9 - 0.1 * "abc".index(item.explanation.split(" ")[0][-1]) for item in items]

    backends = [ScriptedBackend(lambda r, n=n: reply(n, r), name=n) for n in NAMES]
    explain(sys.argv[1], backends, sys.argv[2], scorer=scorer, batch_size=2,
            cache=sys.argv[3])
    """
)


@pytest.mark.slow
def test_sigkill_and_rerun_gives_the_same_dataset(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _dataset(data, n=16)
    child = tmp_path / "child.py"
    child.write_text(_CHILD)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, str(child), str(data)]
    clean = [*cmd, str(tmp_path / "clean"), str(tmp_path / "clean.sqlite")]
    subprocess.run(clean, check=True, env=env, timeout=120)
    killed = [*cmd, str(tmp_path / "out"), str(tmp_path / "killed.sqlite")]
    results = tmp_path / "out" / "run" / "results.jsonl"
    rng = random.Random(3)
    for attempt in range(2):
        proc = subprocess.Popen(killed, env=env)
        deadline = time.monotonic() + 60
        # kill at a random moment once the run has recorded its first batch
        while proc.poll() is None and time.monotonic() < deadline:
            if results.exists() and results.stat().st_size > 0:
                break
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.3))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        if attempt == 0:
            assert 0 < len(results.read_text().splitlines()) < 16, "the kill should land mid-run"
    subprocess.run(killed, check=True, env=env, timeout=120)
    for name in ("samples.jsonl", UNACCEPTED_FILE):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "clean" / name).read_bytes()
    summary = json.loads((tmp_path / "out" / SUMMARY_FILE).read_text())
    assert summary["counts"] == {"samples": 16, "accepted": 11, "rejected": 5, "failed": 0}
    _, recorded = load_run(tmp_path / "out" / "run")
    ids = [r.sample_id for r in recorded]
    assert len(ids) == len(set(ids)) == 16
