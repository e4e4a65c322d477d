"""Charts: spec validation, deterministic rendering with a geometry sidecar, chart-as-code and
the seeded synthetic suites (chartr, chartqax, realcqa).

Names load on first use, so `chartproof.charts.colors` (all that question programs need) does
not pull in matplotlib.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chartproof.charts.code import spec_to_code, spec_to_script
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
    from chartproof.charts.rendering import Rendered, render, render_to_file
    from chartproof.charts.suites import SUITES, generate_specs
    from chartproof.charts.validate import SpecError, validate_spec

_LAZY: dict[str, str] = {
    "spec_to_code": "chartproof.charts.code",
    "spec_to_script": "chartproof.charts.code",
    "AxisMap": "chartproof.charts.geometry",
    "Box": "chartproof.charts.geometry",
    "Geometry": "chartproof.charts.geometry",
    "LegendEntry": "chartproof.charts.geometry",
    "Mark": "chartproof.charts.geometry",
    "TextElement": "chartproof.charts.geometry",
    "load_geometry": "chartproof.charts.geometry",
    "save_geometry": "chartproof.charts.geometry",
    "Rendered": "chartproof.charts.rendering",
    "render": "chartproof.charts.rendering",
    "render_to_file": "chartproof.charts.rendering",
    "SUITES": "chartproof.charts.suites",
    "generate_specs": "chartproof.charts.suites",
    "SpecError": "chartproof.charts.validate",
    "validate_spec": "chartproof.charts.validate",
}

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
    "spec_to_script",
    "validate_spec",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chartproof.charts' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
