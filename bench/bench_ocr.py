"""Benchmark of the OCR runtimes: the same rapidocr models on OpenVINO and on onnxruntime.

On the same images, in one run, each image read by both engines in turn (alternating which goes
first, so a change in machine load hits both alike), one thread each as the reader uses them:

- seconds per image for each runtime (median and total) and the speed ratio
  onnxruntime / OpenVINO, the figure the reader's default rests on;
- agreement: the share of images whose token texts are identical, and the token-level F1
  of the texts (multiset overlap), so a faster runtime that reads differently shows up.

Images: the shared real charts (ChartQA, FigureQA: ../shared/data) and generated chartqax
renders with their perturbations. Exits 1 when OpenVINO is below the target speed ratio
(1.3 by default) or the texts agree on fewer than 90 % of tokens.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_ocr.py            # 40 real + 20 generated
    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_ocr.py --real 100 --generated 0
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from numpy.typing import NDArray

from chartproof.ocr import OcrEngine, engine_identity
from chartproof.reader.perception.image import load_image

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def real_images(data: Path, n: int) -> list[Path]:
    """Up to `n` chart images from the shared ChartQA and FigureQA folders, alternating."""
    pools = [sorted((data / name / "images").rglob("*.png")) for name in ("chartqa", "figureqa")]
    out: list[Path] = []
    for i in range(max(len(p) for p in pools) if pools else 0):
        for pool in pools:
            if i < len(pool) and len(out) < n:
                out.append(pool[i])
    return out


def generated_images(n: int, folder: Path) -> list[Path]:
    """`n` generated chartqax images (originals and their blur/watermark variants)."""
    from chartproof.pipelines.generate import generate

    if n <= 0:
        return []
    made = generate(
        "chartqax",
        max(1, n // 4),
        folder,
        seed=3,
        per_chart=1,
        variants=("blur:2", "watermark:1"),
        premises=False,
    ).folder
    return sorted((made / "images").rglob("*.png"))[:n]


def f1(a: list[str], b: list[str]) -> float:
    """Token-text F1 of two readings (multiset overlap); 1.0 for two empty readings."""
    if not a and not b:
        return 1.0
    common = sum((Counter(a) & Counter(b)).values())
    return 2 * common / (len(a) + len(b))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the shared real-data folder")
    ap.add_argument("--real", type=int, default=40, help="real chart images")
    ap.add_argument("--generated", type=int, default=20, help="generated chart images")
    ap.add_argument("--target", type=float, default=1.3, help="least speed ratio")
    args = ap.parse_args()

    engines = {name: OcrEngine(name) for name in ("onnxruntime", "openvino")}
    try:
        for eng in engines.values():
            eng.read(np.full((64, 64, 3), 255, dtype=np.uint8))  # load and warm up
    except ImportError as e:
        print(f"cannot compare the runtimes here: {e}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        paths = real_images(args.data, args.real) + generated_images(args.generated, Path(tmp))
        images: list[NDArray[np.uint8]] = [load_image(p) for p in paths]
    if not images:
        print(f"no images found under {args.data}")
        return 1
    seconds: dict[str, list[float]] = {name: [] for name in engines}
    same = 0
    scores = []
    for i, image in enumerate(images):
        order = list(engines) if i % 2 == 0 else list(reversed(engines))
        texts: dict[str, list[str]] = {}
        for name in order:
            t = time.perf_counter()
            tokens = engines[name].read(image)
            seconds[name].append(time.perf_counter() - t)
            texts[name] = sorted(tok.text for tok in tokens)
        same += texts["onnxruntime"] == texts["openvino"]
        scores.append(f1(texts["onnxruntime"], texts["openvino"]))

    print(f"OCR runtimes on {len(images)} images ({engine_identity()} is the default here)")
    print(f"{'runtime':<12} {'median s':>9} {'total s':>9}")
    for name, secs in seconds.items():
        print(f"{name:<12} {statistics.median(secs):>9.3f} {sum(secs):>9.1f}")
    ratio = sum(seconds["onnxruntime"]) / sum(seconds["openvino"])
    agree = statistics.mean(scores)
    print(f"speed ratio onnxruntime/openvino: {ratio:.2f}x (target {args.target:.2f}x)")
    print(
        f"identical readings: {same}/{len(images)} images; token-text F1 {100 * agree:.1f} %"
        " (target 90 %)"
    )
    ok = ratio >= args.target and agree >= 0.9
    print("ok" if ok else "BELOW TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
