"""chartproof: trustworthy chart question answering.

Build chart benchmarks whose answers are backed by executable logic, ask models to answer
and explain, and verify their reasoning step by step, under visual stress and under
counterfactual data. Importing this package is cheap: heavy modules load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it; loaded lazily so `import chartproof` stays light
_LAZY: dict[str, str] = {
    "generate": "chartproof.pipelines.generate",
    "evaluate": "chartproof.pipelines.evaluate",
    "audit": "chartproof.pipelines.audit",
    "report": "chartproof.reports",
    "demo": "chartproof.pipelines.demo",
    "load_run": "chartproof.runs",
    "load_samples": "chartproof.datasets",
    "save_samples": "chartproof.datasets",
    "render": "chartproof.charts",
}

__all__ = [
    "__version__",
    "audit",
    "demo",
    "evaluate",
    "generate",
    "load_run",
    "load_samples",
    "render",
    "report",
    "save_samples",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chartproof' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
