"""Image hashes and dataset fingerprints."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from chartproof.datasets import dataset_fingerprint, hash_image, resolve_image, with_image_hashes
from chartproof.types import Answer, Sample

MakeSample = Callable[..., Sample]


def test_hash_image_is_sha256_of_the_bytes(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    f.write_bytes(b"abc")
    # FIPS 180-2 test vector
    assert hash_image(f) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    big = tmp_path / "big.bin"
    big.write_bytes(b"z" * (3 << 20))  # spans several read chunks
    assert hash_image(big) == hashlib.sha256(b"z" * (3 << 20)).hexdigest()


def test_with_image_hashes_fills_hash_and_size(dataset: tuple[Path, list[Sample]]) -> None:
    folder, samples = dataset
    hashed = with_image_hashes(samples, folder)
    ref = hashed[2].image
    assert ref.sha256 == hash_image(folder / "images/2.png")
    assert (ref.width, ref.height) == (8, 8)
    assert hashed[2].model_copy(update={"image": samples[2].image}) == samples[2]


def test_fingerprint_order_free_and_sensitive(
    dataset: tuple[Path, list[Sample]], make_sample: MakeSample
) -> None:
    folder, samples = dataset
    fp = dataset_fingerprint(samples, folder)
    assert fp.startswith("sha256:") and len(fp) == 7 + 64
    assert dataset_fingerprint(list(reversed(samples)), folder) == fp
    hashed = with_image_hashes(samples, folder)
    assert dataset_fingerprint(hashed) == fp  # stored hashes give the same print
    changed = [*samples[:4], samples[4].model_copy(update={"answer": Answer.number(99.0)})]
    assert dataset_fingerprint(changed, folder) != fp
    (folder / "images/0.png").write_bytes(b"other image")
    assert dataset_fingerprint(samples, folder) != fp
    with pytest.raises(ValueError, match=r"sample 's-0'.*no sha256"):
        dataset_fingerprint(samples)


def test_resolve_image_rejects_escape(dataset: tuple[Path, list[Sample]]) -> None:
    folder, _ = dataset
    assert resolve_image(folder, "images/1.png") == (folder / "images/1.png").resolve()
    with pytest.raises(ValueError, match="escapes"):
        resolve_image(folder, "images/../../x.png")
    with pytest.raises(FileNotFoundError, match=r"images/9\.png"):
        resolve_image(folder, "images/9.png")
