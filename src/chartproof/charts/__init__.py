"""Charts: spec validation, deterministic rendering with a geometry sidecar, chart-as-code and
the seeded synthetic suites (chartr, chartqax, realcqa)."""

from __future__ import annotations

from chartproof.charts.code import spec_to_code
from chartproof.charts.geometry import (
    AxisMap,
    Box,
    Geometry,
    LegendEntry,
    Mark,
    TextElement,
    load_geometry,
    save_geometry,
)
from chartproof.charts.render import Rendered, render, render_to_file
from chartproof.charts.suites import SUITES, generate_specs
from chartproof.charts.validate import SpecError, validate_spec

__all__ = [
    "SUITES",
    "AxisMap",
    "Box",
    "Geometry",
    "LegendEntry",
    "Mark",
    "Rendered",
    "SpecError",
    "TextElement",
    "generate_specs",
    "load_geometry",
    "render",
    "render_to_file",
    "save_geometry",
    "spec_to_code",
    "validate_spec",
]
