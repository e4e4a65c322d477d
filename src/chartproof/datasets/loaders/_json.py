"""Reading the JSON files of native dataset layouts: whole-file documents whose failure is
one clear error naming the file, the lists of records inside them, and the choice of the
layout's split files."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import RowError, RowLog

__all__ = ["json_records", "pick_splits", "read_json"]


def read_json(file: Path) -> JsonValue:
    """The parsed document; ValueError naming the file when it is not UTF-8 JSON."""
    try:
        data: JsonValue = json.loads(file.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{file}: not a JSON file ({exc})") from exc
    return data


def json_records(
    data: JsonValue, file: Path, log: RowLog, *, key: str | None = None
) -> list[tuple[int, dict[str, JsonValue]]]:
    """(1-based position, record) of a JSON array of objects (or of the array under `key`);
    items that are not objects become row errors. ValueError when there is no array."""
    items = data.get(key) if key is not None and isinstance(data, dict) else data
    if not isinstance(items, list):
        where = f" under {key!r}" if key else ""
        raise ValueError(f"{file}: expected a JSON array of records{where}")
    out: list[tuple[int, dict[str, JsonValue]]] = []
    for i, item in enumerate(items, start=1):
        if isinstance(item, dict):
            out.append((i, item))
        else:
            log.error(
                RowError(
                    file=str(file), line=i, message=f"expected a JSON object, got {item!r}"[:200]
                )
            )
    return out


def pick_splits(split: str | None, found: Iterable[str]) -> tuple[list[str], list[str]]:
    """(chosen, unknown): the comma-separated `split` names (all of `found`, sorted, when
    none), and those of them `found` lacks; the caller raises when `unknown` or nothing
    was chosen, naming its own layout."""
    names = sorted(found)
    chosen = [s for s in split.split(",") if s] if split else names
    return chosen, sorted(set(chosen) - set(names))
