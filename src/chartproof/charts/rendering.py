"""Render a chart spec to PNG bytes plus its geometry sidecar, deterministically.

One draw per chart: the plan runs on a bare Agg figure inside isolated rcParams, the
geometry is read from artist extents, and the PNG is encoded from the drawn canvas.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import matplotlib.image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from chartproof.charts._build import build_plan
from chartproof.charts._extract import extract_geometry
from chartproof.charts._layout import pinned_rc
from chartproof.charts._plan import Plan, execute
from chartproof.charts.geometry import Geometry, save_geometry
from chartproof.charts.validate import validate_spec
from chartproof.types import ChartSpec

__all__ = ["PNG_METADATA", "PNG_OPTIONS", "Rendered", "render", "render_plan", "render_to_file"]

PNG_METADATA: dict[str, str | None] = {"Software": None}
"""PNG text chunks: matplotlib's default "Software" entry (its version) is dropped, so the
bytes depend on the picture only."""
PNG_OPTIONS: dict[str, int] = {"compress_level": 1}
"""Pillow PNG settings: zlib level 1 encodes about 30 % faster than the default level 6 for
files about 14 % larger (a third of a pie chart's render time is PNG encoding)."""


@dataclass(frozen=True)
class Rendered:
    """A rendered chart: PNG bytes and where everything sits in them."""

    png: bytes
    """The PNG file's bytes."""
    geometry: Geometry
    """Pixel boxes of every mark and text."""

    @property
    def size(self) -> tuple[int, int]:
        """Image (width, height) in pixels."""
        return self.geometry.width, self.geometry.height


def render_plan(plan: Plan) -> Rendered:
    """Execute a drawing plan; the only place chartproof touches a matplotlib figure."""
    with pinned_rc(plan.rc):
        fig = Figure(figsize=plan.figsize, dpi=plan.dpi)
        canvas = FigureCanvasAgg(fig)
        tagged = execute(fig, plan.ops)
        canvas.draw()  # type: ignore[no-untyped-call]
        geometry = extract_geometry(plan, fig, tagged, canvas.get_renderer())  # type: ignore[no-untyped-call]
        buf = io.BytesIO()
        matplotlib.image.imsave(
            buf,
            canvas.buffer_rgba(),  # type: ignore[no-untyped-call]
            format="png",
            origin="upper",
            dpi=fig.dpi,
            metadata=cast(dict[str, str], PNG_METADATA),
            pil_kwargs=dict(PNG_OPTIONS),
        )
    return Rendered(png=buf.getvalue(), geometry=geometry)


def render(spec: ChartSpec) -> Rendered:
    """Validate and draw a spec; the same spec always gives the same bytes."""
    validate_spec(spec)
    return render_plan(build_plan(spec))


def render_to_file(spec: ChartSpec, path: str | Path) -> Geometry:
    """Write the PNG to `path` and its geometry to `<stem>.geometry.json` beside it."""
    rendered = render(spec)
    p = Path(path)
    p.write_bytes(rendered.png)
    save_geometry(rendered.geometry, p)
    return rendered.geometry
