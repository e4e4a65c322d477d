"""Another package extends chartproof through entry points alone: its module, named in the
``chartproof.loaders`` and ``chartproof.report_sections`` groups, is imported on the first
lookup (never at import time) and registers a loader with its detector and a report
section, which then work like the shipped ones."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from PIL import Image

from chartproof.datasets import LOADERS, detect_format, load_dataset
from chartproof.datasets.loaders._registry import DETECTORS, unregister_loader
from chartproof.pipelines.evaluate import evaluate
from chartproof.reports import report
from chartproof.reports.sections import SECTIONS, unregister_section
from chartproof.testing import ScriptedBackend

PLUGIN = """
import json
from pathlib import Path

from chartproof.datasets.errors import LoadResult
from chartproof.datasets.loaders._registry import register_loader
from chartproof.reports.html import el
from chartproof.reports.sections import report_section
from chartproof.types import Answer, ImageRef, Sample


def _is_plugqa(folder):
    return (folder / "plugqa.json").is_file()


@register_loader("plugqa", detect=_is_plugqa, order=6)
def load_plugqa(path: Path, *, strict: bool = False) -> LoadResult:
    rows = json.loads((path / "plugqa.json").read_text(encoding="utf-8"))
    samples = [
        Sample(id=r["id"], image=ImageRef(path=r["img"]), question=r["q"],
               answer=Answer.of_text(r["a"]))
        for r in rows
    ]
    return LoadResult(samples=samples, errors=[], root=path)


@report_section("plug_note", order=99, when=lambda s: "metrics" in s)
def plug_note(summary):
    return el("h2", f"Plug-in section: {summary['counts']['results']} results")
"""


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "chartproof_plugqa.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    groups = {
        "chartproof.loaders": [
            metadata.EntryPoint("plugqa", "chartproof_plugqa", "chartproof.loaders")
        ],
        "chartproof.report_sections": [
            metadata.EntryPoint("plug_note", "chartproof_plugqa", "chartproof.report_sections")
        ],
    }
    real = metadata.entry_points

    def entry_points(**params: str) -> object:
        group = params.get("group")
        return groups[group] if group in groups else real(**params)

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    for registry in (LOADERS, DETECTORS, SECTIONS):  # as in a fresh process
        monkeypatch.setattr(registry, "_loaded", False)
    try:
        yield
    finally:
        unregister_loader("plugqa")
        unregister_section("plug_note")
        sys.modules.pop("chartproof_plugqa", None)


def test_a_plug_in_registers_through_entry_points(tmp_path: Path, plugin: None) -> None:
    root = tmp_path / "plug"
    root.mkdir()
    Image.new("RGB", (8, 8), (10, 10, 10)).save(root / "c.png")
    rows = [{"id": "p0", "img": "c.png", "q": "Colour?", "a": "black"}]
    (root / "plugqa.json").write_text(json.dumps(rows), encoding="utf-8")

    assert "chartproof_plugqa" not in sys.modules  # imported on the first lookup only
    assert "plugqa" in LOADERS
    assert "chartproof_plugqa" in sys.modules
    assert LOADERS.home_of("plugqa") == "chartproof_plugqa"
    assert detect_format(root) == "plugqa"
    assert [s.id for s in load_dataset(f"plugqa:{root}").samples] == ["p0"]

    evaluate(
        f"plugqa:{root}",
        out=tmp_path / "run",
        backend=ScriptedBackend(lambda r: "The answer is: black."),
        cache=False,
    )
    html = report(tmp_path / "run").read_text(encoding="utf-8")
    assert "Plug-in section: 1 results" in html


def test_a_broken_plug_in_is_named_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    entry = metadata.EntryPoint("gone", "chartproof_no_such_plugin", "chartproof.loaders")
    real = metadata.entry_points

    def entry_points(**params: str) -> object:
        if params.get("group") == "chartproof.loaders":
            return [entry]
        return real(**params)

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    monkeypatch.setattr(LOADERS, "_loaded", False)
    with caplog.at_level("WARNING"):
        assert "chartqa" in LOADERS  # the shipped loaders still load
    assert "loader plug-in 'gone' not loaded" in caplog.text
