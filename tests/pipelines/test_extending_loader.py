"""A new benchmark loader is one file: registered with its folder detector here, it is found by
name (`--data NAME:PATH`, options included), recognised from a bare folder, and evaluated
like any shipped layout, from the API and from the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from chartproof.cli import _register
from chartproof.cli._app import app
from chartproof.datasets import LOADERS, detect_format, load_dataset
from chartproof.datasets.errors import LoadResult
from chartproof.datasets.loaders._registry import (
    detect_folder,
    register_loader,
    unregister_loader,
)
from chartproof.models.registry import BUILTINS, register_builtin
from chartproof.pipelines.evaluate import evaluate
from chartproof.testing import ScriptedBackend
from chartproof.types import Answer, ImageRef, ModelRequest, Sample


def _is_tinyqa(folder: Path) -> bool:
    return (folder / "tinyqa.json").is_file()


@pytest.fixture
def tinyqa() -> Iterator[None]:
    @register_loader("tinyqa", detect=_is_tinyqa, order=5)
    def load_tinyqa(path: Path, *, strict: bool = False, split: str = "test") -> LoadResult:
        rows = json.loads((path / "tinyqa.json").read_text(encoding="utf-8"))
        samples = [
            Sample(
                id=f"tiny-{i}",
                image=ImageRef(path=row["img"]),
                question=row["q"],
                answer=Answer.of_text(row["a"]),
                source={"dataset": "tinyqa", "split": split},
            )
            for i, row in enumerate(rows)
            if row.get("split", "test") == split
        ]
        return LoadResult(samples=samples, errors=[], root=path)

    yield
    unregister_loader("tinyqa")


def _release(root: Path) -> Path:
    root.mkdir(parents=True)
    Image.new("RGB", (8, 8), (0, 90, 200)).save(root / "c.png")
    rows = [
        {"img": "c.png", "q": "Which colour is the bar?", "a": "Blue"},
        {"img": "c.png", "q": "How many bars?", "a": "1"},
        {"img": "c.png", "q": "Which axis?", "a": "x", "split": "train"},
    ]
    (root / "tinyqa.json").write_text(json.dumps(rows), encoding="utf-8")
    return root


def _answer(request: ModelRequest) -> str:
    return "The answer is: Blue."


def test_a_loader_added_in_one_file(tmp_path: Path, tinyqa: None) -> None:
    root = _release(tmp_path / "tiny")
    assert "tinyqa" in LOADERS
    assert detect_format(root) == "tinyqa"  # ahead of the generic layouts (order 5)
    assert [s.id for s in load_dataset(f"tinyqa:{root}").samples] == ["tiny-0", "tiny-1"]
    assert [s.id for s in load_dataset(f"tinyqa:{root}?split=train").samples] == ["tiny-2"]
    assert [s.id for s in load_dataset(root).samples] == ["tiny-0", "tiny-1"]
    record = evaluate(
        f"tinyqa:{root}", out=tmp_path / "run", backend=ScriptedBackend(_answer), cache=False
    )
    assert record.summary["counts"]["results"] == 2
    assert record.summary["scores"]["accuracy"] == pytest.approx(0.5)


def test_the_cli_takes_the_new_loader_by_name(tmp_path: Path, tinyqa: None) -> None:
    root = _release(tmp_path / "tiny")
    out = tmp_path / "cli-run"
    register_builtin("tiny-echo", lambda spec: ScriptedBackend(_answer))
    try:
        _register()
        data = f"tinyqa:{root}?split=train"
        res = CliRunner().invoke(
            app, ["eval", "-d", data, "-o", str(out), "-m", "builtin:tiny-echo", "--no-cache"]
        )
    finally:
        BUILTINS.unregister("tiny-echo")
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["counts"]["results"] == 1  # the train split only
    assert summary["scores"]["accuracy"] == 0.0


def test_a_removed_loader_is_neither_named_nor_detected(tmp_path: Path) -> None:
    root = _release(tmp_path / "tiny")
    assert "tinyqa" not in LOADERS
    assert detect_folder(root) is None
