"""Child side of chartproof's sandbox: apply limits, install the guard, run untrusted code.

Started only by `chartproof.sandbox.runner` as `python -I -S -B _guest.py` with a JSON
config on stdin. Standard library only: it must not import chartproof.
"""

from __future__ import annotations

import builtins
import json
import os
import resource
import signal
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

# Exit codes the parent maps to statuses; anything else is an error.
FORBIDDEN = 86
MEMORY = 87
CPU = 88
MARK = "chartproof-sandbox:"

# Audit events that are never allowed once untrusted code runs, by exact name or prefix.
_DENY_PREFIXES = (
    "socket.",
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "os.startfile",
    "os.symlink",
    "os.link",
    "pty.",
    "ctypes.",
    "gc.get_",
    "sys.settrace",
    "sys.setprofile",
    "sys.addaudithook",
    "sys._current_frames",
    "resource.",
    "signal.pthread_kill",
    "sqlite3.",
    "webbrowser.",
    "urllib.",
    "http.",
    "ftplib.",
    "smtplib.",
    "poplib.",
    "imaplib.",
    "nntplib.",
    "telnetlib.",
    "_winapi.",
    "winreg.",
    "msvcrt.",
)

# Events whose listed arguments are paths that must stay inside the work dir.
_WRITE_EVENTS: dict[str, tuple[int, ...]] = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.chflags": (0,),
    "os.lchflags": (0,),
    "os.truncate": (0,),
    "os.utime": (0,),
    "os.setxattr": (0,),
    "os.removexattr": (0,),
    "os.rename": (0, 1),
    "os.chdir": (0,),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (1,),
    "shutil.copymode": (1,),
    "shutil.copystat": (1,),
    "shutil.copytree": (1,),
    "shutil.move": (0, 1),
    "shutil.chown": (0,),
    "shutil.make_archive": (0,),
    "shutil.unpack_archive": (1,),
}

# Events whose listed arguments are paths that must be readable (work dir or read roots).
_READ_EVENTS: dict[str, tuple[int, ...]] = {
    "os.listdir": (0,),
    "os.scandir": (0,),
    "os.listxattr": (0,),
    "os.getxattr": (0,),
    "glob.glob": (0,),
    "glob.glob/2": (0,),
    "shutil.copyfile": (0,),
    "shutil.copytree": (0,),
    "shutil.unpack_archive": (0,),
}

# Imports refused even to trusted library code once the guard is on: process creation
# without an audit event, foreign-function access, interpreter internals.
_DENY_MODULES = frozenset(
    {"_posixsubprocess", "ctypes", "_ctypes", "cffi", "_cffi_backend", "_testcapi",
     "_testinternalcapi", "_xxsubinterpreters", "_xxinterpchannels", "_socket", "socket"}
)  # fmt: skip

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _die(code: int, message: str) -> None:
    """Report on stderr and end the process at once; user code cannot catch this."""
    try:
        os.write(2, f"\n{MARK} {message}\n".encode("utf-8", "replace"))
    finally:
        os._exit(code)


def _set_limits(cfg: dict[str, Any]) -> None:
    mb = 1024 * 1024
    wanted = [
        (resource.RLIMIT_AS, cfg["memory_mb"] * mb, cfg["memory_mb"] * mb),
        (resource.RLIMIT_CPU, cfg["cpu_s"], cfg["cpu_s"] + 1),
        (resource.RLIMIT_FSIZE, cfg["max_file_mb"] * mb, cfg["max_file_mb"] * mb),
        (resource.RLIMIT_NOFILE, cfg["max_open_files"], cfg["max_open_files"]),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    for which, soft, hard in wanted:
        _, cur_hard = resource.getrlimit(which)
        if cur_hard != resource.RLIM_INFINITY:
            soft, hard = min(soft, cur_hard), min(hard, cur_hard)
        resource.setrlimit(which, (soft, hard))


def _path_of(arg: object) -> str | None:
    """The path an audit argument names; None for file descriptors.

    Only str, bytes and the standard pathlib classes are accepted: a user-defined
    __fspath__ could name one path to the guard and another to the open that follows.
    """
    if isinstance(arg, int):
        return None
    if isinstance(arg, str):
        return arg
    if isinstance(arg, bytes):
        return os.fsdecode(arg)
    if type(arg).__module__ == "pathlib" and type(arg).__name__ in ("PosixPath", "PurePosixPath"):
        return str(arg)
    raise PermissionError(f"path argument of type {type(arg).__name__}")


def _make_guard(
    workdir: str, read_roots: tuple[str, ...], block_reads: bool
) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook. Its state lives only in this closure, which user code cannot reach."""
    realpath, isdir, sep = os.path.realpath, os.path.isdir, os.sep
    work = (realpath(workdir),)
    readable = work + tuple(realpath(r) for r in read_roots)
    deny_prefixes = _DENY_PREFIXES
    write_events, read_events, deny_modules = _WRITE_EVENTS, _READ_EVENTS, _DENY_MODULES
    die = _die

    def under(path: str, roots: tuple[str, ...]) -> bool:
        p = realpath(path)
        return any(p == r or p.startswith(r + sep) for r in roots)

    def guard(event: str, args: tuple[Any, ...]) -> None:
        try:
            if event == "open":
                path = _path_of(args[0])
                if path is None:
                    return
                mode, flags = args[1], args[2] if len(args) > 2 else 0
                writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
                    isinstance(flags, int) and flags & _WRITE_FLAGS
                )
                if mode is None and isdir(path):
                    # os.open of a directory gives a descriptor for dir_fd-relative opens
                    # that would land somewhere this path check never saw.
                    die(FORBIDDEN, f"forbidden: open of directory {path!r}")
                if writes and not under(path, work):
                    die(FORBIDDEN, f"forbidden: write outside the work dir: {path!r}")
                if not writes and block_reads and not under(path, readable):
                    die(FORBIDDEN, f"forbidden: read outside allowed roots: {path!r}")
                return
            if event == "import":
                top = str(args[0]).partition(".")[0]
                if top in deny_modules:
                    die(FORBIDDEN, f"forbidden: import of {args[0]!r}")
                return
            if event.startswith(deny_prefixes):
                die(FORBIDDEN, f"forbidden: {event}")
            idx = write_events.get(event)
            if idx is not None:
                for i in idx:
                    path = _path_of(args[i]) if i < len(args) else None
                    if path is not None and not under(path, work):
                        die(FORBIDDEN, f"forbidden: {event} outside the work dir: {path!r}")
            idx = read_events.get(event)
            if idx is not None and block_reads:
                for i in idx:
                    path = _path_of(args[i]) if i < len(args) else None
                    if path is not None and not under(path, readable):
                        die(FORBIDDEN, f"forbidden: {event} outside allowed roots: {path!r}")
        except PermissionError as exc:
            die(FORBIDDEN, f"forbidden: {event}: {exc}")
        except Exception as exc:  # a guard that fails must fail closed
            die(FORBIDDEN, f"forbidden: {event}: guard could not check ({exc!r})")

    return guard


def _guard_imports(allowed: frozenset[str], user_globals: dict[str, Any]) -> None:
    """Restrict what untrusted code may import; library code imports freely."""
    original = builtins.__import__
    modules = sys.modules

    def guarded_import(
        name: str,
        globals: Mapping[str, object] | None = None,
        locals: Mapping[str, object] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> ModuleType:
        owner = globals.get("__name__") if globals is not None else None
        module = modules.get(owner) if isinstance(owner, str) else None
        trusted = (
            module is not None
            and globals is not user_globals
            and (getattr(module, "__dict__", None) is globals)
        )
        if not trusted and (level != 0 or name.partition(".")[0] not in allowed):
            _die(FORBIDDEN, f"forbidden: import of {name!r} is not on the allow-list")
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded_import


def _neutralise_spawn() -> None:
    """`_posixsubprocess.fork_exec` starts processes without raising an audit event."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        _die(FORBIDDEN, "forbidden: process creation (_posixsubprocess.fork_exec)")

    import _posixsubprocess
    import subprocess

    _posixsubprocess.fork_exec = refuse  # type: ignore[assignment]
    for name in ("_fork_exec",):
        if hasattr(subprocess, name):
            setattr(subprocess, name, refuse)


def _autosave(name: str) -> None:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None or os.path.exists(name) or not pyplot.get_fignums():
        return
    pyplot.gcf().savefig(name)


def main() -> None:
    cfg = json.loads(sys.stdin.read())
    sys.stdin.close()
    sys.path[:] = cfg["sys_path"]
    os.chdir(cfg["workdir"])
    with open(cfg["script"], encoding="utf-8") as fh:
        source = fh.read()
    try:
        _set_limits(cfg)
        signal.signal(signal.SIGXCPU, lambda *_: _die(CPU, "cpu time limit exceeded"))
        for name in cfg["preload"]:
            __import__(name)
        _neutralise_spawn()
        nproc = cfg["max_processes"]
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    except MemoryError:
        _die(MEMORY, "memory limit reached while starting")
    try:
        code = compile(source, cfg["script"], "exec")
    except SyntaxError:
        traceback.print_exc(limit=0)
        sys.exit(1)
    user_globals: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    _guard_imports(frozenset(cfg["allowed_imports"]), user_globals)
    sys.addaudithook(_make_guard(cfg["workdir"], tuple(cfg["read_roots"]), cfg["block_reads"]))
    try:
        exec(code, user_globals)
        if cfg["autosave"]:
            _autosave(cfg["autosave"])
    except MemoryError:
        _die(MEMORY, "memory limit exceeded")
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        sys.exit(1)
    finally:
        sys.stdout.flush()


if __name__ == "__main__":
    main()
