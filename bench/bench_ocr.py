"""Benchmark of the OCR runtimes: the same rapidocr models on every backend this machine runs
(onnxruntime, OpenVINO in float32 and, where the CPU has it, bfloat16) and on the measured plan
(`chartproof.ocr.runtime`: the fastest backend per network, chosen once per machine).

On the same images, in one run, each image read by every engine in turn (rotating which goes
first, so a change in machine load hits all alike), one thread each as the reader uses them:

- seconds per image for each engine (median and total) and its speed ratio against
  onnxruntime, the baseline;
- agreement with onnxruntime: the share of images whose token texts are identical, and the
  token-level F1 of the texts (multiset overlap), so a faster runtime that reads differently
  shows up.

Images: the shared real charts (ChartQA, FigureQA: ../shared/data) and generated chartqax
renders with their perturbations. Exits 1 when the plan is more than 5 % slower than the
fastest single backend (its measurement chose wrongly for whole reads) or an engine agrees with
onnxruntime on fewer than 90 % of tokens.

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

from chartproof.ocr import OcrEngine, engine_identity, ocr_plan
from chartproof.ocr.runtime import available_backends
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
    ap.add_argument("--slack", type=float, default=0.05, help="how much slower the plan may be")
    args = ap.parse_args()

    backends = available_backends()
    if "onnxruntime" not in backends:
        print("cannot compare the runtimes here: onnxruntime (the baseline) is not installed")
        return 1
    plan = ocr_plan()
    engines = {name: OcrEngine(name) for name in backends}
    if plan.det != plan.rec:  # a mixed plan is an engine of its own
        engines["plan"] = OcrEngine()
    for eng in engines.values():
        eng.read(np.full((64, 64, 3), 255, dtype=np.uint8))  # load and warm up
    with tempfile.TemporaryDirectory() as tmp:
        paths = real_images(args.data, args.real) + generated_images(args.generated, Path(tmp))
        images: list[NDArray[np.uint8]] = [load_image(p) for p in paths]
    if not images:
        print(f"no images found under {args.data}")
        return 1
    names = list(engines)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    same = dict.fromkeys(names, 0)
    scores: dict[str, list[float]] = {name: [] for name in names}
    for i, image in enumerate(images):
        order = names[i % len(names) :] + names[: i % len(names)]
        texts: dict[str, list[str]] = {}
        for name in order:
            t = time.perf_counter()
            tokens = engines[name].read(image)
            seconds[name].append(time.perf_counter() - t)
            texts[name] = sorted(tok.text for tok in tokens)
        for name in names:
            same[name] += texts[name] == texts["onnxruntime"]
            scores[name].append(f1(texts[name], texts["onnxruntime"]))

    chosen = "plan" if "plan" in engines else plan.det
    print(f"OCR runtimes on {len(images)} images; the plan here: {engine_identity()} ({plan.how})")
    print(
        f"{'engine':<14} {'median s':>9} {'total s':>9} {'vs onnxruntime':>15} {'same':>7} {'F1':>7}"
    )
    base = sum(seconds["onnxruntime"])
    for name in names:
        mark = "  <- plan" if name == chosen else ""
        print(
            f"{name:<14} {statistics.median(seconds[name]):>9.3f} {sum(seconds[name]):>9.1f} "
            f"{base / sum(seconds[name]):>14.2f}x {same[name]:>3}/{len(images):<3} "
            f"{100 * statistics.mean(scores[name]):>6.1f}%{mark}"
        )
    fastest = min(sum(seconds[n]) for n in backends)
    slower = sum(seconds[chosen]) / fastest - 1
    print(
        f"the plan is {100 * slower:+.1f} % against the fastest single backend "
        f"(at most +{100 * args.slack:.0f} %)"
    )
    ok = slower <= args.slack and all(statistics.mean(v) >= 0.9 for v in scores.values())
    print("ok" if ok else "BELOW TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
