"""`generate`: build a benchmark folder from a synthetic suite: rendered charts with geometry
sidecars, questions backed by programs (with chains, premises and explanations), optional
perturbation variants that share their original's questions, and the chains' DAGs."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator, model_validator

from chartproof import __version__
from chartproof.pipelines.settings import fields_of, settings_of
from chartproof.types import ChartSpec, ImageRef, Record, Sample

if TYPE_CHECKING:
    from chartproof.executors import Executor

__all__ = [
    "ChartSettings",
    "GenerateResult",
    "GenerateSettings",
    "generate",
    "generate_from_specs",
]

ProgressHook = Callable[[int, int], None]
"""Called with (charts done, charts in total) as charts finish."""

MANIFEST = "dataset.json"
DAGS = "dags.jsonl"


@dataclass(frozen=True)
class GenerateResult:
    """What `generate` wrote."""

    folder: Path
    """The dataset folder (samples.jsonl, images/, dags.jsonl, dataset.json)."""
    charts: int
    """Charts rendered."""
    samples: int
    """Samples written (originals and variants)."""
    variants: int
    """Variant images written."""


@dataclass(frozen=True)
class _Job:
    spec: ChartSpec
    suite: str
    seed: int
    per_chart: int
    families: tuple[str, ...] | None
    variants: tuple[tuple[str, tuple[int, ...]], ...]
    premises: bool
    counterfactuals: int
    chains: int = 0
    choices: int = 0


@dataclass(frozen=True)
class _ChartOutput:
    files: tuple[tuple[str, bytes], ...]
    samples: tuple[Sample, ...]
    dags: tuple[tuple[str, Any], ...]
    n_variants: int


class ChartSettings(Record):
    """What every chart of a generated dataset gets (questions, variants, families, options)
    and where the charts render: the fields `generate` and `generate_from_specs` share."""

    seed: int = 0
    """Seed; the same settings give the same folder, byte for byte."""
    per_chart: int = Field(default=3, ge=1)
    """Questions per chart (chains count towards it)."""
    families: tuple[str, ...] | None = None
    """Question families (None: all)."""
    variants: tuple[str, ...] = ()
    """Perturbations ("blur", "noise", ...; "name:N" gives one its own top level)."""
    levels: int | None = Field(default=None, ge=1)
    """Intensity levels 1..levels per perturbation (None: every level each defines)."""
    premises: bool = True
    """Attach VPP premise sequences."""
    counterfactuals: int = Field(default=0, ge=0)
    """Counterfactual data edits per chart (0: no families)."""
    chains: int | None = Field(default=None, ge=0)
    """ChartR reasoning chains per chart (None: the suite's own number; none for given
    specs)."""
    choices: int = 0
    """Multiple-choice options per question (0: none; at least 2)."""
    workers: int | None = Field(default=None, ge=1)
    """Worker processes (shorthand for executor "local:N")."""
    executor: str | None = None
    """Where charts render (`chartproof.executors` spec; None: every local core)."""

    @field_validator("choices")
    @classmethod
    def _options(cls, value: int) -> int:
        if value == 1 or value < 0:
            raise ValueError(f"choices must be 0 (none) or 2 and more options, got {value}")
        return value

    @model_validator(mode="after")
    def _families_and_choices(self) -> ChartSettings:
        if self.choices and self.counterfactuals:
            # family members re-derive their answers; their distractors would need the same
            raise ValueError("choices cannot be combined with counterfactuals yet")
        return self


class GenerateSettings(ChartSettings):
    """What `generate` and `chartproof generate` are asked to write (unknown fields are
    errors): a suite's charts and the `ChartSettings` of every chart."""

    suite: str = "chartr"
    """Synthetic suite (`chartproof.charts.suites.SUITES`)."""
    n: int = Field(default=200, ge=1)
    """Number of charts."""
    out: Path = Path("data/chartr")
    """Dataset folder to write."""


@fields_of(GenerateSettings)
def generate(
    suite: str | GenerateSettings = "chartr",
    n: int | None = None,
    out: str | Path | None = None,
    *,
    executor: str | Executor | None = None,
    progress: ProgressHook | None = None,
    **fields: Any,
) -> GenerateResult:
    """Write `n` charts of `suite` with up to `per_chart` questions each into `out`.

    `chains` ChartR reasoning chains open every chart's questions (default: the suite's
    own number, one for chartr, as in ChartR; they count towards `per_chart`).

    Everything is seeded: the same arguments give the same folder, byte for byte.
    `variants` names perturbations (e.g. "blur", "noise", "watermark", "label_removal");
    each is applied at levels 1..`levels` (None: every level it defines; "name:N" gives one
    perturbation its own top level) to every chart, and the variant samples share their
    original's questions and answers. A level a perturbation does not define is an error
    (`chartproof.variants.level_plan`). `counterfactuals` > 0 turns every chart into a
    counterfactual family (Chartographer): the original, its reconstruction from code and
    that many seed-controlled data edits, each asked the original's questions with answers
    re-derived by the same programs. `choices` >= 2 adds a multiple-choice form of every
    question whose answer allows distractors from its chart, with up to that many options
    (`chartproof.questions.choices`). Charts render on `executor` ("local": a process
    pool over every core, the default; "local:1": this process; "ray[:ADDRESS]"; or an
    open `Executor`); `workers` N is shorthand for "local:N". The folder does not depend
    on the executor. `suite` may be a `GenerateSettings` record (the keywords then change
    it); every other keyword is one of its fields.
    """
    from chartproof.charts.suites import SUITES, generate_specs

    given = suite if isinstance(suite, GenerateSettings) else None
    named = {"suite": None if given is not None else suite, "n": n, "out": out}
    named["executor"] = executor if isinstance(executor, str) else None
    fields |= {k: v for k, v in named.items() if v is not None}
    cfg = settings_of(GenerateSettings, given, fields)
    chains = cfg.chains
    if chains is None:
        chains = SUITES[cfg.suite].chains_per_chart if cfg.suite in SUITES else 0
    accept = None
    if chains > 0:
        from chartproof.questions import has_chain

        # a chart no chain can be asked about is redrawn, as ChartR filters its charts
        accept = partial(has_chain, seed=cfg.seed)
    charts = ChartSettings.model_validate(
        {**{k: getattr(cfg, k) for k in ChartSettings.model_fields}, "chains": chains}
    )
    return generate_from_specs(
        generate_specs(cfg.suite, cfg.n, cfg.seed, accept),
        cfg.out,
        charts,
        suite=cfg.suite,
        expected=cfg.n,
        executor=executor if executor is not None and not isinstance(executor, str) else None,
        progress=progress,
    )


@fields_of(ChartSettings)
def generate_from_specs(
    specs: Iterable[ChartSpec],
    out: str | Path,
    settings: ChartSettings | None = None,
    *,
    suite: str = "custom",
    expected: int | None = None,
    executor: str | Executor | None = None,
    progress: ProgressHook | None = None,
    **fields: Any,
) -> GenerateResult:
    """`generate` over given chart specs (e.g. specs rebuilt from images by the derender
    pipeline) instead of a suite's: the same folder layout, questions, variants and
    counterfactual families. `suite` labels the samples' suite group; `expected` is the
    number of specs, for progress (None: unknown). The `ChartSettings` come as a record, as
    its fields, or both (the keywords change the record)."""
    from chartproof.datasets import SampleWriter
    from chartproof.variants import level_plan

    if isinstance(executor, str):
        fields["executor"] = executor
    cfg = settings_of(ChartSettings, settings, fields)
    chains = cfg.chains or 0
    plan = level_plan(cfg.variants, cfg.levels)  # fail before any work on a bad name or level
    folder = Path(out)
    (folder / "images").mkdir(parents=True, exist_ok=True)
    jobs = (
        _Job(
            spec=spec,
            suite=suite,
            seed=cfg.seed,
            per_chart=cfg.per_chart,
            families=cfg.families or None,
            variants=plan,
            premises=cfg.premises,
            counterfactuals=cfg.counterfactuals,
            chains=chains,
            choices=cfg.choices,
        )
        for spec in specs
    )
    charts = samples = n_variants = 0
    written: set[str] = set()
    if progress and expected is not None:
        progress(0, expected)  # the header and an empty bar before the first chart is drawn
    dags_tmp = folder / f".{DAGS}.partial"
    with SampleWriter(folder) as writer, dags_tmp.open("w", encoding="utf-8") as dags:
        where = executor if executor is not None and not isinstance(executor, str) else None
        for result in _run(jobs, cfg.workers, where or cfg.executor):
            for rel, data in result.files:
                _write_if_changed(folder / rel, data)
                written.add(rel)
            writer.write_many(result.samples)
            for sample_id, dag in result.dags:
                dags.write(json.dumps({"sample_id": sample_id, "dag": dag}, sort_keys=True) + "\n")
            charts += 1
            samples += len(result.samples)
            n_variants += result.n_variants
            if progress:
                progress(charts, expected if expected is not None else charts)
    os.replace(dags_tmp, folder / DAGS)
    _remove_stale_images(folder, written)
    manifest = {
        "suite": suite,
        "n": expected if expected is not None else charts,
        "seed": cfg.seed,
        "per_chart": cfg.per_chart,
        "families": list(cfg.families) if cfg.families else None,
        "variants": list(cfg.variants),
        "levels": {name: list(wanted) for name, wanted in plan} if plan else None,
        "counterfactuals": cfg.counterfactuals,
        "chains_per_chart": chains,
        "charts": charts,
        "samples": samples,
        "variant_images": n_variants,
        "chartproof": __version__,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return GenerateResult(folder=folder, charts=charts, samples=samples, variants=n_variants)


def _run(
    jobs: Iterator[_Job], workers: int | None, executor: str | Executor | None
) -> Iterator[_ChartOutput]:
    from chartproof.executors import open_executor

    if executor is None and workers is not None:
        executor = f"local:{workers}"
    opened = open_executor(executor)
    try:
        # results come back in input order, so the output does not depend on the executor
        yield from opened.map(_chart_job, jobs, chunksize=4)
    finally:
        if opened is not executor:
            opened.close()


def _remove_stale_images(folder: Path, written: set[str]) -> None:
    """Remove the images an earlier generation into `folder` wrote and this one did not (a
    smaller --n, another seed), so the folder holds its dataset and nothing else. Only
    chart files (PNGs and their geometry) directly in images/ go; links are left alone."""
    for path in (folder / "images").iterdir():
        rel = f"images/{path.name}"
        stale = rel not in written and path.name.endswith((".png", ".geometry.json"))
        if stale and path.is_file() and not path.is_symlink():
            path.unlink()


def _write_if_changed(path: Path, data: bytes) -> None:
    if path.exists() and path.stat().st_size == len(data) and path.read_bytes() == data:
        return
    tmp = path.with_name(path.name + ".partial")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _ref(rel: str, png: bytes, width: int, height: int) -> ImageRef:
    return ImageRef(path=rel, sha256=hashlib.sha256(png).hexdigest(), width=width, height=height)


def _family(
    job: _Job, items: Sequence[Any], image: ImageRef, groups: dict[str, str]
) -> tuple[list[tuple[str, bytes]], list[Sample]]:
    """The chart's counterfactual family: member images and samples (originals included)."""
    from chartproof.variants.counterfactual import (
        build_family,
        family_items,
        family_samples,
        render_family,
    )

    family = build_family(job.spec, seeds=range(job.counterfactuals))
    pngs = render_family(family)
    files: list[tuple[str, bytes]] = []
    images: dict[str, ImageRef] = {}
    for member in family.members:
        if member.role == "original":
            images[member.id] = image
        else:  # counterfactuals, and the reconstruction redrawn from code in the sandbox
            rel = f"images/{member.id}.png"
            files.append((rel, pngs[member.id]))
            images[member.id] = _ref(rel, pngs[member.id], image.width or 0, image.height or 0)
    pairs = family_items(family, items, with_premises=job.premises)
    samples = [
        s.model_copy(update={"split": "test", "groups": {**groups, **s.groups}})
        for s in family_samples(family, pairs, images)
    ]
    return files, samples


def _chart_job(job: _Job) -> _ChartOutput:
    """Everything about one chart; runs in a worker process."""
    from chartproof.charts import render
    from chartproof.questions import make_questions

    spec = job.spec
    rendered = render(spec)
    rel = f"images/{spec.id}.png"
    files: list[tuple[str, bytes]] = [
        (rel, rendered.png),
        (f"images/{spec.id}.geometry.json", rendered.geometry.model_dump_json().encode()),
    ]
    width, height = rendered.size
    image = _ref(rel, rendered.png, width, height)
    groups = {"suite": job.suite, **({"domain": spec.domain} if spec.domain else {})}
    items = make_questions(
        spec,
        seed=job.seed,
        per_chart=job.per_chart,
        families=job.families,
        with_premises=job.premises,
        chains=job.chains,
    )
    originals = [
        item.to_sample(sample_id=item.id, image=image, spec=spec, split="test", groups=groups)
        for item in items
    ]
    if job.choices:
        from chartproof.questions.choices import with_multiple_choice

        originals = with_multiple_choice(originals, k=job.choices, seed=job.seed)
    dags = tuple((item.id, item.dag()) for item in items if item.chain)
    samples: list[Sample] = list(originals)
    if job.counterfactuals > 0:
        family_files, family = _family(job, items, image, groups)
        files.extend(family_files)
        # the family's original samples are the originals, now carrying the family id
        originals = [s for s in family if s.parent_id is None]
        samples = family
    n_variants = 0
    if job.variants:
        from chartproof.variants import variant_sample, variants_for

        made = [
            v
            for name, wanted in job.variants
            for v in variants_for(spec, [name], wanted, spec.id, seed=job.seed)
        ]
        for variant in made:
            vrel = f"images/{variant.id}.png"
            files.append((vrel, variant.png))
            vimage = _ref(vrel, variant.png, width, height)
            n_variants += 1
            samples.extend(variant_sample(s, variant, vimage) for s in originals)
    return _ChartOutput(
        files=tuple(files), samples=tuple(samples), dags=dags, n_variants=n_variants
    )
