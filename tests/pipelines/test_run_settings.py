"""Settings records of the run commands: the identity each run records (`run.json`'s config)
is written exactly as runs recorded it before it was a record, so older runs resume; the
functions take their record or the record's fields as keywords; the CLI builds the same
record as the Python API."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import chartproof.pipelines.evaluate as pipeline
from chartproof.models import default_prompts
from chartproof.pipelines.evaluate import EvalSettings, evaluate
from chartproof.testing.scripted import ScriptedBackend

GENERATION = {"max_tokens": 256, "temperature": 0.0, "top_p": 1.0, "seed": None, "stop": []}


def test_the_identity_is_the_config_runs_have_always_recorded() -> None:
    settings = EvalSettings(
        data="data/qax",
        limit=3,
        where={"perturbation": "original", "chart_type": "bar"},
        metrics=("roscoe", "ngram", "roscoe"),
        cache=False,
        executor="local:1",
        batch_size=4,
    )
    got = settings.identity("builtin:reader", "chartqax@2", None).model_dump(mode="json")
    # the recorded form (pipelines/evaluate.py before the record): no out, cache, executor,
    # batch size or strictness; sorted where and metrics; no choice-order keys or judge
    assert got == {
        "data": "data/qax",
        "model": "builtin:reader",
        "protocol": "direct",
        "prompt": "chartqax@2",
        "limit": 3,
        "where": {"chart_type": "bar", "perturbation": "original"},
        "metrics": ["ngram", "roscoe"],
        "with_table": False,
        "generation": GENERATION,
    }


def test_choice_orders_and_a_judge_are_recorded_when_set() -> None:
    prompts = default_prompts()
    settings = EvalSettings(
        data="d", protocol="chain", shuffle_choices=2, rotate_choices=True, max_tokens=64
    )
    judge = ScriptedBackend(lambda r: "yes", name="scripted:judge")
    got = settings.identity("m", "ignored@1", None, judge).model_dump(mode="json")
    assert got == {
        "data": "d",
        "model": "m",
        "protocol": "chain",
        "prompt": prompts.get("chain_step").id,
        "limit": None,
        "where": None,
        "metrics": [],
        "with_table": False,
        "shuffle_choices": 2,
        "rotate_choices": True,
        "generation": {**GENERATION, "max_tokens": 64},
        "judge": {"model": "scripted:judge", "prompt": prompts.get("judge_answer").id},
    }


def test_evaluate_takes_the_record_or_its_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[EvalSettings] = []

    def capture(settings: EvalSettings, **_: Any) -> Any:
        seen.append(settings)
        return None

    monkeypatch.setattr(pipeline, "run_evaluation", capture)
    evaluate("d", "builtin:reader", "runs/x", protocol="chain", limit=2, cache="c.sqlite")
    record = EvalSettings(data="d", out=Path("runs/x"), protocol="chain", limit=2,
                          cache=Path("c.sqlite"))  # fmt: skip
    evaluate(record)
    evaluate(record, limit=5)
    assert seen[0] == seen[1] == record
    assert seen[2] == record.model_copy(update={"limit": 5})
    with pytest.raises(ValidationError, match="protocl"):
        evaluate("d", protocl="chain")
    with pytest.raises(ValueError, match="batch_size must be at least 1"):
        evaluate(record, batch_size=0)


def test_the_signature_shows_the_record_fields_with_their_defaults() -> None:
    params = inspect.signature(evaluate).parameters
    fields = EvalSettings.model_fields
    for name in ("protocol", "prompt", "limit", "metrics", "max_tokens", "cache", "judge_prompt"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[name].default == fields[name].default
    assert "fields" not in params


def test_the_explain_identity_is_the_config_explain_runs_recorded() -> None:
    from chartproof.pipelines.explain import ExplainIdentity

    ranking: dict[str, Any] = {"scorer": "as_only", "weights": {"name": "uniform", "FS": 1.0}}
    identity = ExplainIdentity(
        data="d",
        models=("a", "b"),
        verifiers=("a", "b"),
        majority="more than half of those asked",
        max_rounds=2,
        prompts={"candidate": "explain_candidate@1", "verify": "explain_verify@1"},
        ranking=ranking,
        generation={"max_tokens": 256, "regen_temperature": 0.7},
    )
    # the form pipelines/explain.py wrote before the record (an int stays an int)
    assert json.loads(identity.model_dump_json()) == {
        "pipeline": "explain",
        "data": "d",
        "models": ["a", "b"],
        "verifiers": ["a", "b"],
        "majority": "more than half of those asked",
        "max_rounds": 2,
        "prompts": {"candidate": "explain_candidate@1", "verify": "explain_verify@1"},
        "ranking": ranking,
        "generation": {"max_tokens": 256, "regen_temperature": 0.7},
    }
    assert '"max_tokens":256,' in identity.model_dump_json()


def test_the_derender_identity_is_the_config_derender_runs_recorded() -> None:
    from chartproof.pipelines.derender import DerenderIdentity
    from chartproof.pipelines.derender_code import DerenderConfig

    config = DerenderConfig(min_ssim=0.5)
    identity = DerenderIdentity(model="builtin:reader", prompt="derender_code@1", settings=config)
    assert identity.model_dump(mode="json") == {
        "protocol": "derender",
        "model": "builtin:reader",
        "prompt": "derender_code@1",
        "settings": config.model_dump(mode="json"),
    }


def test_derender_the_cli_and_the_api_build_one_settings_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import chartproof.pipelines.derender as derender
    from chartproof.cli import _register, app

    _register()
    seen: list[derender.DerenderSettings] = []

    def capture(settings: derender.DerenderSettings, **_: object) -> Any:
        seen.append(settings)
        raise ValueError("stop here")

    monkeypatch.setattr(derender, "run_derender", capture)
    args = ["derender", "-d", "data", "-m", "builtin:reader", "-o", str(tmp_path), "--limit", "2"]
    args += ["--counterfactuals", "3", "--no-cache", "--min-ssim", "0.5"]
    got = CliRunner().invoke(app, args)
    assert got.exit_code == 2 and "stop here" in got.output, got.output
    cli = seen[0]
    with pytest.raises(ValueError, match="stop here"):
        derender.derender_dataset("data", "builtin:reader", tmp_path, config=cli.config,
                                  limit=2, counterfactuals=3, cache=False)  # fmt: skip
    with pytest.raises(ValueError, match="stop here"):
        derender.derender_dataset(cli)
    assert seen[1] == cli and seen[2] == cli
    with pytest.raises(ValidationError, match="per_chart"):
        derender.derender_dataset("data", "builtin:reader", tmp_path, per_chart=0)


def test_generate_the_cli_and_the_api_build_one_settings_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import chartproof.pipelines.generate as pipeline
    from chartproof.cli import _register, app

    _register()
    seen: list[pipeline.GenerateSettings] = []
    real = pipeline.generate_from_specs

    def capture(specs: Any, out: Any, settings: Any, **kwargs: Any) -> Any:
        seen.append(settings)
        raise ValueError("stop here")

    monkeypatch.setattr(pipeline, "generate_from_specs", capture)
    args = ["generate", "-o", str(tmp_path), "--suite", "chartqax", "--n", "4", "--seed", "3"]
    args += ["--variants", "blur:2,watermark", "--no-premises", "--choices", "4"]
    got = CliRunner().invoke(app, args)
    assert got.exit_code == 2 and "stop here" in got.output, got.output
    with pytest.raises(ValueError, match="stop here"):
        pipeline.generate("chartqax", 4, tmp_path, seed=3, variants=["blur:2", "watermark"],
                          premises=False, choices=4)  # fmt: skip
    cli, api = seen
    assert cli == api and cli.variants == ("blur:2", "watermark") and cli.chains == 0
    with pytest.raises(ValidationError, match="cannot be combined with counterfactuals"):
        real([], tmp_path, choices=3, counterfactuals=1)
    with pytest.raises(ValidationError, match="choices must be 0"):
        pipeline.generate("chartqax", 4, tmp_path, choices=1)


def test_finetune_compare_the_cli_and_the_api_build_one_settings_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import chartproof.pipelines.finetune.compare as compare
    from chartproof.cli import _register, app
    from chartproof.pipelines.settings import settings_of

    _register()
    seen: list[compare.CompareSettings] = []

    def capture(cls: Any, given: Any, fields: Any) -> Any:
        seen.append(settings_of(cls, given, fields))
        raise ValueError("stop here")

    monkeypatch.setattr(compare, "settings_of", capture)
    args = ["finetune", "compare", "-t", "ft", "-d", "held", "-o", str(tmp_path)]
    args += ["--metrics", "ngram", "--limit", "4", "--no-cache", "--merged"]
    got = CliRunner().invoke(app, args)
    assert got.exit_code == 2 and "stop here" in got.output, got.output
    with pytest.raises(ValueError, match="stop here"):
        compare.compare_tuned("ft", "held", tmp_path, metrics=["ngram"], limit=4, cache=False,
                              merged=True)  # fmt: skip
    cli, api = seen
    assert cli == api and cli.tuned == Path("ft") and cli.metrics == ("ngram",)


def test_finetune_sft_and_dpo_the_cli_and_the_api_build_one_settings_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import chartproof.pipelines.finetune.dpo as dpo
    import chartproof.pipelines.finetune.sft as sft
    from chartproof.cli import _register, app
    from chartproof.pipelines.finetune import LoRASettings, TrainSettings
    from chartproof.pipelines.finetune._settings import tune_settings

    _register()
    seen: list[Any] = []

    def capture(cls: Any, named: Any, fields: Any) -> Any:
        seen.append(tune_settings(cls, named, fields))
        raise ValueError("stop here")

    monkeypatch.setattr(sft, "tune_settings", capture)
    monkeypatch.setattr(dpo, "tune_settings", capture)
    out = tmp_path / "ft"
    for args in (
        ["sft", "-d", "qax", "--base", "smollm2", "-o", str(out), "--limit", "3", "--lora-r", "4",
         "--val-fraction", "0", "--max-steps", "7", "--no-resume", "--quiet"],
        ["dpo", "-p", "pairs.jsonl", "-d", "qax", "--base", "smollm2", "-o", str(out), "--mode",
         "visual", "--budget", "5", "--beta", "0.2", "--merge", "--quiet"],
    ):  # fmt: skip
        got = CliRunner().invoke(app, ["finetune", *args])
        assert got.exit_code == 2 and "stop here" in got.output, got.output
    lora = LoRASettings(r=4, alpha=8)
    with pytest.raises(ValueError, match="stop here"):
        sft.finetune_sft(Path("qax"), "smollm2", out, limit=3, val_fraction=0.0, resume=False,
                         lora=lora, train=TrainSettings(max_steps=7))  # fmt: skip
    with pytest.raises(ValueError, match="stop here"):
        dpo.finetune_dpo(Path("pairs.jsonl"), "qax", "smollm2", str(out), mode="visual",
                         budget=5, beta=0.2, merge=True,
                         train=TrainSettings(max_steps=100, batch_size=2, learning_rate=5e-5))  # fmt: skip
    cli_sft, cli_dpo, api_sft, api_dpo = seen
    assert cli_sft == api_sft and cli_dpo == api_dpo
    assert (cli_sft.data, cli_sft.out, cli_sft.lora.r, cli_sft.train.max_steps) == (
        "qax",
        out,
        4,
        7,
    )
    assert (cli_dpo.pairs, cli_dpo.mode, cli_dpo.budget, cli_dpo.lora) == (
        "pairs.jsonl", "visual", 5, LoRASettings()
    )  # fmt: skip


def test_finetune_takes_the_record_or_its_fields_and_names_an_unknown_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import chartproof.pipelines.finetune.sft as sft
    from chartproof.pipelines.finetune import DPOSettings, SFTSettings, finetune_dpo
    from chartproof.pipelines.finetune._settings import tune_settings

    record = SFTSettings(data="qax", base="smollm2", out=tmp_path, lora=None)
    assert record.lora.r == 8 and record.train.max_steps == 200  # None: the defaults
    changed = tune_settings(SFTSettings, {"data": record, "base": None, "out": None}, {"limit": 2})
    assert changed == record.model_copy(update={"limit": 2}) and record.limit is None
    same = tune_settings(SFTSettings, {"data": "qax", "base": "smollm2", "out": tmp_path}, {})
    assert same == record
    with pytest.raises(ValidationError, match="lora_rank"):
        sft.finetune_sft("qax", "smollm2", tmp_path, lora_rank=4)
    with pytest.raises(ValidationError, match="base"):
        finetune_dpo("pairs.jsonl", "qax", out=tmp_path)
    with pytest.raises(ValidationError, match="mode"):
        DPOSettings(pairs="p", data="d", base="b", out=tmp_path, mode="both")  # type: ignore[arg-type]
    shown = inspect.signature(sft.finetune_sft).parameters
    assert shown["val_fraction"].default == 0.1 and shown["base"].default is inspect.Parameter.empty
    assert inspect.signature(finetune_dpo).parameters["ceiling"].default == 0.98


def test_demo_the_cli_and_the_api_build_one_settings_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import chartproof.pipelines.demo as pipeline
    from chartproof.cli import _register, app

    _register()
    seen: list[pipeline.DemoSettings] = []

    def stop(executor: Any) -> Any:
        raise ValueError("stop here")

    import chartproof.executors as executors

    # the demo stops where it opens its executor, after building its settings
    monkeypatch.setattr(pipeline, "settings_of", _recording(pipeline.settings_of, seen))
    monkeypatch.setattr(executors, "open_executor", stop)
    got = CliRunner().invoke(
        app, ["demo", "-o", str(tmp_path), "--n", "3", "--executor", "local:1"]
    )
    assert "stop here" in got.output, got.output
    with pytest.raises(ValueError, match="stop here"):
        pipeline.demo(tmp_path, n=3, executor="local:1")
    cli, api = seen
    assert cli == api and cli.n == 3 and cli.out == tmp_path and cli.model == "builtin:reader"
    with pytest.raises(ValidationError, match="nn"):
        pipeline.demo(tmp_path, nn=3)
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        pipeline.DemoSettings(n=0)


def _recording(settings_of: Any, seen: list[Any]) -> Any:
    def record(cls: Any, given: Any, fields: Any) -> Any:
        made = settings_of(cls, given, fields)
        seen.append(made)
        return made

    return record
