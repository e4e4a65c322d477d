"""The parent checks what a sandboxed script hands back before decoding it: a small PNG
declaring a 13,370² canvas and a 28 MB data.csv are refused in one line, and the parent's
peak memory (the measuring subprocess's ru_maxrss) stays under 500 MB."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from chartproof.variants.images import open_image, to_rgb

SIDE = 13_370


def bomb_png(side: int = SIDE) -> bytes:
    """A 1-bit grey PNG of side² white pixels, compressed row by row (never held whole)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    row = b"\x00" + b"\xff" * ((side + 7) // 8)
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


def _png(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (10, 20, 30)).save(buf, format="PNG")
    return buf.getvalue()


def test_bomb_header_is_refused_before_decoding() -> None:
    data = bomb_png()
    assert len(data) < 400_000  # small on disk ...
    with pytest.raises(ValueError) as caught:
        to_rgb(data)
    message = str(caught.value)
    assert "\n" not in message and f"{SIDE}×{SIDE} pixels" in message and "cap" in message


@pytest.mark.parametrize(
    ("data", "kwargs", "fragment"),
    [
        (b"", {}, "not a decodable image (0 bytes)"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", {}, "not a decodable image"),
        (_png(8, 8)[:40], {}, "not a decodable image"),  # truncated after the header
        (_png(8, 8), {"max_bytes": 10}, "bytes is over the 10-byte cap"),
        (_png(100, 50), {"max_pixels": 4999}, "100×50 pixels is over the 4999-pixel cap"),
    ],
    ids=["empty", "svg", "truncated", "bytes", "pixels"],
)
def test_bad_images_get_one_line(data: bytes, kwargs: dict[str, int], fragment: str) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        to_rgb(data, **kwargs)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_images_within_the_caps_decode() -> None:
    assert to_rgb(_png(100, 50), max_pixels=5000).shape == (50, 100, 3)
    assert open_image(_png(3, 2)).size == (3, 2)
    assert to_rgb(np.zeros((2, 3), dtype=np.uint8)).shape == (2, 3, 3)  # arrays are not capped


PROBE = """
import json, sys
from pathlib import Path
from chartproof.pipelines import derender_code
from chartproof.sandbox import SandboxResult
from chartproof.types import ModelResponse

files = {"chart.png": Path(sys.argv[1]).read_bytes()}
if sys.argv[3] != "-":
    files["data.csv"] = Path(sys.argv[3]).read_bytes()
derender_code.run_code = lambda code, policy: SandboxResult(status="ok", files=files)
reply = ModelResponse(request_id="r", model="m", text="```python\\nprint(1)\\n```")
result = derender_code.redraw_reply(Path(sys.argv[2]), reply, sample_id="x", model="m")
# VmHWM, this process's own high-water mark: ru_maxrss keeps the forked parent's across exec
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
peak = int(hwm.split()[1]) * 1024
print(json.dumps({"status": result.status, "reason": result.reason, "peak": peak}))
"""


def _redraw(tmp_path: Path, png: bytes, csv: bytes | None) -> dict[str, object]:
    (tmp_path / "back.png").write_bytes(png)
    (tmp_path / "orig.png").write_bytes(_png(320, 240))
    if csv is not None:
        (tmp_path / "data.csv").write_bytes(csv)
    args = [str(tmp_path / "back.png"), str(tmp_path / "orig.png")]
    args.append(str(tmp_path / "data.csv") if csv is not None else "-")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return json.loads(done.stdout.decode().splitlines()[-1])  # type: ignore[no-any-return]


def test_returned_bomb_and_huge_csv_are_refused_in_bounded_memory(tmp_path: Path) -> None:
    bomb = _redraw(tmp_path, bomb_png(), None)
    assert bomb["status"] == "no_image", bomb
    assert f"{SIDE}×{SIDE} pixels is over" in str(bomb["reason"])
    assert int(bomb["peak"]) < 500 * 1024 * 1024, bomb  # was 2.4 GB
    row = b"Apples," + b"1" * 60 + b"\n"
    csv = b"Fruit,Sales\n" + row * (28_000_000 // len(row))
    table = _redraw(tmp_path, _png(320, 240), csv)
    assert table["status"] == "sandbox_failed", table
    assert "data.csv of 2799" in str(table["reason"]) and "cap" in str(table["reason"])
    assert int(table["peak"]) < 500 * 1024 * 1024, table  # was 1.1 GB
