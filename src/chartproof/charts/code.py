"""Chart as code: print a spec's drawing plan as a standalone matplotlib script.

The script runs the very calls `render` runs, so it writes the same PNG bytes (same
matplotlib version); it imports only matplotlib and the standard library.
"""

from __future__ import annotations

import math
from typing import Any

from chartproof.charts._build import build_plan
from chartproof.charts._plan import Op, Plan, Var
from chartproof.charts.rendering import PNG_METADATA, PNG_OPTIONS
from chartproof.charts.validate import validate_spec
from chartproof.types import ChartSpec

__all__ = ["plan_to_code", "spec_to_code", "spec_to_script"]

_INDENT = " " * 8
_WIDTH = 100

_TEMPLATE = '''\
# Chart {chart_id} ({chart_type}), written by chartproof from the chart's spec.
# Run: {usage}  (needs only matplotlib; same version, same bytes)
{imports}import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

RC = {rc}


def draw(path):
    """Draw the chart and save it as a PNG file at `path`."""
    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        matplotlib.rcParams.update(RC)
        fig = Figure(figsize={figsize}, dpi={dpi})
        FigureCanvasAgg(fig)
{body}
        fig.savefig(path, format="png", metadata={metadata}, pil_kwargs={png_options})
{main}'''

_MAIN_ARGV = """

if __name__ == "__main__":
    draw(sys.argv[1] if len(sys.argv) > 1 else "chart.png")
"""

_MAIN_FIXED = """

DATA = {data}


if __name__ == "__main__":
    draw({image})
    with open({data_file}, "w", encoding="utf-8", newline="") as f:
        f.write(DATA)
"""


def literal(value: Any) -> str:
    """Python source for a plan argument (literals, containers of them, or a `Var`)."""
    if isinstance(value, Var):
        return value.name
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {value!r} ({type(value).__name__}) as a Python literal")


def _statement(o: Op) -> str:
    parts = [literal(a) for a in o.args] + [f"{k}={literal(v)}" for k, v in o.kwargs]
    head = f"{o.bind} = " if o.bind else ""
    tail = f"[{o.item}]" if o.item is not None else ""
    one_line = f"{_INDENT}{head}{o.target}.{o.method}({', '.join(parts)}){tail}"
    if len(one_line) <= _WIDTH:
        return one_line
    args = "".join(f"{_INDENT}    {p},\n" for p in parts)
    return f"{_INDENT}{head}{o.target}.{o.method}(\n{args}{_INDENT}){tail}"


def plan_to_code(plan: Plan, script_name: str = "chart.py") -> str:
    """The script that executes `plan` and saves the figure at the path given as argument."""
    return _script(
        plan, usage=f"python {script_name} out.png", imports="import sys\n\n", main=_MAIN_ARGV
    )


def spec_to_script(spec: ChartSpec, *, image: str = "chart.png", data: str = "data.csv") -> str:
    """A script that takes no arguments, saves the spec's chart to `image` and writes the
    spec's table as CSV to `data` — what the image-to-code prompt asks a model for, so a
    program (the built-in reader) can answer it with a redraw of what it read. Imports only
    matplotlib."""
    validate_spec(spec)
    main = _MAIN_FIXED.format(
        data=literal(spec.table.to_csv()), image=literal(image), data_file=literal(data)
    )
    return _script(build_plan(spec), usage="python chart.py", imports="", main=main)


def _script(plan: Plan, *, usage: str, imports: str, main: str) -> str:
    return _TEMPLATE.format(
        chart_id=plan.spec_id.replace("\n", " "),
        chart_type=plan.chart_type,
        usage=usage,
        imports=imports,
        main=main,
        rc="{\n" + "".join(f"    {literal(k)}: {literal(v)},\n" for k, v in plan.rc) + "}",
        figsize=literal(plan.figsize),
        dpi=literal(plan.dpi),
        body="\n".join(_statement(o) for o in plan.ops),
        metadata=literal(PNG_METADATA),
        png_options=literal(PNG_OPTIONS),
    )


def spec_to_code(spec: ChartSpec) -> str:
    """A standalone matplotlib script that writes the spec's chart to the path it is given."""
    validate_spec(spec)
    return plan_to_code(build_plan(spec))
