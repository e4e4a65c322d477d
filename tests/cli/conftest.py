"""Fixtures the CLI tests share: a built-in model that answers "1" at once, and a tiny
generated dataset."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chartproof.pipelines.generate import generate


@pytest.fixture
def echo_builtin() -> Iterator[None]:
    """`builtin:echo`, registered for the test: a scripted backend answering "1"."""
    from chartproof.models import registry
    from chartproof.testing.scripted import ScriptedBackend

    def build(spec: Any) -> ScriptedBackend:
        return ScriptedBackend(lambda request: "1", name="builtin:echo")

    registry.register_builtin("echo", build)
    yield
    registry.BUILTINS.unregister("echo")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two generated chartqax charts with one question each."""
    out = tmp_path_factory.mktemp("data") / "chartqax"
    generate("chartqax", 2, out, seed=5, per_chart=1, levels=1, premises=False, workers=1)
    return out
