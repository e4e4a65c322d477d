"""Shared pieces of the executor tests: a small dataset, sorted-file digests, worker killing."""

from __future__ import annotations

import os
import signal
import time
from functools import partial
from pathlib import Path

from PIL import Image

from chartproof.datasets import save_samples
from chartproof.testing.hashed import HashedBackend
from chartproof.types import Answer, ImageRef, Sample


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
