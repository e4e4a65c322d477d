"""Read time of the built-in reader on images of any size (issue 42's target: every image
of the shared data, and a 3,420-px blow-up of each, read in <= 2 s on one core).

Draws charts (seeded) from each folder of ../shared/data, reads each as it is and blown up
(Lanczos) to 3,420 px on its long side, from the file as `builtin:reader` does (decode,
scale to the working size, OCR, derendering), and reports CPU time (`time.process_time`,
the figure the target is on: wall time is shared with whatever else the machine runs)
beside wall time: median, slowest, and the reads over 2 s. On ChartQA charts with a gold
table it also counts the table cells recovered from each size (ChartQA's 5 %), so a faster
working size that reads worse shows up. `--from-rows` reads again only the images with a
read slower than `--slower-than` in an earlier run's rows, `--repeats` times each (the
least CPU time kept: the fastest of several reads is the least disturbed by the rest of
the machine). `--work-side` tries another working size;
`--blow-up-format jpeg` saves the blow-ups as JPEG (quality 90), which the reader decodes
reduced.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_sizes.py --charts 20
    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_sizes.py --charts 0 --rows /tmp/sizes.jsonl
        # every image; rerun the same command to resume after a stop
    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_sizes.py --from-rows /tmp/sizes.jsonl \
        --slower-than 1.4 --repeats 3     # the slow reads again
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from chartproof.reader.perception import ReadingError, get_engine, read_chart
from chartproof.reader.perception import image as image_module
from chartproof.types import DataTable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_reader import table_recovery

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
BLOW_UP = 3420
LIMIT_S = 2.0
FOLDERS = ("chartqa", "figureqa", "opencqa-val", "chartbias")


def _images(folder: Path) -> dict[str, DataTable | None]:
    """Every image of a folder, with its gold table when a row gives one."""
    out: dict[str, DataTable | None] = {}
    jsonl = folder / f"{folder.name}.jsonl"
    with open(jsonl, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            raw = row.get("table")
            table = DataTable.from_csv(raw) if isinstance(raw, str) and raw.strip() else None
            if out.get(row["image"]) is None:
                out[row["image"]] = table
    return out


def _read(path: Path) -> tuple[Any, float, float, tuple[int, int]]:
    """(reading or error text, CPU s, wall s, working size) of one file."""
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        image = image_module.load_image(path)
        size = (int(image.shape[1]), int(image.shape[0]))
        reading: Any = read_chart(image, get_engine().read(image, footnotes=False))
    except (image_module.ImageError, ReadingError) as e:
        reading, size = str(e), (0, 0)
    return reading, time.process_time() - cpu, time.perf_counter() - wall, size


def _picked(rows_files: list[Path], slower_than: float) -> set[tuple[str, str]]:
    """(folder, image) of the rows with a read slower than `slower_than` CPU seconds."""
    out = set()
    for path in rows_files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    if float(row["cpu_s"]) > slower_than:
                        out.add((row["folder"], row["image"]))
    return out


def _blow_up(path: Path, folder: Path, fmt: str = "png") -> Path:
    from PIL import Image

    with Image.open(path) as im:
        rgb = im.convert("RGB")
    s = BLOW_UP / max(rgb.size)
    big = rgb.resize((round(rgb.size[0] * s), round(rgb.size[1] * s)), Image.Resampling.LANCZOS)
    if fmt == "jpeg":
        out = folder / f"{path.stem}-{BLOW_UP}.jpg"
        big.save(out, quality=90)
    else:
        out = folder / f"{path.stem}-{BLOW_UP}.png"
        big.save(out, compress_level=1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--charts", type=int, default=20, help="charts per folder (0: all)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--work-side", type=int, help="working size to try instead")
    ap.add_argument("--blow-up-format", choices=("png", "jpeg"), default="png")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--rows",
        type=Path,
        help="append each read to this JSONL as it is done, and skip the reads it holds "
        "(a long run resumes where it stopped)",
    )
    ap.add_argument("--folders", default=",".join(FOLDERS), help="comma-separated folders")
    ap.add_argument(
        "--from-rows",
        type=Path,
        nargs="+",
        help="read only the images of these rows files (an earlier run's --rows) with a read "
        "slower than --slower-than, original and blow-up both",
    )
    ap.add_argument("--slower-than", type=float, default=0.0, help="CPU s, with --from-rows")
    ap.add_argument("--repeats", type=int, default=1, help="reads of each file (CPU: the least)")
    args = ap.parse_args(argv)
    picked = _picked(args.from_rows, args.slower_than) if args.from_rows else None
    if not DATA.is_dir():
        print(f"no shared data at {DATA}", file=sys.stderr)
        return 2
    if args.work_side:
        image_module.WORK_SIDE = args.work_side
    get_engine().read(np.full((64, 64, 3), 255, dtype=np.uint8))  # load the models first
    rows: list[dict[str, Any]] = []
    if args.rows is not None and args.rows.exists():
        with open(args.rows, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    done = {(r["folder"], r["image"]) for r in rows if r["size"] == "blow-up"}
    # both reads of an image, each once (a stop between them leaves one to read again)
    last = {(r["folder"], r["image"], r["size"]): r for r in rows}
    rows = [r for k, r in last.items() if k[:2] in done]
    out = open(args.rows, "a", encoding="utf-8") if args.rows is not None else None  # noqa: SIM115
    folders = [f for f in FOLDERS if f in args.folders.split(",")]
    draw = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        for name in folders:
            folder = DATA / name
            if not folder.is_dir():
                continue
            images = _images(folder)
            keys = sorted(images, key=lambda k: (images[k] is None, k))
            if picked is not None:
                keys = [k for k in keys if (name, k) in picked]
            elif args.charts:
                tabled = [k for k in keys if images[k] is not None]
                pool = tabled if len(tabled) >= args.charts else keys
                keys = sorted(draw.sample(pool, min(args.charts, len(pool))))
            for key in keys:
                if (name, key) in done:
                    continue
                path = folder / key
                big = _blow_up(path, Path(tmp), args.blow_up_format)
                for size, file in (("original", path), ("blow-up", big)):
                    reading, cpu, wall, work = min(
                        (_read(file) for _ in range(max(1, args.repeats))), key=lambda r: r[1]
                    )
                    gold = images[key]
                    cells = (
                        table_recovery(None if isinstance(reading, str) else reading.table, gold)
                        if gold is not None
                        else (0, 0)
                    )
                    rows.append(
                        {
                            "folder": name,
                            "image": key,
                            "size": size,
                            "work": work,
                            "cpu_s": round(cpu, 3),
                            "wall_s": round(wall, 3),
                            "cells": cells,
                            "read": not isinstance(reading, str),
                        }
                    )
                    if out is not None:
                        out.write(json.dumps(rows[-1]) + "\n")
                        out.flush()
                big.unlink()
    if out is not None:
        out.close()
    print(
        f"{'folder':12} {'size':9} {'n':>4} {'cpu med':>8} {'cpu max':>8} {'wall med':>8} "
        f"{'over 2s':>7} {'cells':>11}"
    )
    worst = 0.0
    for name in folders:
        for size in ("original", "blow-up"):
            part = [r for r in rows if r["folder"] == name and r["size"] == size]
            if not part:
                continue
            cpu = [float(r["cpu_s"]) for r in part]
            worst = max(worst, max(cpu))
            right = sum(r["cells"][0] for r in part)
            total = sum(r["cells"][1] for r in part)
            print(
                f"{name:12} {size:9} {len(part):4d} {statistics.median(cpu):8.2f} "
                f"{max(cpu):8.2f} {statistics.median(float(r['wall_s']) for r in part):8.2f} "
                f"{sum(c > LIMIT_S for c in cpu):7d} {f'{right}/{total}' if total else '-':>11}"
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print(f"slowest read: {worst:.2f} s CPU (target {LIMIT_S} s)")
    return 0 if worst <= LIMIT_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
