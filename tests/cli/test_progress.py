"""What a long command shows before and during its work: a "loading MODEL ..." status while
the model loads, then the time it took, then the header line, then the bar; with --quiet
none of it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chartproof.cli import _register
from chartproof.cli._app import app
from chartproof.pipelines.generate import generate


@pytest.fixture(autouse=True)
def slow_to_load(monkeypatch: pytest.MonkeyPatch) -> None:
    from chartproof.models import registry
    from chartproof.testing.scripted import ScriptedBackend

    def build(spec: Any) -> ScriptedBackend:
        return ScriptedBackend(lambda request: "1", name="builtin:echo")

    monkeypatch.setitem(registry._BUILTINS, "echo", build)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data") / "chartqax"
    generate("chartqax", 2, out, seed=5, per_chart=1, levels=1, premises=False, workers=1)
    return out


def _eval(dataset: Path, out: Path, *more: str) -> list[str]:
    _register()
    args = ["eval", "-d", str(dataset), "-o", str(out), "-m", "builtin:echo?x=1"]
    res = CliRunner().invoke(app, [*args, "--executor", "local:1", "--no-cache", *more])
    assert res.exit_code == 0, res.output
    return [line for line in res.output.splitlines() if line.strip()]


def test_loading_then_header_then_bar(dataset: Path, tmp_path: Path) -> None:
    lines = _eval(dataset, tmp_path / "run", "--no-report")
    # not a terminal: the spinner is off, its last line stays (the spec without its options)
    assert re.fullmatch(r"loaded builtin:echo in \d+\.\d s", lines[0]), lines
    text = " ".join(lines[1:])  # the header wraps at the console's width
    header = text.index(f"eval: builtin:echo?x=1 on {dataset}")
    assert header == 0 and text.index(": 2 samples") < text.index("eval direct")
    assert re.search(r"eval direct .* 2/2", text), lines


def test_quiet_shows_no_loading_nor_bar(dataset: Path, tmp_path: Path) -> None:
    lines = _eval(dataset, tmp_path / "run", "--no-report", "-q")
    assert not any("load" in line or "eval direct" in line for line in lines), lines
    assert lines[0].lstrip().startswith("accuracy")
