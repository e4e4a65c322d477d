"""The reader's answer to the image-to-code prompt (`derender_code`): the chart it read, as a
chartproof spec, printed as a matplotlib script that also writes the table it read.

Only what the reader recovers goes into the spec: chart type, categories, series, values,
titles, legend, value labels, log scale and colours (as the palette colour nearest to each
series' pixels). Fonts, margins and tick positions follow chartproof's renderer, so the
redraw of a chartproof chart comes out close to pixel-identical and that of a foreign chart
less so: the derender pipeline's SSIM says how close.
"""

from __future__ import annotations

from chartproof.charts.kinds import kinds_where
from chartproof.questions.view import ChartView
from chartproof.types import ChartSpec, Column, ColumnKind, DataTable, Encoding, Style

__all__ = ["REDRAWABLE", "code_reply", "spec_of_view"]

REDRAWABLE = kinds_where(lambda k: k.redrawable)
"""Chart types the reader can redraw (`ChartKind.redrawable`; scatter and box plots are not
read as tables)."""


def spec_of_view(view: ChartView, *, spec_id: str, width: int, height: int) -> ChartSpec:
    """A spec that draws what the reader read, at the image's size (100 dpi).

    Raises ValueError (naming what is missing) when the reading cannot make a chart."""
    from chartproof.charts import validate_spec
    from chartproof.charts.colors import NAMED_COLORS

    if view.chart_type not in REDRAWABLE:
        raise ValueError(f"the reader does not redraw {view.chart_type} charts")
    if not view.x_labels or not view.series:
        raise ValueError("no categories or series were read")
    x_kind: ColumnKind = "time" if view.x_kind == "time" else "category"
    names = [view.x_name, *view.series]
    if len(set(names)) != len(names):
        raise ValueError("the x column and a series share a name")
    columns = (
        Column(name=view.x_name, kind=x_kind),
        *(Column(name=s, unit=view.unit) for s in view.series),
    )
    rows = tuple(
        (label, *(view.values[s][i] for s in view.series)) for i, label in enumerate(view.x_labels)
    )
    hex_of = {name: hexa for hexa, name in NAMED_COLORS.items()}
    keys = view.x_labels if view.kind.color_keys == "x" else view.series
    palette = tuple(hex_of[view.colors[k]] for k in keys if view.colors.get(k) in hex_of)
    style = Style(
        title=view.title,
        x_title=view.x_title,
        y_title=view.y_title,
        value_labels=view.value_labels,
        legend=view.legend,
        y_scale="log" if view.y_scale == "log" else "linear",
        width=min(40.0, width / 100),
        height=min(40.0, height / 100),
        dpi=100,
        **({"palette": palette} if len(palette) == len(keys) else {}),
    )
    spec = ChartSpec(
        id=spec_id,
        chart_type=view.chart_type,
        table=DataTable(columns=columns, rows=rows),
        encoding=Encoding(x=view.x_name, y=view.series[:1] if view.kind.whole else view.series),
        style=style,
    )
    validate_spec(spec)
    return spec


def code_reply(view: ChartView, *, spec_id: str, width: int, height: int) -> str:
    """The reply to a code prompt: the script in a fenced block, or why there is none."""
    from chartproof.charts import spec_to_script

    try:
        spec = spec_of_view(view, spec_id=spec_id, width=width, height=height)
    except ValueError as e:
        return f"The reader cannot redraw this chart as code: {e}."
    return f"```python\n{spec_to_script(spec)}```"
