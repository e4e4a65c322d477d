"""Image files as models see them: content hashes for cache keys and data URLs for APIs.

Hashes are remembered per (path, size, mtime) so a suite that asks many questions about one
chart reads and hashes its file once per process.
"""

from __future__ import annotations

import base64
import hashlib
import os
import threading
from pathlib import Path

from chartproof.types import ImagePart

__all__ = ["data_url", "file_sha256", "image_mime", "image_part"]

_HASHES: dict[tuple[str, int, int], str] = {}
_HASH_LOCK = threading.Lock()
_MAX_REMEMBERED = 100_000

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes, remembered until the file's size or mtime changes.

    Raises FileNotFoundError naming the path when the file is missing.
    """
    p = Path(path).resolve()
    try:
        st = p.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"image file not found: {p}") from None
    key = (str(p), st.st_size, st.st_mtime_ns)
    with _HASH_LOCK:
        known = _HASHES.get(key)
    if known is not None:
        return known
    h = hashlib.sha256()
    with p.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    with _HASH_LOCK:
        if len(_HASHES) >= _MAX_REMEMBERED:
            _HASHES.clear()
        _HASHES[key] = digest
    return digest


def image_part(path: str | os.PathLike[str]) -> ImagePart:
    """An `ImagePart` for a file: its absolute path and content hash."""
    p = Path(path).resolve()
    return ImagePart(path=str(p), sha256=file_sha256(p))


def image_mime(data: bytes, path: str = "") -> str:
    """MIME type of image bytes, from their magic number (the file suffix as a fallback)."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    suffix = Path(path).suffix.lower()
    return {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif"}.get(
        suffix, "image/png"
    )


def data_url(path: str | os.PathLike[str]) -> str:
    """The file as a base64 `data:` URL, the form chat-completions APIs accept for images."""
    data = Path(path).read_bytes()
    encoded = base64.b64encode(data).decode("ascii")
    return f"data:{image_mime(data, str(path))};base64,{encoded}"
