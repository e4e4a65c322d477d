"""The channel-by-channel pixel measures and the palette's nearest-colour assignment agree
exactly with the direct formulas they replace (run side by side on random
images, including ties and pixels exactly at the match radius)."""

from __future__ import annotations

import numpy as np
import pytest

from chartproof.reader.perception.lines import column_medians
from chartproof.reader.perception.palette import _nearest_layer, _pack
from chartproof.reader.perception.pixels import chroma, components, distance_to, trimmed


def _image(seed: int, levels: int = 256) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, levels, size=(37, 53, 3)) * (255 // (levels - 1))).astype(np.uint8)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("colour", [(255, 255, 255), (0, 0, 0), (12, 200, 77)])
def test_distance_to_matches_the_direct_formula(seed: int, colour: tuple[int, int, int]) -> None:
    img = _image(seed)
    want = np.abs(img.astype(np.int16) - np.array(colour, dtype=np.int16)).max(axis=2)
    got = distance_to(img, colour)
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(4))
def test_chroma_matches_the_direct_formula(seed: int) -> None:
    img = _image(seed)
    want = img.max(axis=2).astype(np.int16) - img.min(axis=2).astype(np.int16)
    np.testing.assert_array_equal(chroma(img), want)


def _direct_nearest(img: np.ndarray, refs: np.ndarray, within: float) -> np.ndarray:
    """The formula the palette used before: float32 distances to every reference, argmin,
    then the match radius."""
    f = img.astype(np.float32)
    dist = np.stack([np.sqrt(((f - c) ** 2).sum(axis=2)) for c in refs.astype(np.float32)])
    nearest = dist.argmin(axis=0)
    ok = np.take_along_axis(dist, nearest[None], axis=0)[0] < within
    return np.where(ok, nearest, -1)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("within", [30.0, 1.6 * 30.0])
def test_nearest_layer_matches_the_direct_formula(seed: int, within: float) -> None:
    # Few levels per channel: many exact ties between references and many pixels at
    # integer distances right on the radius.
    img = _image(seed, levels=6)
    refs = np.array([(255, 255, 255), (204, 204, 204), (153, 102, 51), (51, 102, 153)], float)
    px = img.reshape(-1, 3).astype(np.int32)
    got = _nearest_layer(_pack(px), refs, within).reshape(img.shape[:2])
    np.testing.assert_array_equal(got, _direct_nearest(img, refs, within))


def test_nearest_layer_radius_is_strict() -> None:
    # (30, 0, 0) from black is exactly 30 away: outside a radius of 30, inside one of 30.5.
    px = np.array([[30, 0, 0], [29, 0, 0]], dtype=np.int32)
    refs = np.array([(0, 0, 0)], float)
    assert _nearest_layer(_pack(px), refs, 30.0).tolist() == [-1, 0]
    assert _nearest_layer(_pack(px), refs, 30.5).tolist() == [0, 0]


def _set(*cells: tuple[int, int]) -> np.ndarray:
    mask = np.zeros((10, 12), bool)
    for y, x in cells:
        mask[y, x] = True
    return mask


# (set pixels (y, x), margin, expected (top, left, height, width)); worked by hand
TRIM_CASES = [
    ([(3, 4)], 0, (3, 4, 1, 1)),
    ([(3, 4), (6, 9)], 0, (3, 4, 4, 6)),
    ([(3, 4), (6, 9)], 2, (1, 2, 8, 10)),
    # the margin stops at the mask's edges
    ([(0, 0), (9, 11)], 6, (0, 0, 10, 12)),
    ([(1, 10)], 3, (0, 7, 5, 5)),
]


@pytest.mark.parametrize(("cells", "margin", "want"), TRIM_CASES)
def test_trimmed_cuts_to_the_set_pixels_and_margin(
    cells: list[tuple[int, int]], margin: int, want: tuple[int, int, int, int]
) -> None:
    mask = _set(*cells)
    got = trimmed(mask, margin)
    assert got is not None
    sub, top, left = got
    assert (top, left, *sub.shape) == want
    assert sub.sum() == mask.sum()  # every set pixel is inside the cut


def test_trimmed_empty_mask_is_none() -> None:
    assert trimmed(np.zeros((4, 4), bool), 3) is None


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("density", [0.05, 0.4, 0.7])
@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("form", ["bool", "uint8", "slice"])
def test_components_match_opencvs_default(
    seed: int, density: float, connectivity: int, form: str
) -> None:
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(seed)
    mask = rng.random((61, 83)) < density
    mask[10:30, 20:28] = True  # one solid bar among the specks
    given = {"bool": mask, "uint8": mask.astype(np.uint8), "slice": mask[3:-2, 5:-7]}[form]
    plain = np.ascontiguousarray(given, dtype=np.uint8)
    want = cv2.connectedComponentsWithStats(plain, connectivity=connectivity)
    got = components(given, connectivity)
    assert got[0] == want[0]
    for a, b in zip(got[1:], want[1:], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("density", [0.0, 0.02, 0.3, 0.9])
def test_column_medians_match_numpys_median_column_by_column(seed: int, density: float) -> None:
    rng = np.random.default_rng(seed)
    mask = rng.random((47, 31)) < density
    mask[:, 5] = False  # an empty column
    mask[[3, 9], 7] = True  # two pixels: the median falls between rows
    got = column_medians(mask)
    for x in range(mask.shape[1]):
        ys = np.nonzero(mask[:, x])[0]
        if len(ys) == 0:
            assert np.isnan(got[x])
        else:
            assert got[x] == float(np.median(ys))
