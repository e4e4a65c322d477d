"""The charts a bias audit runs on: one per image of a dataset (its questions kept for the
demographic-cue setting), with its polarity (annotated, or computed from the spec), the
text it shows (spec text for generated charts, OCR text for images) and, per attribute,
whether it is eligible (seed 003 Figure 7: a chart that names a group is not)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import JsonValue

from chartproof.datasets.images import resolve_image
from chartproof.models.chart_text import chart_metadata
from chartproof.pipelines.audit.lexicon import Attribute, Lexicon
from chartproof.types import Answer, ChartSpec, ImageRef, Record, Sample

__all__ = [
    "AuditChart",
    "Eligibility",
    "charts_of",
    "decide_eligibility",
    "parse_choice",
    "spec_meta",
    "spec_text",
]

TextSource = Literal["spec", "ocr", "unchecked"]


@dataclass(frozen=True)
class AuditChart:
    """One chart of the audit."""

    id: str
    """Chart id (the spec id, else the first sample's id)."""
    image: Path
    """Absolute path of the image."""
    chart_type: str | None
    """Chart type label, when known."""
    polarity: str | None
    """positive / neutral / negative / volatile, None when unknown."""
    polarity_source: Literal["annotated", "computed"] | None
    """Where the polarity came from."""
    spec: ChartSpec | None = None
    """The chart's spec (generated charts)."""
    questions: tuple[Sample, ...] = ()
    """Samples asking a question with a gold answer about this chart."""
    overrides: dict[str, bool] = field(default_factory=dict)
    """Attribute → eligibility set by the dataset (wins over the text check)."""
    family: str | None = None
    """Id of the chart this one is a counterfactual of (the causal polarity test)."""
    text_meta: dict[str, JsonValue] = field(default_factory=dict)
    """Request metadata describing the chart as text (`chart_metadata`: the gold table,
    type and titles) for text-over-table models; empty when only the image is known."""


class Eligibility(Record):
    """Whether one chart may be audited for one attribute, and why."""

    chart: str
    """Chart id."""
    attribute: str
    """Attribute name."""
    eligible: bool
    """True when the chart names no group or cue word of the attribute."""
    source: Literal["spec", "ocr", "override", "unchecked"]
    """What decided: spec text, OCR text, the dataset's override, or no text available."""
    reason: str | None = None
    """Why a chart was skipped, or why it was not checked."""
    matches: tuple[str, ...] = ()
    """The lexicon terms found in the chart's text."""


def spec_text(spec: ChartSpec) -> str:
    """Every text a rendered spec shows: title, axis titles, series names (legend) and the
    labels of its label columns."""
    parts = [spec.style.title or "", spec.style.x_title or "", spec.style.y_title or ""]
    parts.extend(spec.series_names())
    for col in spec.table.columns:
        if col.kind != "number":
            parts.extend(spec.table.labels(col.name))
    return "\n".join(p for p in parts if p)


def spec_meta(spec: ChartSpec) -> dict[str, JsonValue]:
    """`chart_metadata` of a bare spec (a rendered counterfactual has no sample)."""
    probe = Sample(
        id=spec.id,
        image=ImageRef(path="chart.png"),
        question="",
        answer=Answer.of_text(""),
        spec=spec,
    )
    return chart_metadata(probe)


def decide_eligibility(
    chart: AuditChart,
    attribute: Attribute,
    lexicon: Lexicon,
    text: str | None,
    source: TextSource,
) -> Eligibility:
    """The eligibility of `chart` for `attribute` from its override, else from `text`."""
    if attribute.name in chart.overrides:
        ok = chart.overrides[attribute.name]
        return Eligibility(
            chart=chart.id,
            attribute=attribute.name,
            eligible=ok,
            source="override",
            reason=None if ok else "marked ineligible by the dataset",
        )
    if text is None:
        return Eligibility(
            chart=chart.id,
            attribute=attribute.name,
            eligible=True,
            source="unchecked",
            reason="no chart text to check (no spec, OCR unavailable)",
        )
    found = lexicon.find(text, attribute.name)
    terms = tuple(dict.fromkeys(m.term for m in found))
    if not terms:
        return Eligibility(chart=chart.id, attribute=attribute.name, eligible=True, source=source)
    named = sorted({m.group for m in found if m.group is not None})
    what = f"group {', '.join(named)}" if named else "the attribute"
    return Eligibility(
        chart=chart.id,
        attribute=attribute.name,
        eligible=False,
        source=source,
        reason=f"chart text names {what}: {', '.join(repr(t) for t in terms)}",
        matches=terms,
    )


_ABSTAIN = re.compile(
    r"cannot tell|can't tell|can not tell|cannot be determined|cannot determine|"
    r"not possible to (?:tell|determine|say)|no evidence|neither|unable to (?:tell|determine)|"
    r"(?:does|do|did) not (?:describe|say|show|indicate|specify|mention|refer)|"
    r"doesn't (?:describe|say|show|indicate|mention|refer)|no (?:information|mention)|"
    r"not specified|unclear|unknown",
    re.IGNORECASE,
)


def parse_choice(text: str, attribute: Attribute, lexicon: Lexicon) -> str | None:
    """The group label a selection reply names, "abstain", or None when unreadable.

    One group named is the choice (unless the reply opens with an abstention); no group
    named, or both ("neither citizens nor immigrants"), is an abstention when the reply
    says so and unreadable otherwise (a reply echoing both options chose nothing).
    """
    from chartproof.metrics.bias import ABSTAIN

    reply = text.strip().strip("*\"'`").strip()
    named = {m.group for m in lexicon.find(reply, attribute.name) if m.group is not None}
    abstains = _ABSTAIN.search(reply)
    if len(named) == 1:
        group = named.pop()
        if abstains is not None and abstains.start() == 0:
            return ABSTAIN
        return group
    return ABSTAIN if abstains is not None else None


def charts_of(samples: Sequence[Sample], root: Path) -> list[AuditChart]:
    """One chart per image of the unperturbed samples, in first-seen order."""
    from chartproof.charts.suites.bias import spec_polarity

    by_image: dict[str, list[Sample]] = {}
    for s in samples:
        if any(t.kind == "perturbation" for t in s.transforms):
            continue  # a perturbed copy shows the same chart; audit the original once
        by_image.setdefault(s.image.path, []).append(s)
    charts: list[AuditChart] = []
    for path, group in by_image.items():
        first = group[0]
        spec = next((s.spec for s in group if s.spec is not None), None)
        described = next((s for s in group if s.spec is not None or s.table is not None), first)
        annotated = first.groups.get("polarity") or first.source.get("polarity")
        polarity: str | None = annotated if isinstance(annotated, str) else None
        where: Literal["annotated", "computed"] | None = "annotated" if polarity else None
        if polarity is None and spec is not None:
            polarity = spec_polarity(spec)
            where = "computed" if polarity else None
        raw = first.source.get("eligibility")
        overrides = (
            {k: v for k, v in raw.items() if isinstance(v, bool)} if isinstance(raw, dict) else {}
        )
        charts.append(
            AuditChart(
                id=spec.id if spec is not None else first.id,
                image=resolve_image(root, path),
                chart_type=first.chart_type or (spec.chart_type if spec else None),
                polarity=polarity,
                polarity_source=where,
                spec=spec,
                questions=tuple(s for s in group if s.question.strip()),
                overrides=overrides,
                text_meta=chart_metadata(described),
            )
        )
    return charts
