"""Keep the memory a chart reading frees for the next reading (glibc's allocator).

Reading a chart allocates the same large arrays over and over: the image and its masks, the
OCR networks' tensors. glibc serves a block above its mmap threshold with fresh pages from
the kernel and hands them back when it is freed, so every reading pays the first-touch page
faults again; its threshold rises only after such a block is freed, and only up to the size
of that block. On a 2-core VM a chart's first reading took 0.3-0.5 s longer than the same
chart read again in the same process (OpenCQA 6734.png: OCR 2.95 s then 2.62 s; read 0.68 s
then 0.32 s). With the freed memory kept in the heap, the first reading costs what the
second does.

`keep_freed_memory` sets the threshold and the trim threshold once per process; the OCR
engine calls it when it loads. The cost is resident memory: a process keeps its peak heap
(a few hundred MB for the reader) until it exits. ``CHARTPROOF_KEEP_HEAP=0`` leaves the
allocator as it is; on other C libraries (musl, macOS, Windows) it does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform

__all__ = ["KEEP_HEAP_ENV", "keep_freed_memory"]

KEEP_HEAP_ENV = "CHARTPROOF_KEEP_HEAP"

# mallopt's parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

_MMAP_THRESHOLD = 32 * 1024 * 1024
"""Blocks up to this size come from the heap. glibc's ceiling for the threshold on 64-bit
(``DEFAULT_MMAP_THRESHOLD_MAX``); an RGB image of 3,400 x 3,300 px is just above it."""

_TRIM_THRESHOLD = 1024 * 1024 * 1024
"""Free memory at the top of the heap is given back to the kernel only above this."""


@functools.cache
def keep_freed_memory() -> bool:
    """Set glibc's allocator to keep freed memory for reuse (see the module doc), once per
    process. True when it was set; False where it was not (another C library, or
    ``CHARTPROOF_KEEP_HEAP=0``)."""
    if os.environ.get(KEEP_HEAP_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    # the running process's own symbols: glibc's mallopt, without ctypes.util.find_library
    # (which runs ldconfig in a subprocess)
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(
        mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
    )
