"""Run folders: a run's config, its append-only per-sample results and its summary on disk.

A run can be killed at any moment (even SIGKILL) and resumed: results are appended one whole
line per `write` and fsynced, a torn last line is dropped on reopen, and a sample already
recorded is never recorded (or counted) twice. A corrupt line anywhere else (a disk or an
editor did it, not a kill) is moved to `results.quarantine.jsonl` with a warning that names
it; every valid line around it is kept.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import warnings
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from chartproof import __version__
from chartproof.runs.frames import Run
from chartproof.types import RunRecord, SampleResult

__all__ = [
    "Run",
    "RunBusyError",
    "RunConfigMismatch",
    "RunFolder",
    "check_run_folder",
    "code_version",
    "load_run",
    "result_key",
]

RUN_FILE = "run.json"
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
LOCK_FILE = ".lock"
QUARANTINE_FILE = "results.quarantine.jsonl"


class RunConfigMismatch(ValueError):
    """Resuming a run with a different configuration or dataset than it was started with."""


class RunBusyError(RuntimeError):
    """Another process is writing to the same run folder."""


def result_key(result: SampleResult) -> tuple[str, str, str]:
    """What makes a result unique within a run: sample, protocol, model."""
    return (result.sample_id, result.protocol, result.model)


def code_version() -> str:
    """chartproof's version, plus the git commit when running from a checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return __version__
    commit = out.stdout.strip()
    return f"{__version__}+g{commit}" if out.returncode == 0 and commit else __version__


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RunFolder:
    """An open run folder. Use as a context manager: it holds an exclusive lock while open.

    `RunFolder.open(path, config, fingerprint)` creates a new run or resumes an existing
    one; resuming with a different `config` or dataset fingerprint raises
    `RunConfigMismatch` (start a new folder instead).
    """

    def __init__(self, path: Path, record: RunRecord, lock: IO[str]) -> None:
        self.path = path
        self.record = record
        self._lock = lock
        self._fd: int | None = None
        self._load_results()

    # -- opening ----------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        config: dict[str, Any],
        fingerprint: str,
        *,
        run_id: str | None = None,
    ) -> RunFolder:
        """Create `path` as a new run, or reopen it to resume when it already holds one."""
        root = Path(path)
        check_run_folder(root)
        root.mkdir(parents=True, exist_ok=True)
        lock = (root / LOCK_FILE).open("a+", encoding="utf-8")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise RunBusyError(f"run folder {root} is in use by another process") from None
        try:
            record = cls._read_or_create(root, config, fingerprint, run_id)
        except BaseException:
            lock.close()
            raise
        return cls(root, record, lock)

    @staticmethod
    def _read_or_create(
        root: Path, config: dict[str, Any], fingerprint: str, run_id: str | None
    ) -> RunRecord:
        run_file = root / RUN_FILE
        normalised = json.loads(json.dumps(config, sort_keys=True, default=str))
        if run_file.exists():
            try:
                record = RunRecord.model_validate_json(run_file.read_text(encoding="utf-8"))
            except (ValidationError, ValueError) as exc:
                raise RunConfigMismatch(_unreadable_record(run_file, exc)) from exc
            if record.config != normalised:
                changed = sorted(
                    k
                    for k in set(record.config) | set(normalised)
                    if record.config.get(k) != normalised.get(k)
                )
                raise RunConfigMismatch(
                    f"run {root} was started with a different configuration "
                    f"(differs in: {', '.join(changed)}); use a new --out folder"
                )
            if record.dataset_fingerprint != fingerprint:
                raise RunConfigMismatch(
                    f"run {root} was started on a different dataset "
                    f"({record.dataset_fingerprint} != {fingerprint}); use a new --out folder"
                )
            return record.model_copy(update={"status": "running"})
        record = RunRecord(
            id=run_id or root.resolve().name,
            created=_now(),
            config=normalised,
            dataset_fingerprint=fingerprint,
            code_version=code_version(),
        )
        _atomic_write(run_file, record.model_dump_json(indent=2))
        return record

    def _load_results(self) -> None:
        results = self.path / RESULTS_FILE
        read = _read_results(results)
        self._done, self.dropped_lines = read.done, read.torn + len(read.corrupt)
        if read.corrupt:
            # keep the bad lines for inspection, then rewrite the file without them
            with (self.path / QUARANTINE_FILE).open("ab") as q:
                for _, raw in read.corrupt:
                    q.write(raw if raw.endswith(b"\n") else raw + b"\n")
                q.flush()
                os.fsync(q.fileno())
            _atomic_write_bytes(results, b"".join(read.good))
        elif results.exists() and results.stat().st_size != read.good_bytes:
            # drop the torn tail so the next append starts on a line boundary
            with results.open("r+b") as f:
                f.truncate(read.good_bytes)

    # -- writing ----------------------------------------------------------------------

    def is_done(
        self, sample_id: str, protocol: str, model: str, *, retry_failed: bool = True
    ) -> bool:
        """Whether this sample already has a result in the run (a failed one counts as not
        done when `retry_failed`, so a resumed run asks again)."""
        found = self._done.get((sample_id, protocol, model))
        return found is not None and not (retry_failed and found.error is not None)

    def append(self, results: Iterable[SampleResult]) -> int:
        """Record finished samples; returns how many were recorded.

        A sample already recorded is skipped, unless its recorded result is a failure
        (`error` set): then the new result supersedes it (a retried sample).
        """
        if self._fd is None:
            self._fd = os.open(
                self.path / RESULTS_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644
            )
        fresh: dict[tuple[str, str, str], SampleResult] = {}
        for res in results:
            key = result_key(res)
            if key in self._done and self._done[key].error is None:
                continue
            if key in fresh and fresh[key].error is None:
                continue
            fresh[key] = res
        try:
            # one write per line: a kill tears at most the line being written
            for key, res in fresh.items():
                os.write(self._fd, res.model_dump_json().encode("utf-8") + b"\n")
                self._done[key] = res
            if fresh:
                os.fsync(self._fd)
        except OSError as exc:
            # a full disk: say what is kept (a torn last line is dropped on reopen)
            raise OSError(
                exc.errno,
                f"{exc.strerror or exc}; the run's {len(self._done)} results recorded so far "
                "are kept",
                str(self.path / RESULTS_FILE),
            ) from exc
        return len(fresh)

    def results(self) -> list[SampleResult]:
        """Every recorded result, in the order first recorded."""
        return list(self._done.values())

    def __iter__(self) -> Iterator[SampleResult]:
        return iter(self._done.values())

    def __len__(self) -> int:
        return len(self._done)

    def finish(
        self, summary: dict[str, Any], counts: dict[str, int], status: str = "done"
    ) -> RunRecord:
        """Write the summary and mark the run with its final status."""
        _atomic_write(self.path / SUMMARY_FILE, json.dumps(summary, indent=2, sort_keys=True))
        self.record = self.record.model_copy(
            update={"status": status, "counts": counts, "summary": summary}
        )
        _atomic_write(self.path / RUN_FILE, self.record.model_dump_json(indent=2))
        return self.record

    def close(self) -> None:
        """Release the results file and the folder lock."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if not self._lock.closed:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_UN)
            self._lock.close()

    def __enter__(self) -> RunFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_run_folder(root: Path) -> None:
    """Refuse to write a run into a folder of unrelated files (a typo in --out, a dataset
    folder): it must be new, empty, or hold a run already (to resume it). `RunFolder.open`
    calls it; a pipeline may call it first to refuse before it loads a model."""
    _check_not_busy(root)
    if not root.exists() or (root / RUN_FILE).exists():
        return
    if not root.is_dir():
        raise NotADirectoryError(f"run folder {root} is a file; use a new or empty folder")
    foreign = sorted(p.name for p in root.iterdir() if p.name != LOCK_FILE)
    if foreign:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if foreign[3:] else "")
        raise RunConfigMismatch(
            f"run folder {root} holds files that are not a chartproof run ({shown}); "
            "use a new or empty folder"
        )


def _check_not_busy(root: Path) -> None:
    """Refuse a run folder another process holds open (its lock is taken), before anything
    is loaded; `RunFolder.open` takes the lock itself."""
    lock_path = root / LOCK_FILE
    if not lock_path.is_file():
        return
    with lock_path.open("a+", encoding="utf-8") as probe:
        try:
            fcntl.flock(probe.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunBusyError(f"run folder {root} is in use by another process") from None
        fcntl.flock(probe.fileno(), fcntl.LOCK_UN)


def _unreadable_record(run_file: Path, exc: Exception) -> str:
    """Why `run_file` cannot be resumed, on one line: the version that wrote it when it says."""
    try:
        written = json.loads(run_file.read_text(encoding="utf-8")).get("code_version")
    except (ValueError, AttributeError, OSError):
        written = None
    first = exc.errors()[0] if isinstance(exc, ValidationError) and exc.errors() else None
    detail = (
        f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
        if first
        else " ".join(str(exc).split())
    )
    if isinstance(written, str) and written != code_version():
        return (
            f"run folder {run_file.parent} was written by chartproof {written}, in a format "
            f"this version ({code_version()}) cannot read ({detail}); use a new --out folder "
            "(or that version to resume it)"
        )
    return f"{run_file} is not a chartproof run record ({detail}); use a new --out folder"


def load_run(path: str | Path) -> Run:
    """Read a run folder without locking it (for reports and analysis): a `Run`, which
    unpacks as ``record, results`` and gives pandas frames of both."""
    root = Path(path)
    run_file = root / RUN_FILE
    if not run_file.exists():
        raise FileNotFoundError(
            f"{root} is not a chartproof run folder (no {RUN_FILE}); pass the --out folder of "
            "an eval, audit, explain or derender run"
        )
    try:
        record = RunRecord.model_validate_json(run_file.read_text(encoding="utf-8"))
    except (ValidationError, ValueError) as exc:
        raise RunConfigMismatch(_unreadable_record(run_file, exc)) from exc
    return Run(record, list(_read_results(root / RESULTS_FILE).done.values()))


class _Read:
    """What a results file holds: results by key, the valid lines, the byte length of the
    intact prefix, the torn last line (0 or 1) and the corrupt lines (1-based number, bytes)."""

    def __init__(self) -> None:
        self.done: dict[tuple[str, str, str], SampleResult] = {}
        self.good: list[bytes] = []
        self.good_bytes = 0
        self.torn = 0
        self.corrupt: list[tuple[int, bytes]] = []


def _read_results(path: Path) -> _Read:
    """Read a results file. Only an unterminated last line counts as torn (a killed writer
    leaves at most one); any other unreadable line is corrupt and is reported by number."""
    out = _Read()
    if not path.exists():
        return out
    lines = path.read_bytes().splitlines(keepends=True)
    for number, raw in enumerate(lines, start=1):
        if not raw.endswith(b"\n") and number == len(lines):
            out.torn = 1
            break
        try:
            res = SampleResult.model_validate_json(raw)
        except ValidationError:
            if raw.strip():
                out.corrupt.append((number, raw))
            continue
        out.good.append(raw)
        if not out.corrupt:
            out.good_bytes += len(raw)
        key = result_key(res)
        earlier = out.done.get(key)
        if earlier is None or (earlier.error is not None and res.error is None):
            out.done[key] = res
    if out.corrupt:
        numbers = ", ".join(str(n) for n, _ in out.corrupt[:10])
        more = f" and {len(out.corrupt) - 10} more" if len(out.corrupt) > 10 else ""
        warnings.warn(
            f"{path}: line {numbers}{more} is not a valid result; kept the "
            f"{len(out.good)} valid lines and moved the bad ones to {QUARANTINE_FILE}",
            RuntimeWarning,
            stacklevel=3,
        )
    return out


def _atomic_write(path: Path, text: str) -> None:
    _atomic_write_bytes(path, text.encode("utf-8"))


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
