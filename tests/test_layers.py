"""The import graph keeps its layers: no package imports one above it (function-level imports
included), and module-level imports form no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "chartproof"

LAYERS: dict[str, int] = {
    "_cachedir": 0,
    "_heap": 0,
    "_images": 0,
    "model_files": 1,
    "numeric": 0,
    "seeds": 0,
    "types": 1,
    "answers": 2,
    "charts": 2,
    "datasets": 3,
    "metrics": 3,
    "models": 3,
    "ocr": 3,
    "questions": 3,
    "runs": 3,
    "sandbox": 3,
    "executors": 4,
    "reader": 4,
    "testing": 4,
    "variants": 4,
    "reports": 5,
    "pipelines": 6,
    "cli": 7,
    "__main__": 8,
}
"""Layer of each part of the package: a part may import only parts of a lower layer (and
itself). `from chartproof import __version__` is allowed everywhere."""


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _imports(path: Path, *, top_level_only: bool) -> list[tuple[str, int]]:
    """(imported chartproof module, line) of every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: list[ast.AST] = list(tree.body) if top_level_only else list(ast.walk(tree))
    out: list[tuple[str, int]] = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "chartproof":
                names = [a.name for a in node.names]
                out += [(f"chartproof.{n}", node.lineno) for n in names if n != "__version__"]
            elif node.module.startswith("chartproof."):
                # `from chartproof.x import y` names a submodule y or a name defined in x
                out += [(f"{node.module}.{a.name}", node.lineno) for a in node.names]
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("chartproof.")]
    return out


def _part(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


FILES = sorted(p for p in SRC.rglob("*.py"))


def test_every_part_has_a_layer() -> None:
    parts = {_part(_module_name(p)) for p in FILES} - {"__init__"}
    assert parts <= set(LAYERS), f"give these parts a layer: {sorted(parts - set(LAYERS))}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_import_goes_up(path: Path) -> None:
    here = _part(_module_name(path))
    if here == "__init__":
        return  # the package root loads its public names lazily, from every layer
    upward = [
        f"line {line}: {target}"
        for target, line in _imports(path, top_level_only=False)
        if _part(target) != here and LAYERS.get(_part(target), 99) >= LAYERS[here]
    ]
    assert not upward, f"{here} (layer {LAYERS[here]}) imports a layer at or above it: {upward}"


def test_no_import_cycle() -> None:
    """Module-level imports are acyclic (registries import their members inside functions)."""
    known = {_module_name(p) for p in FILES}
    graph: dict[str, set[str]] = {}
    for p in FILES:
        deps = set()
        for target, _ in _imports(p, top_level_only=True):
            deps.add(target if target in known else target.rsplit(".", 1)[0])
        graph[_module_name(p)] = {d for d in deps if d in known and d != _module_name(p)}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycle = [*stack[stack.index(dep) :], dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
