"""Run folders: config, append-only per-sample results, summary; resumable after any crash."""

from chartproof.runs.folder import (
    RunBusyError,
    RunConfigMismatch,
    RunFolder,
    check_run_folder,
    code_version,
    load_run,
    result_key,
)

__all__ = [
    "RunBusyError",
    "RunConfigMismatch",
    "RunFolder",
    "check_run_folder",
    "code_version",
    "load_run",
    "result_key",
]
