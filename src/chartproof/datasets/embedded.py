"""Images stored inside dataset files (Parquet / Arrow columns of bytes, Hugging Face
`Image` features) written once to a content-addressed cache folder, so samples keep plain
relative image paths and `eval` runs on such files without an `?images=DIR` option.

Files are named by the SHA-256 of their bytes: the same chart shared by many questions is
written once, a rerun writes nothing, and two datasets never overwrite each other's images.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pydantic import JsonValue

from chartproof._cachedir import cache_home

__all__ = [
    "EmbeddedImages",
    "default_image_cache",
    "image_bytes_of",
    "image_suffix",
    "json_safe",
]

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", ".png"),
    (b"\xff\xd8\xff", ".jpg"),
    (b"GIF87a", ".gif"),
    (b"GIF89a", ".gif"),
    (b"BM", ".bmp"),
)


def default_image_cache() -> Path:
    """`$CHARTPROOF_IMAGE_CACHE`, else `<cache home>/images`."""
    found = os.environ.get("CHARTPROOF_IMAGE_CACHE")
    return Path(found).expanduser() if found else cache_home() / "images"


def image_suffix(data: bytes) -> str:
    """File suffix for image bytes from their magic number (".img" when unknown)."""
    for magic, suffix in _MAGIC:
        if data.startswith(magic):
            return suffix
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    return ".img"


def image_bytes_of(value: object) -> bytes | None:
    """The bytes of an embedded image cell: raw bytes, or a Hugging Face `Image` value
    {"bytes": ..., "path": ...}; None when the cell holds no bytes (a path, null)."""
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        return data or None
    if isinstance(value, dict):
        inner = value.get("bytes")
        if isinstance(inner, bytes | bytearray | memoryview) and inner:
            return bytes(inner)
    return None


class EmbeddedImages:
    """Writes embedded images into `root` by content hash; `root` is the dataset folder
    the loaded samples' image paths are relative to."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_image_cache()
        """Folder the image files are written to."""
        self._written: dict[str, str] = {}

    def store(self, data: bytes) -> str:
        """The relative path of `data` inside `root`, writing the file if it is not there."""
        digest = hashlib.sha256(data).hexdigest()
        found = self._written.get(digest)
        if found is not None:
            return found
        rel = f"{digest[:2]}/{digest}{image_suffix(data)}"
        target = self.root / rel
        if not target.is_file() or target.stat().st_size != len(data):
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
            partial.write_bytes(data)
            partial.replace(target)  # atomic: a concurrent loader sees all or nothing
        self._written[digest] = rel
        return rel


def json_safe(value: object) -> JsonValue:
    """A row value as JSON (bytes dropped to their length), for `Sample.source`."""
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
