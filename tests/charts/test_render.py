"""Rendering is deterministic (same bytes twice and in a fresh process), PNGs carry no
software or date stamp, sizes follow the style, and only the bundled font is used."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import matplotlib as mpl
import pytest
from matplotlib import font_manager
from PIL import Image

from chartproof.charts import Rendered, render
from chartproof.charts._layout import FONT_FAMILY
from chartproof.charts.colors import NAMED_COLORS, PALETTES, hex_to_rgb
from chartproof.types import ChartSpec

_CONFTEST = Path(__file__).with_name("conftest.py")


def test_same_spec_same_bytes(specs: dict[str, ChartSpec], renders: dict[str, Rendered]) -> None:
    for name in ("vbar", "pie", "scatter", "log_lines"):
        again = render(specs[name])
        assert again.png == renders[name].png, name
        assert again.geometry == renders[name].geometry, name


def test_same_bytes_in_a_fresh_process(renders: dict[str, Rendered]) -> None:
    script = f"""
import hashlib, importlib.util, json
spec = importlib.util.spec_from_file_location("gallery", {str(_CONFTEST)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
from chartproof.charts import render
print(json.dumps({{k: hashlib.sha256(render(s).png).hexdigest() for k, s in module.gallery().items()}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    fresh = json.loads(out.stdout.strip().splitlines()[-1])
    here = {k: hashlib.sha256(r.png).hexdigest() for k, r in renders.items()}
    assert fresh == here


def test_user_rcparams_do_not_leak_in(
    specs: dict[str, ChartSpec], renders: dict[str, Rendered]
) -> None:
    with mpl.rc_context({"font.size": 23, "axes.facecolor": "#ff0000", "lines.linewidth": 7}):
        assert render(specs["line"]).png == renders["line"].png
        assert mpl.rcParams["font.size"] == 23  # and the user's settings are back


def test_png_has_no_software_or_date_stamp(renders: dict[str, Rendered]) -> None:
    image = Image.open(io.BytesIO(renders["vbar"].png))
    assert not {"Software", "Creation Time", "date:create"} & set(image.info)
    assert b"Matplotlib" not in renders["vbar"].png


@pytest.mark.parametrize("name", ["vbar", "log_lines"])
def test_size_is_inches_times_dpi(
    name: str, specs: dict[str, ChartSpec], renders: dict[str, Rendered]
) -> None:
    style = specs[name].style
    want = (round(style.width * style.dpi), round(style.height * style.dpi))
    assert renders[name].size == want
    assert Image.open(io.BytesIO(renders[name].png)).size == want


def test_font_is_matplotlibs_bundled_dejavu() -> None:
    path = Path(font_manager.findfont(font_manager.FontProperties(family=FONT_FAMILY)))
    assert path.name == "DejaVuSans.ttf"
    assert Path(mpl.get_data_path()) in path.parents


def test_the_bundled_font_wins_over_a_system_copy_listed_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A font list matplotlib rebuilt elsewhere: a system DejaVu Sans first and the bundled
    files missing. Drawing pins matplotlib's own copy again."""
    import dataclasses
    import shutil

    from chartproof.charts._layout import prefer_bundled_font

    manager = font_manager.fontManager
    bundled = Path(mpl.get_data_path())
    own = bundled / "fonts" / "ttf" / "DejaVuSans.ttf"
    copy = shutil.copy(own, tmp_path / "DejaVuSans.ttf")  # as /usr/share/fonts/... would be
    entry = font_manager.ttfFontProperty(font_manager.get_font(own))
    system = dataclasses.replace(entry, fname=str(copy))
    stale = [system] + [f for f in manager.ttflist if bundled not in Path(f.fname).parents]
    monkeypatch.setattr(manager, "ttflist", stale)
    font_manager.FontManager._findfont_cached.cache_clear()
    prop = font_manager.FontProperties(family=FONT_FAMILY)
    assert font_manager.findfont(prop) == system.fname  # the stale list picks the system copy
    prefer_bundled_font.__wrapped__()
    try:
        path = Path(font_manager.findfont(prop))
        assert path.name == "DejaVuSans.ttf" and bundled in path.parents
    finally:
        font_manager.FontManager._findfont_cached.cache_clear()


def test_style_changes_pixels(specs: dict[str, ChartSpec], renders: dict[str, Rendered]) -> None:
    base = specs["vbar"]
    for change in (
        {"palette": ("#d62728",)},
        {"gridlines": "none"},
        {"value_labels": False},
        {"font_size": 12.0},
    ):
        other = base.model_copy(update={"style": base.style.model_copy(update=change)})
        assert render(other).png != renders["vbar"].png, change


def test_turning_labels_off_moves_nothing_else(
    specs: dict[str, ChartSpec], renders: dict[str, Rendered]
) -> None:
    base = specs["vbar"]
    bare = base.model_copy(update={"style": base.style.model_copy(update={"value_labels": False})})
    geo = render(bare).geometry
    assert geo.plot_area == renders["vbar"].geometry.plot_area
    assert geo.marks == renders["vbar"].geometry.marks


def test_palette_colours_are_far_apart_and_uniquely_named() -> None:
    # Two near-identical colours in one palette (the dark palette once had #8b0000 and
    # #800000, 11 apart) make series indistinguishable to readers and to colour questions.
    for name, palette in PALETTES.items():
        assert len({NAMED_COLORS[c] for c in palette}) == len(palette), name
        for a, b in itertools.combinations(palette, 2):
            assert math.dist(hex_to_rgb(a), hex_to_rgb(b)) >= 40, (name, a, b)
