"""What a long command shows before and during its work: a "loading MODEL ..." status while
the model loads, then the time it took, then the header line, then the bar; with --quiet
none of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chartproof.cli import _register
from chartproof.cli._app import app

pytestmark = pytest.mark.usefixtures("echo_builtin")


def _eval(dataset: Path, out: Path, *more: str) -> list[str]:
    _register()
    args = ["eval", "-d", str(dataset), "-o", str(out), "-m", "builtin:echo?x=1"]
    res = CliRunner().invoke(app, [*args, "--executor", "local:1", "--no-cache", *more])
    assert res.exit_code == 0, res.output
    return [line for line in res.output.splitlines() if line.strip()]


def test_loading_then_header_then_bar(dataset: Path, tmp_path: Path) -> None:
    lines = _eval(dataset, tmp_path / "run", "--no-report")
    # not a terminal: the spinner is off, its last line stays (the spec without its options)
    assert re.fullmatch(r"loaded builtin:echo in \d+\.\d s", lines[0]), lines
    text = " ".join(lines[1:])  # the header wraps at the console's width
    header = text.index(f"eval: builtin:echo?x=1 on {dataset}")
    assert header == 0 and text.index(": 2 samples") < text.index("eval direct")
    assert re.search(r"eval direct .* 2/2", text), lines


def test_quiet_shows_no_loading_nor_bar(dataset: Path, tmp_path: Path) -> None:
    lines = _eval(dataset, tmp_path / "run", "--no-report", "-q")
    assert not any("load" in line or "eval direct" in line for line in lines), lines
    assert lines[0].lstrip().startswith("accuracy")


# a local model that answers its whole batch in one call, a second per request, and says
# when each request is answered (as text: and hf: models do row by row)
ROWS = """
import sys, time, types
from chartproof.models.base import note_answered
from chartproof.models.registry import register_builtin
from chartproof.testing.scripted import ScriptedBackend

pause = float(sys.argv[1])

class Rows(ScriptedBackend):
    def generate(self, requests):
        out = []
        for request in requests:
            time.sleep(pause)
            out += super().generate([request])
            note_answered(1)
        return out

def build(spec):
    backend = Rows(lambda request: "1", name="builtin:rows")
    backend.settings = types.SimpleNamespace(batch_size=1000)
    return backend

register_builtin("rows", build)
sys.argv = ["chartproof", *sys.argv[2:]]
from chartproof.cli import main
main()
"""


def _on_a_terminal(args: list[str], timeout: float = 120) -> list[tuple[float, str]]:
    """Run `args` with stdout and stderr on a pseudo-terminal (so rich draws its live bar);
    every distinct "N/M" count drawn, with the seconds since start it first appeared."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    leader, follower = pty.openpty()
    start = time.monotonic()
    env = {**os.environ, "COLUMNS": "160", "TERM": "xterm", "CHARTPROOF_DEBUG": ""}
    proc = subprocess.Popen([sys.executable, *args], stdout=follower, stderr=follower, env=env)
    os.close(follower)
    seen: list[tuple[float, str]] = []
    text = ""
    while time.monotonic() - start < timeout:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            chunk = os.read(leader, 65536).decode(errors="replace")
        except OSError:  # the terminal closed with the process
            break
        text += chunk
        for count in re.findall(
            r"(?<![\d:/])(\d+/\d+)(?![\d/])", re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", chunk)
        ):
            if count not in [c for _, c in seen]:
                seen.append((time.monotonic() - start, count))
    proc.wait(timeout=30)
    os.close(leader)
    assert proc.returncode == 0, text[-2000:]
    return seen


@pytest.mark.slow
def test_the_bar_moves_per_request_inside_a_long_batch(dataset: Path, tmp_path: Path) -> None:
    """On a terminal, the count moves as each request of a local model's one long batch is
    answered, long before the batch is recorded (measured: the first count a second after
    the bar, not at the end of the batch)."""
    script = tmp_path / "rows.py"
    script.write_text(ROWS)
    pause = 1.0
    args = [str(script), str(pause), "eval", "-d", str(dataset), "-o", str(tmp_path / "run"),
            "-m", "builtin:rows", "--executor", "local:1", "--no-cache", "--no-report"]  # fmt: skip
    seen = dict((count, t) for t, count in _on_a_terminal(args))
    n = 2
    assert "0/2" in seen and "1/2" in seen and f"{n}/{n}" in seen, seen
    # the first request's count comes with it, a whole request before the batch ends
    assert seen["1/2"] - seen["0/2"] < pause + 1.5, seen
    assert seen["2/2"] - seen["1/2"] > pause / 2, seen


def test_verbose_announces_the_load_on_a_line(dataset: Path, tmp_path: Path) -> None:
    """With --verbose other libraries may print while a model loads: a line says what
    loads instead of a spinner, whose live display would swallow their output."""
    _register()
    args = ["--verbose", "eval", "-d", str(dataset), "-o", str(tmp_path / "run"), "-m",
            "builtin:echo", "--executor", "local:1", "--no-cache", "--no-report"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "loading builtin:echo ..." and lines[1].startswith("loaded builtin:echo in")
    # the next command without --verbose is quiet again
    assert _eval(dataset, tmp_path / "again", "--no-report")[0].startswith("loaded builtin:echo")


def test_a_judge_load_is_announced_too(dataset: Path, tmp_path: Path) -> None:
    lines = _eval(dataset, tmp_path / "run", "--no-report", "--judge", "builtin:echo?y=2")
    loads = [line for line in lines if line.startswith("loaded ")]
    assert len(loads) == 2 and all(
        re.fullmatch(r"loaded builtin:echo in \d+\.\d s", x) for x in loads
    ), lines
