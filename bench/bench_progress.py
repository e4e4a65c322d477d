"""How soon a command shows progress: runs a chartproof command on a pseudo-terminal (so rich
draws its live bar, as a user sees it) and prints, in seconds from the start, each status or
header line the first time it appears and each new "N/M" count of a bar. Ends with the
seconds to the first bar and to its first count above 0 (issue 38: within 10 s).

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_progress.py -- \\
         eval -d data/qax -m text:smollm2 -o /tmp/run --no-cache --limit 16 --no-report
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

_ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")
_COUNT = re.compile(r"(?<![\d:/])(\d+)/(\d+)(?![\d/])")
_SPINNER = set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")


def main(args: list[str]) -> int:
    leader, follower = pty.openpty()
    start = time.monotonic()
    env = {**os.environ, "COLUMNS": "160", "TERM": "xterm"}
    command = [sys.executable, "-m", "chartproof", *args]
    proc = subprocess.Popen(command, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    pending, lines, counts = "", set(), set()
    first_bar = first_count = None
    while True:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        pending += data.decode(errors="replace")
        *segments, pending = re.split(r"[\r\n]", pending)
        now = time.monotonic() - start
        for raw in segments:
            segment = _ANSI.sub("", raw).strip()
            found = _COUNT.search(segment)
            if found and "eta" in segment:
                if found.group(0) not in counts:
                    counts.add(found.group(0))
                    print(f"{now:7.1f} s  {segment[:110]}", flush=True)
                    first_bar = now if first_bar is None else first_bar
                    if first_count is None and int(found.group(1)) > 0:
                        first_count = now
            elif segment and segment[0] not in _SPINNER and segment not in lines:
                lines.add(segment)
                print(f"{now:7.1f} s  {segment[:150]}", flush=True)
    code = proc.wait()
    os.close(leader)

    def said(t: float | None) -> str:
        return "never" if t is None else f"{t:.1f} s"

    print(f"exit {code} after {time.monotonic() - start:.1f} s; first bar at {said(first_bar)}, "
          f"first count above 0 at {said(first_count)}")  # fmt: skip
    return code


if __name__ == "__main__":
    argv = sys.argv[1:]
    sys.exit(main(argv[1:] if argv[:1] == ["--"] else argv))
