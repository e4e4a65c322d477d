"""Chain and premise protocols end to end: an answerer that knows every step scores 1.0 on
every metric; one that errs only on value extraction shows the error propagating."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from chartproof.datasets import load_samples
from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest, Sample


@pytest.fixture(scope="module")
def chain_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Sample]]:
    root = tmp_path_factory.mktemp("chains")
    generate("chartr", 6, root, seed=2, per_chart=2, families=("chain",), workers=1)
    samples = load_samples(root).samples
    assert samples and all(s.chain for s in samples)
    return root, {s.id: s for s in samples}


def _gold_for(
    samples: dict[str, Sample], wrong_types: tuple[str, ...] = ()
) -> Callable[[ModelRequest], str]:
    def answer(request: ModelRequest) -> str:
        sample = samples[str(request.metadata["sample_id"])]
        question = str(request.metadata["question"])
        for step in sample.chain:
            if step.question == question:
                if step.task_type in wrong_types:
                    return "The answer is: 123456789."
                return f"The answer is: {step.answer.text()}."
        assert question == sample.question
        return f"The answer is: {sample.answer.text()}."

    return answer


def _metrics(record_summary: dict[str, object]) -> dict[str, float]:
    return {m["metric"]: m["value"] for m in record_summary["metrics"]}  # type: ignore[attr-defined]


def test_perfect_chain_answerer_scores_one(
    chain_data: tuple[Path, dict[str, Sample]], tmp_path: Path
) -> None:
    root, samples = chain_data
    backend = ScriptedBackend(_gold_for(samples))
    rec = evaluate(root, out=tmp_path / "run", protocol="chain", backend=backend, cache=False)
    m = _metrics(rec.summary)
    assert m["isa"] == m["csa"] == m["faa"] == m["cfa"] == 1.0
    n_steps = sum(len(s.chain) + 1 for s in samples.values())
    assert backend.calls == n_steps
    # every step prompt after the first wave carries the model's earlier answers
    with_earlier = [r for r in backend.requests if "earlier" in r.metadata]
    assert with_earlier and all(
        "Your answer:" in str(r.messages[-1].content[-1]) for r in with_earlier
    )


def test_value_extraction_errors_propagate(
    chain_data: tuple[Path, dict[str, Sample]], tmp_path: Path
) -> None:
    root, samples = chain_data
    backend = ScriptedBackend(_gold_for(samples, wrong_types=("VE",)))
    rec = evaluate(root, out=tmp_path / "run", protocol="chain", backend=backend, cache=False)
    m = _metrics(rec.summary)
    assert m["csa"] < m["isa"] < 1.0
    assert m["cfa"] < 1.0
    chain = rec.summary["chain"]
    assert chain["step_error_rate"]["VE"] == 1.0
    assert all(v == 0.0 for k, v in chain["step_error_rate"].items() if k != "VE")
    assert chain["first_error_ratio"] == {"VE": 1.0}


def test_premise_protocol(chain_data: tuple[Path, dict[str, Sample]], tmp_path: Path) -> None:
    root, samples = chain_data
    truth = {(s.id, p.text): p.truth for s in samples.values() for p in s.premises}

    def oracle(request: ModelRequest) -> str:
        key = (str(request.metadata["sample_id"]), str(request.metadata["question"]))
        return "True" if truth[key] else "False"

    rec = evaluate(
        root, out=tmp_path / "a", protocol="premise", backend=ScriptedBackend(oracle), cache=False
    )
    m = _metrics(rec.summary)
    assert m["premise_accuracy"] == m["acc_vpp"] == 1.0
    assert rec.summary["premise"]["dcp"] == 0.0

    yes = ScriptedBackend(lambda r: "True")
    rec2 = evaluate(root, out=tmp_path / "b", protocol="premise", backend=yes, cache=False)
    # one true premise in four: always saying True is right a quarter of the time
    assert _metrics(rec2.summary)["premise_accuracy"] == pytest.approx(0.25)
    assert _metrics(rec2.summary)["acc_vpp"] == 0.0
    # the authors' chained mode keeps only true premises: always True passes every chain
    assert _metrics(rec2.summary)["acc_vpp_chained"] == 1.0
    assert rec2.summary["premise"]["vpp"]["chained_true"]["dcp"] == 0.0
    kinds = rec2.summary["premise"]["by_kind"]
    assert set(kinds) <= {"SP", "DP", "RP", "MP", "structural", "data", "reasoning", "math"}


def test_chain_protocol_feeds_the_model_its_own_earlier_answers(
    chain_data: tuple[Path, dict[str, Sample]], tmp_path: Path
) -> None:
    """ChartR's ISA asks step j with the model's own answers to its parents P_j, and the
    composite question with every sub-answer: never the gold ones. The model here answers
    each step with a token naming the step, so every earlier answer in a prompt must be
    that token, numbered by its step."""
    root, samples = chain_data
    tokens: dict[str, str] = {}

    def answer(request: ModelRequest) -> str:
        token = f"R{len(tokens)}"
        tokens[request.id] = token
        return f"The answer is: {token}."

    backend = ScriptedBackend(answer)
    evaluate(root, out=tmp_path / "run", protocol="chain", backend=backend, cache=False)
    by_id = {r.id: r for r in backend.requests}
    finals = 0
    for sample in samples.values():
        for step in sample.chain:
            req = by_id[f"{sample.id}/chain/{step.id}"]
            given = [tokens[f"{sample.id}/chain/{d}"] for d in step.depends_on]
            assert [a for _, a in req.metadata.get("earlier", [])] == given  # type: ignore[union-attr]
            text = str(req.messages[-1].content[-1])
            for d, token in zip(step.depends_on, given, strict=True):
                assert f"{d + 1}. {sample.chain[d].question} Your answer: {token}" in text
            assert step.answer.text() not in [a for _, a in req.metadata.get("earlier", [])]  # type: ignore[union-attr]
        final = by_id[f"{sample.id}/chain/final"]
        want = [tokens[f"{sample.id}/chain/{st.id}"] for st in sample.chain]
        assert [a for _, a in final.metadata["earlier"]] == want  # type: ignore[union-attr]
        assert final.metadata["earlier_steps"] == [st.id + 1 for st in sample.chain]
        finals += 1
    assert finals == len(samples)


def test_premise_figures_have_a_baseline_and_one_definition(
    chain_data: tuple[Path, dict[str, Sample]], tmp_path: Path
) -> None:
    """The summary cards and the VPP table's "all" row are one figure each: failed calls
    count as wrong in both, and the constant-answer baseline stands beside them."""
    root, samples = chain_data
    truth = {(s.id, p.text): p.truth for s in samples.values() for p in s.premises}
    broken = sorted(samples)[0]

    def oracle(request: ModelRequest) -> str:
        sample_id = str(request.metadata["sample_id"])
        if sample_id == broken:
            raise RuntimeError("server down")
        return "True" if truth[(sample_id, str(request.metadata["question"]))] else "False"

    rec = evaluate(
        root, out=tmp_path / "c", protocol="premise", backend=ScriptedBackend(oracle), cache=False
    )
    s = rec.summary
    n_all = sum(len(x.premises) for x in samples.values())
    n_broken = len(samples[broken].premises)
    m = {row["metric"]: row for row in s["metrics"]}
    assert m["premise_accuracy"]["value"] == pytest.approx((n_all - n_broken) / n_all)
    assert m["premise_accuracy"]["value"] == pytest.approx(s["premise"]["accuracy"])
    assert m["premise_accuracy"]["n"] == s["premise"]["n"] == n_all
    assert m["acc_vpp"]["value"] == pytest.approx(s["premise"]["acc_vpp"])
    assert m["acc_vpp"]["value"] == pytest.approx((len(samples) - 1) / len(samples))
    n_false = sum(1 for x in samples.values() for p in x.premises if not p.truth)
    base = s["premise"]["baseline"]
    assert base["answer"] == "false" and base["accuracy"] == pytest.approx(n_false / n_all)
    assert "always 'false' scores" in m["premise_accuracy"]["note"]
    assert m["premise_balanced_accuracy"]["value"] == pytest.approx(
        s["premise"]["balanced_accuracy"]
    )
    # a breakdown cell follows the same rule as the headline
    for row in s["breakdowns"]["chart_type"]:
        if row["metric"] == "premise_accuracy":
            group = [
                x
                for x in samples.values()
                if x.group_labels()["chart_type"] == row["group"]["chart_type"]
            ]
            assert row["n"] == sum(len(x.premises) for x in group)

    always_false = ScriptedBackend(lambda r: "False")
    rec2 = evaluate(root, out=tmp_path / "d", protocol="premise", backend=always_false, cache=False)
    m2 = {row["metric"]: row["value"] for row in rec2.summary["metrics"]}
    assert m2["premise_accuracy"] == pytest.approx(base["accuracy"])
    assert m2["premise_balanced_accuracy"] == pytest.approx(0.5)
    assert rec2.summary["premise"]["mcc"] == 0.0
