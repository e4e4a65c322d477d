"""Run untrusted Python (model-written plotting code) in a locked-down subprocess.

Layers, each reported in `SandboxResult.isolation`: a separate isolated interpreter
(`-I -S -B`, stripped environment, fresh temp work dir as cwd); resource limits set in the child
before any untrusted line runs (address space, CPU time, file size, open files, processes);
an audit hook installed before the code runs that ends the process on network use, process
creation, ctypes, writes outside the work dir, reads outside allowed roots and imports off
the allow-list; and, where the kernel allows unprivileged namespaces, `unshare` user,
network and pid namespaces (no network interface at all; the kernel kills every process of
the run when it ends). The limits are applied by the child itself rather than by a
`preexec_fn`, which is unsafe in a threaded parent.

It is not a virtual machine: audit hooks live inside the interpreter they guard, so code that
finds an unaudited C entry point could slip past them; the namespaces and limits still hold,
and the damage is confined to a process that is not chartproof's.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from chartproof._cachedir import cache_home
from chartproof.sandbox import _guest
from chartproof.sandbox.records import SandboxPolicy, SandboxResult, SandboxStatus

__all__ = ["isolation_available", "run_batch", "run_code"]

_GUEST = Path(_guest.__file__).resolve()
_UNSHARE = ("--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child")


def run_code(
    code: str,
    policy: SandboxPolicy | None = None,
    *,
    files: Mapping[str, bytes] | None = None,
    script_name: str = "main.py",
) -> SandboxResult:
    """Run `code` under `policy` in a fresh temp dir holding `files`; never raises for
    anything the code does.

    Raises ValueError for an input file name that would leave the work dir, and
    RuntimeError when `policy.isolate == "require"` and namespaces are unavailable.
    """
    policy = policy or SandboxPolicy()
    layers = ["process", "rlimits", "audit"]
    prefix: list[str] = []
    if policy.isolate != "off" and isolation_available():
        prefix = [_unshare_path(), *_UNSHARE]
        layers += ["userns", "netns", "pidns"]
    elif policy.isolate == "require":
        raise RuntimeError(
            "sandbox isolation required but unprivileged user namespaces are unavailable "
            "(`unshare --user --net --pid` failed); use isolate='auto' to run without them"
        )
    root = Path(tempfile.mkdtemp(prefix="chartproof-sandbox-"))
    try:
        work = root / "work"
        (work / "tmp").mkdir(parents=True)
        for name, data in (files or {}).items():
            target = _inside(work, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        _inside(work, script_name).write_text(code, encoding="utf-8")
        config = _guest_config(policy, work, script_name)
        return _execute(prefix, config, policy, root, work, script_name, tuple(layers))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_batch(
    codes: Iterable[str], policy: SandboxPolicy | None = None, *, workers: int = 1
) -> list[SandboxResult]:
    """Run several scripts independently (at most `workers` at a time); one result each,
    in order. A script that misbehaves affects only its own result."""
    items = list(codes)
    if workers <= 1:
        return [run_code(c, policy) for c in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda c: run_code(c, policy), items))


@functools.lru_cache(maxsize=1)
def isolation_available() -> bool:
    """Whether `unshare` can give the sandbox its own user, network and pid namespaces."""
    exe = shutil.which("unshare")
    if exe is None or not sys.platform.startswith("linux"):
        return False
    try:
        done = subprocess.run(
            [exe, *_UNSHARE, sys.executable, "-S", "-c", "pass"],
            capture_output=True,
            timeout=20,
            check=False,
            env={"PATH": os.defpath},
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _unshare_path() -> str:
    exe = shutil.which("unshare")
    assert exe is not None  # isolation_available() checked it
    return exe


def _inside(work: Path, name: str) -> Path:
    target = (work / name).resolve()
    if name.startswith("/") or not target.is_relative_to(work.resolve()):
        raise ValueError(f"sandbox file name {name!r} leaves the work dir")
    return target


def _interpreter_paths() -> list[str]:
    """The standard library and site-packages: the child's whole sys.path (no project dirs,
    no current dir, no .pth additions)."""
    bases = tuple(os.path.realpath(b) + os.sep for b in {sys.base_prefix, sys.base_exec_prefix})
    stdlib = [p for p in sys.path if p and os.path.realpath(p).startswith(bases)]
    paths = sysconfig.get_paths()
    site_dirs = [*site.getsitepackages(), paths["purelib"], paths["platlib"]]
    seen: dict[str, None] = {}
    for p in [*stdlib, *site_dirs]:
        if os.path.exists(p):
            seen.setdefault(p, None)
    return list(seen)


def _mpl_cache() -> str:
    path = str(cache_home() / "sandbox-mpl")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        path = os.path.join(tempfile.gettempdir(), "chartproof-sandbox-mpl")
        os.makedirs(path, exist_ok=True)
    return path


def _guest_config(policy: SandboxPolicy, work: Path, script: str) -> dict[str, object]:
    sys_path = _interpreter_paths()
    return {
        "sys_path": sys_path,
        "workdir": str(work),
        "script": script,
        # the guest's own source is readable so tracebacks through it can be printed
        "read_roots": [*sys_path, _mpl_cache(), str(_GUEST), *policy.read_roots],
        "block_reads": policy.block_reads,
        "allowed_imports": list(policy.allowed_imports),
        "preload": list(policy.preload),
        "memory_mb": policy.memory_mb,
        "cpu_s": policy.cpu_s,
        "max_file_mb": policy.max_file_mb,
        "max_open_files": policy.max_open_files,
        "max_processes": policy.max_processes,
        "autosave": policy.autosave,
    }


def _environment(work: Path) -> dict[str, str]:
    """A minimal environment: nothing of the parent's leaks in (keys, tokens, proxies)."""
    return {
        "PATH": os.defpath,
        "HOME": str(work),
        "TMPDIR": str(work / "tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": _mpl_cache(),
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _execute(
    prefix: list[str],
    config: dict[str, object],
    policy: SandboxPolicy,
    root: Path,
    work: Path,
    script: str,
    layers: tuple[str, ...],
) -> SandboxResult:
    cmd = [*prefix, sys.executable, "-I", "-S", "-B", str(_GUEST)]
    started = time.monotonic()
    timed_out = False
    with open(root / "stdout", "wb") as out, open(root / "stderr", "wb") as err:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=err,
            cwd=work,
            env=_environment(work),
            start_new_session=True,
            close_fds=True,
        )
        try:
            proc.communicate(json.dumps(config).encode(), timeout=policy.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            # Kill the whole group before reaping, so the group id cannot have been reused.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    duration = time.monotonic() - started
    stdout = _tail(root / "stdout", policy.output_chars)
    stderr = _tail(root / "stderr", policy.output_chars)
    status, reason = _classify(proc.returncode, timed_out, stderr, policy)
    return SandboxResult(
        status=status,
        reason=reason,
        returncode=None if timed_out else proc.returncode,
        stdout=stdout,
        stderr=stderr,
        files=_collect(work, script, policy.collect_mb * 1024 * 1024),
        duration_s=round(duration, 4),
        isolation=layers,
    )


def _classify(
    rc: int | None, timed_out: bool, stderr: str, policy: SandboxPolicy
) -> tuple[SandboxStatus, str | None]:
    marks = [ln[len(_guest.MARK) :].strip() for ln in stderr.splitlines() if _guest.MARK in ln]
    mark = marks[-1] if marks else None
    if timed_out:
        return "timeout", f"wall-clock limit of {policy.timeout_s:g} s exceeded"
    if rc == 0:
        return "ok", None
    if mark is not None and rc == _guest.FORBIDDEN:
        return "forbidden", mark
    if mark is not None and rc == _guest.MEMORY:
        return "memory", mark
    if (mark is not None and rc == _guest.CPU) or rc == -signal.SIGXCPU:
        return "timeout", f"CPU-time limit of {policy.cpu_s} s exceeded"
    if rc == -signal.SIGXFSZ:
        return "error", f"file-size limit of {policy.max_file_mb} MiB exceeded"
    if rc is not None and rc < 0:
        return "error", f"killed by signal {signal.Signals(-rc).name}"
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    return "error", lines[-1].strip() if lines else f"exit code {rc}"


def _tail(path: Path, chars: int) -> str:
    size = path.stat().st_size
    with open(path, "rb") as fh:
        fh.seek(max(0, size - 4 * chars))
        text = fh.read().decode("utf-8", "replace")
    return text[-chars:] if chars else ""


def _collect(work: Path, script: str, budget: int) -> dict[str, bytes]:
    """Regular files the code left behind (never following links), up to `budget` bytes."""
    found: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(work).as_posix()
            info = path.lstat()
            if rel == script or not stat.S_ISREG(info.st_mode) or info.st_size > budget:
                continue
            budget -= info.st_size
            found[rel] = path.read_bytes()
    return found
