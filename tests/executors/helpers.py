"""Shared pieces of the executor tests: a small dataset, sorted-file digests, worker killing, and
the functions the workers run (a pool pickles them by reference, so they live in this module,
not in a test file; `tests/executors/__init__.py` lets spawned workers import it)."""

from __future__ import annotations

import hashlib
import os
import signal
import time
from functools import partial
from pathlib import Path

from PIL import Image

from chartproof.datasets import save_samples
from chartproof.testing.hashed import HashedBackend, burn
from chartproof.types import Answer, ImageRef, ModelRequest, Sample


def dataset(root: Path, n: int) -> Path:
    """`n` one-question samples on tiny distinct images."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    samples = []
    for i in range(n):
        Image.new("RGB", (8, 8), (i * 7 % 256, i % 3, 0)).save(root / "images" / f"c{i}.png")
        samples.append(
            Sample(
                id=f"s{i:03d}",
                image=ImageRef(path=f"images/c{i}.png"),
                question=f"Which digit is {i}?",
                answer=Answer.number(float(i % 10)),
            )
        )
    save_samples(samples, root)
    return root


def sorted_lines(path: Path) -> list[str]:
    """The file's lines, sorted (a run's JSONL in a canonical order)."""
    return sorted(path.read_text(encoding="utf-8").splitlines())


def hashed(work_s: float = 0.0, pid_dir: Path | None = None) -> partial[HashedBackend]:
    """A picklable factory of the deterministic test model."""
    return partial(HashedBackend, work_s=work_s, pid_dir=str(pid_dir) if pid_dir else None)


def kill_one(pid_dir: Path, timeout: float = 20.0) -> int:
    """Kill (SIGKILL) the first worker that wrote its pid into `pid_dir`; returns its pid."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        pids = sorted(int(p.stem) for p in pid_dir.glob("*.pid"))
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            (pid_dir / f"{pids[0]}.pid").unlink()
            return pids[0]
        time.sleep(0.05)
    raise AssertionError(f"no worker wrote a pid into {pid_dir}")


def square_plus(state: int, x: int) -> int:
    """x² plus the worker's state."""
    return x * x + state


def setup_seven() -> int:
    """A worker setup whose state is 7."""
    return 7


def broken_setup() -> int:
    """A worker setup that fails with an install hint."""
    raise ImportError("needs the Python package 'nothing'; install it with: pip install x")


def slow_backend_square(backend: object, x: int) -> int:
    """x², after burning a little CPU (the worker's backend is ignored)."""
    burn(0.02)
    return x * x


def audit_script(request: ModelRequest) -> str:
    """A deterministic bias-audit model for `ScriptedBackend`: its reply depends on the
    request's prompt and every template field (group, persona, facts, options), so a reply
    sent to the wrong request or lost in a worker shows in the results."""
    fields = sorted((k, str(v)) for k, v in request.metadata.items() if k != "chart")
    digest = hashlib.sha256(f"{request.prompt}\0{fields}".encode()).digest()
    pick = digest[0] % 3
    if request.prompt.startswith("audit_select"):
        options = (request.metadata.get("option_a"), request.metadata.get("option_b"))
        return str(options[pick]) if pick < 2 else "Cannot tell."
    if request.prompt.startswith("audit_cue@"):
        return str(digest[1] % 10)
    tone = ("good", "bad", "mixed")[pick]
    return (
        f"Reply {digest[:4].hex()}. The values change over the years. "
        f"<opinion>The trend looks {tone}.</opinion>"
    )
