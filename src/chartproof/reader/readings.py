"""Chart readings kept on disk, so that a chart image is perceived once: by one worker process
for every other worker (a fanned-out run), and by one run for every later run and protocol
(``eval --protocol chain`` after ``--protocol direct``, ``derender`` after ``eval``).

A reading is a function of the image's bytes and the perception and OCR code, so the store is
keyed by the image's SHA-256 under a folder named by their hash (`reader_revision`): a changed
perception never serves an older one's readings, a changed solver reuses them. A failure to read is stored too (the same bytes fail the
same way). Files are written to a temporary name and renamed, so concurrent workers never see
half a file; an unreadable entry is treated as missing and read again.

Location: ``$CHARTPROOF_READINGS``, else a ``readings/`` folder beside the response cache
(``$CHARTPROOF_CACHE``'s folder, else ``~/.cache/chartproof``). ``builtin:reader?disk_cache=false``
turns it off."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from chartproof.reader.perception.records import ChartReading

__all__ = ["READINGS_ENV", "ReadingStore", "clear_readings", "readings_dir", "readings_usage"]

log = logging.getLogger(__name__)

READINGS_ENV = "CHARTPROOF_READINGS"
"""Environment variable naming the readings folder."""


def readings_dir() -> Path:
    """``$CHARTPROOF_READINGS``, else ``readings/`` beside the response cache file."""
    env = os.environ.get(READINGS_ENV)
    if env:
        return Path(env).expanduser()
    from chartproof.models.cache import default_cache_path

    return default_cache_path().parent / "readings"


class ReadingStore:
    """Readings of one reader revision, one JSON file per image hash."""

    def __init__(self, root: Path, revision: str) -> None:
        self.folder = root / revision
        """Where this revision's readings live."""

    def _path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError(f"not a SHA-256 hex digest: {sha256!r:.80}")
        return self.folder / sha256[:2] / f"{sha256}.json"

    def get(self, sha256: str) -> ChartReading | str | None:
        """The stored reading, the stored failure text, or None when there is none (or the
        entry cannot be read: it is then read again and overwritten)."""
        path = self._path(sha256)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(raw, dict) and isinstance(raw.get("error"), str):
                return str(raw["error"])
            return ChartReading.model_validate(raw["reading"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, ValidationError) as e:
            log.warning("ignoring unreadable chart reading %s: %s", path, e)
            return None

    def put(self, sha256: str, found: ChartReading | str) -> None:
        """Store a reading (or a failure text); a store that cannot be written is skipped
        with a warning (the reading is only a cache)."""
        path = self._path(sha256)
        body = (
            json.dumps({"error": found})
            if isinstance(found, str)
            else '{"reading": ' + found.model_dump_json() + "}"
        )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(body)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as e:
            log.warning("could not store the chart reading %s: %s", path, e)


def readings_usage(root: Path) -> dict[str, tuple[int, int]]:
    """Reader revision → (stored readings, bytes) under `root`."""
    usage: dict[str, tuple[int, int]] = {}
    if not root.is_dir():
        return usage
    for revision in sorted(p for p in root.iterdir() if p.is_dir()):
        files = [f for f in revision.rglob("*.json") if not f.name.startswith(".tmp-")]
        usage[revision.name] = (len(files), sum(f.stat().st_size for f in files))
    return usage


def clear_readings(root: Path, *, keep: str | None = None) -> int:
    """Delete the stored readings under `root` (all revisions, or all but `keep`); returns
    how many were deleted."""
    import shutil

    deleted = 0
    for revision, (count, _) in readings_usage(root).items():
        if revision != keep:
            shutil.rmtree(root / revision)
            deleted += count
    return deleted
