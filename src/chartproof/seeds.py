"""Seeds derived from ids: the same sample, perturbation and level always get the same seed.

Uses SHA-256, never Python's `hash`, which is salted per process.
"""

from __future__ import annotations

import hashlib

__all__ = ["stable_seed"]


def stable_seed(*parts: str | int) -> int:
    """A 63-bit seed from the parts (e.g. sample id, perturbation, level, base seed).

    The parts are joined with a unit separator before hashing, so ("a", "bc") and ("ab", "c")
    give different seeds.
    """
    text = "\x1f".join(str(p) for p in parts)
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1
