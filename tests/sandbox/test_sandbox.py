"""The sandbox against hostile code: each attack is stopped and reported, and runs go on.

`cases/hostile.json` is the hostile-code table: naive attacks, attempts to switch the audit
guard off from inside, process survival, parent secrets, disk fill, fifos, network with and
without the operating-system layer, and a typical pandas + matplotlib script that must work.
Each case names its expected status and reason (and optionally what stdout must or must not
hold); the table runs two cases at a time, serial ones alone.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from chartproof.sandbox import (
    IsolationUnavailable,
    SandboxPolicy,
    SandboxResult,
    isolation_available,
    run_batch,
    run_code,
)
from chartproof.sandbox import runner as sandbox_runner

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "cases" / "hostile.json").read_text(encoding="utf-8")
)

# Fast defaults for hostile snippets: no plotting libraries, tight limits.
BASE = {"preload": (), "timeout_s": 10.0, "cpu_s": 4, "memory_mb": 512, "max_file_mb": 1}

CANARIES = (
    "/var/tmp/chartproof-sandbox-escape.txt",
    "/var/tmp/chartproof-sandbox-pwned",
    "/var/tmp/chartproof-sandbox-a.txt",
    "/var/tmp/chartproof-sandbox-fifo",
    "/var/tmp/chartproof-sandbox-node",
    "/usr/chartproof-sandbox-fifo",
    str(sandbox_runner._mpl_cache()) + "/chartproof-sandbox-pwned",
)
VICTIM = Path("/var/tmp/chartproof-sandbox-victim.txt")
SECRET = "CHARTPROOF_CANARY_SECRET"

needs_os_layer = pytest.mark.skipif(
    not isolation_available(),
    reason="no OS isolation here (install bubblewrap: scripts/system-packages)",
)


def _survivors() -> list[int]:
    """Host processes still running this checkout's guest program."""
    guest = str(sandbox_runner._GUEST).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if guest in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


class _Listener:
    """A TCP listener on the host's loopback that records whether anyone connected."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connected = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        self.connected = True
        conn.close()


def _run_case(case: dict[str, Any], port: int) -> tuple[SandboxResult, list[int]]:
    policy = SandboxPolicy(**{**BASE, **case["policy"]})
    result = run_code(case["code"].replace("{port}", str(port)), policy)
    survivors: list[int] = []
    if case.get("no_survivor"):
        time.sleep(0.3)
        survivors = _survivors()
    return result, survivors


@pytest.fixture(scope="module")
def table() -> Iterator[tuple[dict[str, tuple[SandboxResult, list[int]]], _Listener]]:
    VICTIM.write_text("keep me")
    listener = _Listener()
    os.environ[SECRET] = "hunter2"  # visible in this process's /proc/<pid>/environ
    try:
        runnable = [c for c in CASES if isolation_available() or c["policy"].get("isolate")]
        parallel = [c for c in runnable if not c.get("serial")]
        with ThreadPoolExecutor(max_workers=2) as pool:
            done = dict(
                zip(
                    [c["name"] for c in parallel],
                    pool.map(lambda c: _run_case(c, listener.port), parallel),
                    strict=True,
                )
            )
        for case in runnable:
            if case.get("serial"):
                done[case["name"]] = _run_case(case, listener.port)
        yield done, listener
    finally:
        os.environ.pop(SECRET, None)
        listener.sock.close()
        VICTIM.unlink(missing_ok=True)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_hostile_case(
    case: dict[str, Any], table: tuple[dict[str, tuple[SandboxResult, list[int]]], _Listener]
) -> None:
    results, _ = table
    if case["name"] not in results:
        pytest.skip("no OS isolation here (install bubblewrap: scripts/system-packages)")
    if case.get("needs_landlock") and not sandbox_runner.landlock_abi():
        pytest.skip("this kernel offers no Landlock")
    result, survivors = results[case["name"]]
    assert result.status == case["status"], (result.reason, result.stdout, result.stderr)
    if case["reason"] is None:
        assert result.reason is None
    else:
        assert result.reason is not None and case["reason"] in result.reason, result.reason
    if "stdout" in case:
        assert case["stdout"] in result.stdout, (result.stdout, result.stderr)
    for word in ("SPAWNED", "SYSTEM-RAN", "LEAK", "CONNECTED", case.get("stdout_lacks", "\0")):
        assert word not in result.stdout, result.stdout
    for name in case.get("files", ()):
        assert name in result.files, sorted(result.files)
    assert survivors == [], f"{case['name']} left processes running: {survivors}"


def test_table_left_the_host_alone(
    table: tuple[dict[str, tuple[SandboxResult, list[int]]], _Listener],
) -> None:
    results, listener = table
    assert results, "the table ran no case"
    assert VICTIM.read_text() == "keep me"
    for path in CANARIES:
        assert not os.path.lexists(path), f"a case created {path}"
    assert not listener.connected, "a case reached a socket of the host"
    assert _survivors() == []


def test_table_covers_every_class() -> None:
    classes = {c["class"] for c in CASES}
    assert {"naive", "escape", "survival", "secrets", "disk", "fifo", "network"} <= classes
    for case in CASES:
        assert case["status"] in ("ok", "timeout", "memory", "forbidden", "error"), case["name"]


@needs_os_layer
def test_batch_goes_on_after_failures() -> None:
    policy = SandboxPolicy(**BASE)
    codes = ["import os", "x = bytearray(10**12)", "1/0", "print(6 * 7)"]
    results = run_batch(codes, policy, workers=2)
    assert [r.status for r in results] == ["forbidden", "memory", "error", "ok"]
    assert results[-1].stdout == "42\n"


@needs_os_layer
def test_environment_is_stripped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHARTPROOF_TEST_SECRET", "hunter2")
    code = "import random\nprint(sorted(random._os.environ))"
    result = run_code(code, SandboxPolicy(**BASE))
    assert result.ok, result.stderr
    names = json.loads(result.stdout.replace("'", '"'))
    assert "CHARTPROOF_TEST_SECRET" not in names
    assert "HOME" in names and "MPLBACKEND" in names


@needs_os_layer
def test_input_files_and_outputs() -> None:
    code = "rows = open('data.csv').read().splitlines()\nopen('n.txt', 'w').write(str(len(rows)))"
    result = run_code(code, SandboxPolicy(**BASE), files={"data.csv": b"a,b\n1,2\n3,4\n"})
    assert result.ok, result.stderr
    assert result.files["n.txt"] == b"3"
    assert "main.py" not in result.files


def test_input_file_cannot_escape() -> None:
    for name in ("../x.txt", "/etc/x", "a/../../x"):
        with pytest.raises(ValueError, match="leaves the work dir"):
            run_code("pass", SandboxPolicy(**BASE), files={name: b""})


def test_forged_file_stream_is_cut_off() -> None:
    good = json.dumps({"path": "a.txt", "size": 2}).encode() + b"\nhi"
    bad = json.dumps({"path": "../../etc/x", "size": 1}).encode() + b"\nx"
    assert sandbox_runner._parse_files(good + bad, "main.py", 100) == {"a.txt": b"hi"}
    assert sandbox_runner._parse_files(good, "main.py", 1) == {}


@needs_os_layer
def test_runs_record_the_os_layers() -> None:
    result = run_code("print(1)", SandboxPolicy(**BASE))
    assert {"mountns", "userns", "netns", "pidns", "audit"} <= set(result.isolation)
    unsafe = run_code("print(1)", SandboxPolicy(**{**BASE, "isolate": "none-unsafe"}))
    landlock = ("landlock",) if sandbox_runner.landlock_abi() else ()
    assert unsafe.isolation == ("process", "rlimits", "audit", *landlock)


@needs_os_layer
def test_matplotlib_code_makes_a_png() -> None:
    code = (
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)\n"
        "ax.bar(['a', 'b'], [1, 3])\n"
        "fig.savefig('chart.png')\n"
    )
    result = run_code(code, SandboxPolicy(timeout_s=60, cpu_s=60))
    assert result.ok, result.stderr
    assert result.files["chart.png"].startswith(b"\x89PNG")
    # autosave only fills in when the code saved nothing under that name
    assert "figure.png" in result.files


def test_no_os_layer_means_no_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_runner, "isolation_backend", lambda: None)
    monkeypatch.setattr(sandbox_runner, "_probe", lambda backend: f"{backend} said: no way")
    for isolate in ("auto", "bwrap", "unshare"):
        with pytest.raises(IsolationUnavailable, match="none-unsafe") as caught:
            run_code("pass", SandboxPolicy(**{**BASE, "isolate": isolate}))
        # the backend's own message is in the one line
        said = "bwrap said: no way; unshare said: no way" if isolate == "auto" else isolate
        assert said in str(caught.value)
    result = run_code("pass", SandboxPolicy(**{**BASE, "isolate": "none-unsafe"}))
    landlock = ("landlock",) if sandbox_runner.landlock_abi() else ()
    assert result.ok and result.isolation == ("process", "rlimits", "audit", *landlock)
    with pytest.raises(ValueError, match="no guard at all"):
        run_code("pass", SandboxPolicy(**{**BASE, "isolate": "none-unsafe", "audit": False}))


def test_seccomp_program_layout() -> None:
    import struct

    from chartproof.sandbox._seccomp import seccomp_program

    assert seccomp_program(allow_fork=False, machine="sparc64") is None
    strict = seccomp_program(allow_fork=False, machine="x86_64")
    loose = seccomp_program(allow_fork=True, machine="x86_64")
    assert strict is not None and loose is not None
    ops = [struct.unpack("=HBBI", strict[i : i + 8]) for i in range(0, len(strict), 8)]
    assert ops[0] == (0x20, 0, 0, 4) and ops[1][3] == 0xC000003E  # the arch comes first
    assert ops[-4:] == [(6, 0, 0, 0x7FFF0000), (6, 0, 0, 0x50001), (6, 0, 0, 0x50026),
                        (6, 0, 0, 0x80000000)]  # fmt: skip
    denied = {k for op, _, _, k in ops if op == 0x15}
    assert {133, 259, 165, 272, 101, 57, 58, 56, 435} <= denied  # mknod(at), mount, ...
    # allowing children drops fork, vfork and the CLONE_THREAD check, never the namespace one
    loose_ops = [struct.unpack("=HBBI", loose[i : i + 8]) for i in range(0, len(loose), 8)]
    assert {57, 58}.isdisjoint({k for op, _, _, k in loose_ops if op == 0x15})
    new_ns = 0x7E020080  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME
    assert (0x45, new_ns) in {(op, k) for op, _, _, k in loose_ops}
    assert (0x45, new_ns) in {(op, k) for op, _, _, k in ops}
    assert (0x45, 0x00010000) not in {(op, k) for op, _, _, k in loose_ops}


@needs_os_layer
def test_inode_flood_is_capped_by_the_os_layer() -> None:
    """Empty files cost no bytes but kernel memory: the private tmpfs caps inodes at
    `max_files` (+64) where chartproof mounts it itself (as root, and in the fallback)."""
    if os.geteuid() != 0 and sandbox_runner.isolation_backend() == "bwrap":
        pytest.skip("bwrap run by an ordinary user mounts the tmpfs without an inode cap")
    code = (
        "n = 0\ntry:\n    for i in range(5000):\n        open('f%d' % i, 'w').close()\n"
        "        n += 1\nexcept OSError as e:\n    print('stopped', n, e.errno)\n"
    )
    policy = SandboxPolicy(**{**BASE, "audit": False, "max_files": 1000})
    result = run_code(code, policy)
    assert result.ok and "stopped 10" in result.stdout and "28" in result.stdout, result.stdout
    assert len(result.files) < 1064
