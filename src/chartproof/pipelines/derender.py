"""`derender`: charts from images as code over a whole dataset (Chartographer's first step).

For every distinct chart image of a dataset (originals only: perturbed variants and
counterfactual members are skipped), a model is asked for a matplotlib script that redraws
it (`chartproof.pipelines.derender_code`); the script runs in the sandbox and the redraw is
scored for fidelity (SSIM to the image and, when the dataset has the chart's table, data
agreement). Output folder::

    out/
      run/                the resumable run folder (config, one result per chart, summary)
      code/<chart>.py     the script the model wrote
      redrawn/<chart>.png the image the script drew
      specs/<chart>.json  the chart spec rebuilt from a faithful redraw
      families/           with counterfactuals > 0: a dataset of counterfactual families
                          grown from the faithful specs (same layout as `generate`)

Results are appended per chart, so a killed run resumes where it stopped; charts whose model
call failed (API error, timeout) are asked again on resume, while what the model's code did
(sandbox failures, no image) is an outcome and stays recorded.
"""

from __future__ import annotations

import hashlib
import logging
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from chartproof.datasets import dataset_fingerprint, load_dataset, resolve_image
from chartproof.models.base import in_flight
from chartproof.pipelines.derender_code import (
    DerenderConfig,
    DerenderResult,
    derender_request,
    redraw_reply,
)
from chartproof.pipelines.engine import Stage, open_run
from chartproof.pipelines.generate import GenerateResult, generate_from_specs
from chartproof.pipelines.settings import cache_setting, fields_of, settings_of
from chartproof.types import (
    ChartSpec,
    ChartType,
    DerenderStepRecord,
    ModelResponse,
    Record,
    Sample,
    SampleResult,
    SandboxStep,
    chart_type_names,
)

if TYPE_CHECKING:
    from chartproof.executors import Executor
    from chartproof.models.base import Backend
    from chartproof.models.prompts import PromptSet

__all__ = [
    "PROTOCOL",
    "Chart",
    "DerenderIdentity",
    "DerenderRun",
    "DerenderSettings",
    "derender_dataset",
    "derender_summary",
    "run_derender",
]

log = logging.getLogger(__name__)

PROTOCOL = "derender"
"""Protocol name of the run's results."""

ProgressHook = Callable[[int, int], None]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Chart:
    """One distinct chart image of the dataset and what is known about it."""

    id: str
    """The chart's id: its spec's id, else the first sample's id."""
    image: Path
    """The image file."""
    sample: Sample
    """The first sample asked about it (table, chart type and groups come from it)."""


@dataclass(frozen=True)
class DerenderRun:
    """What a `derender_dataset` call did."""

    folder: Path
    """The output folder."""
    charts: int
    """Distinct original charts in the dataset (after `limit`)."""
    asked: int
    """Charts asked in this call (the rest were already done)."""
    summary: dict[str, Any]
    """`derender_summary` of every recorded result."""
    families: GenerateResult | None
    """The counterfactual dataset written from the faithful specs, when asked for."""


def charts_of(samples: Sequence[Sample], root: Path) -> list[Chart]:
    """The distinct original chart images of a dataset, in first-seen order."""
    seen: dict[str, Chart] = {}
    for s in samples:
        labels = s.group_labels()
        if labels.get("perturbation", "original") != "original" or s.parent_id is not None:
            continue
        if s.image.path in seen:
            continue
        chart_id = s.spec.id if s.spec is not None else s.id
        seen[s.image.path] = Chart(id=chart_id, image=resolve_image(root, s.image), sample=s)
    return list(seen.values())


def _file_stem(chart_id: str) -> str:
    """A file name for a chart id: safe characters, plus a short hash when any were changed
    (two ids must never share a file)."""
    safe = _UNSAFE.sub("_", chart_id).strip("._") or "chart"
    if safe == chart_id:
        return safe
    return f"{safe[:80]}-{hashlib.sha256(chart_id.encode()).hexdigest()[:8]}"


class DerenderSettings(Record):
    """What a derender run is asked to do: the typed configuration `derender_dataset` and
    `chartproof derender` share (unknown fields are errors). A built backend, an open
    executor and the progress hook are passed to `run_derender` beside it."""

    data: str
    """Dataset folder or spec of the charts to redraw."""
    model: str
    """Backend spec that writes the code (or the name of a backend given to `run_derender`)."""
    out: Path
    """Output folder (rerun to resume)."""
    config: DerenderConfig = DerenderConfig()
    """Fidelity thresholds, reply length and the sandbox policy."""
    limit: int | None = Field(default=None, ge=0)
    """Only the first `limit` charts (a rerun with a larger limit extends the run)."""
    counterfactuals: int = Field(default=0, ge=0)
    """Seeded data edits grown from every faithful redraw into ``out/families``."""
    seed: int = 0
    """Seed of the families' questions."""
    per_chart: int = Field(default=3, ge=1)
    """Questions per family chart."""
    prompts_file: Path | None = None
    """Extra prompt templates (TOML/JSON)."""
    cache: bool | Path = True
    """Response cache of a spec-string model: True for the default file, a path for that
    file, False for none."""
    strict: bool = False
    """Stop at the first bad dataset row."""
    executor: str | None = None
    """Where the models' scripts run and are scored (`chartproof.executors` spec; None:
    every local core)."""

    _cache = field_validator("cache", mode="before")(cache_setting)


class DerenderIdentity(Record):
    """A derender run's identity (`RunRecord.config`): a resumed run must have the same."""

    protocol: str = PROTOCOL
    """The results' protocol ("derender")."""
    model: str
    """The backend's name."""
    prompt: str
    """The code prompt's id (name@version)."""
    settings: DerenderConfig
    """Fidelity thresholds, reply length and the sandbox policy."""


@fields_of(DerenderSettings)
def derender_dataset(
    data: str | Path | DerenderSettings,
    model: str | Backend | None = None,
    out: str | Path | None = None,
    *,
    executor: str | Executor | None = None,
    progress: ProgressHook | None = None,
    **fields: Any,
) -> DerenderRun:
    """Ask `model` (a backend spec or a Backend) to redraw every chart of `data` as code.

    `limit` keeps the first charts (a rerun with a larger limit extends the run);
    `counterfactuals` > 0 grows that many seeded data edits
    from every faithful redraw into ``out/families`` (questions re-derived by the programs),
    ready for `chartproof eval`. `cache` puts a spec-string model behind the response cache.
    The models' scripts run in the sandbox and are scored on `executor` ("local": one worker
    per core; see `chartproof.executors`); the output does not depend on it. `data` may be a
    `DerenderSettings` record (the keywords then change it); every other keyword is one of
    its fields (`run_derender` runs it).
    """
    given = data if isinstance(data, DerenderSettings) else None
    if "config" in fields and fields["config"] is None:
        del fields["config"]  # the default thresholds and sandbox policy
    if given is None:
        fields["data"] = str(data)
    if model is not None:
        fields["model"] = model if isinstance(model, str) else model.name
    if out is not None:
        fields["out"] = out
    if isinstance(executor, str):
        fields["executor"] = executor
    return run_derender(
        settings_of(DerenderSettings, given, fields),
        backend=None if model is None or isinstance(model, str) else model,
        executor=None if isinstance(executor, str) else executor,
        progress=progress,
    )


def run_derender(
    settings: DerenderSettings,
    *,
    backend: Backend | None = None,
    executor: Executor | None = None,
    progress: ProgressHook | None = None,
) -> DerenderRun:
    """Run the derender `settings` describe (see `derender_dataset`): `backend` is the built
    model (used as it is, not cached, not closed) in place of `settings.model`; an open
    `executor` overrides `settings.executor`."""
    from chartproof.models import default_prompts, load_prompts

    cfg = settings.config
    # refuse before any paid call when model code could not run isolated here
    from chartproof.sandbox import require_isolation

    require_isolation(cfg.policy)
    prompts = load_prompts(settings.prompts_file) if settings.prompts_file else default_prompts()
    loaded = load_dataset(settings.data, strict=settings.strict)
    if loaded.errors:
        log.warning("%s", loaded.summary())
    if (several := loaded.first_chart_only("derender")) is not None:
        log.warning("%s", several)
    charts = charts_of(loaded.samples, loaded.root)
    # the run's identity is the whole dataset, so a rerun with a larger limit extends it
    fingerprint = dataset_fingerprint([c.sample for c in charts], loaded.root)
    if settings.limit is not None:
        charts = charts[: settings.limit]
    folder = settings.out
    where = executor if executor is not None else settings.executor
    with open_run(folder / "run", executor=where, cache=settings.cache) as run:
        for sub in ("code", "redrawn", "specs"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        pool = run.executor
        # a given backend is used as it is (the caller decides about caching)
        model = run.backend(backend or settings.model, cached=backend is None)
        identity = DerenderIdentity(
            model=model.name, prompt=prompts.get("derender_code").id, settings=cfg
        )
        run.start(identity.model_dump(mode="json"), fingerprint)
        # the model is asked in batches (API concurrency, a fanned-out reader); the replies'
        # code runs in the sandbox and is scored on the executor's workers, in chart order,
        # so the driver alone appends each result as it arrives
        size = max(2 * pool.workers, in_flight(model))

        def answers(todo: Sequence[Chart]) -> Iterator[list[SampleResult]]:
            finished = pool.map(_finish, _redraw_jobs(todo, model, cfg, prompts, size))
            for chart, result in zip(todo, finished, strict=True):
                yield [_record(folder, chart, result)]

        asked = run.execute(
            [Stage(PROTOCOL, model.name, charts, answers=answers)], progress=progress
        )
        results = run.results(PROTOCOL)
        summary = derender_summary(results)
        run.finish(
            summary,
            {"charts": len(charts), "results": len(results), "asked": asked},
            status="failed" if any(r.error for r in results) else "done",
        )
        families = None
        if settings.counterfactuals > 0:
            specs = _faithful_specs(folder, results)
            families = generate_from_specs(
                specs,
                folder / "families",
                suite="derendered",
                expected=len(specs),
                seed=settings.seed,
                per_chart=settings.per_chart,
                counterfactuals=settings.counterfactuals,
                executor=pool,
            )
    return DerenderRun(
        folder=folder, charts=len(charts), asked=asked, summary=summary, families=families
    )


@dataclass(frozen=True)
class _Redraw:
    """A model's reply for one chart, to be run and scored on a worker (picklable)."""

    chart: Chart
    response: ModelResponse
    model: str
    config: DerenderConfig


def _redraw_jobs(
    charts: Sequence[Chart],
    backend: Backend,
    config: DerenderConfig,
    prompts: PromptSet,
    size: int,
) -> Iterator[_Redraw]:
    """Ask the model for the charts' code `size` charts at a time, lazily (the executor pulls
    the next batch while its workers run the previous one's code)."""
    for start in range(0, len(charts), size):
        group = charts[start : start + size]
        requests = [
            derender_request(c.image, sample_id=c.id, config=config, prompts=prompts) for c in group
        ]
        for chart, response in zip(group, backend.generate(requests), strict=True):
            yield _Redraw(chart=chart, response=response, model=backend.name, config=config)


def _finish(job: _Redraw) -> DerenderResult:
    chart = job.chart
    return redraw_reply(
        chart.image,
        job.response,
        sample_id=chart.id,
        model=job.model,
        table=chart.sample.table,
        chart_type=_chart_type(chart.sample.chart_type),
        config=job.config,
    )


def _record(folder: Path, chart: Chart, result: DerenderResult) -> SampleResult:
    """The run's result for one chart; the code, the redraw and the spec go to files."""
    stem = _file_stem(chart.id)
    if result.code is not None:
        (folder / "code" / f"{stem}.py").write_text(result.code, encoding="utf-8")
    if result.png is not None:
        (folder / "redrawn" / f"{stem}.png").write_bytes(result.png)
    spec = None
    if result.spec is not None:
        spec = f"specs/{stem}.json"
        (folder / spec).write_text(result.spec.model_dump_json(indent=2), encoding="utf-8")
    sandbox = result.sandbox
    step = DerenderStepRecord(
        status=result.status,
        reason=result.reason,
        sandbox=None
        if sandbox is None
        else SandboxStep(
            status=sandbox.status,
            reason=sandbox.reason,
            duration_s=sandbox.duration_s,
            isolation=tuple(sandbox.isolation),
        ),
        spec=spec,
    )
    groups = {k: v for k, v in chart.sample.group_labels().items() if k in _GROUPS}
    groups["status"] = result.status
    return SampleResult(
        sample_id=chart.id,
        protocol=PROTOCOL,
        model=result.model,
        prediction=result.status,
        output=result.code or "",
        scores={
            "ssim": result.ssim,
            "data_agreement": result.data_agreement,
            "faithful": 1.0 if result.faithful else 0.0,
        },
        groups=groups,
        steps=(step,),
        # only a failed model call is retried on resume; what the code did is an outcome
        error=result.reason if result.status == "model_error" else None,
        calls=1,
    )


_GROUPS = ("chart_type", "suite", "domain", "split")


def _chart_type(name: str | None) -> ChartType | None:
    return name if name in chart_type_names() else None


def _faithful_specs(folder: Path, results: Sequence[SampleResult]) -> list[ChartSpec]:
    specs = []
    for r in results:
        step = r.steps[0] if r.steps else None
        ref = step.spec if isinstance(step, DerenderStepRecord) else None
        if r.scores.get("faithful") == 1.0 and ref is not None:
            spec = ChartSpec.model_validate_json((folder / ref).read_text(encoding="utf-8"))
            # a family's original is the redraw itself; its provenance stays in `transforms`
            specs.append(spec.model_copy(update={"parent_id": None}))
    return specs


def _mean(values: Sequence[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return round(statistics.fmean(got), 6) if got else None


def derender_summary(results: Sequence[SampleResult]) -> dict[str, Any]:
    """Counts by status, the faithful share and mean fidelity, overall and per chart type.

    Means are over the charts that have the score (SSIM: the code drew an image; data
    agreement: the dataset had the table and the code wrote a readable data.csv)."""

    def block(rs: Sequence[SampleResult]) -> dict[str, Any]:
        return {
            "charts": len(rs),
            "status": dict(sorted(Counter(r.prediction or "model_error" for r in rs).items())),
            "faithful": sum(1 for r in rs if r.scores.get("faithful") == 1.0),
            "faithful_rate": round(
                sum(1 for r in rs if r.scores.get("faithful") == 1.0) / len(rs), 6
            )
            if rs
            else None,
            "ssim": _mean([r.scores.get("ssim") for r in rs]),
            "data_agreement": _mean([r.scores.get("data_agreement") for r in rs]),
        }

    by_type: dict[str, list[SampleResult]] = defaultdict(list)
    for r in results:
        by_type[r.groups.get("chart_type", "unknown")].append(r)
    return {
        "overall": block(results),
        "by_chart_type": {k: block(v) for k, v in sorted(by_type.items())},
    }
