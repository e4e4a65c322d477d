"""Safe image loading for the reader: the declared size is checked before any pixel is
decoded (decompression bombs), and empty, corrupt or absurd files fail with a clear error."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

__all__ = ["MAX_PIXELS", "MAX_SIDE", "ImageError", "load_image"]

MAX_PIXELS = 40_000_000
"""Largest declared width × height the reader decodes (a 6000×6000 chart is fine)."""

MAX_SIDE = 16_000
"""Largest declared width or height."""

WORK_SIDE = 1400
"""Larger images are scaled down to this long side before reading: OCR and derendering
time grow with the pixel count, and print-resolution exports (3420×2784) carry text large
enough to stay legible at this size (measured on a ChartQA chart blown up to 3420×2784: at
2000 px its bars were misread, at 1400 px every value came back and reading took about a
third of the time)."""


class ImageError(ValueError):
    """The file cannot be read as an image (missing, empty, corrupt, too large)."""


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Decode an image file into RGB uint8 pixels (transparency composited on white).

    Raises ImageError naming the file and the problem.
    """
    from PIL import Image, UnidentifiedImageError

    p = Path(path)
    if not p.is_file():
        raise ImageError(f"{p}: no such image file")
    if p.stat().st_size == 0:
        raise ImageError(f"{p}: the image file is empty")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(p) as im:
                w, h = im.size
                if w < 1 or h < 1:
                    raise ImageError(f"{p}: the image declares a size of {w}×{h} pixels")
                if w > MAX_SIDE or h > MAX_SIDE or w * h > MAX_PIXELS:
                    raise ImageError(
                        f"{p}: the image declares {w}×{h} pixels, more than the reader "
                        f"decodes ({MAX_SIDE} px a side, {MAX_PIXELS:,} pixels in all)"
                    )
                im.load()
                rgb = _to_rgb(im)
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as e:
        raise ImageError(
            f"{p}: the image declares more pixels than the reader decodes ({e})"
        ) from None
    except UnidentifiedImageError as e:
        raise ImageError(f"{p}: not a readable image ({e})") from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise ImageError(f"{p}: corrupt or truncated image ({e})") from None
    return _shrink(rgb)


def _to_rgb(im: object) -> np.ndarray:
    from PIL import Image

    assert isinstance(im, Image.Image)
    if im.mode in ("RGBA", "LA") or (im.mode == "P" and "transparency" in im.info):
        rgba = im.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return np.asarray(Image.alpha_composite(white, rgba).convert("RGB"))
    return np.asarray(im.convert("RGB"))


def _shrink(rgb: np.ndarray) -> np.ndarray:
    h, w = rgb.shape[:2]
    if max(h, w) <= WORK_SIDE:
        return np.ascontiguousarray(rgb)
    import cv2

    s = WORK_SIDE / max(h, w)
    return np.ascontiguousarray(cv2.resize(rgb, None, fx=s, fy=s, interpolation=cv2.INTER_AREA))
