"""Hostile cases for the operating-system layer alone (audit guard off), run by
`test_os_layer.py` as root and, through this file as a script, as an ordinary user.

Run as a script: `python os_layer_cases.py SPEC_JSON` prints one JSON object: the backend
`isolate="auto"` chose, each probe's verdict, and each case's result per backend. With
`"drop"` in the spec (root only, inside `unshare --mount --propagation private`), it first
makes the interpreter reachable for that user (a mode-755 tmpfs over the first ancestor the
user cannot search, with the interpreter's tree bound back in: /root is mode 700 where pyenv
lives) and drops to the user's uid and gid.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# {canary}: a mode-600 file in the user's home; {home}: that home; {marker}: a file name
# no case may create on the host.
CASES: dict[str, str] = {
    "read_canary": (
        "for p in ({canary!r}, '/proc/1/root' + {canary!r}, '/proc/self/root' + {canary!r}):\n"
        "    try:\n        print('READ', open(p).read())\n"
        "    except OSError as e:\n        print('no', e.errno)\n"
    ),
    "list_home": (
        "for p in ({home!r}, '/home', '/proc/1/root/home', '/proc/1/root/etc'):\n"
        "    try:\n        print('LIST', p, os.listdir(p))\n"
        "    except OSError as e:\n        print('no', e.errno)\n"
    ),
    "list_root": "print('ROOT', sorted(os.listdir('/')))\n",
    "write_outside": (
        "for d in ({home!r}, '/var/tmp', '/tmp', '/dev/shm', '/', '/usr', '/proc/1/root/var/tmp'):\n"
        "    try:\n        open(d + '/' + {marker!r}, 'w').write('x')\n"
        "    except OSError as e:\n        print('no', d, e.errno)\n"
        "print('done')\n"
    ),
    "chroot_and_mount": (
        "for f in (lambda: os.chroot('/sandbox'), lambda: os.mkfifo('/sandbox/work/f'),\n"
        "          lambda: os.setuid(0)):\n"
        "    try:\n        f(); print('DID')\n"
        "    except (OSError, AttributeError) as e:\n        print('no', e)\n"
    ),
}

# entries of the host's / that must never be listed inside
HOST_ONLY = ("home", "etc", "var", "boot", "srv", "opt", "mnt")


def run_cases(backend: str, canary: str, home: str, marker: str) -> dict[str, Any]:
    from chartproof.sandbox import SandboxPolicy, run_code

    policy = SandboxPolicy(
        isolate=backend, audit=False, landlock=False, preload=(), allowed_imports=("os",), timeout_s=30,
        cpu_s=10, memory_mb=512, max_file_mb=1, max_processes=0,
    )  # fmt: skip
    out: dict[str, Any] = {}
    for name, template in CASES.items():
        code = "import os\n" + template.format(canary=canary, home=home, marker=marker)
        result = run_code(code, policy)
        out[name] = {
            "status": result.status, "stdout": result.stdout, "stderr": result.stderr[-2000:],
            "isolation": list(result.isolation),
        }  # fmt: skip
    return out


def _expose_interpreter(scratch: str) -> None:
    """Let `uid` reach the interpreter: for the first ancestor of its tree the user cannot
    search, bind the tree aside, lay a mode-755 tmpfs over that ancestor, bind it back."""
    real = Path(os.path.realpath(sys.base_prefix))
    for parent in reversed(real.parents):
        if parent == Path("/") or parent.stat().st_mode & 0o001:
            continue
        child = real.parents[len(real.parents) - len(parent.parts) - 1]
        aside = Path(scratch) / "aside"
        aside.mkdir(parents=True)
        subprocess.run(["mount", "--rbind", str(child), str(aside)], check=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "aside", str(parent)],
                       check=True)  # fmt: skip
        child.mkdir()
        subprocess.run(["mount", "--rbind", str(aside), str(child)], check=True)
        return


def main() -> None:
    spec = json.loads(sys.argv[1])
    if spec.get("drop"):
        uid, gid = spec["drop"]
        _expose_interpreter(spec["scratch"])
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        os.environ["HOME"] = spec["home"]
        os.chdir(spec["home"])
    sys.path[:0] = [spec["src"], *spec.get("site", [])]
    from chartproof.sandbox import runner

    report: dict[str, Any] = {
        "uid": os.getuid(),
        "auto": runner.isolation_backend(),
        "probes": {b: runner._probe(b) for b in ("bwrap", "unshare")},
        "runs": {},
    }
    for backend in spec["backends"]:
        report["runs"][backend] = run_cases(backend, spec["canary"], spec["home"], spec["marker"])
    print(json.dumps(report))


if __name__ == "__main__":
    main()
