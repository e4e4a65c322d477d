"""Charts from images as code: a model writes matplotlib code for a chart image, the code runs
in the sandbox, and its output is scored for fidelity before it may seed counterfactuals.

Fidelity has two parts. Image: SSIM between the original and the redrawn chart (the redrawn
one resized to the original's size). Data, when the original's table is known: the prompt
asks the code to also write the data it plots to `data.csv` (first column the x labels, one
column per series); the share of the original's numeric cells found there within 5 % is the
data agreement. Reading a CSV the code writes is more robust than parsing the literals of
arbitrary code, and a model that plots one thing and writes another is caught by SSIM.
A faithful run (SSIM and agreement above their thresholds) with a usable CSV becomes a
`ChartSpec` that `build_family` accepts.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from chartproof.charts.kinds import chart_kind, chart_kinds
from chartproof.models.parsing import extract_code
from chartproof.sandbox import SandboxPolicy, SandboxResult, run_code
from chartproof.types import (
    ChartSpec,
    ChartType,
    DataTable,
    DerenderStatus,
    Encoding,
    GenerationConfig,
    Record,
    Style,
    Transform,
)
from chartproof.variants.images import to_rgb
from chartproof.variants.similarity import image_similarity

if TYPE_CHECKING:
    from chartproof.models.base import Backend
    from chartproof.models.prompts import PromptSet
    from chartproof.types import ModelRequest, ModelResponse

__all__ = [
    "DERENDER_PROMPT",
    "DerenderConfig",
    "DerenderResult",
    "data_agreement",
    "derender",
    "derender_request",
    "extract_code",
    "guess_chart_type",
    "redraw_reply",
]

DERENDER_PROMPT = "derender_code"
MAX_TABLE_BYTES = 1024 * 1024
"""Largest data.csv a script may hand back (a chart's table is kilobytes; parsing costs
about 40 times the file's size in memory)."""
"""The built-in prompt asked (`chartproof.models.prompts`); its size fields are filled from
the image."""


class DerenderConfig(Record):
    """Settings of the image → code → chart pipeline."""

    min_ssim: float = Field(default=0.75, ge=-1, le=1)
    """Least SSIM to the original for a faithful redraw."""
    min_data_agreement: float = Field(default=0.9, ge=0, le=1)
    """Least share of the original's numbers found in the code's data (when a table is known)."""
    data_tolerance: float = Field(default=0.05, ge=0)
    """Relative tolerance of a data match."""
    max_tokens: int = Field(default=2048, ge=64)
    """Generation budget for the code."""
    policy: SandboxPolicy = SandboxPolicy()
    """Sandbox limits for the model's code."""


class DerenderResult(Record):
    """What came of asking a model to redraw one chart as code."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_attribute_docstrings=True,
        ser_json_bytes="base64",
        val_json_bytes="base64",
    )

    sample_id: str
    """The chart asked about."""
    model: str
    """Backend name."""
    status: DerenderStatus
    """Where the pipeline stopped: "ok" means the code ran and drew an image."""
    reason: str | None = None
    """Why it stopped early (model error, sandbox status and reason, ...)."""
    code: str | None = None
    """The extracted script."""
    png: bytes | None = None
    """The image the script drew."""
    ssim: float | None = None
    """SSIM between the original and the redrawn image."""
    data_agreement: float | None = None
    """Share of the original's numbers the script's data.csv reproduces (None: no table or
    no CSV)."""
    faithful: bool = False
    """SSIM and data agreement both clear their thresholds."""
    table: DataTable | None = None
    """The data the script wrote, when it wrote a readable data.csv."""
    spec: ChartSpec | None = None
    """A spec rebuilt from the faithful redraw, ready for `build_family`."""
    sandbox: SandboxResult | None = None
    """The sandbox run."""


def guess_chart_type(code: str) -> ChartType | None:
    """The chart type a script draws: the first kind whose `ChartKind.script_call` matches, in
    `script_rank` order (shipped: pie, box, area, scatter, hbar, bar, line)."""
    calls = sorted((k for k in chart_kinds() if k.script_call), key=lambda k: k.script_rank)
    for kind in calls:
        if kind.script_call and re.search(kind.script_call, code):
            return kind.name
    return None


def data_agreement(original: DataTable, redrawn: DataTable, tolerance: float = 0.05) -> float:
    """Share of the original's numeric cells the redrawn table reproduces within `tolerance`
    (relative; zeros must be within `tolerance` × the column's largest magnitude).

    Value columns are matched by name (case and spaces ignored), falling back to position
    among the numeric columns; rows by x label (first column), falling back to position.
    """
    onum = [c.name for c in original.columns[1:] if c.kind == "number"]
    rnum = [c.name for c in redrawn.columns[1:] if c.kind == "number"]
    if not onum:
        raise ValueError("the original table has no numeric column to compare")
    key = {_norm(n): n for n in rnum}
    cols = {n: key.get(_norm(n)) for n in onum}
    if not any(cols.values()):
        cols = {n: (rnum[i] if i < len(rnum) else None) for i, n in enumerate(onum)}
    olabels = [_norm(v) for v in original.labels(original.names[0])]
    rlabels = [_norm(v) for v in redrawn.labels(redrawn.names[0])]
    rpos = {v: i for i, v in enumerate(rlabels)}
    by_label = any(v in rpos for v in olabels)
    hits = total = 0
    for name in onum:
        values = original.numbers(name)
        scale = max((abs(v) for v in values if v is not None), default=0.0)
        match = cols[name]
        other = redrawn.numbers(match) if match is not None else None
        for i, v in enumerate(values):
            if v is None:
                continue
            total += 1
            j = rpos.get(olabels[i]) if by_label else i
            if other is None or j is None or j >= len(other) or other[j] is None:
                continue
            got = other[j]
            assert got is not None
            bound = tolerance * (abs(v) if v else scale)
            hits += abs(got - v) <= bound
    return hits / total if total else 0.0


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def derender_request(
    image: Path,
    *,
    sample_id: str,
    config: DerenderConfig | None = None,
    prompts: PromptSet | None = None,
) -> ModelRequest:
    """The request asking a model for code that redraws the chart in `image` (the prompt's
    size fields filled from the image)."""
    from chartproof.models.prompts import build_request

    cfg = config or DerenderConfig()
    height, width = to_rgb(image.read_bytes()).shape[:2]
    return build_request(
        DERENDER_PROMPT,
        image,
        request_id=f"{sample_id}/derender",
        config=GenerationConfig(max_tokens=cfg.max_tokens),
        prompts=prompts,
        metadata={"sample_id": sample_id, "task": "derender_code"},
        width=str(width),
        height=str(height),
        fig_w=f"{width / 100:.2f}",
        fig_h=f"{height / 100:.2f}",
    )


def derender(
    image: Path,
    backend: Backend,
    *,
    sample_id: str,
    table: DataTable | None = None,
    chart_type: ChartType | None = None,
    config: DerenderConfig | None = None,
    prompts: PromptSet | None = None,
) -> DerenderResult:
    """Ask `backend` for code that redraws the chart in `image`, run it in the sandbox and
    score it. Never raises for what the model or its code does; the result says."""
    request = derender_request(image, sample_id=sample_id, config=config, prompts=prompts)
    [response] = backend.generate([request])
    return redraw_reply(
        image,
        response,
        sample_id=sample_id,
        model=backend.name,
        table=table,
        chart_type=chart_type,
        config=config,
    )


def redraw_reply(
    image: Path,
    response: ModelResponse,
    *,
    sample_id: str,
    model: str,
    table: DataTable | None = None,
    chart_type: ChartType | None = None,
    config: DerenderConfig | None = None,
) -> DerenderResult:
    """Run the code of a model's reply to `derender_request` in the sandbox and score its
    redraw against `image` (and `table`, when known). Needs no model, so many replies can be
    finished at once on an executor's workers. `model` names the backend that replied."""
    cfg = config or DerenderConfig()
    data = image.read_bytes()
    height, width = to_rgb(data).shape[:2]
    base = {"sample_id": sample_id, "model": model}
    if not response.ok:
        return DerenderResult(**base, status="model_error", reason=response.error)
    code = response.parsed.code if response.parsed is not None else extract_code(response.text)
    if code is None:
        return DerenderResult(**base, status="no_code", reason="no Python code in the reply")
    run = run_code(code, cfg.policy)
    if not run.ok:
        reason = f"{run.status}: {run.reason}"
        return DerenderResult(
            **base, status="sandbox_failed", reason=reason, code=code, sandbox=run
        )
    png = run.files.get("chart.png") or run.files.get(cfg.policy.autosave or "figure.png")
    if png is None:
        return DerenderResult(
            **base, status="no_image", reason="the code saved no chart.png", code=code, sandbox=run
        )
    try:
        ssim = image_similarity(data, png)
    except ValueError as exc:
        return DerenderResult(
            **base, status="no_image", reason=f"unreadable image: {exc}", code=code, sandbox=run
        )
    csv = run.files.get("data.csv")
    if csv is not None and len(csv) > MAX_TABLE_BYTES:
        reason = f"data.csv of {len(csv)} bytes is over the {MAX_TABLE_BYTES}-byte cap"
        return DerenderResult(
            **base, status="sandbox_failed", reason=reason, code=code, sandbox=run
        )
    redrawn = _read_table(csv)
    agreement = None
    if table is not None and redrawn is not None:
        agreement = data_agreement(table, redrawn, cfg.data_tolerance)
    faithful = ssim >= cfg.min_ssim and (
        (agreement is not None and agreement >= cfg.min_data_agreement)
        if table is not None
        else True
    )
    spec = None
    if faithful and redrawn is not None:
        kind = chart_type or guess_chart_type(code)
        spec = _spec(sample_id, kind, redrawn, width, height, model, ssim, agreement)
    return DerenderResult(
        **base,
        status="ok",
        code=code,
        png=png,
        ssim=ssim,
        data_agreement=agreement,
        faithful=faithful,
        table=redrawn,
        spec=spec,
        sandbox=run,
    )


def _read_table(data: bytes | None) -> DataTable | None:
    if data is None:
        return None
    try:
        table = DataTable.from_csv(data.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not any(c.kind == "number" for c in table.columns[1:]):
        return None
    return table


def _spec(
    sample_id: str,
    kind: ChartType | None,
    table: DataTable,
    width: int,
    height: int,
    model: str,
    ssim: float,
    agreement: float | None,
) -> ChartSpec | None:
    """A spec for the redrawn data, or None when the data cannot make that chart type."""
    if kind is None:
        return None
    ys = tuple(c.name for c in table.columns[1:] if c.kind == "number")
    params: dict[str, float | int | str | bool] = {"model": model, "ssim": round(ssim, 6)}
    if agreement is not None:
        params["data_agreement"] = round(agreement, 6)
    transform = Transform(
        kind="reconstruction", name="derender_code", params=params, answer_preserved=None
    )
    style = Style(width=min(40.0, width / 100), height=min(40.0, height / 100), dpi=100)
    try:
        spec = ChartSpec(
            id=f"{sample_id}~derendered",
            chart_type=kind,
            table=table,
            encoding=Encoding(
                x=table.names[0], y=ys[:1] if kind and chart_kind(kind).whole else ys
            ),
            style=style,
            parent_id=sample_id,
            transforms=(transform,),
        )
        from chartproof.charts import validate_spec

        validate_spec(spec)
    except ValueError:  # the data do not fit the chart type: no spec, the scores stand
        return None
    return spec
