"""Sandboxed execution of untrusted Python, e.g. plotting code a model wrote for a chart.

`run_code(code, policy)` returns a `SandboxResult` (ok / timeout / memory / forbidden / error)
and never runs the code in chartproof's own process.
"""

from __future__ import annotations

from chartproof.sandbox.records import (
    DEFAULT_ALLOWED_IMPORTS,
    Isolation,
    SandboxPolicy,
    SandboxResult,
    SandboxStatus,
)
from chartproof.sandbox.runner import (
    IsolationUnavailable,
    isolation_available,
    isolation_backend,
    require_isolation,
    run_batch,
    run_code,
)

__all__ = [
    "DEFAULT_ALLOWED_IMPORTS",
    "Isolation",
    "IsolationUnavailable",
    "SandboxPolicy",
    "SandboxResult",
    "SandboxStatus",
    "isolation_available",
    "isolation_backend",
    "require_isolation",
    "run_batch",
    "run_code",
]
