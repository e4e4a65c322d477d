"""Child side of chartproof's sandbox: apply limits, install the guard, run untrusted code.

Started only by `chartproof.sandbox.runner` as `python -I -S -B _guest.py` with a JSON
config on stdin, normally inside a bubblewrap sandbox (the operating-system layer). Standard
library only: it must not import chartproof.

The audit guard is a best-effort layer (the operating system's namespaces, mounts, seccomp
and the Landlock rules this program applies before the code runs are what hold). It is
written to make changing what it checks hard: every function, constant and exception class
it uses is bound as a default argument of a function built before the untrusted code runs
(nothing is looked up in module globals or builtins at call time), its tables are immutable, it never calls a method
of an object the untrusted code could have made (only exact `str`, `bytes` and `int`
arguments are examined; anything else fails closed), paths are resolved with the C-level
`posix.lstat`/`posix.readlink` rather than `os.path.realpath` (a Python function whose module
the code can patch), and `sys.modules["__main__"]` is the untrusted code's own module.
"""

from __future__ import annotations

import base64
import builtins
import json
import os
import posix
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

# Events whose path arguments must stay inside the work dir: (event, path positions,
# dir_fd positions). A dir_fd would make a relative path land where this check never looked.
_WRITE_EVENTS: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...] = (
    ("os.remove", (0,), (1,)),
    ("os.rmdir", (0,), (1,)),
    ("os.mkdir", (0,), (2,)),
    ("os.chmod", (0,), (2,)),
    ("os.chown", (0,), (3,)),
    ("os.chflags", (0,), ()),
    ("os.lchflags", (0,), ()),
    ("os.truncate", (0,), ()),
    ("os.utime", (0,), (3,)),
    ("os.setxattr", (0,), ()),
    ("os.removexattr", (0,), ()),
    ("os.rename", (0, 1), (2, 3)),
    ("os.chdir", (0,), ()),
    ("shutil.rmtree", (0,), ()),
    ("shutil.copyfile", (1,), ()),
    ("shutil.copymode", (1,), ()),
    ("shutil.copystat", (1,), ()),
    ("shutil.copytree", (1,), ()),
    ("shutil.move", (0, 1), ()),
    ("shutil.chown", (0,), ()),
    ("shutil.make_archive", (0,), ()),
    ("shutil.unpack_archive", (1,), ()),
)

# Events whose path arguments must be readable (work dir or read roots).
_READ_EVENTS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("os.listdir", (0,)),
    ("os.scandir", (0,)),
    ("os.listxattr", (0,)),
    ("os.getxattr", (0,)),
    ("glob.glob", (0,)),
    ("glob.glob/2", (0,)),
    ("shutil.copyfile", (0,)),
    ("shutil.copytree", (0,)),
    ("shutil.unpack_archive", (0,)),
)

# Imports refused even to trusted library code once the guard is on: process creation
# without an audit event, foreign-function access, interpreter internals.
_DENY_MODULES = frozenset(
    {"_posixsubprocess", "ctypes", "_ctypes", "cffi", "_cffi_backend", "_testcapi",
     "_testinternalcapi", "_xxsubinterpreters", "_xxinterpchannels", "_socket", "socket",
     "_multiprocessing"}
)  # fmt: skip

# os functions with no audit event that create special files or leave the process group;
# removed before untrusted code runs (the mount namespace and seccomp-free kernel checks
# still hold if code finds a fresh copy of the posix module).
_STRIP_OS = ("mkfifo", "mknod", "setsid", "setpgid", "setpgrp", "memfd_create")  # fmt: skip

_DIR_FLAGS = os.O_DIRECTORY | getattr(os, "O_PATH", 0)
_CODE_ATTRS = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__"})
# signal functions taken away once the code runs: a handler that fires inside the guard
# could read its frame (best-effort: the OS layers are what hold)
_STRIP_SIGNAL = ("signal", "alarm", "setitimer", "raise_signal", "set_wakeup_fd", "siginterrupt")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_CREATE_FLAGS = os.O_CREAT | os.O_TRUNC


def _die(
    code: int,
    message: str,
    _write: Any = posix.write,
    _exit: Any = posix._exit,
    _mark: str = MARK,
) -> None:
    """Report on stderr and end the process at once; user code cannot catch this."""
    try:
        _write(2, ("\n" + _mark + " " + message + "\n").encode("utf-8", "replace"))
    finally:
        _exit(code)


_FUNCTION = type(_die)
_OWN_FILE = _die.__code__.co_filename


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


# The guard's pieces. Each is a function whose helpers and constants are bound as default
# arguments when it is defined (this file's import, or `_make_guard`), before the untrusted
# code runs, so nothing is looked up in module globals or builtins at call time
# (tests/sandbox/test_guard_bindings.py walks their bytecode to hold that). Where many
# bindings are needed they travel as ONE default holding a tuple, unpacked into locals at the
# top of each call: a tuple cannot be mutated, and replacing a function's defaults
# (`__defaults__`) is no easier for one tuple than for one default per name; the
# `object.__setattr__` check refuses it for every function of this file either way.


def _resolve(
    path: str,
    _lstat: Any = posix.lstat,
    _readlink: Any = posix.readlink,
    _getcwd: Any = posix.getcwd,
    _OSError: Any = OSError,
    _Perm: Any = PermissionError,
) -> str:
    """The absolute path with every symlink followed (missing tails taken literally)."""
    if not path.startswith("/"):
        path = _getcwd() + "/" + path
    todo = path.split("/")
    todo.reverse()
    done: list[str] = []
    hops = 0
    while todo:
        part = todo.pop()
        if part == "" or part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        candidate = "/" + "/".join(done) + ("/" if done else "") + part
        try:
            mode = _lstat(candidate).st_mode
        except _OSError:
            done.append(part)
            continue
        if mode & 0o170000 == 0o120000:
            hops += 1
            if hops > 40:
                raise _Perm("too many symbolic links")
            target = _readlink(candidate)
            if target.startswith("/"):
                done = []
            more = target.split("/")
            more.reverse()
            todo.extend(more)
            continue
        done.append(part)
    return "/" + "/".join(done)


def _path_of(
    arg: object,
    _type: Any = type,
    _str: Any = str,
    _bytes: Any = bytes,
    _int: Any = int,
    _decode: Any = bytes.decode,
    _Perm: Any = PermissionError,
) -> str | None:
    """The path an audit argument names; None for a file descriptor or no path.

    Only exact str and bytes are read: a subclass or a path-like object could name one
    path to the guard and another to the call that follows.
    """
    kind = _type(arg)
    if kind is _int or arg is None:
        return None
    if kind is _str:
        return arg  # type: ignore[return-value]
    if kind is _bytes:
        return _decode(arg, "utf-8", "surrogateescape")  # type: ignore[no-any-return]
    raise _Perm("path argument of type " + kind.__name__)


def _under(path: str, roots: tuple[str, ...], _resolve: Any = _resolve) -> bool:
    p = _resolve(path)
    for r in roots:  # noqa: SIM110 - `any` is a builtin the code can replace
        if p == r or p.startswith(r + "/"):
            return True
    return False


_Context = tuple[tuple[str, ...], tuple[str, ...], bool, list[int], int, str]
"""One guard's own values: work dir, readable roots, block_reads, the created-files cell,
max_files and its refusal message."""


def _count_created(ctx: _Context, _die: Any = _die, _forbidden: int = FORBIDDEN) -> None:
    created, max_files, too_many = ctx[3], ctx[4], ctx[5]
    created[0] += 1
    if created[0] > max_files:
        _die(_forbidden, too_many)


_OPEN_BINDINGS = (
    _path_of, _under, _count_created, posix.stat, _DIR_FLAGS, _WRITE_FLAGS, _CREATE_FLAGS,
    _die, FORBIDDEN, type, str, int, len, repr, PermissionError, Exception,
)  # fmt: skip


def _check_open(args: tuple[Any, ...], ctx: _Context, _b: Any = _OPEN_BINDINGS) -> None:
    """The `open` event: writes and creations in the work dir only, no directories, reads
    in the readable roots when reads are blocked."""
    path_of, under, count_created, stat, dir_flags, write_flags, create_flags = _b[:7]
    die, forbidden, type_, str_, int_, len_, repr_, perm, exception = _b[7:]
    work, readable, block_reads = ctx[0], ctx[1], ctx[2]
    path = path_of(args[0])
    if path is None:
        return
    mode, flags = args[1], args[2] if len_(args) > 2 else 0
    if mode is not None and type_(mode) is not str_:
        raise perm("mode of type " + type_(mode).__name__)
    if type_(flags) is not int_:
        raise perm("flags of type " + type_(flags).__name__)
    writes = flags & write_flags != 0
    creates = flags & create_flags != 0
    if mode is not None:
        for c in "wax+":
            if c in mode:
                writes = True
        for c in "wx":
            if c in mode:
                creates = True
    if mode is None:
        # followed, so /proc/self/cwd counts as the directory it is
        try:
            is_dir = stat(path).st_mode & 0o170000 == 0o040000
        except exception:
            is_dir = False
        if is_dir or flags & dir_flags != 0:
            # os.open of a directory gives a descriptor for dir_fd-relative calls that
            # would land somewhere this path check never saw.
            die(forbidden, "forbidden: open of directory " + repr_(path))
    if writes and not under(path, work):
        die(forbidden, "forbidden: write outside the work dir: " + repr_(path))
    if creates:
        count_created(ctx)
    if not writes and block_reads and not under(path, readable):
        die(forbidden, "forbidden: read outside allowed roots: " + repr_(path))


def _check_setattr(
    args: tuple[Any, ...],
    _code_attrs: frozenset[str] = _CODE_ATTRS,
    _function: Any = _FUNCTION,
    _own_file: str = _OWN_FILE,
    _die: Any = _die,
    _forbidden: int = FORBIDDEN,
    _type: Any = type,
    _str: Any = str,
    _repr: Any = repr,
) -> None:
    """Replacing a function's code, or the defaults of one of this file's (which hold the
    guard's helpers), would rewrite the guard; libraries set other functions' defaults
    (matplotlib does)."""
    name = args[1]
    if _type(name) is not _str:
        _die(_forbidden, "forbidden: setting an attribute named by a non-string")
    if name == "__code__" or (
        name in _code_attrs
        and _type(args[0]) is _function
        and args[0].__code__.co_filename == _own_file
    ):
        _die(_forbidden, "forbidden: setting " + _repr(name) + " of a function")


def _check_import(
    args: tuple[Any, ...],
    _deny_modules: frozenset[str] = _DENY_MODULES,
    _die: Any = _die,
    _forbidden: int = FORBIDDEN,
    _type: Any = type,
    _str: Any = str,
    _repr: Any = repr,
    _Perm: Any = PermissionError,
) -> None:
    name = args[0]
    if _type(name) is not _str:
        raise _Perm("module name of type " + _type(name).__name__)
    if name.partition(".")[0] in _deny_modules:
        _die(_forbidden, "forbidden: import of " + _repr(name))


_WRITE_TABLE = tuple({name: (paths, fds) for name, paths, fds in _WRITE_EVENTS}.items())
_READ_TABLE = tuple({name: paths for name, paths in _READ_EVENTS}.items())


def _check_writes(
    event: str,
    args: tuple[Any, ...],
    ctx: _Context,
    _b: Any = (
        _WRITE_TABLE,
        _path_of,
        _under,
        _count_created,
        _die,
        FORBIDDEN,
        type,
        int,
        len,
        repr,
    ),
) -> None:
    """A listed write event: no dir_fd, every path inside the work dir."""
    write_events, path_of, under, count_created, die, forbidden, type_, int_, len_, repr_ = _b
    for name, (paths, fds) in write_events:
        if name != event:
            continue
        for i in fds:
            fd = args[i] if i < len_(args) else None
            if fd is not None and not (type_(fd) is int_ and (fd == -1 or fd == -100)):
                die(forbidden, "forbidden: " + event + " with dir_fd")
        for i in paths:
            path = path_of(args[i]) if i < len_(args) else None
            if path is not None and not under(path, ctx[0]):
                die(forbidden, "forbidden: " + event + " outside the work dir: " + repr_(path))
        if event == "os.mkdir":
            count_created(ctx)


def _check_reads(
    event: str,
    args: tuple[Any, ...],
    ctx: _Context,
    _b: Any = (_READ_TABLE, _path_of, _under, _die, FORBIDDEN, len, repr),
) -> None:
    """A listed read event: every path in the readable roots."""
    read_events, path_of, under, die, forbidden, len_, repr_ = _b
    for name, paths in read_events:
        if name != event:
            continue
        for i in paths:
            path = path_of(args[i]) if i < len_(args) else None
            if path is not None and not under(path, ctx[1]):
                die(forbidden, "forbidden: " + event + " outside allowed roots: " + repr_(path))


_GUARD_BINDINGS = (
    _check_open, _check_setattr, _check_import, _check_writes, _check_reads, _DENY_PREFIXES,
    _die, FORBIDDEN, str, repr, PermissionError, Exception,
)  # fmt: skip


def _make_guard(
    workdir: str, read_roots: tuple[str, ...], block_reads: bool, max_files: int
) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook, built from values only: see the module docstring for why."""
    work = (_resolve(workdir),)
    readable = work + tuple(_resolve(r) for r in read_roots)
    created = [0]  # the one mutable cell: reachable from no object the guest can name
    too_many = f"forbidden: more than {max_files} files created"
    ctx: _Context = (work, readable, block_reads, created, max_files, too_many)

    def guard(
        event: str, args: tuple[Any, ...], _b: Any = _GUARD_BINDINGS, _ctx: _Context = ctx
    ) -> None:
        check_open, check_setattr, check_import, check_writes, check_reads = _b[:5]
        deny_prefixes, die, forbidden, str_, repr_, perm, exception = _b[5:]
        try:
            if event == "open":
                check_open(args, _ctx)
                return
            if event == "object.__setattr__":
                check_setattr(args)
                return
            if event == "import":
                check_import(args)
                return
            if event.startswith(deny_prefixes):
                die(forbidden, "forbidden: " + event)
            check_writes(event, args, _ctx)
            if _ctx[2]:
                check_reads(event, args, _ctx)
        except perm as exc:
            die(forbidden, "forbidden: " + event + ": " + str_(exc.args))
        except exception as exc:  # a guard that fails must fail closed
            die(forbidden, "forbidden: " + event + ": guard could not check (" + repr_(exc) + ")")

    return guard


def _guard_imports(allowed: frozenset[str], user_globals: dict[str, Any]) -> None:
    """Restrict what untrusted code may import directly; library code imports freely.

    A convenience layer (it turns `import os` into a clear refusal); the audit guard and the
    operating system are what hold, so nothing here needs hiding from the code.
    """
    original = builtins.__import__
    modules = sys.modules

    def guarded_import(
        name: str,
        globals: Mapping[str, object] | None = None,
        locals: Mapping[str, object] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> ModuleType:
        owner = globals.get("__name__") if type(globals) is dict else None
        module = modules.get(owner) if type(owner) is str else None
        trusted = (
            module is not None
            and globals is not user_globals
            and (getattr(module, "__dict__", None) is globals)
        )
        if not trusted and (level != 0 or str(name).partition(".")[0] not in allowed):
            _die(FORBIDDEN, f"forbidden: import of {name!r} is not on the allow-list")
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded_import


def _neutralise_spawn() -> None:
    """Process creation and special files without an audit event are taken away."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        _die(FORBIDDEN, "forbidden: process creation (_posixsubprocess.fork_exec)")

    import _posixsubprocess
    import subprocess

    _posixsubprocess.fork_exec = refuse  # type: ignore[assignment]
    for name in ("_fork_exec",):
        if hasattr(subprocess, name):
            setattr(subprocess, name, refuse)
    for name in _STRIP_OS:
        for module in (os, posix):
            if hasattr(module, name):
                delattr(module, name)
    import _signal  # type: ignore[import-not-found]

    for name in _STRIP_SIGNAL:
        for module in (signal, _signal):
            if hasattr(module, name):
                delattr(module, name)


# Landlock (Linux >= 5.13): file-system rights, by ABI version (include/uapi/linux/landlock.h)
_LL_EXECUTE, _LL_WRITE_FILE, _LL_READ_FILE, _LL_READ_DIR = 1, 2, 4, 8
_LL_FILE_RIGHTS = _LL_EXECUTE | _LL_WRITE_FILE | _LL_READ_FILE | (1 << 14) | (1 << 15)
_LL_CREATE, _LL_ADD_RULE, _LL_RESTRICT = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38


def _landlock(abi: int, read: Sequence[str], write: Sequence[str], block_reads: bool) -> None:
    """Let the kernel itself hold the guard's file policy for the rest of this process:
    reads only under `read` (when `block_reads`) and `write`, writes only under `write`. It
    covers what raises no audit event (C++ file IO in pyarrow, `dir_fd` tricks) and cannot
    be undone. Raises OSError when the kernel refuses."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    handled = (1 << 13) - 1
    handled |= (1 << 13) if abi >= 2 else 0  # REFER
    handled |= (1 << 14) if abi >= 3 else 0  # TRUNCATE
    handled |= (1 << 15) if abi >= 5 else 0  # IOCTL_DEV
    reading = _LL_EXECUTE | _LL_READ_FILE | _LL_READ_DIR
    if not block_reads:
        handled &= ~reading
    attr = ctypes.c_uint64(handled)
    ruleset = libc.syscall(_LL_CREATE, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")

    class _Rule(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed", ctypes.c_uint64), ("fd", ctypes.c_int32)]

    try:
        for paths, rights in ((read, reading & handled), (write, handled)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue  # a root that does not exist here grants nothing
                try:
                    isdir = os.path.isdir(path)
                    allowed = rights if isdir else rights & _LL_FILE_RIGHTS
                    if allowed:
                        rule = _Rule(allowed, fd)
                        if libc.syscall(_LL_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0) != 0:
                            raise OSError(ctypes.get_errno(), f"landlock_add_rule {path!r}")
                finally:
                    os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "no_new_privs")
        if libc.syscall(_LL_RESTRICT, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _autosave(name: str) -> None:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None or os.path.exists(name) or not pyplot.get_fignums():
        return
    pyplot.gcf().savefig(name)


def _write_inputs(cfg: dict[str, Any]) -> None:
    """The script and input files into the (fresh) work dir; setup files anywhere writable."""
    work = cfg["workdir"]
    os.makedirs(os.path.join(work, "tmp"), exist_ok=True)
    for path, data in cfg["setup_files"].items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(data))
    for name, data in cfg["files"].items():
        target = os.path.join(work, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as fh:
            fh.write(base64.b64decode(data))
    with open(os.path.join(work, cfg["script"]), "w", encoding="utf-8") as fh:
        fh.write(cfg["source"])


def _send_files(fd: int, work: str, script: str, budget: int) -> None:
    """Stream the regular files left in the work dir to the parent: per file a JSON header
    line then its bytes. Runs after the untrusted code, so the parent treats it as untrusted
    data (sizes and names are checked there)."""
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, work)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if rel == script or (info.st_mode & 0o170000) != 0o100000 or info.st_size > budget:
                continue
            with open(path, "rb") as fh:
                data = fh.read(info.st_size)
            budget -= len(data)
            header = json.dumps({"path": rel, "size": len(data)}).encode() + b"\n"
            _write_all(fd, header + data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def main() -> None:
    cfg = json.loads(sys.stdin.buffer.read())
    sys.stdin.close()
    sys.path[:] = cfg["sys_path"]
    _write_inputs(cfg)
    os.chdir(cfg["workdir"])
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
        code = compile(cfg["source"], cfg["script"], "exec")
    except SyntaxError:
        traceback.print_exc(limit=0)
        sys.exit(1)
    # The code runs as the program's own __main__ module: `sys.modules["__main__"]` leads to
    # its own globals, not to this file's.
    main_module = ModuleType("__main__")
    user_globals: dict[str, Any] = main_module.__dict__
    user_globals.update({"__builtins__": builtins, "__file__": cfg["script"]})
    sys.modules["__main__"] = main_module
    out_fd, work, script = cfg["out_fd"], cfg["workdir"], cfg["script"]
    budget, autosave = cfg["collect_bytes"], cfg["autosave"]
    if cfg["landlock"]:
        writable = [work, cfg["mplconfigdir"], "/dev/null"]
        try:
            _landlock(cfg["landlock"], cfg["read_roots"], writable, cfg["block_reads"])
        except OSError as exc:
            _die(FORBIDDEN, f"forbidden: the Landlock layer could not be applied ({exc})")
    _guard_imports(frozenset(cfg["allowed_imports"]), user_globals)
    if cfg["audit"]:
        sys.addaudithook(
            _make_guard(work, tuple(cfg["read_roots"]), cfg["block_reads"], cfg["max_files"])
        )
    del cfg
    try:
        exec(code, user_globals)
        if autosave:
            _autosave(autosave)
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
        if out_fd is not None:
            _send_files(out_fd, work, script, budget)


if __name__ == "__main__":
    main()
