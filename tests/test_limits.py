"""Size limits of the source: no file in `src` over 800 lines, no function over 120 lines or
12 parameters. A typer command in `cli/` is exempt from the parameter count, and its
signature (one option a parameter) from the line count: only its body is counted.

`ALLOWED` lists offenders allowed for a while (none today; an entry says why), each with
its size then: an entry may only shrink (growing past its size fails), and an entry smaller
than listed or within the limits fails until it is lowered or deleted, so the list empties
as those files are split."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "chartproof"

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 120
MAX_PARAMETERS = 12

ALLOWED: dict[str, dict[str, int]] = {}
"""Offenders allowed for now, by "path (under src/chartproof)::qualified name" (or the path
alone for a file's lines), with their size today: lines and/or parameters."""


@dataclass(frozen=True)
class Size:
    """One offence: where, what is measured and how much."""

    where: str
    """"path::qualified name", or the path for a whole file."""
    measure: str
    """"lines" or "parameters"."""
    value: int
    """Its size."""
    limit: int
    """The most it may be."""


def _is_typer_command(node: ast.FunctionDef | ast.AsyncFunctionDef, rel: str) -> bool:
    """A function in `cli/` registered by a `@<app>.command(...)` decorator."""
    if not rel.startswith("cli/"):
        return False
    for deco in node.decorator_list:
        call = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(call, ast.Attribute) and call.attr == "command":
            return True
    return False


def _parameters(args: ast.arguments) -> int:
    return (
        len(args.posonlyargs)
        + len(args.args)
        + len(args.kwonlyargs)
        + (args.vararg is not None)
        + (args.kwarg is not None)
    )


def _function_sizes(path: Path, root: Path = SRC) -> list[Size]:
    """Every function (methods and nested ones included) over a limit in one file of the
    package at `root`."""
    rel = path.relative_to(root).as_posix()
    out: list[Size] = []

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, (*scope, child.name))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{rel}::{'.'.join((*scope, child.name))}"
                end = child.end_lineno or child.lineno
                if _is_typer_command(child, rel):
                    lines = end - child.body[0].lineno + 1
                else:
                    lines = end - child.lineno + 1
                    params = _parameters(child.args)
                    if params > MAX_PARAMETERS:
                        out.append(Size(name, "parameters", params, MAX_PARAMETERS))
                if lines > MAX_FUNCTION_LINES:
                    out.append(Size(name, "lines", lines, MAX_FUNCTION_LINES))
                visit(child, (*scope, child.name))
            else:
                visit(child, scope)

    visit(ast.parse(path.read_text(encoding="utf-8")), ())
    return out


def _offences() -> list[Size]:
    out: list[Size] = []
    for path in sorted(SRC.rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_FILE_LINES:
            out.append(Size(path.relative_to(SRC).as_posix(), "lines", n, MAX_FILE_LINES))
        out += _function_sizes(path)
    return out


OFFENCES = _offences()


def test_no_file_or_function_over_the_limits() -> None:
    over = [
        f"{o.where}: {o.value} {o.measure} (limit {o.limit}"
        + (f", allowed {ALLOWED[o.where][o.measure]})" if o.where in ALLOWED else ")")
        for o in OFFENCES
        if o.value > ALLOWED.get(o.where, {}).get(o.measure, o.limit)
    ]
    assert not over, "split these:\n" + "\n".join(over)


def test_the_allow_list_only_shrinks() -> None:
    """An allowed offender now within the limits, or smaller than listed, is taken off or
    lowered, so nothing grows back into the room it left."""
    now = {(o.where, o.measure): o.value for o in OFFENCES}
    stale = [
        f"{where}: {measure} now {now.get((where, measure), 'within the limit')}, listed {size}"
        for where, sizes in ALLOWED.items()
        for measure, size in sizes.items()
        if now.get((where, measure), 0) != size
    ]
    assert not stale, "update ALLOWED in tests/test_limits.py:\n" + "\n".join(stale)


SIZE_CASES: list[tuple[str, str, list[tuple[str, str, int]]]] = [
    ("lib/x.py", "def f(a, b, *c, d, **e):\n    pass\n", []),
    (
        "lib/x.py",
        "def f(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13):\n    pass\n",
        [("lib/x.py::f", "parameters", 13)],
    ),
    (
        "lib/x.py",
        "class C:\n    def m(self, *, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):\n"
        "        pass\n",
        [],
    ),
    (
        "lib/x.py",
        "class C:\n    def m(self, *, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12):\n"
        "        pass\n",
        [("lib/x.py::C.m", "parameters", 13)],
    ),
    ("lib/x.py", "def f():\n" + "    x = 1\n" * 119, []),
    ("lib/x.py", "def f():\n" + "    x = 1\n" * 120, [("lib/x.py::f", "lines", 121)]),
    (
        "lib/x.py",
        "def f():\n    def g():\n" + "        x = 1\n" * 120,
        [("lib/x.py::f", "lines", 122), ("lib/x.py::f.g", "lines", 121)],
    ),
    # a typer command: its parameters and signature are free, its body is counted
    (
        "cli/x.py",
        "@app.command()\ndef run(\n"
        + "".join(f"    a{i}: int = 0,\n" for i in range(30))
        + ") -> None:\n"
        + "    x = 1\n" * 120,
        [],
    ),
    (
        "cli/x.py",
        "@app.command()\ndef run(a: int = 0) -> None:\n" + "    x = 1\n" * 121,
        [("cli/x.py::run", "lines", 121)],
    ),
    # the same function outside cli/, or undecorated in cli/, is no command
    (
        "lib/x.py",
        "@app.command()\ndef run(\n" + "".join(f"    a{i}: int = 0,\n" for i in range(13)) + "):\n"
        "    pass\n",
        [("lib/x.py::run", "parameters", 13)],
    ),
    (
        "cli/x.py",
        "def run(\n" + "".join(f"    a{i}: int = 0,\n" for i in range(13)) + "):\n    pass\n",
        [("cli/x.py::run", "parameters", 13)],
    ),
]
"""(file under the package, its source, the offences expected), worked by hand."""


@pytest.mark.parametrize(("rel", "source", "expected"), SIZE_CASES)
def test_sizes_are_measured_as_documented(
    tmp_path: Path, rel: str, source: str, expected: list[tuple[str, str, int]]
) -> None:
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_text(source, encoding="utf-8")
    got = [(s.where, s.measure, s.value) for s in _function_sizes(path, tmp_path)]
    assert got == expected
