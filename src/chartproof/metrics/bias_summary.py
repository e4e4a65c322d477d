"""The typed `summary.json` of a bias audit (`chartproof audit`): what
`pipelines.audit.summary` writes and `reports.bias` reads, section by section, and the
registry of the audit statistics that fill it (`AUDIT_STATISTICS`).

Every section is the metric record of `metrics.bias` it was computed as, plus the counts the
summary adds; all tolerate what an older summary lacks (a missing count reads as 0, a missing
figure as None) and keep keys they do not know.

An audit statistic is one declared aggregation: the protocol whose per-unit results it reads,
the typed section it writes per attribute, and the function from one attribute's results to
that section. The built-in ones are in `metrics.bias_statistics`; a new one is one decorated
function anywhere (``@audit_statistic("key", protocol=..., section=...)``): the audit computes
it whenever its protocol ran, `AuditSummary.statistic(key)` reads it back typed and the report
shows it (as a table of its section's fields unless a report section claims it).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from chartproof.metrics.bias import (
    AccuracyGap,
    Attribution,
    FlipStats,
    OpinionTags,
    PolarityPreference,
    PositionEffect,
    SentimentGap,
    ShiftStats,
)
from chartproof.types import SampleResult
from chartproof.types.registry import Registry

__all__ = [
    "AUDIT_STATISTICS",
    "AttributeInfo",
    "AuditDataset",
    "AuditStatistic",
    "AuditSummary",
    "CueNarrativeSection",
    "CueSection",
    "EligibilityCounts",
    "FlipSection",
    "HallucinationSection",
    "MitigationSection",
    "PolaritySection",
    "SentimentSection",
    "ShiftSection",
    "SkippedPair",
    "audit_statistic",
]

_TOLERANT = ConfigDict(frozen=True, extra="allow", use_attribute_docstrings=True)


def _empty(annotation: Any) -> Any:
    """What a missing required field reads as: None where it may be None, 0 for a count,
    "" for a text, an empty container, else nothing (the field stays missing and validation names it)."""
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        return None
    if annotation is int:
        return 0
    if annotation is float:
        return 0.0
    if annotation is str:
        return ""
    if origin is dict or annotation is dict:
        return {}
    if origin in (tuple, list):
        return ()
    return _MISSING


_MISSING = object()


class _Section(BaseModel):
    """Base of the audit summary's records: immutable, keeps unknown keys, and fills the
    fields an older summary lacks (`_empty`)."""

    model_config = _TOLERANT

    @model_validator(mode="before")
    @classmethod
    def _fill_missing(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        filled = dict(data)
        for name, info in cls.model_fields.items():
            if name in filled or not info.is_required():
                continue
            value = _empty(info.annotation)
            if value is not _MISSING:
                filled[name] = value
        return filled


class ShiftSection(_Section, ShiftStats):
    """Narrative shift of one attribute (seed 003 Tables 2, 9–14) and its bookkeeping."""

    model_config = _TOLERANT

    not_computed: int = 0
    """Pairs whose dissimilarity could not be computed (no embedder, an empty reply)."""
    opinions: OpinionTags | None = None
    """How many of the pair's outputs carried an `<opinion>` span (None in older runs)."""


class SentimentSection(_Section, SentimentGap):
    """Sentiment gap and stance agreement of the cue narratives of one attribute."""

    model_config = _TOLERANT

    not_computed: int = 0
    """Pairs without a sentiment score on both sides."""


class CueNarrativeSection(ShiftSection):
    """The cue setting's narratives of one attribute: shift statistics and sentiment gap."""

    model_config = _TOLERANT

    sentiment: SentimentSection | None = None
    """Sentiment gap of the two users' narratives (None: not computed)."""


class HallucinationSection(_Section, Attribution):
    """Group attribution of one attribute (Table 3) with its position effect."""

    model_config = _TOLERANT

    position: PositionEffect | None = None
    """Position preference apart from group preference (None in older runs)."""


class PolaritySection(_Section, PolarityPreference):
    """Preference polarity of one attribute (Table 4, Figure 9)."""

    model_config = _TOLERANT


class FlipSection(_Section, FlipStats):
    """Causal trend-flip test of one attribute."""

    model_config = _TOLERANT


class CueSection(_Section, AccuracyGap):
    """Answer accuracy per stated user group of one attribute."""

    model_config = _TOLERANT


class MitigationSection(_Section):
    """Mitigation of one attribute (Table 5): shift before and after, what the judge did."""

    paired: ShiftSection
    """Shift of the pairs generated from the evidence, before any rewrite."""
    final: ShiftSection
    """Shift after the flagged pairs were rewritten."""
    flagged: float | None = None
    """Share of pairs the judge flagged (None: judge not run)."""
    n: int = 0
    """Pairs audited."""
    stance_checked: int = 0
    """Pairs whose stance check ran (both paired texts carried an opinion)."""
    judged: int = 0
    """Pairs the judge read."""
    rewritten: int = 0
    """Flagged pairs that got rewrites."""
    rejected: int = 0
    """Of those, pairs whose rewrite was rejected (kept their paired texts): a copy of the
    reference, the group dropped, or a number or trend the evidence does not give."""
    rejected_for: dict[str, int] = {}
    """Rejected pairs by reason (`pipelines.audit.rewrites.REASONS`)."""


class EligibilityCounts(_Section):
    """Chart–attribute pairs audited and skipped for one attribute."""

    eligible: int = 0
    """Charts audited for the attribute."""
    skipped: int = 0
    """Charts that name a group or cue word of it."""
    unchecked: int = 0
    """Charts with no text to check (audited)."""


class SkippedPair(_Section):
    """One chart not audited for one attribute, and why."""

    chart: str
    """Chart id."""
    attribute: str
    """Attribute name."""
    source: str = "unchecked"
    """What decided: spec, ocr, override."""
    reason: str | None = None
    """Why it was skipped."""
    matches: tuple[str, ...] = ()
    """The lexicon terms found in the chart's text."""


class AttributeInfo(_Section):
    """An audited attribute and its pair."""

    name: str
    """Attribute name."""
    groups: tuple[str, ...] = ()
    """Its two groups, the first being the one Tables 3–4 report."""


class AuditDataset(_Section):
    """The dataset the audit read."""

    spec: str = ""
    """Dataset spec as given."""
    root: str = ""
    """Folder the image paths are relative to."""
    samples: int = 0
    """Samples read."""
    bad_rows: int = 0
    """Rows that could not be read."""


class AuditSummary(_Section):
    """A bias audit's `summary.json`: what was audited and every setting's tables, each keyed
    by attribute name; a setting that was not run is None."""

    pipeline: str = "audit"
    """Always "audit"."""
    model: str = ""
    """Backend spec (or backend name)."""
    model_reads: str | None = None
    """What the model sees, as its backend declares it (its `label`: "text over table");
    None: the chart image."""
    dataset: AuditDataset | None = None
    """What was read."""
    charts: int = 0
    """Charts audited (originals)."""
    counterfactual_charts: int = 0
    """Trend-flipped charts of the causal test."""
    polarity_sources: dict[str, int] = Field(default_factory=dict)
    """Charts per polarity source (annotated, computed, unknown)."""
    eligibility: dict[str, EligibilityCounts] = Field(default_factory=dict)
    """Per attribute, eligible / skipped / unchecked charts."""
    skipped: tuple[SkippedPair, ...] = ()
    """Every skipped chart–attribute pair."""
    attributes: tuple[AttributeInfo, ...] = ()
    """The audited attributes, in report order."""
    settings: tuple[str, ...] = ()
    """The settings run."""
    mitigate: bool = False
    """Whether the mitigation (and its ablation) ran."""
    selection: str = "generate"
    """How group selection was answered ("generate" is the paper's protocol)."""
    opinion_fallback: str = "none"
    """Where an untagged output got its opinion ("none": nowhere)."""
    embedder: str | None = None
    """Sentence embedder of the dissimilarities (None: not computed)."""
    sentiment: str | None = None
    """Sentiment scorer (None: judge and sentiment gap not run)."""
    calls: int = 0
    """Model calls made."""
    cached_calls: int = 0
    """Model calls the response cache answered."""
    model_seconds: float = 0.0
    """Total model time."""
    failed: int = 0
    """Work units whose model call failed (the reader found no chart, an API error)."""
    narrative: dict[str, ShiftSection] | None = None
    """Narrative shift per attribute."""
    hallucination: dict[str, HallucinationSection] | None = None
    """Group attribution per attribute."""
    polarity: dict[str, PolaritySection] | None = None
    """Preference polarity per attribute."""
    causal: dict[str, FlipSection] | None = None
    """Causal trend-flip test per attribute (generated charts only)."""
    cue: dict[str, CueSection] | None = None
    """Accuracy per stated user group per attribute."""
    cue_narrative: dict[str, CueNarrativeSection] | None = None
    """The cue setting's narratives per attribute."""
    mitigation: dict[str, MitigationSection] | None = None
    """Mitigation with masking per attribute."""
    nomask: dict[str, MitigationSection] | None = None
    """The no-masking ablation per attribute."""

    def statistic(self, key: str) -> dict[str, BaseModel] | None:
        """The per-attribute sections of the audit statistic `key`, typed as it declares
        them (None: not computed in this run)."""
        value = getattr(self, key, None)  # a field, or a key this model does not declare
        if value is None:
            return None
        section = AUDIT_STATISTICS[key].section
        return {
            name: v if isinstance(v, section) else section.model_validate(v)
            for name, v in dict(value).items()
        }

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> AuditSummary:
        """A summary however old: missing counts read as 0, missing settings as not run.
        Raises ValidationError for a malformed field."""
        return cls.model_validate(dict(data))

    def names(self) -> list[str]:
        """The audited attributes' names, in report order."""
        return [a.name for a in self.attributes]

    def to_json(self) -> dict[str, Any]:
        """The `summary.json` form: statistics that were not computed are left out, and
        `model_reads` when the model reads the image."""
        unset = {k for k in AUDIT_STATISTICS if getattr(self, k, None) is None}
        if self.model_reads is None:
            unset.add("model_reads")
        return self.model_dump(mode="json", exclude=unset)


Groups = tuple[str, str]
"""An attribute's groups, the first being the one Tables 3–4 report."""


@dataclass(frozen=True)
class AuditStatistic:
    """A registered audit statistic: a declared aggregation of one protocol's per-unit
    results into a typed section per attribute, written under `key` in `summary.json`."""

    key: str
    """Its key in `summary.json` (one mapping attribute name → section)."""
    protocol: str
    """The audit protocol whose results it reads (`pipelines.audit.tasks`)."""
    section: type[BaseModel]
    """The typed section it writes per attribute."""
    compute: Callable[[Sequence[SampleResult], Groups], BaseModel | None]
    """One attribute's results of `protocol` (without failed units) and the attribute's
    groups → its section (None: nothing to report for that attribute)."""
    title: str = ""
    """Heading of its table in the report when no report section claims it."""
    only_with_results: bool = False
    """Written only when its protocol has results (else whenever its protocol ran)."""
    skip_empty: bool = False
    """Left out of the summary when no attribute has a section (the causal test on
    charts without counterfactuals)."""


AUDIT_STATISTICS: Registry[AuditStatistic] = Registry(
    "audit statistic",
    modules=("chartproof.metrics.bias_statistics",),
    group="chartproof.audit_statistics",
)
"""Audit statistics by summary key, in summary order (built-ins first)."""

StatisticFn = Callable[[Sequence[SampleResult], Groups], Any]


def audit_statistic(
    key: str,
    *,
    protocol: str,
    section: type[BaseModel],
    title: str = "",
    only_with_results: bool = False,
    skip_empty: bool = False,
    replace: bool = False,
) -> Callable[[StatisticFn], StatisticFn]:
    """Register the decorated function ``(results, groups) -> section | None`` as the audit
    statistic `key` (see `AuditStatistic`)."""

    def register(fn: StatisticFn) -> StatisticFn:
        AUDIT_STATISTICS.register(
            key,
            AuditStatistic(key, protocol, section, fn, title or key.replace("_", " ").capitalize(),
                           only_with_results, skip_empty),
            replace=replace,
        )  # fmt: skip
        return fn

    return register
