"""`chartproof eval` under faults, through the CLI against the loopback chat server: a run
where every sample failed exits non-zero with one line; transport options are not part of a
run's identity; a folder in use gives one clear line; a decompression-bomb image becomes a
placeholder in the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("aiohttp", reason="the loopback server needs aiohttp (dev extra)")

from chartproof.models.registry import run_identity
from chartproof.pipelines.generate import generate
from chartproof.runs import RunFolder
from chartproof.testing.loopback import LoopbackServer


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data") / "chartqax"
    generate("chartqax", 2, out, seed=5, per_chart=2, levels=1, premises=False, workers=1)
    return out


def _eval(*args: str) -> tuple[int, str]:
    from chartproof.cli import _register
    from chartproof.cli._app import app

    _register()
    res = CliRunner().invoke(app, ["eval", *args, "-q", "--no-cache", "--no-report"])
    return res.exit_code, res.output


def test_every_sample_failed_exits_non_zero(dataset: Path, tmp_path: Path) -> None:
    with LoopbackServer(faults=lambda key, attempt: "400") as server:
        model = f"openai:vlm@{server.base_url}?max_retries=0"
        code, output = _eval("--data", str(dataset), "--model", model, "--out", str(tmp_path))
    assert code == 1, output
    lines = [ln for ln in output.splitlines() if "every sample failed" in ln]
    assert len(lines) == 1 and "http_400" in lines[0], output


def test_resume_with_another_concurrency(dataset: Path, tmp_path: Path) -> None:
    with LoopbackServer() as server:
        base = f"openai:vlm@{server.base_url}"
        args = ["--data", str(dataset), "--out", str(tmp_path), "--limit", "2"]
        code, output = _eval(*args, "--model", f"{base}?concurrency=8&timeout_s=30")
        assert code == 0, output
        asked = sum(server.attempts.values())
        code, output = _eval(*args, "--model", f"{base}?concurrency=1&max_retries=9")
        assert code == 0, output
        assert sum(server.attempts.values()) == asked  # resumed: nothing asked again
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["config"]["model"] == base


def test_run_identity_keeps_what_changes_answers() -> None:
    url = "openai:m@http://h:1/v1"
    assert run_identity(f"{url}?concurrency=4&timeout_s=9&http=httpx") == url
    assert run_identity(f"{url}?revision=r2&concurrency=4") == f"{url}?revision=r2"
    assert run_identity("model.toml") == "model.toml"


def test_folder_in_use_is_one_line(dataset: Path, tmp_path: Path) -> None:
    with RunFolder.open(tmp_path, {}, "fp"):
        code, output = _eval(
            "--data", str(dataset), "--model", "openai:vlm@http://127.0.0.1:9/v1",
            "--out", str(tmp_path),
        )  # fmt: skip
    assert code == 2, output
    assert output.strip().count("\n") == 0 and "in use by another process" in output, output


def test_decompression_bomb_becomes_a_placeholder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import Image

    from chartproof.reports.gallery import thumbnail

    bomb = tmp_path / "bomb.png"
    Image.new("L", (120, 120)).save(bomb)
    # a lower pixel limit turns this image into what PIL treats as a bomb
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    with pytest.raises(Image.DecompressionBombError):
        Image.open(bomb).convert("RGB")
    assert thumbnail(bomb) is None
