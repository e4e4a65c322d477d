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
from chartproof.runs.frames import Run
from chartproof.runs.recording import Interrupted, Recorder, recording

__all__ = [
    "Interrupted",
    "Recorder",
    "Run",
    "RunBusyError",
    "RunConfigMismatch",
    "RunFolder",
    "check_run_folder",
    "code_version",
    "load_run",
    "recording",
    "result_key",
]
