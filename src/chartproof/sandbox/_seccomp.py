"""A seccomp filter for the sandbox, as the classic-BPF program bubblewrap loads (`--seccomp`).

On top of the namespaces it refuses, with EPERM, the system calls plotting code never needs
and that widen the kernel's attack surface or create what the mounts would otherwise have to
stop: special files (`mknod`), mounts and namespaces, tracing other processes, kernel
modules and keys, BPF, perf, userfaultfd and io_uring; `clone` into new namespaces (so
no user namespace can be made, also where bwrap's --disable-userns is absent: the fallback);
and, when the policy allows no child process, every fork (`clone` without `CLONE_THREAD`, `fork`, `vfork`). `clone3` answers
ENOSYS so the C library falls back to `clone`, whose flags the filter can read. System calls
of another ABI than the one the filter was built for (x32, 32-bit compat) end the process.
Only x86_64 and aarch64 are known; elsewhere there is no filter and the layer is not listed.
"""

from __future__ import annotations

import platform
import struct

__all__ = ["seccomp_program"]

_ALLOW = 0x7FFF0000
_KILL = 0x80000000
_EPERM = 0x00050000 | 1
_ENOSYS = 0x00050000 | 38
_CLONE_THREAD = 0x00010000
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
_CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
_CLONE_NEW |= 0x40000000 | 0x00000080
_X32_BIT = 0x40000000

# (audit arch, {name: number}) per machine
_ARCHES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (
        0xC000003E,
        {
            "mknod": 133, "mknodat": 259, "ptrace": 101, "mount": 165, "umount2": 166,
            "pivot_root": 155, "unshare": 272, "setns": 308, "bpf": 321,
            "perf_event_open": 298, "userfaultfd": 323, "keyctl": 250, "add_key": 248,
            "request_key": 249, "io_uring_setup": 425, "io_uring_enter": 426,
            "io_uring_register": 427, "kexec_load": 246, "kexec_file_load": 320,
            "init_module": 175, "finit_module": 313, "delete_module": 176, "reboot": 169,
            "swapon": 167, "swapoff": 168, "open_by_handle_at": 304,
            "name_to_handle_at": 303, "process_vm_readv": 310, "process_vm_writev": 311,
            "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
            "fsmount": 432, "fspick": 433, "mount_setattr": 442, "personality": 135,
            "fork": 57, "vfork": 58, "clone": 56, "clone3": 435,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "mknodat": 33, "ptrace": 117, "mount": 40, "umount2": 39, "pivot_root": 41,
            "unshare": 97, "setns": 268, "bpf": 280, "perf_event_open": 241,
            "userfaultfd": 282, "keyctl": 219, "add_key": 217, "request_key": 218,
            "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
            "kexec_load": 104, "kexec_file_load": 294, "init_module": 105,
            "finit_module": 273, "delete_module": 106, "reboot": 142, "swapon": 224,
            "swapoff": 225, "open_by_handle_at": 265, "name_to_handle_at": 264,
            "process_vm_readv": 270, "process_vm_writev": 271, "open_tree": 428,
            "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
            "mount_setattr": 442, "personality": 92, "clone": 220, "clone3": 435,
        },
    ),
}  # fmt: skip

_FORKS = ("fork", "vfork")

# classic BPF opcodes
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K


def seccomp_program(*, allow_fork: bool, machine: str | None = None) -> bytes | None:
    """The filter as packed `struct sock_filter` entries, or None on an unknown machine."""
    known = _ARCHES.get(machine or platform.machine())
    if known is None:
        return None
    arch, numbers = known
    denied = [
        n
        for name, n in numbers.items()
        if name not in ("clone", "clone3") and (not allow_fork or name not in _FORKS)
    ]
    # Every jump goes forward (classic BPF has no other kind): the tests come first, the
    # clone-flags check after them, the four return blocks last.
    code: list[tuple[int, str | None, str | None, int]] = [
        (_LD_ABS, None, None, 4),
        (_JEQ, None, "kill", arch),
        (_LD_ABS, None, None, 0),
        (_JGE, "kill", None, _X32_BIT),
        *[(_JEQ, "eperm", None, n) for n in denied],
        (_JEQ, "enosys", None, numbers["clone3"]),
    ]
    code += [
        (_JEQ, None, "allow", numbers["clone"]),
        (_LD_ABS, None, None, 16),  # low 32 bits of clone's first argument: its flags
    ]
    if allow_fork:  # children, but none in new namespaces
        code += [(_JSET, "eperm", "allow", _CLONE_NEW)]
    else:
        code += [(_JSET, "eperm", None, _CLONE_NEW), (_JSET, "allow", "eperm", _CLONE_THREAD)]
    returns = {"allow": _ALLOW, "eperm": _EPERM, "enosys": _ENOSYS, "kill": _KILL}
    labels = {name: len(code) + i for i, name in enumerate(returns)}
    out = []
    for index, (op, jt, jf, k) in enumerate(code):
        t = labels[jt] - index - 1 if jt is not None else 0
        f = labels[jf] - index - 1 if jf is not None else 0
        if not (0 <= t < 256 and 0 <= f < 256):
            raise AssertionError("seccomp jump out of range")  # pragma: no cover
        out.append(struct.pack("=HBBI", op, t, f, k))
    out += [struct.pack("=HBBI", _RET, 0, 0, v) for v in returns.values()]
    return b"".join(out)
