"""Run folders: config, append-only per-sample results, summary; resumable after any crash."""

from chartproof.runs.folder import (
    RunBusyError,
    RunConfigMismatch,
    RunFolder,
    code_version,
    load_run,
    result_key,
)
from chartproof.runs.frames import Run

__all__ = [
    "Run",
    "RunBusyError",
    "RunConfigMismatch",
    "RunFolder",
    "code_version",
    "load_run",
    "result_key",
]
