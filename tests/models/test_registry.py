"""Spec strings and config files choose backends; built-ins register by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.models import (
    BackendSpec,
    MissingDependencyError,
    SpecError,
    load_backend,
    parse_spec,
    register_builtin,
)
from chartproof.models.base import Backend, backend_identity
from chartproof.models.registry import require
from chartproof.testing import ScriptedBackend
from chartproof.types import GenerationConfig, Message, ModelRequest, TextPart


@pytest.mark.parametrize(
    ("spec", "kind", "target", "url", "options"),
    [
        (
            "openai:gpt-4o@http://localhost:8000/v1",
            "openai",
            "gpt-4o",
            "http://localhost:8000/v1",
            {},
        ),
        ("openai:gpt-4o", "openai", "gpt-4o", None, {}),
        # Ollama tags hold a colon; only the first one separates the kind
        (
            "openai:llava:13b@http://127.0.0.1:11434/v1/",
            "openai",
            "llava:13b",
            "http://127.0.0.1:11434/v1",
            {},
        ),
        (
            "openai:m@https://api.example.com/v1?concurrency=8&timeout_s=30",
            "openai",
            "m",
            "https://api.example.com/v1",
            {"concurrency": "8", "timeout_s": "30"},
        ),
        (
            "hf:/models/SmolVLM?dtype=bfloat16&device=cpu&batch_size=4",
            "hf",
            "/models/SmolVLM",
            None,
            {"dtype": "bfloat16", "device": "cpu", "batch_size": "4"},
        ),
        ("builtin:reader", "builtin", "reader", None, {}),
    ],
)
def test_parse_spec(
    spec: str, kind: str, target: str, url: str | None, options: dict[str, str]
) -> None:
    parsed = parse_spec(spec)
    assert (parsed.kind, parsed.target, parsed.base_url, parsed.options) == (
        kind,
        target,
        url,
        options,
    )


@pytest.mark.parametrize("spec", ["gpt-4o", "OPENAI:x", "openai:", "hf:/a?x=1&x=2"])
def test_bad_specs_are_explained(spec: str) -> None:
    with pytest.raises(SpecError, match="model spec"):
        parse_spec(spec)


def test_unknown_kind() -> None:
    with pytest.raises(SpecError, match="unknown backend kind 'vllm'"):
        load_backend("vllm:model")


def test_builtin_registration_and_options() -> None:
    seen: list[BackendSpec] = []

    def factory(spec: BackendSpec) -> Backend:
        seen.append(spec)
        return ScriptedBackend(lambda r: "42", name=spec.spec_string())

    register_builtin("echo-test", factory)
    backend = load_backend("builtin:echo-test?level=3")
    assert backend.name == "builtin:echo-test"
    assert seen[0].options == {"level": "3"}
    req = ModelRequest(
        id="a", messages=(Message(role="user", content=(TextPart(text="q"),)),), prompt="short@1"
    )
    (resp,) = backend.generate([req])
    assert resp.text == "42" and resp.parsed is not None and resp.parsed.answer == "42"
    with pytest.raises(SpecError, match="unknown built-in model 'nope'"):
        load_backend("builtin:nope")


def test_config_files(tmp_path: Path) -> None:
    register_builtin("cfg-test", lambda spec: ScriptedBackend(lambda r: str(spec.options)))
    toml = tmp_path / "model.toml"
    toml.write_text('backend = "builtin:cfg-test?a=1"\n[options]\nb = 2\n')
    backend = load_backend(toml)
    assert isinstance(backend, ScriptedBackend)
    req = ModelRequest(
        id="a",
        messages=(Message(role="user", content=(TextPart(text="q"),)),),
        prompt="p@1",
        config=GenerationConfig(),
    )
    assert backend.generate([req])[0].text == "{'a': '1', 'b': 2}"
    js = tmp_path / "model.json"
    js.write_text(json.dumps({"kind": "builtin", "target": "cfg-test", "options": {"c": True}}))
    assert load_backend(js).generate([req])[0].text == "{'c': True}"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "builtin", "model": "x"}))
    with pytest.raises(SpecError, match=r"bad\.json"):
        load_backend(bad)
    with pytest.raises(SpecError, match="not found"):
        load_backend(tmp_path / "missing.toml")
    with pytest.raises(SpecError, match=r"unknown built-in model 'x\.json'"):
        load_backend("builtin:x.json")  # a spec, not a config file path


def test_missing_dependency_names_the_install_command() -> None:
    with pytest.raises(MissingDependencyError, match=r"pip install 'chartproof\[hf\]'"):
        require("chartproof_no_such_module", "hf", what="the Hugging Face backend")


def test_identity_falls_back_to_the_name() -> None:
    class Bare:
        name = "custom:thing"

        def generate(self, requests: object) -> list[object]:
            return []

        def close(self) -> None:
            pass

    ident = backend_identity(Bare())  # type: ignore[arg-type]
    assert (ident.kind, ident.model, ident.revision) == ("custom", "thing", "")
