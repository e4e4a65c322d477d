"""chartproof's default cache folder, shared by the response cache, the ROSCOE model files and
the sandbox's matplotlib cache."""

from __future__ import annotations

import os
from pathlib import Path


def cache_home() -> Path:
    """`$XDG_CACHE_HOME/chartproof`, else `~/.cache/chartproof` (not created here)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "chartproof"
