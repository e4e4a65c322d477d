"""Bad rows of a dataset: each one named by file, line and field, counted and reported
(or raised at the first one in strict mode), never silently dropped."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from chartproof.types import Record, Sample

__all__ = ["DatasetError", "LoadResult", "RowError", "RowLog", "validation_message"]


class RowError(Record):
    """One problem with one row of a dataset file."""

    file: str
    """Path of the file the row is in."""
    line: int
    """1-based line number (JSONL) or row number (Parquet, JSON arrays)."""
    message: str
    """What is wrong, in words."""
    field: str | None = None
    """Dotted path of the offending field, e.g. "answer.value", when one is to blame."""
    sample_id: str | None = None
    """Id of the sample on that row, when it could be read."""
    severity: Literal["error", "warning"] = "error"
    """"error": the row was not loaded; "warning": it was loaded without the named part."""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        if self.sample_id is not None:
            where += f" (sample {self.sample_id!r})"
        what = f"field {self.field!r}: " if self.field else ""
        return f"{where}: {what}{self.message}"


class DatasetError(ValueError):
    """A bad row met in strict mode (or a dataset that cannot be read at all)."""

    def __init__(self, error: RowError) -> None:
        super().__init__(str(error))
        self.error = error
        """The row error that stopped the load."""


@dataclass
class LoadResult:
    """Samples read from a dataset, the rows that failed, and the folder images live in."""

    samples: list[Sample]
    """Samples of the good rows, in file order."""
    errors: list[RowError] = field(default_factory=list)
    """Bad rows (not loaded) and warnings (loaded without some part), in file order."""
    root: Path = Path()
    """Folder the samples' image paths are relative to."""

    @property
    def n_bad(self) -> int:
        """Number of rows that could not be loaded."""
        return sum(1 for e in self.errors if e.severity == "error")

    @property
    def n_warnings(self) -> int:
        """Number of rows loaded without some part (e.g. an unreadable table)."""
        return sum(1 for e in self.errors if e.severity == "warning")

    def first_chart_only(self, pipeline: str, limit: int = 3) -> str | None:
        """One warning line for a pipeline that reads one chart a sample (derender, the
        audit) when some samples show several (`Sample.images`): how many, and the first
        ids; None when every sample shows one chart."""
        multi = [s for s in self.samples if s.more_images]
        if not multi:
            return None
        ids = ", ".join(repr(s.id) for s in multi[:limit])
        more = f" and {len(multi) - limit} more" if len(multi) > limit else ""
        return (
            f"{len(multi)} of {len(self.samples)} samples show several charts ({ids}{more}); "
            f"{pipeline} reads only the first chart of each"
        )

    def summary(self, limit: int = 5) -> str:
        """One paragraph for a log: counts and the first few problems."""
        head = f"{len(self.samples)} samples loaded from {self.root}"
        if self.errors:
            head += f"; {self.n_bad} bad rows skipped, {self.n_warnings} warnings"
            lines = [f"  {e.severity}: {e}" for e in self.errors[:limit]]
            if len(self.errors) > limit:
                lines.append(f"  ... and {len(self.errors) - limit} more")
            head += "\n" + "\n".join(lines)
        return head


class RowLog:
    """Collects row problems for one load; raises at the first error when strict."""

    def __init__(self, errors: list[RowError] | None, *, strict: bool) -> None:
        self.errors: list[RowError] = [] if errors is None else errors
        """Where problems are appended."""
        self.strict = strict
        """Raise `DatasetError` at the first error instead of collecting it."""

    def error(self, error: RowError) -> None:
        """Record a bad row (or raise it in strict mode)."""
        if self.strict and error.severity == "error":
            raise DatasetError(error)
        self.errors.append(error)


def validation_message(exc: ValidationError) -> tuple[str | None, str]:
    """The first failing field of a pydantic error as a dotted path, and its message."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or None
    message = first["msg"]
    if exc.error_count() > 1:
        message += f" (and {exc.error_count() - 1} more problems)"
    return loc, message
