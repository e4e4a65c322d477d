"""`chartproof cache stats|clear` on a cache file filled through CachedBackend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import chartproof.cli.cache  # noqa: F401  (registers the sub-app, as cli/__init__ does)
from chartproof.cli._app import app
from chartproof.models.cache import CachedBackend, ResponseCache
from chartproof.models.prompts import build_request
from chartproof.testing import ScriptedBackend


def test_stats_and_clear(tmp_path: Path) -> None:
    chart = tmp_path / "c.png"
    chart.write_bytes(b"png")
    db = tmp_path / "cache.sqlite"
    for model in ("alpha", "beta"):
        backend = CachedBackend(
            ScriptedBackend(lambda r: "1", name=f"scripted:{model}"), ResponseCache(db)
        )
        backend.generate(
            [build_request("short", chart, f"q{i}", request_id=str(i)) for i in range(3)]
        )
        backend.close()
    runner = CliRunner()
    out = runner.invoke(app, ["cache", "stats", "--path", str(db), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["entries"] == 6
    assert (data["logged_hits"], data["logged_misses"]) == (0, 6)
    assert {m: v["entries"] for m, v in data["per_model"].items()} == {"alpha": 3, "beta": 3}
    out = runner.invoke(app, ["cache", "stats", "--path", str(db)])
    assert "entries: 6" in out.output and "0 hits, 6 misses" in out.output
    out = runner.invoke(app, ["cache", "clear", "--path", str(db), "--model", "alpha", "--yes"])
    assert out.exit_code == 0 and "deleted 3" in out.output
    out = runner.invoke(app, ["cache", "clear", "--path", str(db)], input="n\n")
    assert out.exit_code == 1
    assert ResponseCache(db).stats().entries == 3
    out = runner.invoke(app, ["cache", "stats", "--path", str(tmp_path / "none.sqlite")])
    assert "no response cache" in out.output


def test_cache_readings_lists_and_clears_stored_readings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chartproof.reader.backend import reader_revision
    from chartproof.reader.readings import READINGS_ENV, ReadingStore

    root = tmp_path / "readings"
    monkeypatch.setenv(READINGS_ENV, str(root))
    runner = CliRunner()
    assert "none stored" in runner.invoke(app, ["cache", "readings"]).output
    ReadingStore(root, reader_revision()).put("a" * 64, "no chart found")
    old = ReadingStore(root, "0ld0ld0ld0ld")
    old.put("b" * 64, "no chart found")
    old.put("c" * 64, "no chart found")
    out = runner.invoke(app, ["cache", "readings"]).output
    assert f"{reader_revision()}: 1 readings" in out and "(this reader)" in out
    assert "0ld0ld0ld0ld: 2 readings" in out
    out = runner.invoke(app, ["cache", "readings", "--clear", "--stale", "--yes"])
    assert out.exit_code == 0 and "deleted 2 stored readings" in out.output
    assert not (root / "0ld0ld0ld0ld").exists() and (root / reader_revision()).exists()
    out = runner.invoke(app, ["cache", "readings", "--clear"], input="n\n")
    assert out.exit_code == 1 and (root / reader_revision()).exists()
    out = runner.invoke(app, ["cache", "readings", "--clear", "--yes"])
    assert "deleted 1 stored readings" in out.output and not any(root.iterdir())
