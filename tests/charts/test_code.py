"""Chart as code: the emitted script is standalone (matplotlib and the standard library only)
and, run in another process, writes exactly the bytes `render` produces."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from chartproof.charts import Rendered, spec_to_code
from chartproof.charts._plan import Var
from chartproof.charts.code import literal
from chartproof.types import ChartSpec


def _imports(code: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_script_imports_only_matplotlib_and_stdlib(specs: dict[str, ChartSpec]) -> None:
    for spec in specs.values():
        code = spec_to_code(spec)
        assert _imports(code) <= {"sys", "matplotlib"}, spec.id
        assert "chartproof" not in code.split("\n", 2)[2]


def test_scripts_reproduce_the_render_bytes(
    specs: dict[str, ChartSpec], renders: dict[str, Rendered], tmp_path: Path
) -> None:
    runner = ["import runpy, sys"]
    for name, spec in specs.items():
        script = tmp_path / f"{name}.py"
        script.write_text(spec_to_code(spec), encoding="utf-8")
        runner.append(
            f"sys.argv = ['{name}.py', {str(tmp_path / (name + '.png'))!r}]; "
            f"runpy.run_path({str(script)!r}, run_name='__main__')"
        )
    subprocess.run([sys.executable, "-c", "\n".join(runner)], check=True, timeout=180, cwd=tmp_path)
    for name in specs:
        assert (tmp_path / f"{name}.png").read_bytes() == renders[name].png, name


def test_script_runs_as_a_plain_program(
    specs: dict[str, ChartSpec], renders: dict[str, Rendered], tmp_path: Path
) -> None:
    script = tmp_path / "chart.py"
    script.write_text(spec_to_code(specs["grouped"]), encoding="utf-8")
    subprocess.run([sys.executable, str(script), "out.png"], check=True, timeout=120, cwd=tmp_path)
    assert (tmp_path / "out.png").read_bytes() == renders["grouped"].png


@pytest.mark.parametrize(
    ("value", "source"),
    [
        (1.5, "1.5"),
        (float("nan"), 'float("nan")'),
        ((1.0,), "(1.0,)"),
        ([Var("bars0"), "a'b"], '[bars0, "a\'b"]'),
        ({"color": "#333333"}, "{'color': '#333333'}"),
        ("$\\alpha$", "'$\\\\alpha$'"),
    ],
)
def test_literals_round_trip(value: object, source: str) -> None:
    assert literal(value) == source
    if not isinstance(value, list) and value == value:  # NaN and Vars are not literals
        assert repr(ast.literal_eval(source)) == repr(value)
