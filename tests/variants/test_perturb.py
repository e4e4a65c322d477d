"""Pixel perturbations: determinism per (sample id, seed, level), replay from the recorded
transform, documented level parameters, known values, and monotone intensity sweeps."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from chartproof.types import Answer, ImageRef, Sample
from chartproof.variants import (
    PERTURBATIONS,
    apply_transform,
    level_plan,
    level_table,
    perturb,
    stable_seed,
    to_rgb,
    variant_sample,
    variants_for,
)
from chartproof.variants.images import RGB, encode_png
from chartproof.variants.similarity import image_similarity

PIXEL = ("blur", "noise", "salt_pepper", "watermark")


def test_stable_seed_is_pinned_and_separates_parts() -> None:
    # sha256("s1\x1fblur\x1f1\x1f0")[:8] as a big-endian integer, shifted right by one
    assert stable_seed("s1", "blur", 1, 0) == 7292273221721155343
    assert stable_seed("a", "bc") != stable_seed("ab", "c")
    assert 0 <= stable_seed("x") < 2**63


@pytest.mark.parametrize("name", PIXEL)
@pytest.mark.parametrize("level", [1, 3, 5])
def test_same_inputs_same_bytes(chart_image: RGB, name: str, level: int) -> None:
    a, ta = perturb(chart_image, name, level, sample_id="s1", seed=0)
    b, tb = perturb(encode_png(chart_image), name, level, sample_id="s1", seed=0)
    assert a == b and ta == tb
    assert ta.kind == "perturbation" and ta.name == name and ta.level == level
    assert ta.answer_preserved is True
    assert ta.seed == stable_seed("s1", name, level, 0)
    assert apply_transform(chart_image, ta) == a


@pytest.mark.parametrize("name", ["noise", "salt_pepper", "watermark"])
def test_random_perturbations_follow_the_sample_id(chart_image: RGB, name: str) -> None:
    a, _ = perturb(chart_image, name, 3, sample_id="s1")
    b, _ = perturb(chart_image, name, 3, sample_id="s2")
    c, _ = perturb(chart_image, name, 3, sample_id="s1", seed=1)
    assert a != b and a != c


def test_blur_matches_a_hand_built_gaussian() -> None:
    # A vertical step edge; blur acts along rows only, so each row must equal the 1-D
    # convolution with a normalised Gaussian (truncated at 4 sigma, edges replicated).
    img = np.zeros((480, 40, 3), dtype=np.uint8)
    img[:, 20:] = 200
    png, t = perturb(img, "blur", 2, sample_id="edge")
    assert t.params == {"sigma": 1.2}
    out = to_rgb(png)[240, :, 0].astype(float)
    sigma = 1.2
    r = int(4.0 * sigma + 0.5)
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    k /= k.sum()
    row = np.pad(img[240, :, 0].astype(float), r, mode="edge")
    want = np.rint(np.convolve(row, k, mode="valid"))
    assert np.array_equal(out, want)


def test_blur_sigma_scales_with_image_height(chart_image: RGB) -> None:
    _, t = perturb(chart_image, "blur", 5, sample_id="s")
    assert t.params["sigma"] == pytest.approx(4.5 * 120 / 480)


def test_gaussian_noise_has_the_documented_spread() -> None:
    grey = np.full((200, 200, 3), 128, dtype=np.uint8)
    png, t = perturb(grey, "noise", 3, sample_id="grey")
    assert t.params == {"std": 28.0}
    diff = to_rgb(png).astype(float) - 128
    assert abs(diff.mean()) < 0.5
    assert diff.std() == pytest.approx(28.0, rel=0.02)


def test_salt_pepper_hits_the_documented_share() -> None:
    grey = np.full((200, 200, 3), 128, dtype=np.uint8)
    png, t = perturb(grey, "salt_pepper", 4, sample_id="grey")
    out = to_rgb(png)
    hit = (out != 128).any(axis=2)
    assert set(np.unique(out[hit])) <= {0, 255}
    assert hit.mean() == pytest.approx(t.params["amount"], abs=0.005)
    assert t.params["amount"] == 0.07


def test_watermark_params_follow_the_table(chart_image: RGB) -> None:
    for level, words, opacity in ((1, 2, 0.3), (5, 10, 0.7)):
        _, t = perturb(chart_image, "watermark", level, sample_id="s")
        assert t.params["words"] == words and math.isclose(float(t.params["opacity"]), opacity)


@pytest.mark.parametrize("name", PIXEL)
def test_intensity_sweep_degrades_monotonically(chart_image: RGB, name: str) -> None:
    img = np.kron(chart_image, np.ones((2, 2, 1), dtype=np.uint8))  # 240×320
    sims = [
        image_similarity(img, perturb(img, name, lvl, sample_id="sweep")[0]) for lvl in range(1, 6)
    ]
    assert all(a > b for a, b in itertools.pairwise(sims)), sims
    assert sims[0] < 1.0


def test_variants_for_sweeps_names_and_levels(chart_image: RGB) -> None:
    got = variants_for(chart_image, ["blur", "noise"], range(1, 4), "s9")
    assert [v.id for v in got] == [f"s9~{n}-{lvl}" for n in ("blur", "noise") for lvl in (1, 2, 3)]
    assert all(v.parent_id == "s9" and v.spec is None for v in got)
    again = variants_for(chart_image, ["blur", "noise"], [3, 2, 1, 1], "s9")
    assert [v.png for v in again] == [v.png for v in got]


def test_unknown_name_and_level_fail_clearly(chart_image: RGB) -> None:
    with pytest.raises(ValueError, match="unknown perturbation 'fog'"):
        perturb(chart_image, "fog", 1, sample_id="s")
    with pytest.raises(ValueError, match=r"'blur' has levels \[1, 2, 3, 4, 5\], not 6"):
        perturb(chart_image, "blur", 6, sample_id="s")
    with pytest.raises(ValueError, match="needs an image, a spec, or both"):
        perturb(None, "blur", 1, sample_id="s")


def test_registry_levels_are_documented() -> None:
    assert set(PERTURBATIONS) == {"blur", "noise", "salt_pepper", "watermark", "label_removal"}
    for name in PIXEL:
        assert PERTURBATIONS[name].levels == (1, 2, 3, 4, 5)
    assert PERTURBATIONS["label_removal"].levels == (1,)
    # the tables in the module docstrings, at the reference 480 px height
    assert [p["sigma"] for p in level_table("blur").values()] == [0.6, 1.2, 2.0, 3.0, 4.5]
    assert [p["std"] for p in level_table("noise").values()] == [8, 16, 28, 44, 64]
    assert [p["amount"] for p in level_table("salt_pepper").values()] == [
        0.01,
        0.02,
        0.04,
        0.07,
        0.12,
    ]
    assert [p["words"] for p in level_table("watermark").values()] == [2, 4, 6, 8, 10]
    assert level_table("label_removal") == {
        1: {"method": "rerender", "removes": "value_labels"},
    }


def test_level_plan_is_an_error_not_a_cap() -> None:
    assert level_plan(["blur", "label_removal"]) == (
        ("blur", (1, 2, 3, 4, 5)),
        ("label_removal", (1,)),
    )
    assert level_plan(["blur", "label_removal:1"], 3) == (
        ("blur", (1, 2, 3)),
        ("label_removal", (1,)),
    )
    with pytest.raises(ValueError, match=r"'label_removal' has levels \[1\], not \[2, 3\]"):
        level_plan(["blur", "label_removal"], 3)
    with pytest.raises(ValueError, match=r"'blur' has levels \[1, 2, 3, 4, 5\], not \[6\]"):
        level_plan(["blur:6"])
    with pytest.raises(ValueError, match="unknown perturbation 'fog'"):
        level_plan(["fog"])
    with pytest.raises(ValueError, match="whole number"):
        level_plan(["blur:x"])
    with pytest.raises(ValueError, match="listed twice"):
        level_plan(["blur", "blur:2"])


def test_variant_sample_keeps_question_and_answer(chart_image: RGB) -> None:
    sample = Sample(
        id="c/q0", image=ImageRef(path="c.png"), question="Max?", answer=Answer.number(31.0)
    )
    [variant] = variants_for(chart_image, ["noise"], [2], sample.id)
    new = variant_sample(sample, variant, ImageRef(path="variants/c~noise-2.png"))
    assert new.id == "c/q0~noise-2" and new.parent_id == "c/q0"
    assert new.question == sample.question and new.answer == sample.answer
    assert new.group_labels()["perturbation"] == "noise"
    assert new.group_labels()["level"] == "2"


def test_images_decode_alpha_onto_white() -> None:
    rgba = np.zeros((4, 4, 4), dtype=np.uint8)  # fully transparent black
    assert (to_rgb(rgba) == 255).all()
    with pytest.raises(ValueError, match="shape"):
        to_rgb(np.zeros((4, 4, 2), dtype=np.uint8))
    with pytest.raises(ValueError, match="not a decodable image"):
        to_rgb(b"not an image")
