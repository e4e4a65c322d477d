"""What a sandboxed run may do (`SandboxPolicy`) and what came of it (`SandboxResult`).

Both are frozen records so a policy can sit in a run config and a result in a results file.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import ConfigDict, Field

from chartproof.types import Record

__all__ = [
    "DEFAULT_ALLOWED_IMPORTS",
    "Isolation",
    "SandboxPolicy",
    "SandboxResult",
    "SandboxStatus",
]

Isolation: TypeAlias = Literal["auto", "bwrap", "unshare", "none-unsafe"]
"""Which operating-system layer a run asks for (see `SandboxPolicy.isolate`)."""

SandboxStatus: TypeAlias = Literal["ok", "timeout", "memory", "forbidden", "error"]
"""How a run ended: finished cleanly, ran out of wall-clock or CPU time, ran out of memory,
tried something the policy forbids, or failed (exception, signal, bad exit code)."""

DEFAULT_ALLOWED_IMPORTS: tuple[str, ...] = (
    "matplotlib", "mpl_toolkits", "numpy", "pandas", "PIL", "math", "cmath", "random",
    "statistics", "decimal", "fractions", "numbers", "collections", "itertools",
    "functools", "operator", "string", "re", "textwrap", "json", "csv", "io", "datetime",
    "calendar", "time", "typing", "dataclasses", "enum", "copy", "warnings", "abc",
    "bisect", "heapq", "array", "colorsys", "__future__", "dateutil", "pytz", "tzdata",
    "zoneinfo", "seaborn", "scipy", "locale", "pprint", "encodings",
)  # fmt: skip
"""Top-level modules plotting code may import: plotting, data frames and what they parse dates
with, numbers, text and containers;
no `os`, `sys`, `subprocess`, `socket`, `ctypes`, `importlib` or `pickle`."""


class SandboxPolicy(Record):
    """Limits and permissions of one sandboxed run."""

    timeout_s: float = Field(default=20.0, gt=0)
    """Wall-clock limit; the whole process tree is killed when it passes."""
    cpu_s: int = Field(default=20, ge=1)
    """CPU-time limit (RLIMIT_CPU)."""
    memory_mb: int = Field(default=2048, ge=64)
    """Address-space limit (RLIMIT_AS) in MiB; numpy and matplotlib need about 600."""
    max_file_mb: int = Field(default=64, ge=1)
    """Largest file the code may write, stdout and stderr included (RLIMIT_FSIZE)."""
    max_open_files: int = Field(default=256, ge=16)
    """Open file descriptors (RLIMIT_NOFILE)."""
    max_processes: int = Field(default=0, ge=0)
    """RLIMIT_NPROC once the guard is on; the kernel exempts root from it, so for root the
    audit guard and the pid namespace are what stop fork bombs."""
    allowed_imports: tuple[str, ...] = DEFAULT_ALLOWED_IMPORTS
    """Top-level modules the untrusted code may import (library code imports freely)."""
    preload: tuple[str, ...] = ("numpy", "matplotlib.pyplot")
    """Modules imported before the guard goes on: faster, and their caches get written."""
    read_roots: tuple[str, ...] = ("/usr/share/fonts", "/usr/share/zoneinfo")
    """Folders the code may read besides its work dir, the interpreter and site-packages."""
    block_reads: bool = True
    """Refuse reads outside the work dir and the read roots (e.g. ~/.ssh, /etc)."""
    isolate: Isolation = "auto"
    """Operating-system isolation, the primary layer: "bwrap" (bubblewrap: read-only view
    of the interpreter and libraries, private size-capped work dir, own user, pid, network,
    ipc and mount namespaces, uid 65534, no capabilities), "unshare" (the fallback: the same
    minimal root built by `sandbox._minroot` in namespaces util-linux `unshare` makes), "auto" (the
    first that works here) or "none-unsafe" (no OS isolation: the audit guard and limits
    only; never for untrusted code). Without an OS layer, "auto" refuses to run."""
    audit: bool = True
    """Install the in-interpreter audit guard (the second layer). False only to check the
    operating-system layer on its own; refused together with isolate="none-unsafe"."""
    landlock: bool = True
    """Have the kernel hold the file policy too (Landlock, Linux >= 5.13, where offered):
    reads only under the read roots and the work dir (when `block_reads`), writes only
    under the work dir, whatever the code calls. False only to check the other layers on
    their own."""
    max_disk_mb: int = Field(default=256, ge=1)
    """Total bytes the code may write (size of its private tmpfs), work dir and /tmp
    together; under "none-unsafe" only single files are capped."""
    max_files: int = Field(default=4096, ge=1)
    """Files and folders the code may create (counted by the audit guard)."""
    autosave: str | None = "figure.png"
    """When the code leaves a matplotlib figure open and writes no file of this name, save
    the current figure under it; None to turn off."""
    output_chars: int = Field(default=4000, ge=0)
    """How much of the end of stdout and stderr the result keeps."""
    collect_mb: int = Field(default=32, ge=0)
    """Most bytes of produced files returned in the result."""


class SandboxResult(Record):
    """The outcome of one sandboxed run."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_attribute_docstrings=True,
        ser_json_bytes="base64",
        val_json_bytes="base64",
    )

    status: SandboxStatus
    """How the run ended."""
    reason: str | None = None
    """Why it did not end "ok": the forbidden action, the limit hit or the last error line."""
    returncode: int | None = None
    """Exit code of the interpreter (negative: killed by that signal); None when killed on
    timeout."""
    stdout: str = ""
    """Tail of standard output."""
    stderr: str = ""
    """Tail of standard error."""
    files: dict[str, bytes] = Field(default_factory=dict)
    """Files the code left in its work dir (relative POSIX path → bytes), script excluded."""
    duration_s: float = 0.0
    """Wall time of the run."""
    isolation: tuple[str, ...] = ()
    """Protection layers that held for this run, e.g. ("process", "rlimits", "audit",
    "bwrap", "mountns", "userns", "pidns", "netns", "ipcns", "uid-unprivileged", "no-caps",
    "disk-cap", "seccomp"); a run without an OS layer lists no namespace."""

    @property
    def ok(self) -> bool:
        """True when the code ran to the end."""
        return self.status == "ok"
