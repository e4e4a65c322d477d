"""Where a backend runs is its kind's declaration (`BackendNeeds`), never its spec's text: a
plug-in backend kind that declares itself CPU-bound, added here in one file through an entry
point, is fanned out over worker processes; the same kind registered at run time only, or
declared remote, stays one copy in this process."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from chartproof.executors import FanOutBackend, fans_out, load_backend_on
from chartproof.models.registry import (
    KINDS,
    BackendNeeds,
    backend_home,
    backend_needs,
    register_kind,
)
from chartproof.testing import ScriptedBackend
from chartproof.types import Message, ModelRequest, TextPart

PLUGIN = """
import os

from chartproof.models.registry import BackendNeeds, register_kind
from chartproof.testing import ScriptedBackend


def build(spec):
    # each worker's copy answers with its process id
    return ScriptedBackend(lambda r: f"pid {os.getpid()}", name=spec.spec_string())


register_kind("cpuplug", build, needs=BackendNeeds(compute="cpu"))
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "cpu_plug_kind.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))  # a spawned worker gets this sys.path too
    entry = metadata.EntryPoint("cpuplug", "cpu_plug_kind", "chartproof.backends")
    real = metadata.entry_points

    def entry_points(**params: str) -> object:
        if params.get("group") == "chartproof.backends":
            return [entry]
        return real(**params)

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    monkeypatch.setattr(KINDS, "_loaded", False)  # as in a fresh process: read entry points
    try:
        yield
    finally:
        KINDS.unregister("cpuplug")
        sys.modules.pop("cpu_plug_kind", None)


def _request(i: int) -> ModelRequest:
    text = (TextPart(text=f"q{i}"),)
    return ModelRequest(id=f"r{i}", messages=(Message(role="user", content=text),), prompt="p@1")


def test_a_plug_in_kind_declared_cpu_bound_fans_out(plugin: None) -> None:
    assert backend_needs("cpuplug:model") == BackendNeeds(compute="cpu")
    assert backend_home("cpuplug:model") == ("cpu_plug_kind",)
    assert fans_out("cpuplug:model")
    backend = load_backend_on("cpuplug:model", "local:2")
    try:
        assert isinstance(backend, FanOutBackend)
        replies = backend.generate([_request(i) for i in range(8)])
    finally:
        backend.close()
    assert [r.request_id for r in replies] == [f"r{i}" for i in range(8)]
    pids = {r.text for r in replies}
    # answered in the workers (two of them), none in this process
    assert f"pid {os.getpid()}" not in pids
    assert all(p.startswith("pid ") for p in pids) and 1 <= len(pids) <= 2


def test_a_kind_registered_at_run_time_stays_in_this_process() -> None:
    def build(spec: object) -> ScriptedBackend:
        return ScriptedBackend(lambda r: "here")

    register_kind("cpulocal", build, needs=BackendNeeds(compute="cpu"))
    try:
        # a worker could not import it: process-local, whatever it declares
        assert backend_needs("cpulocal:m") == BackendNeeds(compute="cpu", process_local=True)
        assert not fans_out("cpulocal:m")
        assert not isinstance(load_backend_on("cpulocal:m", "local:2"), FanOutBackend)
    finally:
        KINDS.unregister("cpulocal")


@pytest.mark.parametrize(
    ("spec", "needs"),
    [
        ("openai:m@http://127.0.0.1:1/v1", BackendNeeds(compute="remote")),
        ("hf:/ckpt?device=cpu", BackendNeeds(compute="cpu")),
        ("hf:/ckpt?device=cuda", BackendNeeds(compute="gpu")),
        ("text:smollm2", BackendNeeds(compute="auto")),
        ("builtin:reader", BackendNeeds(compute="cpu")),
        ("builtin:not-registered", BackendNeeds(compute="cpu", process_local=True)),
    ],
)
def test_shipped_kinds_declare_their_needs(spec: str, needs: BackendNeeds) -> None:
    assert backend_needs(spec) == needs
