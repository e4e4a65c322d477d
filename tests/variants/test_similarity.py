"""Chart similarity: SSIM against scikit-image's values and a hand-computed case, spec
similarity against hand-computed cases, and budgeted selection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chartproof.types import ChartSpec, DataTable, Encoding
from chartproof.variants.images import RGB
from chartproof.variants.similarity import (
    grey,
    image_similarity,
    select_least_similar,
    spec_similarity,
    ssim,
)

CASES = Path(__file__).parent / "cases"
SKIMAGE: dict[str, Any] = json.loads((CASES / "ssim_skimage.json").read_text(encoding="utf-8"))
SPEC_CASES: list[dict[str, Any]] = json.loads(
    (CASES / "spec_similarity.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", SKIMAGE["cases"], ids=[c["name"] for c in SKIMAGE["cases"]])
def test_ssim_matches_skimage_values(case: dict[str, Any]) -> None:
    x, y = np.array(case["x"], dtype=float), np.array(case["y"], dtype=float)
    assert ssim(x, y) == pytest.approx(case["ssim"], abs=1e-12)


def test_ssim_matches_live_skimage_on_random_images() -> None:
    metrics = pytest.importorskip("skimage.metrics")
    rng = np.random.default_rng(7)
    x = rng.integers(0, 256, (40, 50)).astype(float)
    y = np.clip(x + rng.normal(0, 30, x.shape), 0, 255)
    want = metrics.structural_similarity(
        x, y, gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255
    )
    assert ssim(x, y) == pytest.approx(want, abs=1e-12)


def test_ssim_of_two_constant_images_by_hand() -> None:
    # Means 100 and 140, no variance: SSIM = (2·100·140 + C1) / (100² + 140² + C1),
    # C1 = (0.01·255)² = 6.5025; the contrast term is C2 / C2 = 1.
    c1 = (0.01 * 255) ** 2
    want = (2 * 100 * 140 + c1) / (100**2 + 140**2 + c1)
    got = ssim(np.full((12, 12), 100.0), np.full((12, 12), 140.0))
    assert got == pytest.approx(want, abs=1e-12)
    assert want == pytest.approx(0.94595781788, abs=1e-10)


def test_ssim_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="one shape"):
        ssim(np.zeros((12, 12)), np.zeros((12, 13)))
    with pytest.raises(ValueError, match="smaller than the 11 px window"):
        ssim(np.zeros((10, 12)), np.zeros((10, 12)))


def test_grey_uses_bt601_weights() -> None:
    px = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255]]], dtype=np.uint8)
    assert grey(px)[0].tolist() == pytest.approx([76.245, 149.685, 29.07])


def test_image_similarity_resizes_and_orders(chart_image: RGB) -> None:
    assert image_similarity(chart_image, chart_image) == pytest.approx(1.0)
    big = np.kron(chart_image, np.ones((2, 2, 1), dtype=np.uint8))
    assert image_similarity(chart_image, big) > 0.9
    moved = chart_image.copy()
    moved[30:100, 65:95] = 255  # the tallest bar removed
    assert image_similarity(chart_image, moved) < image_similarity(chart_image, big)


def _spec(side: dict[str, str]) -> ChartSpec:
    table = DataTable.from_csv(side["csv"])
    return ChartSpec(
        id="s",
        chart_type=side["chart_type"],  # type: ignore[arg-type]
        table=table,
        encoding=Encoding(x=table.names[0], y=table.names[1:]),
    )


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c["name"] for c in SPEC_CASES])
def test_spec_similarity_cases(case: dict[str, Any]) -> None:
    got = spec_similarity(_spec(case["a"]), _spec(case["b"]))
    assert got == pytest.approx(case["expected"])


def test_select_least_similar_under_a_budget() -> None:
    scored = [("a", 0.9), ("b", 0.4), ("c", 0.99), ("d", 0.4), ("e", 0.7)]
    assert select_least_similar(scored, 3) == ["b", "d", "e"]
    assert select_least_similar(scored, 10, ceiling=0.95) == ["b", "d", "e", "a"]
    assert select_least_similar(scored, 10, floor=0.5, ceiling=0.95) == ["e", "a"]
    groups = {"a": "o1", "b": "o1", "c": "o2", "d": "o1", "e": "o2"}
    assert select_least_similar(scored, 3, groups=groups, per_group=1) == ["b", "e"]
    assert select_least_similar(scored, 0) == []
    with pytest.raises(ValueError, match="budget"):
        select_least_similar(scored, -1)
