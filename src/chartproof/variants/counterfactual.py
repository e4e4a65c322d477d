"""Counterfactual chart families (Chartographer): the original chart, its exact reconstruction
from code, and seed-controlled data edits whose answers the same question programs re-derive.

Seed s asks for edit kind `kinds[s % len(kinds)]`; when that kind does not apply to the chart
(or would change nothing, or repeat an earlier member) the next kinds are tried in order, so
every seed yields a distinct member while any kind can. Each edit draws from `stable_seed(chart id, "counterfactual", s,
kind)`, so a family is the same every time.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Literal

import numpy as np
from pydantic import ConfigDict

from chartproof.questions.items import QuestionItem, make_item
from chartproof.questions.program import execute
from chartproof.sandbox import SandboxPolicy, SandboxResult, run_code
from chartproof.seeds import stable_seed
from chartproof.types import ChartSpec, DataTable, ImageRef, Record, Sample, Transform
from chartproof.variants.edits import EDIT_KINDS, EDITS
from chartproof.variants.images import to_rgb

__all__ = [
    "Family",
    "FamilyMember",
    "Reconstruction",
    "build_family",
    "counterfactual",
    "family_items",
    "family_samples",
    "reconstruct",
    "reconstruction_member",
    "render_family",
]

MemberRole = Literal["original", "reconstruction", "counterfactual"]


class FamilyMember(Record):
    """One chart of a family."""

    id: str
    """Chart id: the original's id, "<id>~code" for the reconstruction, "<id>~cf<seed>"."""
    role: MemberRole
    """What the member is."""
    spec: ChartSpec
    """Its spec (for edits: new table, `parent_id` and the edit appended to `transforms`)."""
    edit: str | None = None
    """Edit kind of a counterfactual."""
    seed: int | None = None
    """Family seed of a counterfactual (0..9 by default)."""
    renamed: tuple[str, str] | None = None
    """(old, new) label when the edit renamed one: question arguments follow it."""


class Family(Record):
    """A counterfactual family: the original first, then the reconstruction and the edits."""

    id: str
    """Family id: the original chart's id."""
    members: tuple[FamilyMember, ...]
    """Members in order; `members[0]` is the original."""
    missing_seeds: tuple[int, ...] = ()
    """Seeds for which no edit kind applied to the chart."""

    @property
    def original(self) -> FamilyMember:
        """The original chart."""
        return self.members[0]


class Reconstruction(Record):
    """The original redrawn by running its own code in the sandbox."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        use_attribute_docstrings=True,
        ser_json_bytes="base64",
        val_json_bytes="base64",
    )

    spec_id: str
    """The chart reconstructed."""
    identical: bool
    """Whether the sandboxed script's image has exactly the pixels `render` gives."""
    png: bytes | None
    """The image the script wrote (None when it failed)."""
    run: SandboxResult
    """The sandbox run (status, output, duration)."""


def counterfactual(
    spec: ChartSpec,
    seed: int,
    *,
    kinds: Sequence[str] = EDIT_KINDS,
    avoid: Collection[DataTable] = (),
) -> FamilyMember | None:
    """The counterfactual of `spec` for family seed `seed` (None when no kind applies).

    An edit giving a table in `avoid` (e.g. one a lower seed already made) counts as not
    applying, so a family holds no duplicates.
    """
    if not kinds:
        raise ValueError("no edit kinds given")
    unknown = [k for k in kinds if k not in EDITS]
    if unknown:
        raise ValueError(f"unknown edit kinds {unknown}; known: {list(EDITS)}")
    start = seed % len(kinds)
    for kind in [*kinds[start:], *kinds[:start]]:
        derived = stable_seed(spec.id, "counterfactual", seed, kind)
        edit = EDITS[kind](spec, np.random.default_rng(derived))
        if edit is None or edit.table in avoid:
            continue
        transform = Transform(
            kind="counterfactual",
            name=kind,
            params={**edit.params, "family_seed": seed},
            seed=derived,
            answer_preserved=None,
        )
        member_id = f"{spec.id}~cf{seed}"
        new_spec = spec.model_copy(
            update={
                "id": member_id,
                "table": edit.table,
                "parent_id": spec.id,
                "transforms": (*spec.transforms, transform),
            }
        )
        return FamilyMember(
            id=member_id,
            role="counterfactual",
            spec=new_spec,
            edit=kind,
            seed=seed,
            renamed=edit.renamed,
        )
    return None


def reconstruction_member(spec: ChartSpec) -> FamilyMember:
    """The member standing for the chart redrawn from its code (same data, same pixels)."""
    member_id = f"{spec.id}~code"
    transform = Transform(
        kind="reconstruction",
        name="code",
        params={"source": "spec_to_code"},
        answer_preserved=True,
    )
    new_spec = spec.model_copy(
        update={"id": member_id, "parent_id": spec.id, "transforms": (*spec.transforms, transform)}
    )
    return FamilyMember(id=member_id, role="reconstruction", spec=new_spec)


def build_family(
    spec: ChartSpec,
    seeds: Iterable[int] = range(10),
    *,
    kinds: Sequence[str] = EDIT_KINDS,
    reconstruction: bool = True,
) -> Family:
    """The family of `spec`: original, reconstruction (unless turned off), one edit per seed."""
    members = [FamilyMember(id=spec.id, role="original", spec=spec)]
    if reconstruction:
        members.append(reconstruction_member(spec))
    missing: list[int] = []
    tables = [spec.table]
    for seed in seeds:
        member = counterfactual(spec, seed, kinds=kinds, avoid=tables)
        if member is None:
            missing.append(seed)
        else:
            members.append(member)
            tables.append(member.spec.table)
    return Family(id=spec.id, members=tuple(members), missing_seeds=tuple(missing))


def reconstruct(spec: ChartSpec, *, policy: SandboxPolicy | None = None) -> Reconstruction:
    """Run `spec_to_code(spec)` in the sandbox and compare its image with `render(spec)`.

    The script is chartproof's own, but it runs in the sandbox like any chart code so the
    check exercises the same path model-written code takes. It needs `sys` for its argv.
    """
    from chartproof.charts import render, spec_to_code

    base = policy or SandboxPolicy(timeout_s=120, cpu_s=120)
    allowed = tuple(dict.fromkeys((*base.allowed_imports, "sys")))
    run = run_code(spec_to_code(spec), base.model_copy(update={"allowed_imports": allowed}))
    png = run.files.get("chart.png") if run.ok else None
    identical = False
    if png is not None:
        got, want = to_rgb(png), to_rgb(render(spec).png)
        identical = got.shape == want.shape and bool(np.array_equal(got, want))
    return Reconstruction(spec_id=spec.id, identical=identical, png=png, run=run)


def _render_png(spec: ChartSpec) -> bytes:
    from chartproof.charts import render

    png: bytes = render(spec).png
    return png


def _redraw_png(spec: ChartSpec) -> bytes:
    """The reconstruction's own image: the chart's code run in the sandbox (`reconstruct`);
    RuntimeError naming the chart when the code does not draw it."""
    done = reconstruct(spec)
    if done.png is None:
        why = (done.run.stderr or done.run.status).strip().splitlines()[-1:] or ["no image"]
        raise RuntimeError(f"chart {spec.id}: its code did not redraw it in the sandbox: {why[0]}")
    return done.png


def render_family(family: Family, *, executor: Executor | None = None) -> dict[str, bytes]:
    """PNG bytes of every member by id: members rendered from their specs, and the
    reconstruction redrawn by running the original's code in the sandbox (so a family
    scores the redraw, not the original's file again). Pass a process pool to render in
    parallel."""
    jobs = [
        (_redraw_png if m.role == "reconstruction" else _render_png, m.spec) for m in family.members
    ]
    pngs = list(executor.map(_call, jobs)) if executor else [_call(job) for job in jobs]
    return {m.id: png for m, png in zip(family.members, pngs, strict=True)}


def _call(job: tuple[Callable[[ChartSpec], bytes], ChartSpec]) -> bytes:
    fn, spec = job
    return fn(spec)


def _suffix(member: FamilyMember, family: Family) -> str:
    return member.id[len(family.id) :] if member.id.startswith(family.id) else f"~{member.id}"


def family_items(
    family: Family, items: Sequence[QuestionItem], *, with_premises: bool = False
) -> list[tuple[FamilyMember, QuestionItem]]:
    """Every question of the original asked of every member, answers re-derived.

    For each member and item the item's program runs with the same arguments (a renamed
    label follows its new name) on the member's spec; the question is re-rendered from the
    same paraphrase. Items whose program finds a member ambiguous are left out for that
    member. The original's items come back unchanged.
    """
    out: list[tuple[FamilyMember, QuestionItem]] = []
    for member in family.members:
        for item in items:
            if member.role == "original":
                out.append((member, item))
                continue
            args = dict(item.args)
            if member.renamed is not None:
                old, new = member.renamed
                args = {k: new if v == old else v for k, v in args.items()}
            result = execute(item.program, args, member.spec)
            if result is None:
                continue
            out.append(
                (
                    member,
                    make_item(
                        result,
                        item_id=f"{item.id}{_suffix(member, family)}",
                        chart_id=member.id,
                        paraphrase=item.paraphrase,
                        with_premises=with_premises,
                    ),
                )
            )
    return out


def family_samples(
    family: Family,
    pairs: Sequence[tuple[FamilyMember, QuestionItem]],
    images: Mapping[str, ImageRef],
    *,
    original_ids: Mapping[str, str] | None = None,
) -> list[Sample]:
    """Samples for `family_items` output: `family_id` set, the variant's `parent_id` is the
    original question's sample id, and its transforms say what was edited (so
    `metrics.families.outcomes_from_samples` can read roles and edit kinds).

    `images` maps member id → image; `original_ids` maps an original item id → its sample id
    (default: the item id).
    """
    ids = original_ids or {}
    originals = {i.id for m, i in pairs if m.role == "original"}
    out: list[Sample] = []
    for member, item in pairs:
        if member.id not in images:
            raise KeyError(f"no image given for family member {member.id!r}")
        base_item = item.id if member.role == "original" else _base_item(item.id, member, family)
        if base_item not in originals:
            raise ValueError(f"item {item.id!r} has no original item {base_item!r} in the family")
        own = family.original.spec.transforms
        out.append(
            item.to_sample(
                sample_id=ids.get(item.id, item.id),
                image=images[member.id],
                spec=member.spec,
                family_id=family.id,
                parent_id=None if member.role == "original" else ids.get(base_item, base_item),
                transforms=member.spec.transforms[len(own) :],
            )
        )
    return out


def _base_item(item_id: str, member: FamilyMember, family: Family) -> str:
    suffix = _suffix(member, family)
    return item_id[: -len(suffix)] if item_id.endswith(suffix) else item_id
