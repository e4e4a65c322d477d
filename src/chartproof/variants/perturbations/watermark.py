"""Text watermark (ChartR's watermark variant): words overlaid in varied size, angle, colour
and opacity, drawn with the DejaVu font bundled in matplotlib (no system fonts needed).

| level | words | opacity | text height (share of image height) |
|---|---|---|---|
| 1 | 2 | 0.30 | 0.04–0.06 |
| 2 | 4 | 0.40 | 0.04–0.08 |
| 3 | 6 | 0.50 | 0.04–0.10 |
| 4 | 8 | 0.60 | 0.04–0.12 |
| 5 | 10 | 0.70 | 0.04–0.14 |

Angles are uniform in [-45°, 45°]; positions uniform over the image. The words contain no
digits, so they cannot be mistaken for data values.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from chartproof.variants.perturbations.base import (
    Canvas,
    ParamValue,
    Perturbed,
    check_level,
    register_perturbation,
)

__all__ = ["WATERMARK", "WORDS", "Watermark", "dejavu_font"]

WORDS: tuple[str, ...] = (
    "SAMPLE", "DRAFT", "CONFIDENTIAL", "PREVIEW", "COPY", "WATERMARK", "stock image",
    "do not share", "Internal", "PROOF", "chartproof", "NOT FOR PRINT",
)  # fmt: skip
"""Words drawn from, one at random per mark."""

COLOURS: tuple[tuple[int, int, int], ...] = (
    (128, 128, 128), (80, 80, 80), (170, 170, 170), (200, 40, 40), (40, 70, 200),
)  # fmt: skip
"""Ink colours drawn from."""

COUNT: dict[int, int] = {1: 2, 2: 4, 3: 6, 4: 8, 5: 10}
OPACITY: dict[int, float] = {1: 0.3, 2: 0.4, 3: 0.5, 4: 0.6, 5: 0.7}
MAX_SIZE: dict[int, float] = {1: 0.06, 2: 0.08, 3: 0.10, 4: 0.12, 5: 0.14}
MIN_SIZE = 0.04
MAX_ANGLE = 45.0


def dejavu_font() -> Path:
    """Path of matplotlib's bundled DejaVu Sans Bold, found without importing matplotlib."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("matplotlib is not installed: pip install 'chartproof'")
    root = Path(next(iter(spec.submodule_search_locations)))
    path = root / "mpl-data" / "fonts" / "ttf" / "DejaVuSans-Bold.ttf"
    if not path.is_file():
        raise RuntimeError(f"matplotlib's DejaVu font is missing: {path}")
    return path


@functools.lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(dejavu_font()), size)


@dataclass(frozen=True)
class Watermark:
    """Semi-transparent words scattered over the chart."""

    name: str = "watermark"
    levels: tuple[int, ...] = tuple(COUNT)
    answer_preserved: bool = True

    def params(self, level: int, canvas: Canvas) -> dict[str, ParamValue]:
        """Word count, opacity and text-height range of `level`."""
        check_level(self.name, level, self.levels)
        return {
            "words": COUNT[level],
            "opacity": OPACITY[level],
            "min_size": MIN_SIZE,
            "max_size": MAX_SIZE[level],
            "max_angle": MAX_ANGLE,
        }

    def apply(
        self, canvas: Canvas, params: Mapping[str, ParamValue], rng: np.random.Generator
    ) -> Perturbed:
        """Draw `words` marks; word, size, angle, colour and place come from `rng`."""
        base = Image.fromarray(canvas.image, "RGB").convert("RGBA")
        w, h = base.size
        alpha = round(255 * float(params["opacity"]))
        for _ in range(int(params["words"])):
            word = WORDS[int(rng.integers(len(WORDS)))]
            frac = rng.uniform(float(params["min_size"]), float(params["max_size"]))
            size = max(6, round(frac * h))
            angle = rng.uniform(-float(params["max_angle"]), float(params["max_angle"]))
            colour = COLOURS[int(rng.integers(len(COLOURS)))]
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            mark = _word_layer(word, size, angle, (*colour, alpha))
            layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
            layer.paste(mark, (round(cx - mark.width / 2), round(cy - mark.height / 2)))
            base = Image.alpha_composite(base, layer)
        return Perturbed(np.asarray(base.convert("RGB"), dtype=np.uint8).copy())


def _word_layer(word: str, size: int, angle: float, fill: tuple[int, int, int, int]) -> Image.Image:
    font = _font(size)
    left, top, right, bottom = (round(v) for v in font.getbbox(word))
    pad = max(2, size // 4)
    layer = Image.new("RGBA", (right - left + 2 * pad, bottom - top + 2 * pad), (0, 0, 0, 0))
    ImageDraw.Draw(layer).text((pad - left, pad - top), word, font=font, fill=fill)
    return layer.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)


WATERMARK = register_perturbation(Watermark())
