"""Launcher of chartproof's sandbox where bubblewrap is missing or unusable: build the same
minimal root bwrap builds, then exec the guest.

Started only by `chartproof.sandbox.runner`, under `unshare --user --map-root-user --mount
--propagation private --net --pid --fork --kill-child --uts --ipc` (so it is pid 1 of a fresh
pid namespace and root only inside a user namespace of its own), with a JSON spec as its one
argument. It then

1. mounts a small tmpfs as the new root and bind-mounts, read-only, only the sources it is
   given (/usr, the interpreter, its stdlib and site-packages, the guest program), every
   submount included, keeping each mount's nosuid/nodev/noexec/atime flags;
2. adds a fresh /proc of its own pid namespace, a /dev holding only null, zero, full,
   random, urandom and tty, and the size-capped tmpfs that is the guest's only writable
   space (work dir, tmp, matplotlib config; `nr_inodes` capped too);
3. `pivot_root`s into it and detaches the host's root, so no host file outside those binds
   is reachable, and remounts the new root read-only;
4. enters a nested user namespace in which it is uid/gid 65534, drops the capability
   bounding set and sets no_new_privs; then forks: the child loads the seccomp program (read
   from a descriptor) and execs the guest, which therefore starts without any capability;
   the launcher stays pid 1 of the namespace, reaping, and exits with the guest's status.

Any step that fails ends the launcher with one line on stderr naming it: the sandbox is then
refused, never run with less. Standard library only (ctypes for the system calls bwrap
makes); it must not import chartproof.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import re
import sys
from typing import Any

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 16384, 1 << 18, 1 << 21, 1 << 24
MNT_DETACH = 2
CLONE_NEWUSER = 0x10000000
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 24, 38, 22, 2
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_NOBODY = 65534

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_char_p]  # fmt: skip
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


class _Filter(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _fail(what: str) -> None:
    err = ctypes.get_errno()
    raise OSError(err, f"{what}: {os.strerror(err)}")


def _b(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:  # fmt: skip
    if _libc.mount(_b(source), _b(target), _b(fstype), flags, _b(data)) != 0:
        _fail(f"mount {target!r}")


def _mountpoints() -> list[str]:
    """Mount points of this namespace, in mount order (field 5 of mountinfo, unescaped)."""
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
        points = [line.split(" ")[4] for line in fh if line.strip()]
    return [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), p) for p in points]


def _kept_flags(path: str) -> int:
    """The flags a read-only remount must repeat: the kernel refuses, inside a user
    namespace, to clear nosuid/nodev/noexec or change atime handling of a locked mount."""
    have = os.statvfs(path).f_flag
    flags = MS_NOSUID | MS_NODEV
    flags |= MS_NOEXEC if have & os.ST_NOEXEC else 0
    flags |= MS_NOATIME if have & os.ST_NOATIME else 0
    flags |= MS_NODIRATIME if have & os.ST_NODIRATIME else 0
    if not have & (os.ST_NOATIME | os.ST_RELATIME):
        flags |= MS_STRICTATIME
    return flags | (MS_RELATIME if have & os.ST_RELATIME else 0)


def _bind_ro(source: str, target: str) -> None:
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "wb").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    for point in _mountpoints():
        if point == target or point.startswith(target.rstrip("/") + "/"):
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(point))


def _make_dev(new: str) -> None:
    dev = new + "/dev"
    os.makedirs(dev)
    _mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for name in _DEVICES:
        if os.path.exists("/dev/" + name):
            open(f"{dev}/{name}", "wb").close()
            _mount("/dev/" + name, f"{dev}/{name}", None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, f"{dev}/{name}")
    _mount(None, dev, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC)


def _build_root(spec: dict[str, Any]) -> None:
    new, box = spec["newroot"], spec["box"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for link, target in spec["links"]:
        os.symlink(target, new + link)
    for source, target in spec["binds"]:
        _bind_ro(source, new + target)
    os.makedirs(new + "/proc", exist_ok=True)
    _mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _make_dev(new)
    os.makedirs(new + box, exist_ok=True)
    size = f"mode=0755,size={spec['disk_bytes']},nr_inodes={spec['inodes']}"
    _mount("tmpfs", new + box, "tmpfs", MS_NOSUID | MS_NODEV, size)
    for sub in ("work", "work/tmp", "mpl"):
        os.makedirs(f"{new}{box}/{sub}", exist_ok=True)
    if spec["tmp_link"]:
        os.symlink(f"{box}/work/tmp", new + "/tmp")
    os.chdir(new)
    number = _PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(0, f"pivot_root: unknown machine {platform.machine()!r}")
    if _libc.syscall(number, b".", b".") != 0:
        _fail("pivot_root")
    if _libc.umount2(b".", MNT_DETACH) != 0:
        _fail("detach the host's root")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _drop_privileges() -> None:
    """Become uid/gid 65534 in a nested user namespace; exec then grants no capability."""
    if _libc.unshare(CLONE_NEWUSER) != 0:
        _fail("unshare the nested user namespace")
    # binary writes: after pivot_root the stdlib (and its codecs) may no longer be reachable
    for name, text in ((b"setgroups", b"deny"), (b"uid_map", b"%d 0 1" % _NOBODY),
                       (b"gid_map", b"%d 0 1" % _NOBODY)):  # fmt: skip
        fd = os.open(b"/proc/self/" + name, os.O_WRONLY)
        try:
            os.write(fd, text)
        finally:
            os.close(fd)
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    if os.getuid() != _NOBODY or os.geteuid() != _NOBODY:
        raise OSError(0, "could not become an unprivileged user")
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("no_new_privs")


def _load_seccomp(fd: int | None) -> None:
    if fd is None:
        return
    with os.fdopen(fd, "rb") as fh:
        program = fh.read()
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _Filter(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        _fail("load the seccomp filter")


def _reap(child: int) -> int:
    """As pid 1 of the namespace: reap every orphan until the guest ends; its status, with a
    death by signal N given as 128 + N (what bwrap reports)."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 1
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            return 128 - code if code < 0 else code


def main() -> None:
    spec = json.loads(sys.argv[1])
    try:
        if _libc.sethostname(b"sandbox", 7) != 0:
            _fail("sethostname")
        _build_root(spec)
        _drop_privileges()
        os.chdir(spec["box"] + "/work")
    except OSError as exc:
        sys.stderr.write(f"chartproof sandbox launcher: {exc.strerror or exc}\n")
        sys.exit(70)
    # The guest must not be pid 1: the kernel drops signals a namespace's init sends itself.
    child = os.fork()
    if child == 0:
        try:
            _load_seccomp(spec["seccomp_fd"])
            os.execve(spec["argv"][0], spec["argv"], spec["env"])
        except OSError as exc:
            sys.stderr.write(f"chartproof sandbox launcher: {exc.strerror or exc}\n")
        os._exit(70)
    if spec["seccomp_fd"] is not None:
        os.close(spec["seccomp_fd"])
    os._exit(_reap(child))


if __name__ == "__main__":
    main()
