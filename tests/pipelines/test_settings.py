"""The typed run configuration `evaluate` and `chartproof eval` share rejects what it does not
know, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from chartproof.pipelines.evaluate import EvalSettings


def test_unknown_field_is_named() -> None:
    with pytest.raises(ValidationError, match="protocl"):
        EvalSettings.model_validate({"data": "d", "protocl": "chain"})


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("protocol", "chains", "unknown protocol 'chains'"),
        ("batch_size", 0, "batch_size must be at least 1"),
        ("metrics", ("roscoe", "bleu"), "unknown metrics \\['bleu'\\]"),
    ],
)
def test_bad_values_are_explained(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EvalSettings.model_validate({"data": "d", field: value})


def test_defaults_are_the_api_defaults() -> None:
    s = EvalSettings(data="d")
    assert (s.model, s.out, s.protocol, s.prompt, s.max_tokens, s.cache) == (
        "builtin:reader",
        Path("runs/latest"),
        "direct",
        "chartqax",
        256,
        True,
    )


# ---------------------------------------------------------------- explain


def test_explain_settings_name_an_unknown_field() -> None:
    from chartproof.pipelines.explain import ExplainSettings

    with pytest.raises(ValidationError, match="max_round"):
        ExplainSettings.model_validate(
            {"data": "d", "models": ["a", "b"], "out": "o", "max_round": 3}
        )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"majority": 2}, "majority 2 cannot be reached"),
        ({"models": ("a",)}, "no verifier for the candidates of a"),
        ({"models": ("a", "a")}, r"named twice: \['a'\]"),
        ({"regen_temperature": -1.0}, "regen_temperature must be >= 0"),
        ({"weights": "heavy"}, "unknown weight set 'heavy'"),
    ],
)
def test_explain_settings_refuse_what_cannot_run(changes: dict[str, object], message: str) -> None:
    from chartproof.pipelines.explain import ExplainSettings

    with pytest.raises(ValueError, match=message):
        ExplainSettings.model_validate({"data": "d", "models": ("a", "b"), "out": "o", **changes})


def test_explain_settings_defaults_are_the_api_defaults() -> None:
    import inspect

    from chartproof.pipelines.explain import ExplainSettings, explain

    api = {
        name: p.default
        for name, p in inspect.signature(explain).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    fields = ExplainSettings.model_fields
    shared = set(api) & set(fields)
    assert shared >= {"majority", "max_rounds", "weights", "missing", "batch_size", "cache"}
    assert {k: fields[k].default for k in shared} == {k: api[k] for k in shared}


def test_the_cli_builds_the_settings_the_api_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import chartproof.pipelines.explain as pipeline
    from chartproof.cli import _register, app

    _register()
    seen: list[pipeline.ExplainSettings] = []

    def capture(settings: pipeline.ExplainSettings, **_: object) -> pipeline.ExplainResult:
        seen.append(settings)
        raise ValueError("stop here")

    monkeypatch.setattr(pipeline, "run_explain", capture)
    args = ["explain", "-d", "data", "-m", "a, b", "-o", str(tmp_path), "--majority", "1"]
    args += ["--rounds", "3", "--weights", "uniform", "--no-cache", "--limit", "5"]
    got = CliRunner().invoke(app, args)
    assert got.exit_code == 2 and "stop here" in got.output
    with pytest.raises(ValueError, match="stop here"):
        pipeline.explain(
            "data", ["a", "b"], tmp_path, majority=1, max_rounds=3, weights="uniform",
            cache=False, limit=5,
        )  # fmt: skip
    cli, api = seen
    assert cli == api
