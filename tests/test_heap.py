"""`keep_freed_memory`: after it, glibc serves large blocks from the heap instead of fresh
mmapped pages, and ``CHARTPROOF_KEEP_HEAP=0`` leaves the allocator alone. Each case runs in
a fresh interpreter (the setting is process-wide and set once)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
    reason="glibc's allocator only",
)

# Bytes glibc holds in mmapped blocks (mallinfo2's hblkhd) while a 16 MiB array is alive
# before keep_freed_memory, and while a 24 MiB one is alive after it.
PROBE = """
import ctypes, json, numpy as np
from chartproof._heap import keep_freed_memory

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Info

def mapped_while_alive(mib):
    base = libc.mallinfo2().hblkhd
    a = np.ones(mib * 1024 * 1024, np.uint8)
    grown = libc.mallinfo2().hblkhd - base
    del a
    return grown

before = mapped_while_alive(16)
kept = keep_freed_memory()
# larger than the block freed: glibc's own threshold rose to 16 MiB when it was freed
print(json.dumps({"before": before, "kept": kept, "after": mapped_while_alive(24)}))
"""


def _probe(env: dict[str, str]) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, int] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    ("setting", "kept"),
    [("", True), ("1", True), ("0", False), ("off", False), ("no", False)],
)
def test_large_blocks_come_from_the_heap(setting: str, kept: bool) -> None:
    got = _probe({"CHARTPROOF_KEEP_HEAP": setting} if setting else {})
    assert got["before"] >= 16 * 1024 * 1024  # glibc's default: a fresh mapping
    assert got["kept"] is kept
    if kept:
        assert got["after"] == 0
    else:
        assert got["after"] >= 24 * 1024 * 1024
