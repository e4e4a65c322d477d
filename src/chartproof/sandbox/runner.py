"""Run untrusted Python (model-written plotting code) in a locked-down subprocess.

Layers, each reported in `SandboxResult.isolation`:

1. The operating system, the primary layer. With bubblewrap (`bwrap`, what Flatpak uses) the
   code sees a read-only view of the interpreter, its site-packages and /usr (fonts, time
   zones, shared libraries) and nothing else of the host: no home, no /etc, no host /tmp; a
   private tmpfs of `max_disk_mb` holds its work dir and /tmp; it gets its own user, mount,
   pid, network (no interface but a loopback of its own), ipc and uts namespaces, runs as
   uid/gid 65534 with no capabilities, cannot make further user namespaces, and its whole
   pid namespace dies with the run. A seccomp filter (`_seccomp`) refuses mknod, mounts,
   namespaces, ptrace, kernel modules, BPF, io_uring and, unless the policy allows child
   processes, every fork. When chartproof runs as root, bwrap itself is started
   as uid 65534 (see `_stage`), so the guest is unprivileged on the host too and
   RLIMIT_NPROC binds. Where bwrap is missing or fails, `_minroot` builds the same
   minimal root inside namespaces `unshare` makes (private tmpfs root, read-only binds of
   only the sources, pivot_root, fresh /proc, capped tmpfs, uid 65534, no capabilities,
   seccomp); the probe that picks the backend keeps each backend's own error, and with
   neither, code does not run unless the policy says `isolate="none-unsafe"`.
2. Landlock, where the kernel offers it (`landlock_abi`): the guest restricts itself before
   the code runs (reads under the read roots and work dir, writes under the work dir).
3. Resource limits set in the child before any untrusted line runs (address space, CPU
   time, file size, open files, processes).
4. An audit hook (see `_guest`) that ends the process on network use, process creation,
   ctypes, writes outside the work dir, reads outside allowed roots, too many new files and
   imports off the allow-list: best-effort (code in the same interpreter can reach it in
   ways no hook can see), so layers 1 and 2 are what hold.

The environment is stripped, the interpreter runs isolated (`-I -S -B`) and the limits are
applied by the child itself rather than by a `preexec_fn`, which is unsafe in a threaded
parent. Produced files come back over a pipe as untrusted data (names and sizes checked).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from chartproof._cachedir import cache_home
from chartproof.sandbox import _guest, _stage
from chartproof.sandbox._seccomp import seccomp_program
from chartproof.sandbox.records import SandboxPolicy, SandboxResult, SandboxStatus

__all__ = [
    "IsolationUnavailable",
    "isolation_available",
    "isolation_backend",
    "landlock_abi",
    "require_isolation",
    "run_batch",
    "run_code",
]

_GUEST = Path(_guest.__file__).resolve()
_STAGE = Path(_stage.__file__).resolve()
_MINROOT = _GUEST.with_name("_minroot.py")
_UNSHARE = ("--user", "--map-root-user", "--mount", "--propagation", "private", "--net", "--pid",
            "--fork", "--kill-child", "--uts", "--ipc")  # fmt: skip
_NOBODY = 65534
_BOX = "/sandbox"  # the private tmpfs inside bwrap: work dir, tmp and matplotlib config
# what bwrap gives; "seccomp" is added where `_seccomp` knows the machine (x86_64, aarch64)
_BWRAP_LAYERS = ("bwrap", "mountns", "userns", "pidns", "netns", "ipcns", "uid-unprivileged",
                 "no-caps", "disk-cap")  # fmt: skip
_UNSHARE_LAYERS = ("unshare", "mountns", "userns", "pidns", "netns", "ipcns", "private-root",
                   "uid-unprivileged", "no-caps", "disk-cap")  # fmt: skip
_HEADER_MAX = 4096


class IsolationUnavailable(RuntimeError):
    """No operating-system isolation here, and the policy did not opt out of it."""


def run_code(
    code: str,
    policy: SandboxPolicy | None = None,
    *,
    files: Mapping[str, bytes] | None = None,
    script_name: str = "main.py",
) -> SandboxResult:
    """Run `code` under `policy` in a fresh work dir holding `files`; never raises for
    anything the code does.

    Raises ValueError for an input file name that would leave the work dir, and
    IsolationUnavailable when the policy's OS layer cannot be had here.
    """
    policy = policy or SandboxPolicy()
    backend = _choose(policy)
    for name in (*(files or {}), script_name):
        _check_name(name)
    root = Path(tempfile.mkdtemp(prefix="chartproof-sandbox-"))
    try:
        if backend in ("bwrap", "unshare"):
            work = f"{_BOX}/work"
        else:
            (root / "work").mkdir()
            work = str(root / "work")
        config = _guest_config(policy, work, script_name, code, files or {}, backend)
        return _execute(backend, config, policy, root)
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


def isolation_available() -> bool:
    """Whether some operating-system isolation (bwrap, else unshare) works here."""
    return isolation_backend() is not None


@functools.lru_cache(maxsize=1)
def isolation_backend() -> str | None:
    """ "bwrap" or "unshare" when that layer starts a trivial interpreter here, else None.

    "unshare" is the fallback where bwrap is missing or fails: `_minroot` builds the same
    minimal root bwrap does, inside namespaces `unshare` makes."""
    if not sys.platform.startswith("linux"):
        return None
    for backend in ("bwrap", "unshare"):
        if _probe(backend) is None:
            return backend
    return None


@functools.lru_cache(maxsize=2)
def _probe(backend: str) -> str | None:
    """None when `backend` runs a trivial interpreter here, else why not (its own stderr)."""
    if shutil.which(backend) is None:
        return f"{backend} is not installed"
    root = Path(tempfile.mkdtemp(prefix="chartproof-sandbox-probe-"))
    try:
        cmd = _command(backend, SandboxPolicy(), root, [sys.executable, "-I", "-S", "-c", "pass"])
        done = subprocess.run(
            cmd, capture_output=True, timeout=30, check=False, env=_environment("/"), cwd=root
        )
    except (OSError, subprocess.SubprocessError, IsolationUnavailable) as exc:
        return f"{backend}: {exc}"
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if done.returncode == 0:
        return None
    said = " ".join(done.stderr.decode("utf-8", "replace").split())[-400:]
    return f"{backend} exited with {done.returncode}: {said or 'no message'}"


def _works(backend: str) -> bool:
    return _probe(backend) is None


def require_isolation(policy: SandboxPolicy) -> str:
    """The OS layer `policy` would run under ("bwrap", "unshare" or "none-unsafe"); raises
    IsolationUnavailable as `run_code` would, so a pipeline can refuse before it asks a model."""
    return _choose(policy)


def _choose(policy: SandboxPolicy) -> str:
    if policy.isolate == "none-unsafe":
        if not policy.audit:
            raise ValueError("isolate='none-unsafe' with audit=False would leave no guard at all")
        return "none-unsafe"
    found = isolation_backend()
    if policy.isolate == "auto" and found is not None:
        return found
    if policy.isolate in ("bwrap", "unshare") and _works(policy.isolate):
        return policy.isolate
    tried = ("bwrap", "unshare") if policy.isolate == "auto" else (policy.isolate,)
    why = "; ".join(str(_probe(b)) for b in tried if sys.platform.startswith("linux"))
    raise IsolationUnavailable(
        f"sandbox: no operating-system isolation ({' or '.join(tried)}) works here"
        f"{f' ({why})' if why else ''}, so model-written code will not run. Install "
        "bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; scripts/system-packages "
        "does it) and allow unprivileged user namespaces, or, only for code you trust, pass "
        "isolate='none-unsafe'"
    )


def _check_name(name: str) -> None:
    parts = PurePosixPath(name).parts
    if not name or name.startswith("/") or ".." in parts or "\\" in name or "\0" in name:
        raise ValueError(f"sandbox file name {name!r} leaves the work dir")


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


@functools.lru_cache(maxsize=1)
def _mpl_cache() -> str:
    """A matplotlib config dir whose font list is built (by trusted code, once): the sandbox
    gets a copy, so no run rebuilds it."""
    path = str(cache_home() / "sandbox-mpl")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        path = os.path.join(tempfile.gettempdir(), "chartproof-sandbox-mpl")
        os.makedirs(path, exist_ok=True)
    if not any(n.startswith("fontlist") for n in os.listdir(path)):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(
                [sys.executable, "-I", "-S", "-c",
                 f"import sys; sys.path[:] = {_interpreter_paths()!r}; "
                 "import matplotlib.font_manager"],
                env={**_environment(path), "MPLCONFIGDIR": path},
                capture_output=True, timeout=120, check=False,
            )  # fmt: skip
    return path


def _mpl_files(config_dir: str) -> dict[str, str]:
    """The font-list cache files, base64, keyed by their place inside the sandbox."""
    out: dict[str, str] = {}
    for name in sorted(os.listdir(_mpl_cache())):
        path = Path(_mpl_cache(), name)
        if name.startswith("fontlist") and path.is_file() and path.stat().st_size < 4 << 20:
            out[f"{config_dir}/{name}"] = base64.b64encode(path.read_bytes()).decode()
    return out


def _guest_config(
    policy: SandboxPolicy,
    work: str,
    script: str,
    code: str,
    files: Mapping[str, bytes],
    backend: str,
) -> dict[str, object]:
    sys_path = _interpreter_paths()
    boxed = backend in ("bwrap", "unshare")
    mpl_dir = f"{_BOX}/mpl" if boxed else _mpl_cache()
    return {
        "sys_path": sys_path,
        "workdir": work,
        "script": script,
        "source": code,
        "files": {k: base64.b64encode(v).decode() for k, v in files.items()},
        "setup_files": _mpl_files(mpl_dir) if boxed else {},
        "mplconfigdir": mpl_dir,
        # the guest's own source is readable so tracebacks through it can be printed
        "read_roots": [*sys_path, _mpl_cache(), mpl_dir, str(_GUEST), *policy.read_roots],
        "block_reads": policy.block_reads,
        "allowed_imports": list(policy.allowed_imports),
        "preload": list(policy.preload),
        "memory_mb": policy.memory_mb,
        "cpu_s": policy.cpu_s,
        "max_file_mb": policy.max_file_mb,
        "max_open_files": policy.max_open_files,
        "max_processes": policy.max_processes,
        "max_files": policy.max_files,
        "autosave": policy.autosave,
        "audit": policy.audit,
        "collect_bytes": policy.collect_mb * 1024 * 1024,
        "landlock": landlock_abi() if policy.landlock else 0,
        "out_fd": None,
    }


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none). The guest then has the kernel
    hold its file policy (reads under the read roots, writes under the work dir)."""
    if not sys.platform.startswith("linux"):
        return 0
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = int(libc.syscall(444, None, 0, 1))  # LANDLOCK_CREATE_RULESET_VERSION
    except (OSError, AttributeError):
        return 0
    return max(version, 0)


def _environment(work: str, mpl_dir: str | None = None) -> dict[str, str]:
    """A minimal environment: nothing of the parent's leaks in (keys, tokens, proxies)."""
    return {
        "PATH": os.defpath,
        "HOME": work,
        "TMPDIR": f"{work}/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": mpl_dir or work,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        # pyarrow's jemalloc wants a background thread, which RLIMIT_NPROC refuses
        "ARROW_DEFAULT_MEMORY_POOL": "system",
    }


def _bind_sources(policy: SandboxPolicy) -> list[str]:
    """Host paths the guest sees read-only, at the same place: /usr, the interpreter, its
    site-packages and the guest program. Nested paths are left to their parent's bind."""
    wanted = [
        "/usr",
        sys.base_prefix,
        sys.base_exec_prefix,
        sys.prefix,
        sys.exec_prefix,
        *_interpreter_paths(),
        str(_GUEST),
        *policy.read_roots,
    ]
    real = sorted({os.path.realpath(p) for p in wanted if os.path.exists(p)} | {
        os.path.abspath(p) for p in wanted if os.path.exists(p)
    })  # fmt: skip
    kept: list[str] = []
    for path in real:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def _top_links() -> list[tuple[str, str]]:
    """The host's top-level symlinks into /usr (merged-/usr systems), as (path, target)."""
    tops = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
    return [(top, os.readlink(top)) for top in tops if os.path.islink(top)]


def _tmp_link(sources: list[str]) -> bool:
    """Whether /tmp can be the symlink to the private tmp: not when a source (a checkout or
    venv under /tmp) needs /tmp as a directory to be mounted in; /tmp then holds only those
    read-only binds, and TMPDIR still names the private tmp."""
    return not any(s == "/tmp" or s.startswith("/tmp/") for s in sources)


def _command(
    backend: str,
    policy: SandboxPolicy,
    root: Path,
    argv: list[str],
    seccomp_fd: int | None = None,
) -> list[str]:
    """The full command line that starts `argv` under `backend` (bwrap or the `_minroot`
    launcher loads the seccomp program it reads from `seccomp_fd`)."""
    if backend == "none-unsafe":
        return argv
    exe = shutil.which(backend)
    if exe is None:
        raise IsolationUnavailable(f"sandbox: {backend} is not installed")
    sources = _bind_sources(policy)
    as_root = os.geteuid() == 0
    stage = root / "stage"
    binds = [(str(stage / str(i)) if as_root else src, src) for i, src in enumerate(sources)]
    env = _environment(f"{_BOX}/work", f"{_BOX}/mpl")
    if backend == "unshare":
        (root / "newroot").mkdir()
        spec = {
            "newroot": str(root / "newroot"), "box": _BOX, "binds": binds,
            "links": [[link, target] for link, target in _top_links()],
            "disk_bytes": policy.max_disk_mb * 1024 * 1024, "inodes": policy.max_files + 64,
            "tmp_link": _tmp_link(sources), "seccomp_fd": seccomp_fd, "argv": argv, "env": env,
        }  # fmt: skip
        # the launcher's source goes on the command line: as root it runs as uid 65534,
        # which may not reach this checkout, only the staged interpreter
        box = [exe, *_UNSHARE, "--", _staged(sys.executable, binds), "-I", "-S", "-B", "-c",
               _MINROOT.read_text(encoding="utf-8"), json.dumps(spec)]  # fmt: skip
    else:
        # as root the stage mounts the private tmpfs itself, so its inodes are capped too
        # (bwrap's --tmpfs takes only a size)
        own_box = str(root / "box") if as_root else None
        box = _bwrap_args(exe, policy, binds, _tmp_link(sources), seccomp_fd, env, argv, own_box)
    if not as_root:
        return box
    unshare, mount = shutil.which("unshare"), shutil.which("mount")
    if unshare is None or mount is None:
        raise IsolationUnavailable("sandbox: running the sandbox as root needs unshare and mount")
    stage.mkdir()
    root.chmod(0o755)  # the unprivileged launcher must reach the stage folder
    staged: dict[str, object] = {
        "stage": str(stage), "mount": mount, "sources": sources,
        "uid": _NOBODY, "gid": _NOBODY, "argv": box, "box": None,
    }  # fmt: skip
    if backend == "bwrap":
        (root / "box").mkdir()
        staged["box"] = {
            "path": str(root / "box"), "size": policy.max_disk_mb * 1024 * 1024,
            "inodes": policy.max_files + 64,
        }  # fmt: skip
    return [unshare, "--mount", "--propagation", "private", "--",
            sys.executable, "-I", "-S", "-B", str(_STAGE), json.dumps(staged)]  # fmt: skip


def _staged(path: str, binds: list[tuple[str, str]]) -> str:
    """Where `path` (symlinks followed) is reachable before the new root exists: its bind
    source (the stage copy when running as root)."""
    real = os.path.realpath(path)
    for source, target in binds:
        if real == target or real.startswith(target.rstrip("/") + "/"):
            return source + real[len(target) :]
    return path


def _bwrap_args(
    exe: str,
    policy: SandboxPolicy,
    binds: list[tuple[str, str]],
    tmp_link: bool,
    seccomp_fd: int | None,
    env: Mapping[str, str],
    argv: list[str],
    own_box: str | None = None,
) -> list[str]:
    box = [
        exe,
        "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
        "--new-session", "--uid", str(_NOBODY), "--gid", str(_NOBODY), "--cap-drop", "ALL",
        "--hostname", "sandbox", "--clearenv",
    ]  # fmt: skip
    if seccomp_fd is not None:
        box += ["--seccomp", str(seccomp_fd)]
    for link, target in _top_links():
        box += ["--symlink", target, link]
    for source, target in binds:
        box += ["--ro-bind", source, target]
    box += [
        "--proc", "/proc", "--dev", "/dev",
        *(["--bind", own_box, _BOX] if own_box is not None
          else ["--size", str(policy.max_disk_mb * 1024 * 1024), "--tmpfs", _BOX]),
        "--dir", f"{_BOX}/work", "--dir", f"{_BOX}/work/tmp", "--dir", f"{_BOX}/mpl",
    ]  # fmt: skip
    if tmp_link:
        box += ["--symlink", f"{_BOX}/work/tmp", "/tmp"]
    box += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", f"{_BOX}/work"]
    for key, value in env.items():
        box += ["--setenv", key, value]
    return [*box, "--", *argv]


def _execute(
    backend: str, config: dict[str, object], policy: SandboxPolicy, root: Path
) -> SandboxResult:
    layers = ["process", "rlimits", *(["audit"] if policy.audit else [])]
    layers += ["landlock"] if config["landlock"] else []
    layers += {"bwrap": _BWRAP_LAYERS, "unshare": _UNSHARE_LAYERS}.get(backend, ())
    read_end, write_end = os.pipe()
    config["out_fd"] = write_end
    keep = [write_end]
    boxed = backend in ("bwrap", "unshare")
    program = seccomp_program(allow_fork=policy.max_processes > 0) if boxed else None
    if program is not None:
        (root / "seccomp.bpf").write_bytes(program)
        keep.append(os.open(root / "seccomp.bpf", os.O_RDONLY))
        layers.append("seccomp")
    guest = [sys.executable, "-I", "-S", "-B", str(_GUEST)]
    cmd = _command(backend, policy, root, guest, keep[1] if program is not None else None)
    work = str(config["workdir"])
    env = _environment(work, str(config["mplconfigdir"]))
    budget = policy.collect_mb * 1024 * 1024
    received = bytearray()
    reader = threading.Thread(target=_drain, args=(read_end, received, budget), daemon=True)
    started = time.monotonic()
    timed_out = False
    try:
        with open(root / "stdout", "wb") as out, open(root / "stderr", "wb") as err:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                cwd=root if boxed else work,
                env=env,
                start_new_session=True,
                close_fds=True,
                pass_fds=tuple(keep),
            )
            for fd in keep:
                os.close(fd)
            write_end = -1
            reader.start()
            try:
                proc.communicate(json.dumps(config).encode(), timeout=policy.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                # Whatever the code left running in its session goes with it; the group id
                # cannot have been reused, as the leader is not reaped yet.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        reader.join(timeout=5)
    finally:
        if write_end >= 0:  # Popen never ran: the descriptors are still this process's
            for fd in keep:
                os.close(fd)
        with contextlib.suppress(OSError):
            os.close(read_end)
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
        files=_parse_files(bytes(received), str(config["script"]), budget),
        duration_s=round(duration, 4),
        isolation=tuple(layers),
    )


def _drain(fd: int, into: bytearray, budget: int) -> None:
    """Read the guest's file stream, keeping at most `budget` bytes plus headers."""
    limit = budget + 64 * _HEADER_MAX
    with contextlib.suppress(OSError):
        while chunk := os.read(fd, 1 << 16):
            if len(into) < limit:
                into += chunk[: limit - len(into)]


def _parse_files(data: bytes, script: str, budget: int) -> dict[str, bytes]:
    """Files from the guest's stream: header line, then bytes. The stream is untrusted: a bad
    header or a name that leaves the work dir ends it."""
    found: dict[str, bytes] = {}
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos, pos + _HEADER_MAX)
        if end < 0:
            break
        try:
            header = json.loads(data[pos:end])
            name, size = header["path"], header["size"]
            if type(name) is not str or type(size) is not int or size < 0:
                break
            _check_name(name)
        except (ValueError, KeyError, TypeError):
            break
        body = data[end + 1 : end + 1 + size]
        if len(body) < size or size > budget:
            break
        budget -= size
        pos = end + 1 + size
        if name != script:
            found[name] = body
    return found


def _classify(
    rc: int | None, timed_out: bool, stderr: str, policy: SandboxPolicy
) -> tuple[SandboxStatus, str | None]:
    if rc is not None and 128 < rc < 128 + signal.NSIG:
        rc = 128 - rc  # bwrap reports a child killed by signal N as exit status 128 + N
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
