"""The package surface: `import chartproof` stays light, the API is plain functions, the CLI
lists every command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("matplotlib", "torch", "transformers", "cv2", "rapidocr", "pandas", "pyarrow", "openai")


def test_import_is_light() -> None:
    code = (
        "import sys, chartproof, chartproof.types;"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("name", ["generate", "evaluate", "report", "demo", "load_samples"])
def test_public_functions(name: str) -> None:
    import chartproof

    assert callable(getattr(chartproof, name))


def test_unknown_attribute() -> None:
    import chartproof

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = chartproof.nope  # type: ignore[attr-defined]


def test_cli_lists_commands() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "chartproof", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("generate", "eval", "report", "demo", "cache"):
        assert command in out.stdout


def test_cli_export_round_trip(tmp_path: Path) -> None:
    from chartproof.datasets import load_parquet, load_samples
    from chartproof.pipelines.generate import generate

    generate("chartqax", 2, tmp_path / "data", per_chart=2, workers=1)
    out = tmp_path / "data.parquet"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "chartproof",
            "export",
            "--data",
            str(tmp_path / "data"),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    back = load_parquet(out, image_dir=tmp_path / "restored")
    assert back.samples == load_samples(tmp_path / "data").samples
