"""The package surface: `import chartproof` stays light, the API is plain functions, the CLI
lists every command."""

from __future__ import annotations

import subprocess
import sys

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
