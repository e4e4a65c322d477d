"""Every ordinary mistake as one red line naming the culprit and the fix, in one place.

Each command's body runs under `guarded` (the `App` wraps every command with it): an
exception it raises is matched against the rules of `explain`, in order, and printed as one
line on stderr with exit status 2 for a usage error (a wrong path, name or value) or 1 for a
failure (a missing package, a full disk, an unreachable server), 130 for Ctrl-C. Anything
no rule expects is still one line, saying it is an internal error and how to see more.
`--debug` (or CHARTPROOF_DEBUG=1) lets the exception through, traceback and all.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import signal
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any, TypeVar

import typer
from typer.exceptions import TyperException

__all__ = ["DEBUG_ENV", "Mistake", "debugging", "explain", "guarded", "set_debug"]

DEBUG_ENV = "CHARTPROOF_DEBUG"
"""Environment variable that, set to anything but "" or "0", shows tracebacks."""

USAGE, FAILURE, INTERRUPTED = 2, 1, 130
"""Exit statuses: a usage error, a failure, Ctrl-C (128 + SIGINT)."""

_DEBUG_FLAG = [False]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Mistake:
    """What the user is told: one line, and the exit status."""

    code: int
    line: str


def set_debug(on: bool) -> None:
    """Turn tracebacks on for this process (the `--debug` flag)."""
    _DEBUG_FLAG[0] = on


def debugging() -> bool:
    """Whether exceptions go through with their traceback (`--debug` or CHARTPROOF_DEBUG)."""
    return _DEBUG_FLAG[0] or os.environ.get(DEBUG_ENV, "").strip() not in ("", "0")


def guarded(f: F) -> F:
    """`f` with every exception it raises turned into one line and an exit status."""

    @functools.wraps(f)
    def run(*args: Any, **kwargs: Any) -> Any:
        _python_sigint()
        try:
            return f(*args, **kwargs)
        except (typer.Exit, typer.Abort, TyperException, SystemExit):
            raise
        except BaseException as exc:
            if debugging():
                raise
            mistake = explain(exc)
            _print(mistake.line)
            raise typer.Exit(mistake.code) from None

    return run  # type: ignore[return-value]


def _python_sigint() -> None:
    """Ctrl-C raises KeyboardInterrupt again in the command's body (the console script
    turns it into one line while it starts; run loops install their own handler)."""
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGINT)
    if getattr(current, "__module__", None) == "chartproof.cli":
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _print(line: str) -> None:
    from rich.markup import escape

    from chartproof.cli._progress import console

    console.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)


def explain(exc: BaseException) -> Mistake:
    """The line and exit status for `exc` (the first rule that matches)."""
    for rule in _RULES:
        found = rule(exc)
        if found is not None:
            return found
    return Mistake(
        FAILURE,
        f"internal error: {type(exc).__name__}: {_one_line(str(exc))} "
        f"(rerun with --debug or {DEBUG_ENV}=1 for the traceback, and please report it)",
    )


def _one_line(text: str) -> str:
    """`text` on one line: its lines joined, runs of spaces squeezed."""
    return " ".join(text.split())


def _interrupted(exc: BaseException) -> Mistake | None:
    if not isinstance(exc, KeyboardInterrupt):
        return None
    kept = getattr(exc, "kept", None)
    total = getattr(exc, "total", None)
    if isinstance(kept, int) and isinstance(total, int):
        line = f"interrupted: {kept} of {total} results kept; rerun the same command to resume"
    else:
        line = "interrupted; what was finished is kept: rerun the same command to resume"
    return Mistake(INTERRUPTED, line)


def _missing_package(exc: BaseException) -> Mistake | None:
    if not isinstance(exc, ImportError):
        return None
    text = _one_line(str(exc))
    named = re.search(r"chartproof\[([\w,-]+)\]", text)
    extra = named.group(1) if named else _extra_of(exc.name or "")
    if extra is None:
        return Mistake(FAILURE, f"{text}; a Python package is missing from this environment")
    fix = f"pip install 'chartproof[{extra}]'; from a git clone: scripts/bootstrap {extra}"
    # the message's own pip command is replaced by one that names both ways
    text = _PIP_HINT.sub("", text).rstrip(" :;,")
    return Mistake(FAILURE, f"{text}; install it with: {fix}")


_PIP_HINT = re.compile(r"[;:,]?\s*(?:install it with:?\s*)?pip install\s+'?chartproof\[[\w,-]+\]'?")


def _extra_of(module: str) -> str | None:
    """The extra of chartproof's that installs the package of `module`, or None."""
    top = module.split(".")[0].lower().replace("-", "_")
    if not top:
        return None
    try:
        requires = metadata.requires("chartproof") or []
    except metadata.PackageNotFoundError:
        return None
    for req in requires:
        found = re.match(r"^\s*([A-Za-z0-9_.-]+).*extra\s*==\s*['\"]([\w-]+)['\"]", req)
        if found and found.group(1).lower().replace("-", "_") == top and found.group(2) != "all":
            return found.group(2)
    return None


def _disk_full(exc: BaseException) -> Mistake | None:
    if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
        return Mistake(
            FAILURE,
            f"the response cache cannot grow ({exc}): the run's results recorded so far and "
            "the replies cached so far are kept; free disk space (or pass --no-cache) and "
            "rerun the same command to resume",
        )
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        where = f" writing {exc.filename}" if exc.filename else ""
        said = _one_line(exc.strerror or str(exc))
        kept = "" if "kept" in said else "; everything finished before it is kept"
        return Mistake(
            FAILURE,
            f"no space left on the disk{where}: {said}{kept}; free disk space and rerun the "
            "same command to resume",
        )
    return None


def _connection(exc: BaseException) -> Mistake | None:
    if not isinstance(exc, ConnectionError):
        return None
    option = getattr(exc, "option", "--model")  # `cli._servers.ServerUnreachable` says which
    return Mistake(
        FAILURE,
        f"cannot reach the model server: {_one_line(str(exc))}; start the server, or fix the "
        f"URL in {option}",
    )


def _bad_path(exc: BaseException) -> Mistake | None:
    if isinstance(exc, FileNotFoundError | NotADirectoryError | IsADirectoryError):
        if exc.filename and exc.strerror:
            return Mistake(USAGE, f"{exc.strerror}: {exc.filename}; check the path")
        return Mistake(USAGE, _one_line(str(exc)))
    if isinstance(exc, PermissionError):
        return Mistake(FAILURE, f"{exc.strerror or 'permission denied'}: {exc.filename or exc}")
    return None


def _invalid(exc: BaseException) -> Mistake | None:
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return None
    parts = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err.get("loc", ()))
        message = str(err.get("msg", "")).removeprefix("Value error, ")
        option = f"--{field.replace('_', '-')}" if field and "." not in field else field
        parts.append(f"{option}: {message}" if option else message)
    return Mistake(USAGE, _one_line("; ".join(parts)))


def _refused(exc: BaseException) -> Mistake | None:
    from chartproof.runs import RunBusyError
    from chartproof.sandbox import IsolationUnavailable

    if isinstance(exc, ValueError | RunBusyError):
        # bad input: a dataset, a spec, a name, a run folder that does not fit
        return Mistake(USAGE, _one_line(str(exc)))
    if isinstance(exc, IsolationUnavailable):
        return Mistake(FAILURE, _one_line(str(exc)))
    if isinstance(exc, OSError):
        return Mistake(FAILURE, _one_line(str(exc)))
    return None


_RULES: tuple[Callable[[BaseException], Mistake | None], ...] = (
    _interrupted,
    _missing_package,
    _disk_full,
    _connection,
    _bad_path,
    _invalid,
    _refused,
)
