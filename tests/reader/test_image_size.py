"""Big chart images are scaled down before OCR (long side WORK_SIDE), small ones untouched."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from chartproof.reader.perception.image import WORK_SIDE, load_image


def test_big_images_are_downscaled(tmp_path: Path) -> None:
    path = tmp_path / "big.png"
    Image.fromarray(np.full((2784, 3420, 3), 200, dtype=np.uint8)).save(path)
    image = load_image(path)
    assert max(image.shape[:2]) == WORK_SIDE == 1400
    # The aspect ratio is kept: 3420×2784 -> 1400×1140 (rounded).
    assert abs(image.shape[0] - 2784 * 1400 / 3420) <= 1


def test_small_images_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "small.png"
    Image.fromarray(np.full((557, 800, 3), 255, dtype=np.uint8)).save(path)
    assert load_image(path).shape == (557, 800, 3)
