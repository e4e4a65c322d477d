"""Safe image loading for the reader: the declared size is checked before any pixel is
decoded (decompression bombs), and empty, corrupt or absurd files fail with a clear error."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from chartproof.ocr import OcrToken

__all__ = [
    "MAX_PIXELS",
    "MAX_SIDE",
    "TEXT_HEIGHT",
    "TEXT_HEIGHT_MAX",
    "ImageError",
    "at_text_height",
    "load_image",
    "text_scale",
]

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


TEXT_HEIGHT = 20.0
"""Height in pixels of a line of text (the OCR's box, taller than the letters) that
derendering is tuned for. Measured as each chart's median over its horizontal text: 15-25 px
on the synthetic suites (matplotlib, 8-11 pt at 100 dpi), 14-22 px on ChartQA's Statista
charts, 13-21 px on FigureQA's, 13-48 px on Pew's (13 of 61 above 26 px)."""

TEXT_HEIGHT_MAX = 26.0
"""Charts whose text runs taller than this (than `TEXT_HEIGHT` at `WORK_SIDE`: `text_scale`)
are derendered scaled down to `TEXT_HEIGHT`: pixel thresholds (stroke widths, gaps, marker
sizes, straightness) hold at one scale, and a chart exported at 200-300 dpi is that chart
at two to three times the scale (its text 30-45 px once loaded)."""


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
                if im.format == "JPEG":  # decoded at 1/2-1/8 scale, not below the working size
                    side = min(1.0, WORK_SIDE / max(w, h))
                    im.draft("RGB", (max(1, round(w * side)), max(1, round(h * side))))
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


def text_scale(tokens: Sequence[OcrToken], side: int = 0) -> float:
    """The factor (at most 1) that brings the median height of the horizontal text read with
    confidence down to `TEXT_HEIGHT`, when it runs taller than `TEXT_HEIGHT_MAX`, or than
    `TEXT_HEIGHT` in an image `side` px on its long side that is `WORK_SIDE` or more (a print
    export shrunk to it: resampled already, and read faster smaller); 1 when fewer than
    three such tokens say how tall the text is."""
    heights = [t.height for t in tokens if not t.vertical and abs(t.angle) < 5 and t.score >= 0.5]
    if len(heights) < 3:
        return 1.0
    median = float(np.median(heights))
    limit = TEXT_HEIGHT if side >= WORK_SIDE else TEXT_HEIGHT_MAX
    return TEXT_HEIGHT / median if median > limit else 1.0


def at_text_height(
    image: np.ndarray, tokens: Sequence[OcrToken]
) -> tuple[np.ndarray, tuple[OcrToken, ...]]:
    """The image and its tokens scaled by `text_scale` (unchanged when that is 1)."""
    scale = text_scale(tokens, max(image.shape[:2]))
    if scale >= 1.0:
        return image, tuple(tokens)
    import cv2

    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    # Bilinear, not area averaging: averaging blends every edge of a print export with the
    # background into tints that form colour layers of their own (black text and axes edged
    # in the grey of a series; 60 charts per synthetic suite at 250 dpi: 2,542 of 2,733 cells
    # with INTER_AREA, 2,619 bilinear, 2,617 nearest).
    small = np.ascontiguousarray(cv2.resize(image, size, interpolation=cv2.INTER_LINEAR))
    fx, fy = size[0] / w, size[1] / h
    return small, tuple(
        t.model_copy(
            update={
                "box": (t.box[0] * fx, t.box[1] * fy, t.box[2] * fx, t.box[3] * fy),
                "char_x": tuple(x * fx for x in t.char_x),
            }
        )
        for t in tokens
    )
