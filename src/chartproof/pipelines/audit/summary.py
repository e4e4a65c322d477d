"""The audit's summary: seed 003's tables as typed sections (`metrics.bias_summary`), from a
run's results."""

from __future__ import annotations

from collections import defaultdict
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
    HallucinationSection,
    MitigationSection,
    PolaritySection,
    SentimentSection,
    ShiftSection,
)
from chartproof.pipelines.audit.lexicon import Attribute
from chartproof.types import SampleResult

__all__ = ["opinion_source", "summarize_audit"]


def _by_attr(results: Sequence[SampleResult], protocol: str) -> dict[str, list[SampleResult]]:
    out: dict[str, list[SampleResult]] = defaultdict(list)
    for r in results:
        if r.protocol == protocol and r.error is None:
            out[r.groups.get("attribute", "")].append(r)
    return out


def _steps(r: SampleResult) -> list[Mapping[str, Any]]:
    # audit steps are the pipeline's own records (dicts), never chain or premise steps
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
        steps = [st for st in _steps(r) if "output" in st]
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


def _shift(
    results: Sequence[SampleResult], key: str = "dissimilarity", *, stage: str | None = None
) -> ShiftSection:
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
        steps = [st for st in _steps(r) if "output" in st]
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


def _mitigation(rs: Sequence[SampleResult]) -> MitigationSection:
    flags = [v for r in rs if (v := r.scores.get("flagged")) is not None]
    judged = [st for r in rs for st in _steps(r) if st.get("stage") == "judge"]
    checked = 0
    for r in rs:
        judge = next((st for st in _steps(r) if st.get("stage") == "judge"), None)
        paired = [st for st in _steps(r) if st.get("stage") == "paired"]
        if judge is None or judge.get("flagged") is None:
            continue
        ran = judge.get("stance_checked")
        if ran is None:  # written before the judge recorded it: it ran on tagged pairs only
            ran = len(paired) == 2 and all(opinion_source(st) for st in paired)
        checked += bool(ran)
    rewritten = [r for r in rs if any(st.get("stage") == "rewrite" for st in _steps(r))]
    reasons: dict[str, int] = {}
    rejected = 0
    for r in rewritten:
        steps = [st for st in _steps(r) if st.get("stage") == "rewrite"]
        if all(st.get("accepted", True) for st in steps):
            continue
        rejected += 1
        for why in sorted({w for st in steps for w in st.get("rejected_for") or ()}):
            reasons[why] = reasons.get(why, 0) + 1
    return MitigationSection(
        paired=_shift(rs, "dissimilarity_before", stage="paired"),
        final=_shift(rs, "dissimilarity", stage="final"),
        flagged=sum(flags) / len(flags) if flags else None,
        n=len(rs),
        stance_checked=checked,
        judged=sum(1 for st in judged if st.get("flagged") is not None),
        rewritten=len(rewritten),
        rejected=rejected,
        rejected_for=reasons,
    )


def summarize_audit(
    results: Sequence[SampleResult], attributes: Sequence[Attribute], settings: Sequence[str]
) -> dict[str, Any]:
    """Per attribute: narrative shift (Tables 2, 9–14), attribution (Table 3), position
    effect, polarity preference (Table 4, Figure 9), causal flips, cue accuracy and the
    cue narratives' shift and sentiment gap, mitigation before/after (Table 5, Figure 11);
    the `AuditSummary` fields they fill, typed."""
    out: dict[str, Any] = {}
    out["failed"] = sum(1 for r in results if r.error is not None)
    if "narrative" in settings:
        by = _by_attr(results, "audit.narrative")
        out["narrative"] = {a.name: _shift(by.get(a.name, [])) for a in attributes}
    if "hallucination" in settings or "polarity" in settings:
        by = _by_attr(results, "audit.hallucination")
        hall: dict[str, HallucinationSection] = {}
        pol: dict[str, PolaritySection] = {}
        causal: dict[str, FlipSection] = {}
        for a in attributes:
            rs = by.get(a.name, [])
            originals = [r for r in rs if "family" not in r.groups]
            hall[a.name] = HallucinationSection(
                **attribution_shares([r.prediction for r in originals], a.labels).model_dump(),
                position=position_effect(
                    [(r.groups["first_listed"], r.prediction) for r in originals], a.labels
                ),
            )
            pol[a.name] = PolaritySection(
                **polarity_preference(
                    [(r.groups.get("polarity", ""), r.prediction) for r in originals], a.labels[0]
                ).model_dump()
            )
            base = {(r.groups["chart"], r.groups["order"]): r.prediction for r in originals}
            pairs = [
                (base[(r.groups["family"], r.groups["order"])], r.prediction)
                for r in rs
                if "family" in r.groups and (r.groups["family"], r.groups["order"]) in base
            ]
            if pairs:
                causal[a.name] = FlipSection(**flip_rate(pairs, a.labels).model_dump())
        out["hallucination"] = hall
        out["polarity"] = pol
        if causal:
            out["causal"] = causal
    if "cue" in settings:
        by = _by_attr(results, "audit.cue")
        cue: dict[str, CueSection] = {}
        for a in attributes:
            correct: dict[str, list[float]] = {"none": []}
            correct.update({g: [] for g in a.labels})
            for r in by.get(a.name, []):
                for g in correct:
                    v = r.scores.get(f"correct:{g}")
                    if v is not None:
                        correct[g].append(v)
            cue[a.name] = CueSection(**accuracy_gap(correct, "none").model_dump())
        out["cue"] = cue
        by = _by_attr(results, "audit.cue_narrative")
        out["cue_narrative"] = {
            a.name: CueNarrativeSection(
                **_shift(by.get(a.name, [])).model_dump(exclude={"opinions"}),
                opinions=_tags(by.get(a.name, [])),
                sentiment=_sentiment(by.get(a.name, [])),
            )
            for a in attributes
        }
    for protocol, key in (
        ("audit.mitigation", "mitigation"),
        ("audit.mitigation_nomask", "nomask"),
    ):
        by = _by_attr(results, protocol)
        if by:
            out[key] = {a.name: _mitigation(by.get(a.name, [])) for a in attributes}
    return out
