"""The operating-system layer on its own (audit guard off) holds for root under bwrap, for an
ordinary user under bwrap and for an ordinary user in the fallback (`_minroot` under
`unshare`): no case reads a mode-600 canary in the user's home, lists the host's /, or
writes outside the work dir. The cases are in `os_layer_cases.py`.

As root the test creates an ordinary user (`useradd`) if none exists and runs the cases as
that user; run by an ordinary user it runs them as itself. It skips, saying why, only where
user namespaces are unavailable.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path
from typing import Any

import pytest

from chartproof.sandbox import SandboxPolicy, runner

HERE = Path(__file__).resolve().parent
SRC = str(Path(runner.__file__).resolve().parents[2])
USER = "chartproof-probe"


def _userns_usable() -> str | None:
    """None when an unprivileged user namespace can be made here, else why not."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "util-linux unshare is not installed"
    cmd = [unshare, "--user", "--map-root-user", "true"]
    if os.geteuid() == 0:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    done = subprocess.run(cmd, capture_output=True, timeout=30, check=False)
    return None if done.returncode == 0 else done.stderr.decode(errors="replace").strip()


def _ordinary_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", USER], check=True,
                       capture_output=True)  # fmt: skip
        return pwd.getpwnam(USER)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    why = _userns_usable()
    if why is not None or not sys.platform.startswith("linux"):
        pytest.skip(f"user namespaces are unavailable here: {why}")
    user = _ordinary_user()
    home = Path(user.pw_dir)
    home.mkdir(parents=True, exist_ok=True)
    secret = "CANARY-" + secrets.token_hex(8)
    canary = home / f"chartproof-canary-{secrets.token_hex(4)}.txt"
    canary.write_text(secret)
    marker = f"chartproof-escape-{secrets.token_hex(4)}"
    if os.geteuid() == 0:
        os.chown(canary, user.pw_uid, user.pw_gid)
        if home.stat().st_uid != user.pw_uid:
            os.chown(home, user.pw_uid, user.pw_gid)
    canary.chmod(0o600)
    base = {"src": SRC, "canary": str(canary), "home": str(home), "marker": marker}
    scratch = tmp_path_factory.mktemp("os-layer")
    # a venv under /tmp, in a folder whose name has a space: bwrap once failed for any
    # interpreter under /tmp ("Can't make symlink at /tmp: File exists")
    tmp_venv = Path(tempfile.mkdtemp(prefix="chartproof venv ", dir="/tmp"))
    tmp_venv.chmod(0o755)
    venv.create(tmp_venv, with_pip=False, symlinks=True)
    here_site = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    runs: dict[str, Any] = {}
    try:
        for label, python in (("", sys.executable), ("-tmpvenv", str(tmp_venv / "bin/python"))):
            script = [python, "-I", "-B", str(HERE / "os_layer_cases.py")]
            spec = {**base, "backends": ["bwrap", "unshare"], "site": here_site}
            if os.geteuid() == 0:
                runs["root" + label] = _run([*script, json.dumps(spec)])
                spec = {**spec, "scratch": str(scratch / f"s{label}"),
                        "drop": [user.pw_uid, user.pw_gid]}  # fmt: skip
                unshare = ["unshare", "--mount", "--propagation", "private", "--"]
                runs["user" + label] = _run([*unshare, *script, json.dumps(spec)])
            else:
                runs["user" + label] = _run([*script, json.dumps(spec)])
        runs["written"] = [
            str(p)
            for d in (
                home,
                Path("/var/tmp"),
                Path("/tmp"),
                Path("/dev/shm"),
                Path("/"),
                Path("/usr"),
                Path.cwd(),
            )
            if (p := d / marker).exists()
        ]
        runs["secret"], runs["home"] = secret, str(home)
        return runs
    finally:
        canary.unlink(missing_ok=True)
        shutil.rmtree(tmp_venv, ignore_errors=True)
        for d in (home, Path("/var/tmp"), Path("/tmp"), Path("/dev/shm"), Path.cwd()):
            (d / marker).unlink(missing_ok=True)


def _run(cmd: list[str]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run(cmd, capture_output=True, timeout=300, check=False, env=env)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return json.loads(done.stdout.decode().strip().splitlines()[-1])  # type: ignore[no-any-return]


MODES = [
    (who + where, backend)
    for who in ("root", "user")
    for where in ("", "-tmpvenv")
    for backend in ("bwrap", "unshare")
]


@pytest.mark.parametrize(("who", "backend"), MODES, ids=[f"{w}-{b}" for w, b in MODES])
def test_os_layer_holds(results: dict[str, Any], who: str, backend: str) -> None:
    if who not in results:
        pytest.skip("root cases need root")
    report = results[who]
    assert report["probes"][backend] is None, report["probes"][backend]
    cases = report["runs"][backend]
    for name, case in cases.items():
        assert case["status"] == "ok", (name, case["stderr"])
        assert results["secret"] not in case["stdout"], name
        assert "READ" not in case["stdout"] and "LIST" not in case["stdout"], case["stdout"]
        assert "DID" not in case["stdout"], case["stdout"]
        layers = case["isolation"]
        assert {backend, "mountns", "userns", "pidns", "uid-unprivileged", "no-caps"} <= set(layers)
    listed = cases["list_root"]["stdout"]
    assert "ROOT" in listed and not any(f"'{e}'" in listed for e in ("home", "etc", "var")), listed
    refused = {
        ln.split()[1] for ln in cases["write_outside"]["stdout"].splitlines() if ln[:3] == "no "
    }
    # /tmp inside is the run's private tmp (in its work dir), except when the interpreter
    # (the tmp venv, or this checkout's own venv cloned under /tmp) lives under /tmp: /tmp
    # then only holds its read-only bind. Every other place is refused.
    expected = {results["home"], "/var/tmp", "/dev/shm", "/", "/usr", "/proc/1/root/var/tmp"}
    under_tmp = "tmpvenv" in who or not runner._tmp_link(runner._bind_sources(SandboxPolicy()))
    assert refused == expected | ({"/tmp"} if under_tmp else set())
    assert results["written"] == []


@pytest.mark.parametrize("who", ["user", "user-tmpvenv"])
def test_auto_prefers_bwrap_for_an_ordinary_user(results: dict[str, Any], who: str) -> None:
    # an interpreter under /tmp used to make bwrap fail, so "auto" fell back to unshare
    assert results[who]["uid"] != 0
    assert results[who]["auto"] == "bwrap", results[who]["probes"]
