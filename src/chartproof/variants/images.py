"""Chart images as arrays and PNG bytes: one decoding and one deterministic encoding.

Every perturbation works on H×W×3 uint8 RGB arrays; transparency is flattened onto white.
Encoded images are checked before they are decoded (bytes, then the pixel count in the
header), so a small file that declares a huge canvas (a decompression bomb, e.g. one a
sandboxed script returned) is refused in one line instead of costing gigabytes.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from chartproof._images import MAX_IMAGE_BYTES, MAX_PIXELS, open_image

__all__ = [
    "MAX_IMAGE_BYTES",
    "MAX_PIXELS",
    "RGB",
    "ImageInput",
    "encode_png",
    "open_image",
    "to_rgb",
]


RGB: TypeAlias = NDArray[np.uint8]
"""An H×W×3 uint8 image."""

ImageInput: TypeAlias = bytes | NDArray[np.generic] | Image.Image | Path
"""What image-taking functions accept: encoded bytes (PNG, JPEG, GIF, ...), an array
(H×W grey, H×W×3 RGB or H×W×4 RGBA), a PIL image, or a file path."""


def to_rgb(
    image: ImageInput, *, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_IMAGE_BYTES
) -> RGB:
    """Decode or convert `image` to an H×W×3 uint8 RGB array (alpha composited on white).

    Raises ValueError for arrays of another shape, for bytes that are not an image, and for
    an encoded image over `max_bytes` or whose header declares more than `max_pixels`
    (checked before anything is decoded).
    """
    if isinstance(image, np.ndarray):
        return _array_to_rgb(image)
    if isinstance(image, Path):
        size = image.stat().st_size
        if size > max_bytes:
            raise ValueError(f"image of {size} bytes is over the {max_bytes}-byte cap")
        image = image.read_bytes()
    pil: Image.Image
    if isinstance(image, bytes):
        pil = open_image(image, max_pixels=max_pixels, max_bytes=max_bytes)
        try:
            pil.load()
        except Exception as exc:
            raise ValueError(f"not a decodable image ({len(image)} bytes): {exc}") from exc
    else:
        pil = image
    if pil.mode in ("RGBA", "LA", "PA") or (pil.mode == "P" and "transparency" in pil.info):
        rgba = pil.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        pil = Image.alpha_composite(white, rgba)
    return np.asarray(pil.convert("RGB"), dtype=np.uint8).copy()


def _array_to_rgb(arr: NDArray[np.generic]) -> RGB:
    if arr.dtype != np.uint8:
        if np.issubdtype(arr.dtype, np.floating) and arr.size and float(np.max(arr)) <= 1.0:
            arr = arr.astype(np.float64) * 255.0
        arr = np.clip(np.rint(arr.astype(np.float64)), 0, 255).astype(np.uint8)
    if arr.ndim == 2:
        return np.repeat(arr[:, :, None], 3, axis=2)
    if arr.ndim == 3 and arr.shape[2] == 3:
        return np.ascontiguousarray(arr, dtype=np.uint8)
    if arr.ndim == 3 and arr.shape[2] == 4:
        return to_rgb(Image.fromarray(np.ascontiguousarray(arr, dtype=np.uint8), "RGBA"))
    raise ValueError(f"image array must be H×W, H×W×3 or H×W×4, got shape {arr.shape}")


def encode_png(image: RGB) -> bytes:
    """PNG bytes of an RGB array; the same pixels always give the same bytes (no metadata).

    zlib level 3: noisy variants barely compress, and level 6 takes three times as long
    for a few per cent smaller files."""
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image, dtype=np.uint8), "RGB").save(
        buf, format="PNG", compress_level=3
    )
    return buf.getvalue()
