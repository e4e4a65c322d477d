"""The audit guard looks nothing up at call time (sandbox/_guest.py's docstring): walked over
its bytecode and that of every function reachable from its default arguments, no
instruction reads or writes a module global, a builtin or a name captured from the scope
that built it; only locals (arguments, defaults bound before the untrusted code runs) and
constants are read, plus cells of a function nested inside the walked code itself."""

from __future__ import annotations

import dis
from pathlib import Path
from types import BuiltinFunctionType, CodeType, FunctionType, MethodDescriptorType

from chartproof.sandbox import _guest

FORBIDDEN_OPS = frozenset(
    {
        "LOAD_GLOBAL",
        "LOAD_NAME",
        "STORE_GLOBAL",
        "DELETE_GLOBAL",
        "STORE_NAME",
        "DELETE_NAME",
        "LOAD_CLASSDEREF",
        "LOAD_FROM_DICT_OR_GLOBALS",
        "LOAD_FROM_DICT_OR_DEREF",
        "IMPORT_NAME",
    }
)
"""Opcodes that reach module globals, builtins or a namespace dict (3.11 to 3.13 names)."""


def _code_offences(code: CodeType, where: str, cells: frozenset[str]) -> list[str]:
    """Offending instructions in `code` and the code objects nested in it; `cells` are the
    cell names defined by the walked code around it (a nested helper may read those)."""
    out: list[str] = []
    own = cells | frozenset(code.co_cellvars)
    for ins in dis.get_instructions(code):
        if ins.opname in FORBIDDEN_OPS:
            out.append(f"{where}: {ins.opname} {ins.argval!r} (line {ins.positions.lineno})")
        elif ins.opname in {"LOAD_DEREF", "STORE_DEREF", "DELETE_DEREF"} and (
            ins.argval not in own
        ):
            out.append(f"{where}: {ins.opname} {ins.argval!r} from the scope that built it")
    for const in code.co_consts:
        if isinstance(const, CodeType):
            out += _code_offences(const, f"{where}.{const.co_name}", own)
    return out


def _reachable(root: FunctionType) -> list[FunctionType]:
    """`root` and every Python function found in default arguments (tuples and frozensets
    searched), transitively: all the guard can call."""
    seen: dict[int, FunctionType] = {}
    todo: list[object] = [root]
    while todo:
        item = todo.pop()
        if isinstance(item, tuple | frozenset | list):
            todo.extend(item)
        elif isinstance(item, FunctionType) and id(item) not in seen:
            seen[id(item)] = item
            todo.extend(item.__defaults__ or ())
            todo.extend((item.__kwdefaults__ or {}).values())
    return list(seen.values())


def test_the_guard_and_its_helpers_read_only_locals_and_constants(tmp_path: Path) -> None:
    guard = _guest._make_guard(str(tmp_path), (str(tmp_path),), True, 5)
    functions = _reachable(guard)
    names = {f.__name__ for f in functions}
    assert {"_die"} <= names and len(functions) >= 3, names  # the walk reached the helpers
    offences: list[str] = []
    for fn in functions:
        if fn.__closure__:
            offences.append(f"{fn.__qualname__}: closes over {fn.__code__.co_freevars}")
        offences += _code_offences(fn.__code__, fn.__qualname__, frozenset())
    assert not offences, "\n".join(offences)


def test_the_walk_catches_a_global_a_builtin_and_a_captured_name() -> None:
    """The check itself can fail: each way of reaching outside the defaults is caught."""
    outer = 1

    def uses_builtin(x: object) -> int:
        return len(str(x))

    def uses_outer() -> int:
        return outer

    def nested_ok(x: int, _len: object = len) -> int:
        def inner() -> int:
            return x

        return inner()

    assert [
        o.split(":")[1].split()[:2] for o in _code_offences(uses_builtin.__code__, "f", frozenset())
    ] == [
        ["LOAD_GLOBAL", "'len'"],
        ["LOAD_GLOBAL", "'str'"],
    ]
    assert "LOAD_DEREF 'outer'" in _code_offences(uses_outer.__code__, "f", frozenset())[0]
    assert _code_offences(nested_ok.__code__, "f", frozenset()) == []
    assert _code_offences(_guest._set_limits.__code__, "f", frozenset())  # reads `resource`


def test_what_the_guard_holds_is_immutable_but_its_one_counter(tmp_path: Path) -> None:
    """Its tables are tuples and frozensets of values; the one mutable object is the
    created-files cell (a list of one int)."""
    guard = _guest._make_guard(str(tmp_path), (), False, 5)
    immutable = (str, bytes, int, float, type(None), type)
    immutable += (FunctionType, BuiltinFunctionType, MethodDescriptorType)
    mutable: list[object] = []
    todo: list[object] = [guard]
    seen: set[int] = set()
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, FunctionType):
            todo.extend(item.__defaults__ or ())
        elif isinstance(item, tuple | frozenset):
            todo.extend(item)
        elif not isinstance(item, immutable):
            mutable.append(item)
    assert mutable == [[0]]
