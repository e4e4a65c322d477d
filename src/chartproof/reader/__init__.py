"""The built-in offline chart reader: OCR and geometric derendering recover a chart's table,
and a solver maps the question onto chartproof's question programs and explains its steps.

Selected as ``builtin:reader`` (or ``builtin:reader?table=gold`` to answer from the gold
table the request carries, skipping perception).
"""

from __future__ import annotations

from chartproof.models.registry import BackendSpec, register_builtin
from chartproof.reader.backend import ReaderBackend, ReaderSettings, settings_from_options
from chartproof.reader.solver import (
    UNKNOWN,
    Solution,
    judge,
    narrative,
    reply,
    solve,
    view_of,
    view_of_table,
)

__all__ = [
    "UNKNOWN",
    "ReaderBackend",
    "ReaderSettings",
    "Solution",
    "judge",
    "narrative",
    "reply",
    "solve",
    "view_of",
    "view_of_table",
]


def _factory(spec: BackendSpec) -> ReaderBackend:
    return ReaderBackend(settings_from_options(dict(spec.options), spec.source or "builtin:reader"))


register_builtin("reader", _factory)
