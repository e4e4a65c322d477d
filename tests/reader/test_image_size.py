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


def test_big_jpegs_are_decoded_reduced_to_about_the_working_size(tmp_path: Path) -> None:
    """A print-size JPEG is decoded at a fraction of its size (JPEG's own reduced decoding),
    never below the working size, and reads like the full decode scaled down."""
    from PIL import ImageDraw

    big = Image.new("RGB", (3420, 2784), "white")
    ImageDraw.Draw(big).rectangle((855, 696, 2565, 2088), fill=(31, 119, 180))
    path = tmp_path / "big.jpg"
    big.save(path, quality=95)
    with Image.open(path) as im:
        im.draft("RGB", (1400, 1140))
        assert im.size == (1710, 1392)  # the decoder's half size: at least the working size
    image = load_image(path)
    assert max(image.shape[:2]) == WORK_SIDE
    assert abs(image.shape[0] - 2784 * WORK_SIDE / 3420) <= 1
    # The blue rectangle lands where it lies in the full image, scaled.
    ys, xs = np.nonzero(image[:, :, 2].astype(int) - image[:, :, 0] > 100)
    s = WORK_SIDE / 3420
    assert abs(xs.min() - 855 * s) <= 2 and abs(xs.max() - 2565 * s) <= 2
    assert abs(ys.min() - 696 * s) <= 2 and abs(ys.max() - 2088 * s) <= 2
