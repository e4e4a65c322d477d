"""Image files of a dataset: safe resolution inside the dataset folder, validation when a
dataset loads, SHA-256 hashes, and the dataset fingerprint that run records carry."""

from __future__ import annotations

import functools
import hashlib
import json
import warnings
from collections.abc import Iterable
from pathlib import Path

from chartproof.types import ImageRef, Sample

__all__ = [
    "IMAGE_FORMATS",
    "check_image",
    "dataset_fingerprint",
    "hash_image",
    "image_size",
    "resolve_image",
    "with_image_hashes",
]

_CHUNK = 1 << 20

IMAGE_FORMATS = frozenset({"PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF"})
"""Raster formats a dataset image may be in (what PIL decodes and model APIs accept)."""


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


def check_image(root: Path, ref: ImageRef | str) -> Path:
    """`resolve_image`, then the file is checked the way a model or reader will read it:
    not empty, within the byte and pixel caps of `chartproof.variants.images` (read from the
    header, before decoding: the decompression-bomb guard), a raster format of
    `IMAGE_FORMATS` (an SVG or text file named .png fails), and decodable to the end (a
    truncated or corrupt file fails; JPEGs are decoded at 1/8 scale, PNGs checked chunk by
    chunk). Raises ValueError with one line naming the file and the problem; each file is
    checked once per size and modification time."""
    path = resolve_image(root, ref)
    stat = path.stat()
    problem = _image_problem(str(path), stat.st_size, stat.st_mtime_ns)
    if problem is not None:
        rel = ref.path if isinstance(ref, ImageRef) else ref
        raise ValueError(f"image file {rel!r}: {problem}")
    return path


@functools.lru_cache(maxsize=65536)
def _image_problem(path: str, size: int, mtime_ns: int) -> str | None:
    from PIL import Image

    from chartproof._images import MAX_IMAGE_BYTES, open_image

    if size == 0:
        return "empty file (0 bytes)"
    if size > MAX_IMAGE_BYTES:
        return f"{size} bytes is over the {MAX_IMAGE_BYTES}-byte cap"
    data = Path(path).read_bytes()
    try:
        im = open_image(data)
    except ValueError as exc:
        return str(exc)
    if im.format not in IMAGE_FORMATS:
        return f"format {im.format} is not one of {', '.join(sorted(IMAGE_FORMATS))}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            if im.format == "PNG":
                im.verify()  # every chunk's CRC, to IEND, without inflating pixels
            else:
                if im.format == "JPEG":
                    im.draft(im.mode, (max(1, im.width // 8), max(1, im.height // 8)))
                im.load()
    except Exception as exc:
        return f"corrupt or truncated {im.format} ({type(exc).__name__}: {exc})"
    return None


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
