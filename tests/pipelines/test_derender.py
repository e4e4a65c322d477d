"""The derender pipeline over a dataset: model → code → sandbox → fidelity → spec → families,
resumable, with failures recorded per chart; and the reader's own answer to the code prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chartproof.charts import render, spec_to_script
from chartproof.datasets import load_dataset
from chartproof.pipelines.derender import derender_dataset
from chartproof.pipelines.derender_code import DerenderConfig
from chartproof.pipelines.generate import generate
from chartproof.questions import ChartView
from chartproof.reader._redraw import code_reply, spec_of_view
from chartproof.sandbox import SandboxPolicy, run_code
from chartproof.testing import ScriptedBackend
from chartproof.types import ChartSpec, ModelRequest

FAST = DerenderConfig(policy=SandboxPolicy(timeout_s=60, cpu_s=60))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data") / "chartqax"
    generate("chartqax", 4, out, seed=3, per_chart=2, variants=("blur",), levels=1, workers=1)
    return out


def _specs(dataset: Path) -> dict[str, ChartSpec]:
    return {s.spec.id: s.spec for s in load_dataset(dataset).samples if s.spec is not None}


def test_spec_to_script_draws_the_spec_and_writes_its_table(dataset: Path) -> None:
    spec = next(iter(_specs(dataset).values()))
    run = run_code(spec_to_script(spec), FAST.policy)
    assert run.ok, run.stderr
    assert run.files["chart.png"] == render(spec).png
    assert run.files["data.csv"].decode() == spec.table.to_csv()


def test_reader_redraws_the_view_it_read(dataset: Path) -> None:
    for spec in _specs(dataset).values():
        view = ChartView.from_spec(spec)
        width, height = render(spec).size
        redrawn = spec_of_view(view, spec_id="x", width=width, height=height)
        assert redrawn.chart_type == spec.chart_type
        assert redrawn.table.to_csv() == spec.table.to_csv()
        assert redrawn.style.title == spec.style.title
    scatter = ChartView(chart_type="scatter", x_name="x", x_labels=(), series=("y",), values={})
    assert "does not redraw scatter" in code_reply(scatter, spec_id="s", width=640, height=480)


def _faithful_or_broken(specs: dict[str, ChartSpec], broken: dict[str, str]) -> ScriptedBackend:
    def reply(request: ModelRequest) -> str:
        chart = str(request.metadata["sample_id"])
        if chart in broken:
            if broken[chart] == "raise":
                raise TimeoutError("the API timed out")
            return broken[chart]
        return f"```python\n{spec_to_script(specs[chart])}```"

    return ScriptedBackend(reply, name="scripted:coder")


def test_pipeline_scores_resumes_and_grows_families(dataset: Path, tmp_path: Path) -> None:
    specs = _specs(dataset)
    ids = sorted(specs)
    assert len(ids) == 4  # the blurred variants are not charts of their own
    hostile = "```python\nimport socket\nsocket.create_connection(('example.com', 80))\n```"
    broken = {ids[1]: hostile, ids[2]: "raise"}
    out = tmp_path / "derendered"
    # a limited run, then the rest: the limit is not part of the run's identity
    part = derender_dataset(
        dataset, _faithful_or_broken(specs, broken), out, config=FAST, cache=False, limit=1
    )
    assert part.charts == 1 and part.asked == 1
    first = derender_dataset(
        dataset, _faithful_or_broken(specs, broken), out, config=FAST, cache=False
    )
    assert first.charts == 4 and first.asked == 3
    overall = first.summary["overall"]
    assert overall["status"] == {"model_error": 1, "ok": 2, "sandbox_failed": 1}
    assert overall["faithful"] == 2 and overall["ssim"] == pytest.approx(1.0)
    assert overall["data_agreement"] == pytest.approx(1.0)
    lines = (out / "run" / "results.jsonl").read_text().splitlines()
    by_id = {json.loads(line)["sample_id"]: json.loads(line) for line in lines}
    assert by_id[ids[1]]["steps"][0]["sandbox"]["status"] == "forbidden"
    assert by_id[ids[2]]["error"] is not None and "timed out" in by_id[ids[2]]["error"]
    assert (out / "specs" / f"{ids[0]}.json").exists()
    assert (out / "redrawn" / f"{ids[0]}.png").read_bytes() == render(specs[ids[0]]).png

    # resume: only the failed model call is asked again; the sandbox failure is an outcome
    backend = _faithful_or_broken(specs, {ids[1]: hostile})
    again = derender_dataset(dataset, backend, out, config=FAST, cache=False, counterfactuals=2)
    assert again.asked == 1 and len(backend.requests) == 1
    assert again.summary["overall"]["faithful"] == 3
    assert len((out / "run" / "results.jsonl").read_text().splitlines()) == 5
    fam = again.families
    assert fam is not None and fam.charts == 3
    samples = load_dataset(out / "families").samples
    members = {s.group_labels().get("family_member") for s in samples}
    assert "original" in members and len(members) > 2
    assert {s.groups.get("suite") for s in samples} == {"derendered"}


@pytest.mark.slow
def test_cli_with_the_reader(dataset: Path, tmp_path: Path) -> None:
    pytest.importorskip("rapidocr")
    from chartproof.cli import _register
    from chartproof.cli._app import app

    _register()
    out = tmp_path / "cli"
    args = ["derender", "--data", str(dataset), "--model", "builtin:reader"]
    res = CliRunner().invoke(app, [*args, "--out", str(out), "--limit", "2", "-q", "--no-cache"])
    assert res.exit_code == 0, res.output
    assert "2 charts (2 asked now)" in res.output
    results = [json.loads(x) for x in (out / "run" / "results.jsonl").read_text().splitlines()]
    assert len(results) == 2
    # the reader's redraws of chartproof charts come back faithful, data and all
    assert all(r["scores"]["data_agreement"] == 1.0 for r in results)
    assert all(r["scores"]["ssim"] > 0.75 for r in results)


def test_two_workers_give_the_same_run_as_one(dataset: Path, tmp_path: Path) -> None:
    """The sandbox runs and scoring fan out over the executor; the run folder (results in
    chart order, code, redraws, specs, families) is the same as with one process."""
    specs = _specs(dataset)
    ids = sorted(specs)
    broken = {ids[1]: "no code here"}

    def run(executor: str, out: Path) -> list[dict[str, object]]:
        derender_dataset(
            dataset,
            _faithful_or_broken(specs, broken),
            out,
            config=FAST,
            cache=False,
            counterfactuals=1,
            executor=executor,
        )
        rows = [json.loads(line) for line in (out / "run" / "results.jsonl").open()]
        for row in rows:
            row.pop("latency_s", None)
            for step in row["steps"]:
                step.get("sandbox", {}).pop("duration_s", None)
        return rows

    one = run("local:1", tmp_path / "one")
    two = run("local:2", tmp_path / "two")
    assert one == two and [r["sample_id"] for r in two] == ids
    for sub in ("code", "redrawn", "specs"):
        names = sorted(p.name for p in (tmp_path / "one" / sub).iterdir())
        assert names == sorted(p.name for p in (tmp_path / "two" / sub).iterdir())
        for name in names:
            a, b = tmp_path / "one" / sub / name, tmp_path / "two" / sub / name
            assert a.read_bytes() == b.read_bytes(), f"{sub}/{name} differs"
    families = (tmp_path / "one" / "families" / "samples.jsonl").read_text()
    assert families == (tmp_path / "two" / "families" / "samples.jsonl").read_text()
