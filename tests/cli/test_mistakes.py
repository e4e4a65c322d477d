"""The mistake catalogue: every ordinary mistake a user makes, run through the real CLI, is
one red line naming the culprit and the fix, with exit status 2 (usage), 1 (failure) or 130
(Ctrl-C), and no traceback; `--debug` or CHARTPROOF_DEBUG=1 shows the traceback."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chartproof.cli import _register
from chartproof.cli._app import app

Setup = Callable[[Path, pytest.MonkeyPatch], None]


@dataclass(frozen=True)
class Case:
    """One mistake: the command (DATA and TMP stand for the dataset and a scratch folder),
    what to break first, and the exit status and words of the one line expected."""

    name: str
    args: list[str]
    code: int
    says: tuple[str, ...]
    setup: Setup | None = None
    only_line: bool = True
    """Whether the error line is all the command prints (else: the only error line)."""
    extra: dict[str, Any] = field(default_factory=dict)


def _junk_out(tmp: Path, _: pytest.MonkeyPatch) -> None:
    (tmp / "out").mkdir()
    (tmp / "out" / "notes.txt").write_text("mine")
    (tmp / "out" / "thesis.tex").write_text("mine")


def _not_chartqa(tmp: Path, _: pytest.MonkeyPatch) -> None:
    (tmp / "chartqa").mkdir()
    (tmp / "chartqa" / "charts.zip").write_bytes(b"")


def _no_datasets(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)


def _no_transformers(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)


def _ctrl_c(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chartproof.pipelines import evaluate

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate, "run_evaluation", interrupted)


def _disk_full_in_run(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chartproof.runs import folder

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(folder.os, "write", full)


def _disk_full_in_cache(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chartproof.models.cache import ResponseCache

    def full(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ResponseCache, "put_many", full)


def _old_run(tmp: Path, _: pytest.MonkeyPatch) -> None:
    (tmp / "old").mkdir()
    record = {"id": "old", "code_version": "0.0.1", "config": {}, "layout": 1}
    (tmp / "old" / "run.json").write_text(json.dumps(record))


def _a_bug(_: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chartproof import reports

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("'NoneType' object is not subscriptable")

    monkeypatch.setattr(reports, "report", broken)


def _a_run(tmp: Path, _: pytest.MonkeyPatch) -> None:
    (tmp / "run").mkdir()
    (tmp / "run" / "run.json").write_text("{}")


NO_CACHE = ["-q", "--no-cache", "--no-report"]
ECHO = ["-m", "builtin:echo", "--executor", "local:1"]
"""A scripted model that answers "1" at once (registered by `echo`)."""

CASES = [
    Case("wrong --data path", ["eval", "-d", "TMP/nope", "-o", "TMP/r", *NO_CACHE], 2,
         ("no dataset at", "TMP/nope", "check the path")),
    Case("chartqa: on a folder not in the official layout",
         ["eval", "-d", "chartqa:TMP/chartqa", "-o", "TMP/r", *NO_CACHE], 2,
         ("not the official ChartQA layout", "train/, val/ and test/"), _not_chartqa),
    Case("misspelt suite", ["generate", "--suite", "chartqx", "--n", "1", "-o", "TMP/g", "-q"],
         2, ("unknown suite 'chartqx' (did you mean 'chartqax'?)", "realcqa")),
    Case("misspelt protocol", ["eval", "-d", "DATA", "-o", "TMP/r", "--protocol", "chains",
                               *NO_CACHE], 2,
         ("--protocol: unknown protocol 'chains' (did you mean 'chain'?)", "premise")),
    Case("report on a folder that is not a run", ["report", "TMP"], 2,
         ("is not a chartproof run folder", "--out folder of an eval")),
    Case("export --to hf without datasets", ["export", "-d", "DATA", "-o", "TMP/hf", "--to",
                                             "hf"], 1,
         ("needs the `datasets` package; install it with: pip install 'chartproof[datasets]'",
          "scripts/bootstrap datasets"), _no_datasets),
    Case("Ctrl-C", ["eval", "-d", "DATA", "-o", "TMP/r", *ECHO, *NO_CACHE], 130,
         ("interrupted", "rerun the same command to resume"), _ctrl_c),
    Case("misspelt built-in model", ["eval", "-d", "DATA", "-o", "TMP/r", "-m", "builtin:raeder",
                                     *NO_CACHE], 2,
         ("unknown built-in model 'raeder' (did you mean 'reader'?)", "choose one of: ")),
    Case("--out on a folder of unrelated files",
         ["eval", "-d", "DATA", "-o", "TMP/out", *ECHO, *NO_CACHE], 2,
         ("holds files that are not a chartproof run", "notes.txt", "new or empty folder"),
         _junk_out),
    Case("generate --out on a folder of unrelated files",
         ["generate", "--suite", "chartqax", "--n", "1", "-o", "TMP/out", "-q"], 2,
         ("output folder", "holds files that are not a chartproof dataset",
          "notes.txt, thesis.tex", "use a new or empty folder"), _junk_out),
    Case("generate --out on a run folder", ["generate", "--n", "1", "-o", "TMP/run", "-q"], 2,
         ("not a chartproof dataset", "run.json"), _a_run),
    # in this process (local:1), where the setup hides transformers: a pool worker would
    # import it afresh
    Case("a missing extra", ["eval", "-d", "DATA", "-o", "TMP/r", "-m", "text:smollm2",
                             "--executor", "local:1", *NO_CACHE], 1,
         ("needs the Python package 'transformers'", "; install it with: pip install 'chartproof[hf]'",
          "scripts/bootstrap hf"), _no_transformers),
    Case("a model folder not found", ["eval", "-d", "DATA", "-o", "TMP/r", "-m",
                                      "hf:TMP/no-model", *NO_CACHE], 2,
         ("TMP/no-model", "does not exist")),
    # checked before the first sample (not every sample failing after its retries)
    Case("a server that refuses", ["eval", "-d", "DATA", "-o", "TMP/r", "-m",
                                   "openai:vlm@http://127.0.0.1:9/v1", *NO_CACHE],
         1, ("cannot reach the model server: http://127.0.0.1:9/v1: connection refused",
             "start the server, or fix the URL in --model")),
    Case("a judge server that refuses", ["eval", "-d", "DATA", "-o", "TMP/r", *ECHO, "--judge",
                                         "openai:judge@http://127.0.0.1:9/v1", *NO_CACHE],
         1, ("http://127.0.0.1:9/v1: connection refused", "fix the URL in --judge")),
    Case("an unknown server host", ["audit", "-d", "DATA", "-o", "TMP/r", "-m",
                                    "openai:vlm@http://no-such-host.invalid:8000/v1"],
         1, ("no-such-host.invalid", "fix the URL in --model")),
    Case("a full disk in the run folder", ["eval", "-d", "DATA", "-o", "TMP/r", *ECHO, *NO_CACHE],
         1,
         ("no space left", "results.jsonl", "; the run's 0 results recorded so far are kept; free",
          "rerun the same command"), _disk_full_in_run),
    Case("a full disk in the response cache", ["eval", "-d", "DATA", "-o", "TMP/r", *ECHO,
                                               "-q", "--no-report"], 1,
         ("response cache", "disk is full", "--no-cache", "rerun the same command"),
         _disk_full_in_cache, extra={"CHARTPROOF_CACHE": "TMP/cache.sqlite"}),
    Case("a run folder of another version", ["eval", "-d", "DATA", "-o", "TMP/old", *ECHO,
                                             *NO_CACHE], 2, ("written by chartproof 0.0.1", "use a new --out folder"), _old_run),
    Case("report on a damaged run record", ["report", "TMP/run"], 2,
         ("is not a chartproof run record", "use a new --out folder"), _a_run),
    Case("an unexpected error", ["eval", "-d", "DATA", "-o", "TMP/r", *ECHO, "-q", "--no-cache"],
         1,
         ("internal error: TypeError", "--debug", "CHARTPROOF_DEBUG=1"), _a_bug,
         only_line=False),
]  # fmt: skip


pytestmark = pytest.mark.usefixtures("echo_builtin")


def _run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str, BaseException]:
    _register()
    res = CliRunner().invoke(app, args, env=env)
    return res.exit_code, res.output, res.exception  # type: ignore[return-value]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_mistake_is_one_line(
    case: Case, dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if case.name == "a missing extra":
        pytest.importorskip("torch")
    monkeypatch.delenv("CHARTPROOF_DEBUG", raising=False)
    if case.setup is not None:
        case.setup(tmp_path, monkeypatch)

    def fill(text: str) -> str:
        return text.replace("DATA", str(dataset)).replace("TMP", str(tmp_path))

    env = {k: fill(v) for k, v in case.extra.items()}
    code, output, _ = _run([fill(a) for a in case.args], env=env or None)
    lines = [line for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert code == case.code, output
    assert len(errors) == 1, output
    assert "Traceback" not in output and "╭" not in output, output
    if case.only_line:
        assert lines == errors, output
    for words in case.says:
        assert fill(words) in errors[0], (words, errors[0])


def test_debug_shows_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--debug` and CHARTPROOF_DEBUG=1 let the exception through (typer prints it)."""
    monkeypatch.delenv("CHARTPROOF_DEBUG", raising=False)
    code, _, exc = _run(["--debug", "report", str(tmp_path)])
    assert code == 1 and isinstance(exc, FileNotFoundError)
    code, _, exc = _run(["report", str(tmp_path)], env={"CHARTPROOF_DEBUG": "1"})
    assert code == 1 and isinstance(exc, FileNotFoundError)
    code, output, _ = _run(["report", str(tmp_path)], env={"CHARTPROOF_DEBUG": "0"})
    assert code == 2 and output.startswith("error: "), output


def test_a_real_process_prints_one_line(tmp_path: Path) -> None:
    """The console script itself: one line on stderr, nothing on stdout, exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", "chartproof", "eval", "-d", str(tmp_path / "nope"), "-o",
         str(tmp_path / "r")],
        capture_output=True, text=True, check=False,
        env={**os.environ, "COLUMNS": "60", "CHARTPROOF_DEBUG": ""},
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: no dataset at")


def test_version_flag() -> None:
    from chartproof import __version__

    code, output, _ = _run(["--version"])
    assert code == 0 and output.strip() == f"chartproof {__version__}"


def test_other_libraries_are_quiet_unless_verbose(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --verbose a command silences transformers' and the hub's progress bars and
    warnings (here and in the workers it starts); with it, it leaves them be."""
    for key in ("HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_VERBOSITY", "TQDM_DISABLE"):
        monkeypatch.delenv(key, raising=False)
    code, _, _ = _run(["--verbose", "version"])
    assert code == 0 and "TQDM_DISABLE" not in os.environ
    code, _, _ = _run(["version"])
    assert code == 0 and os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
    assert os.environ["TRANSFORMERS_VERBOSITY"] == "error" and os.environ["TQDM_DISABLE"] == "1"
