"""Apply registered perturbations HELM-style: every output carries a `Transform` recording
name, level, parameters, the seed derived from the sample id and whether answers hold.

`perturb` makes one variant image, `variants_for` a sweep of names × levels, and
`apply_transform` replays a recorded transform on the original image, byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import ConfigDict

from chartproof.seeds import stable_seed
from chartproof.types import ChartSpec, ImageRef, Record, Sample, Transform
from chartproof.variants.images import ImageInput, encode_png, to_rgb
from chartproof.variants.perturbations import PERTURBATIONS, Canvas, ParamValue, Perturbation
from chartproof.variants.perturbations.base import check_level

__all__ = [
    "Variant",
    "apply_transform",
    "get_perturbation",
    "level_plan",
    "level_table",
    "perturb",
    "variant_id",
    "variant_sample",
    "variants_for",
]


class Variant(Record):
    """One perturbed image of a chart, with the record of how it was made."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_attribute_docstrings=True,
        ser_json_bytes="base64",
        val_json_bytes="base64",
    )

    id: str
    """Variant id: the parent id, "~", the perturbation name, "-", the level."""
    parent_id: str
    """Id of the sample (or chart) the variant was made from."""
    png: bytes
    """The variant image as PNG."""
    transform: Transform
    """What was applied."""
    spec: ChartSpec | None = None
    """The re-rendered spec when the perturbation changed the spec (label removal), with the
    transform appended to its `transforms`; None for pixel-level perturbations."""


def get_perturbation(name: str) -> Perturbation:
    """The registered perturbation `name` (ValueError listing the known names)."""
    try:
        return PERTURBATIONS[name]
    except KeyError:
        raise ValueError(f"unknown perturbation {name!r}; known: {sorted(PERTURBATIONS)}") from None


def level_table(name: str) -> dict[int, dict[str, ParamValue]]:
    """The parameters of every level of a perturbation for a default 640×480 chart (sizes
    scale with the image height), e.g. to label the x axis of a robustness curve. Label
    removal is shown for a chart with a spec (exact re-render)."""
    from chartproof.types import Column, DataTable, Encoding

    pert = get_perturbation(name)
    spec = ChartSpec(
        id="reference",
        chart_type="vbar",
        table=DataTable(columns=(Column(name="x", kind="category"), Column(name="y")), rows=()),
        encoding=Encoding(x="x", y=("y",)),
    )
    canvas = Canvas(np.zeros((480, 640, 3), dtype=np.uint8), spec)
    return {level: pert.params(level, canvas) for level in pert.levels}


def level_plan(
    variants: Sequence[str], levels: int | None = None
) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Which levels of which perturbations a sweep makes, checked before any work.

    Each entry is a name ("blur": levels 1..`levels`, or every level it defines when
    `levels` is None) or a name with its own top level ("label_removal:1"). A level a
    perturbation does not define is a ValueError naming it: a sweep is never capped quietly,
    so "level 3" means the same intensity in every row of a robustness table.
    """
    plan: list[tuple[str, tuple[int, ...]]] = []
    for entry in variants:
        name, _, top_text = entry.partition(":")
        name = name.strip()
        pert = get_perturbation(name)
        top: int | None = levels
        if top_text:
            try:
                top = int(top_text)
            except ValueError:
                raise ValueError(
                    f"variant {entry!r}: the level after ':' must be a whole number"
                ) from None
        if top is not None and top < 1:
            raise ValueError(f"variant {entry!r}: levels start at 1, not {top}")
        wanted = pert.levels if top is None else tuple(range(1, top + 1))
        missing = [level for level in wanted if level not in pert.levels]
        if missing:
            raise ValueError(
                f"perturbation {name!r} has levels {list(pert.levels)}, not {missing}; "
                f"ask for {name}:{max(pert.levels)} to sweep it to its own top level"
            )
        if any(done == name for done, _ in plan):
            raise ValueError(f"perturbation {name!r} is listed twice")
        plan.append((name, wanted))
    return tuple(plan)


def variant_id(parent_id: str, name: str, level: int) -> str:
    """The id of a variant: "chart-7~blur-3"."""
    return f"{parent_id}~{name}-{level}"


def perturb(
    image: ImageInput | None,
    name: str,
    level: int,
    *,
    sample_id: str,
    seed: int = 0,
    spec: ChartSpec | None = None,
) -> tuple[bytes, Transform]:
    """Perturb one image; the same (sample id, name, level, seed) always gives the same bytes.

    `image` may be None when `spec` is given (the spec is rendered). With a spec, label
    removal re-renders exactly; without one it falls back to OCR inpainting.
    """
    variant = _make(image, name, level, sample_id=sample_id, seed=seed, spec=spec)
    return variant.png, variant.transform


def apply_transform(
    image: ImageInput | None, transform: Transform, *, spec: ChartSpec | None = None
) -> bytes:
    """Replay a recorded perturbation on the original image (or spec): the same PNG bytes."""
    if transform.kind != "perturbation":
        raise ValueError(f"transform {transform.name!r} is a {transform.kind}, not a perturbation")
    pert = get_perturbation(transform.name)
    canvas = _canvas(image, spec)
    out = pert.apply(canvas, transform.params, np.random.default_rng(transform.seed))
    return encode_png(out.image)


def variants_for(
    source: ChartSpec | ImageInput,
    names: Sequence[str],
    levels: Iterable[int],
    sample_id: str,
    *,
    seed: int = 0,
    spec: ChartSpec | None = None,
) -> list[Variant]:
    """Every (name, level) variant of one chart, names outer, levels inner.

    `source` is a spec (rendered once) or an image (then `spec`, if given, enables exact
    label removal). A level a perturbation does not define is a ValueError (label removal
    has one); `level_plan` gives each perturbation its own levels.
    """
    canvas = _canvas(None, source) if isinstance(source, ChartSpec) else _canvas(source, spec)
    wanted = sorted(set(levels))
    out: list[Variant] = []
    for name in names:
        pert = get_perturbation(name)
        for level in wanted:
            check_level(pert.name, level, pert.levels)
            out.append(_from_canvas(canvas, pert, level, sample_id, seed))
    return out


def variant_sample(sample: Sample, variant: Variant, image: ImageRef) -> Sample:
    """The sample for a variant image: same question and answer, the variant's id and image,
    `parent_id` set, and the transform appended (so metrics split by perturbation)."""
    if variant.transform.answer_preserved is False:
        raise ValueError(
            f"variant {variant.id!r} does not preserve answers; re-derive them instead"
        )
    return sample.model_copy(
        update={
            "id": variant_id(sample.id, variant.transform.name, variant.transform.level or 0),
            "image": image,
            "parent_id": sample.id,
            "transforms": (*sample.transforms, variant.transform),
            "spec": variant.spec if variant.spec is not None else sample.spec,
        }
    )


def _make(
    image: ImageInput | None,
    name: str,
    level: int,
    *,
    sample_id: str,
    seed: int,
    spec: ChartSpec | None,
) -> Variant:
    pert = get_perturbation(name)
    check_level(pert.name, level, pert.levels)
    return _from_canvas(_canvas(image, spec), pert, level, sample_id, seed)


def _from_canvas(
    canvas: Canvas, pert: Perturbation, level: int, sample_id: str, seed: int
) -> Variant:
    params = pert.params(level, canvas)
    derived = stable_seed(sample_id, pert.name, level, seed)
    transform = Transform(
        kind="perturbation",
        name=pert.name,
        params=params,
        seed=derived,
        level=level,
        answer_preserved=pert.answer_preserved,
    )
    result = pert.apply(canvas, params, np.random.default_rng(derived))
    new_spec = None
    if result.spec is not None:
        new_spec = result.spec.model_copy(
            update={
                "id": variant_id(result.spec.id, pert.name, level),
                "parent_id": result.spec.id,
                "transforms": (*result.spec.transforms, transform),
            }
        )
    return Variant(
        id=variant_id(sample_id, pert.name, level),
        parent_id=sample_id,
        png=encode_png(result.image),
        transform=transform,
        spec=new_spec,
    )


def _canvas(image: ImageInput | None, spec: ChartSpec | None) -> Canvas:
    if image is not None:
        return Canvas(to_rgb(image), spec)
    if spec is None:
        raise ValueError("perturb needs an image, a spec, or both")
    drawn = spec
    return Canvas(spec=spec, draw=lambda: to_rgb(_render(drawn)))


def _render(spec: ChartSpec) -> bytes:
    from chartproof.charts import render

    png: bytes = render(spec).png
    return png
