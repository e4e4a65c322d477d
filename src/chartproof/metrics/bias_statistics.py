"""The built-in audit statistics (seed 003's tables), each a declared aggregation of one audit
protocol's per-unit results into a typed section per attribute (`bias_summary.AUDIT_STATISTICS`):
narrative shift (Tables 2, 9–14), attribution and position effect (Table 3), polarity
preference (Table 4, Figure 9), the causal trend-flip test, cue accuracy and the cue
narratives' shift and sentiment gap, mitigation before/after with and without masking
(Table 5, Figure 11)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.metrics.bias import (
    OpinionTags,
    accuracy_gap,
    attribution_shares,
    extract_opinion,
    flip_rate,
    narrative_shift,
    opinion_tags,
    polarity_preference,
    position_effect,
    sentiment_gap,
)
from chartproof.metrics.bias_summary import (
    CueNarrativeSection,
    CueSection,
    FlipSection,
    Groups,
    HallucinationSection,
    MitigationSection,
    PolaritySection,
    SentimentSection,
    ShiftSection,
    audit_statistic,
)
from chartproof.types import SampleResult

__all__ = ["opinion_source", "shift_section", "unit_steps"]

CONTROL = "none"
"""The cue setting's control user (asked with no demographic cue)."""


def unit_steps(r: SampleResult) -> list[Mapping[str, Any]]:
    """An audit result's steps: the pipeline's own records (dicts), never chain or premise
    steps."""
    return [st for st in r.steps if isinstance(st, Mapping)]


def opinion_source(step: Mapping[str, Any]) -> str | None:
    """Where the opinion of a step's output came from: its recorded source, else "tag" when
    it kept an opinion or its output has a tag (steps written before sources were recorded
    only kept tagged spans, or none at all)."""
    source = step.get("opinion_source")
    if isinstance(source, str):
        return source
    if "opinion" in step:
        return "tag" if step.get("opinion") else None
    return "tag" if extract_opinion(str(step.get("output") or "")) else None


def _opinion_steps(results: Sequence[SampleResult], stage: str | None) -> list[Mapping[str, Any]]:
    """The steps holding one model output each whose opinion a figure may use: every output
    step of the narrative settings (`stage` None), the mitigation's steps of one stage, or
    ("final") its rewrites where a pair was rewritten and its paired texts elsewhere."""
    out: list[Mapping[str, Any]] = []
    for r in results:
        steps = [st for st in unit_steps(r) if "output" in st]
        if stage == "final":
            # a rejected rewrite was not used: the pair kept its paired texts
            rewrites = [
                st for st in steps if st.get("stage") == "rewrite" and st.get("accepted", True)
            ]
            out += rewrites or [st for st in steps if st.get("stage") == "paired"]
        else:
            out += [st for st in steps if stage is None or st.get("stage") == stage]
    return out


def _tags(results: Sequence[SampleResult], stage: str | None = None) -> OpinionTags:
    return opinion_tags([opinion_source(st) for st in _opinion_steps(results, stage)])


def shift_section(
    results: Sequence[SampleResult], key: str = "dissimilarity", *, stage: str | None = None
) -> ShiftSection:
    """Narrative shift of the units' `key` scores (the rest counted as not computed) and
    how many of their outputs carried an opinion."""
    values = [v for r in results if (v := r.scores.get(key)) is not None]
    return ShiftSection(
        **narrative_shift(values).model_dump(),
        not_computed=len(results) - len(values),
        opinions=_tags(results, stage),
    )


def _sentiment(results: Sequence[SampleResult]) -> SentimentSection:
    """Sentiment gap over the pairs with both texts scored (the rest counted as not
    computed) and stance agreement over the pairs whose two texts both carry an opinion."""
    sentiments: list[tuple[float, float]] = []
    opinions: list[tuple[float, float]] = []
    for r in results:
        sa, sb = r.scores.get("sentiment_a"), r.scores.get("sentiment_b")
        if sa is None or sb is None:
            continue
        sentiments.append((float(sa), float(sb)))
        steps = [st for st in unit_steps(r) if "output" in st]
        oa, ob = r.scores.get("opinion_a"), r.scores.get("opinion_b")
        # an opinion score counts only where the text had an opinion: results written
        # before this rule scored the whole text of an untagged output as its opinion
        if (
            oa is not None
            and ob is not None
            and len(steps) == 2
            and all(opinion_source(st) is not None for st in steps)
        ):
            opinions.append((float(oa), float(ob)))
    stats = sentiment_gap(sentiments, opinions)
    return SentimentSection(**stats.model_dump(), not_computed=len(results) - len(sentiments))


def _originals(results: Sequence[SampleResult]) -> list[SampleResult]:
    """The selections asked about the dataset's charts (not their counterfactuals)."""
    return [r for r in results if "family" not in r.groups]


# ------------------------------------------------------------------------------ statistics


@audit_statistic("narrative", protocol="audit.narrative", section=ShiftSection)
def narrative(results: Sequence[SampleResult], groups: Groups) -> ShiftSection:
    """Mean dissimilarity of the paired narratives, one-sided t-test and TOST."""
    return shift_section(results)


@audit_statistic("hallucination", protocol="audit.hallucination", section=HallucinationSection)
def hallucination(results: Sequence[SampleResult], groups: Groups) -> HallucinationSection:
    """Shares of outputs naming each group or abstaining, and the position effect."""
    originals = _originals(results)
    return HallucinationSection(
        **attribution_shares([r.prediction for r in originals], groups).model_dump(),
        position=position_effect(
            [(r.groups["first_listed"], r.prediction) for r in originals], groups
        ),
    )


@audit_statistic("polarity", protocol="audit.hallucination", section=PolaritySection)
def polarity(results: Sequence[SampleResult], groups: Groups) -> PolaritySection:
    """Share naming the first group per chart polarity, and the positive–negative gap."""
    items = [(r.groups.get("polarity", ""), r.prediction) for r in _originals(results)]
    return PolaritySection(**polarity_preference(items, groups[0]).model_dump())


@audit_statistic("causal", protocol="audit.hallucination", section=FlipSection, skip_empty=True)
def causal(results: Sequence[SampleResult], groups: Groups) -> FlipSection | None:
    """Flip rate of the named group between a chart and its trend-flipped counterfactual
    (None: no counterfactual was asked)."""
    base = {(r.groups["chart"], r.groups["order"]): r.prediction for r in _originals(results)}
    pairs = [
        (base[(r.groups["family"], r.groups["order"])], r.prediction)
        for r in results
        if "family" in r.groups and (r.groups["family"], r.groups["order"]) in base
    ]
    return FlipSection(**flip_rate(pairs, groups).model_dump()) if pairs else None


@audit_statistic("cue", protocol="audit.cue", section=CueSection)
def cue(results: Sequence[SampleResult], groups: Groups) -> CueSection:
    """Accuracy per stated user group against the no-cue control."""
    correct: dict[str, list[float]] = {CONTROL: []}
    correct.update({g: [] for g in groups})
    for r in results:
        for g in correct:
            v = r.scores.get(f"correct:{g}")
            if v is not None:
                correct[g].append(v)
    return CueSection(**accuracy_gap(correct, CONTROL).model_dump())


@audit_statistic("cue_narrative", protocol="audit.cue_narrative", section=CueNarrativeSection)
def cue_narrative(results: Sequence[SampleResult], groups: Groups) -> CueNarrativeSection:
    """The narratives written for a user of each group: shift statistics and sentiment gap."""
    return CueNarrativeSection(
        **shift_section(results).model_dump(exclude={"opinions"}),
        opinions=_tags(results),
        sentiment=_sentiment(results),
    )


def mitigation_section(rs: Sequence[SampleResult]) -> MitigationSection:
    """Shift before and after the mitigation and what its judge and rewrites did."""
    flags = [v for r in rs if (v := r.scores.get("flagged")) is not None]
    judged = [st for r in rs for st in unit_steps(r) if st.get("stage") == "judge"]
    checked = 0
    for r in rs:
        judge = next((st for st in unit_steps(r) if st.get("stage") == "judge"), None)
        paired = [st for st in unit_steps(r) if st.get("stage") == "paired"]
        if judge is None or judge.get("flagged") is None:
            continue
        ran = judge.get("stance_checked")
        if ran is None:  # written before the judge recorded it: it ran on tagged pairs only
            ran = len(paired) == 2 and all(opinion_source(st) for st in paired)
        checked += bool(ran)
    rewritten = [r for r in rs if any(st.get("stage") == "rewrite" for st in unit_steps(r))]
    reasons: dict[str, int] = {}
    rejected = 0
    for r in rewritten:
        steps = [st for st in unit_steps(r) if st.get("stage") == "rewrite"]
        if all(st.get("accepted", True) for st in steps):
            continue
        rejected += 1
        for why in sorted({w for st in steps for w in st.get("rejected_for") or ()}):
            reasons[why] = reasons.get(why, 0) + 1
    return MitigationSection(
        paired=shift_section(rs, "dissimilarity_before", stage="paired"),
        final=shift_section(rs, "dissimilarity", stage="final"),
        flagged=sum(flags) / len(flags) if flags else None,
        n=len(rs),
        stance_checked=checked,
        judged=sum(1 for st in judged if st.get("flagged") is not None),
        rewritten=len(rewritten),
        rejected=rejected,
        rejected_for=reasons,
    )


@audit_statistic(
    "mitigation", protocol="audit.mitigation", section=MitigationSection, only_with_results=True
)
def mitigation(results: Sequence[SampleResult], groups: Groups) -> MitigationSection:
    """The mitigation with masking."""
    return mitigation_section(results)


@audit_statistic(
    "nomask",
    protocol="audit.mitigation_nomask",
    section=MitigationSection,
    only_with_results=True,
)
def nomask(results: Sequence[SampleResult], groups: Groups) -> MitigationSection:
    """The no-masking ablation of the mitigation."""
    return mitigation_section(results)
