"""Image files of a dataset: safe resolution inside the dataset folder, SHA-256 hashes,
and the dataset fingerprint that run records carry."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from chartproof.types import ImageRef, Sample

__all__ = [
    "dataset_fingerprint",
    "hash_image",
    "image_size",
    "resolve_image",
    "with_image_hashes",
]

_CHUNK = 1 << 20


def resolve_image(root: Path, ref: ImageRef | str) -> Path:
    """The image file of `ref` inside dataset folder `root`, after following symlinks.

    Raises ValueError when the path leaves the folder (an absolute path, "..", or a symlink
    pointing outside) and FileNotFoundError when no file is there.
    """
    rel = ref.path if isinstance(ref, ImageRef) else ImageRef(path=ref).path
    base = root.resolve()
    candidate = base / rel
    real = candidate.resolve()
    if not real.is_relative_to(base):
        raise ValueError(
            f"image path {rel!r} resolves to {real}, outside the dataset folder {base}"
        )
    if not real.is_file():
        raise FileNotFoundError(f"image file {rel!r} not found in {base}")
    return real


def hash_image(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def image_size(path: Path) -> tuple[int, int]:
    """Width and height in pixels, read from the file header only."""
    from PIL import Image

    with Image.open(path) as im:
        return im.size


def with_image_hashes(samples: Iterable[Sample], root: Path, *, sizes: bool = True) -> list[Sample]:
    """Copies of `samples` whose image refs carry the SHA-256 (and width and height).

    Each distinct image file is read once even when many samples share it.
    """
    cache: dict[str, ImageRef] = {}
    out: list[Sample] = []

    def hashed(image: ImageRef) -> ImageRef:
        ref = cache.get(image.path)
        if ref is None:
            path = resolve_image(root, image)
            update: dict[str, object] = {"sha256": hash_image(path)}
            if sizes:
                update["width"], update["height"] = image_size(path)
            ref = cache[image.path] = image.model_copy(update=update)
        return ref

    for s in samples:
        ref = hashed(s.image)
        more = tuple(hashed(m) for m in s.more_images)
        if ref == s.image and more == s.more_images:
            out.append(s)
        else:
            out.append(s.model_copy(update={"image": ref, "more_images": more}))
    return out


def dataset_fingerprint(samples: Iterable[Sample], root: Path | None = None) -> str:
    """ "sha256:<hex>" over each sample's id, question, image hashes and gold answer.

    Independent of sample order (samples are sorted by id), so a reshuffled dataset keeps its
    fingerprint while any changed image, question or answer changes it. Images without a
    stored hash are hashed from `root`; ValueError names the sample when neither is there.
    """
    entries: list[tuple[str, str]] = []
    cache: dict[str, str] = {}
    for s in samples:
        digests: list[str] = []
        for image in s.images:
            digest = image.sha256
            if digest is None:
                if root is None:
                    raise ValueError(
                        f"sample {s.id!r}: image {image.path!r} has no sha256; pass the "
                        "dataset folder to hash it"
                    )
                digest = cache.get(image.path)
                if digest is None:
                    digest = cache[image.path] = hash_image(resolve_image(root, image))
            digests.append(digest)
        digest = ",".join(digests)  # one image: its hash, as before multi-image samples
        answer = s.answer.model_dump_json()
        entries.append((s.id, json.dumps([s.id, s.question, digest, answer])))
    h = hashlib.sha256()
    for _, entry in sorted(entries):
        h.update(entry.encode("utf-8"))
        h.update(b"\n")
    return f"sha256:{h.hexdigest()}"
