"""Encoded images checked before they are decoded: one byte cap, one pixel cap, one opener.

Used wherever untrusted image bytes arrive (what a sandboxed script returned, a dataset's
files): the header is read, the canvas it declares is checked, and only then may a caller
decode. A small file that declares a huge canvas (a decompression bomb) costs nothing.
"""

from __future__ import annotations

import io
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

__all__ = ["MAX_IMAGE_BYTES", "MAX_PIXELS", "open_image"]

MAX_IMAGE_BYTES = 64 * 1024 * 1024
"""Largest encoded image decoded (bytes)."""
MAX_PIXELS = 16_000_000
"""Largest canvas decoded (width × height; 4000 × 4000). Decoding costs about 4 bytes a
pixel per copy, so the cap keeps one image under ~200 MB of the parent's memory."""


def open_image(
    data: bytes, *, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_IMAGE_BYTES
) -> Image.Image:
    """A lazily opened PIL image whose header passed the caps: nothing is decoded yet.

    Raises ValueError (one line) for bytes over `max_bytes`, bytes no decoder recognises,
    and a canvas over `max_pixels` (PIL's own bomb guard is only a warning below 2 ×
    `Image.MAX_IMAGE_PIXELS`)."""
    from PIL import Image, UnidentifiedImageError

    if len(data) > max_bytes:
        raise ValueError(f"image of {len(data)} bytes is over the {max_bytes}-byte cap")
    try:
        with warnings.catch_warnings():  # the pixel cap below is the guard
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            pil = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:
        head = data[:16].decode("latin-1").translate({i: "." for i in range(32)})
        raise ValueError(
            f"not a decodable image ({len(data)} bytes): no known image format (starts {head!r})"
        ) from None
    except Exception as exc:
        raise ValueError(f"not a decodable image ({len(data)} bytes): {exc}") from exc
    width, height = pil.size
    if width <= 0 or height <= 0 or width * height > max_pixels:
        raise ValueError(
            f"image of {width}×{height} pixels is over the {max_pixels}-pixel cap "
            f"({len(data)} bytes; a decompression bomb?)"
        )
    return pil
