"""The audit's settings, each a function from a batch of work units to `SampleResult`s:
narrative shift, two-stage group selection (hallucination, polarity, causal test),
demographic cue, and the multi-agent mitigation (with and without masking).

Every model call goes through `AuditContext.ask` (one batch per stage, duplicates asked
once); every stage's output is kept in the result's `steps`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from pydantic import JsonValue

from chartproof.metrics.accuracy import relaxed_accuracy
from chartproof.metrics.bias import (
    JudgeThresholds,
    cosine_dissimilarity,
    judge_pair,
    opinion_span,
)
from chartproof.models.base import Backend
from chartproof.models.prompts import PromptSet, build_request
from chartproof.pipelines.audit.charts import AuditChart, parse_choice
from chartproof.pipelines.audit.lexicon import Attribute, Group, Lexicon
from chartproof.pipelines.audit.prompts import analysis_for
from chartproof.pipelines.audit.rewrites import check_rewrite
from chartproof.types import GenerationConfig, ModelRequest, ModelResponse, Sample, SampleResult

__all__ = [
    "CHOICES",
    "AuditContext",
    "CueUnit",
    "Embedder",
    "PairUnit",
    "Scorer",
    "SelectUnit",
    "run_cue",
    "run_cue_narrative",
    "run_mitigation",
    "run_narrative",
    "run_selection",
]

NEUTRAL_AUDIENCE = "a general audience"
"""What the masked reference of the mitigation is written for."""


class Embedder(Protocol):
    """Anything that gives unit sentence vectors (the ROSCOE `SentenceEmbedder` does)."""

    def embed_sentences(self, texts: Sequence[str]) -> Any:
        """One unit vector per text."""
        ...


Scorer = Callable[[ModelRequest, Sequence[str]], list[tuple[float, int]]]
"""(summed log-probability, tokens) of each complete reply to a request."""

CHOICES = ("generate", "likelihood", "likelihood-norm")
"""How the group-selection question is answered; "generate" is the paper's protocol."""

ABSTAIN_REPLY = "Cannot tell"
"""The abstention reply the selection prompt allows."""


@dataclass
class AuditContext:
    """What every setting needs: the model, prompts, lexicon and scorers."""

    backend: Backend
    """The (cached) backend."""
    model: str
    """Model name recorded on results."""
    prompts: PromptSet
    """Templates, the audit's included."""
    lexicon: Lexicon
    """Attributes and their terms."""
    embedder: Embedder | None
    """Sentence embedder for dissimilarity and the judge's similarity (None: not computed)."""
    sentiment: Callable[[str], float] | None
    """Compound sentiment in [−1, 1] (VADER by default; None: judge not run)."""
    max_tokens: int = 256
    """Largest narrative in tokens."""
    thresholds: JudgeThresholds = field(default_factory=JudgeThresholds)
    """When the mitigation's judge flags a pair."""
    examples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Group label → example names for its prompt phrase (countries by income group)."""
    choice: str = "generate"
    """How stage 2 of group selection is answered: "generate" (the paper's protocol: the
    reply is generated and parsed), "likelihood" (the allowed reply of highest summed
    log-probability) or "likelihood-norm" (highest log-probability per character)."""
    scorer: Scorer | None = None
    """Log-likelihoods of replies, for the likelihood choices (a local causal LM's)."""
    opinion_fallback: str = "none"
    """Where an output without `<opinion>` tags gets its opinion: "none" (it has none, and
    opinion-based figures leave it out) or "last-sentence" (a labelled approximation)."""

    def opinion(self, text: str) -> dict[str, JsonValue]:
        """A step's opinion fields: the span (None without one) and where it came from."""
        span, source = opinion_span(text, self.opinion_fallback)
        return {"opinion": span, "opinion_source": source}

    def ask(self, requests: Sequence[ModelRequest]) -> dict[str, ModelResponse]:
        """Replies by request id; a request id asked twice in a batch is sent once."""
        unique = list({r.id: r for r in requests}.values())
        if not unique:
            return {}
        return {r.request_id: r for r in self.backend.generate(unique)}

    def request(
        self,
        prompt: str,
        chart: AuditChart | None,
        request_id: str,
        *,
        max_tokens: int | None = None,
        **fields: str,
    ) -> ModelRequest:
        """A request with the chart image (None: text only) and what a text-over-table
        model needs to know about the chart in its metadata."""
        meta: dict[str, JsonValue] = {"audit": True}
        if chart is not None:
            meta.update(chart.text_meta)
        return build_request(
            prompt,
            chart.image if chart is not None else None,
            request_id=request_id,
            prompts=self.prompts,
            config=GenerationConfig(max_tokens=max_tokens or self.max_tokens),
            metadata=meta,
            **cast(dict[str, Any], fields),
        )

    def phrase(self, group: Group, chart_id: str) -> str:
        """The group's prompt phrase, with up to three seeded example names when it has some
        (the same chart always gets the same examples)."""
        names = self.examples.get(group.label, ())
        if not names:
            return group.phrase
        picked = random.Random(f"{chart_id}/{group.label}").sample(list(names), min(3, len(names)))
        return (
            f"{group.phrase} such as {', '.join(picked[:-1])} and {picked[-1]}"
            if len(picked) > 1
            else f"{group.phrase} such as {picked[0]}"
        )

    def dissimilarities(self, pairs: Sequence[tuple[str, str]]) -> list[float | None]:
        """1 − cos of each pair's embeddings (None without an embedder or for an empty text)."""
        if self.embedder is None:
            return [None] * len(pairs)
        texts = sorted({t for pair in pairs for t in pair if t.strip()})
        if not texts:
            return [None] * len(pairs)
        vectors = self.embedder.embed_sentences(texts)
        index = {t: i for i, t in enumerate(texts)}
        out: list[float | None] = []
        for a, b in pairs:
            if not a.strip() or not b.strip():
                out.append(None)
                continue
            out.append(cosine_dissimilarity(vectors[index[a]], vectors[index[b]]))
        return out


@dataclass(frozen=True)
class PairUnit:
    """One chart and one attribute (narrative shift, mitigation)."""

    chart: AuditChart
    """The chart."""
    attribute: Attribute
    """The attribute whose two groups are swapped."""

    @property
    def id(self) -> str:
        """Result id."""
        return f"{self.chart.id}|{self.attribute.name}"


@dataclass(frozen=True)
class SelectUnit:
    """One chart, one attribute and one order of the two options (group selection)."""

    chart: AuditChart
    """The chart."""
    attribute: Attribute
    """The attribute asked about."""
    order: str
    """"ab": the first group listed first; "ba": the second group first."""

    @property
    def id(self) -> str:
        """Result id."""
        return f"{self.chart.id}|{self.attribute.name}|{self.order}"


@dataclass(frozen=True)
class CueUnit:
    """One chart question and one attribute: asked with no cue and as each group's member."""

    chart: AuditChart
    """The chart."""
    sample: Sample
    """The question with its gold answer."""
    attribute: Attribute
    """The attribute whose groups the user states."""

    @property
    def id(self) -> str:
        """Result id."""
        return f"{self.sample.id}|{self.attribute.name}"


def _text(r: ModelResponse | None) -> str:
    return r.text if r is not None and r.ok else ""


def _ask_pairs(
    ctx: AuditContext, reqs: dict[str, tuple[ModelRequest, ModelRequest]]
) -> tuple[dict[str, ModelResponse], list[tuple[str, str]], list[float | None]]:
    """Ask every paired request at once: the replies by request id, each pair's two texts
    (empty for a failed call) and their dissimilarities."""
    replies = ctx.ask([r for pair in reqs.values() for r in pair])
    pairs = [(_text(replies.get(ra.id)), _text(replies.get(rb.id))) for ra, rb in reqs.values()]
    return replies, pairs, ctx.dissimilarities(pairs)


def _error(responses: Sequence[ModelResponse | None]) -> str | None:
    for r in responses:
        if r is None:
            return "no response"
        if not r.ok:
            return r.error
    return None


def _labels(chart: AuditChart, attribute: Attribute, **extra: str) -> dict[str, str]:
    labels = {"attribute": attribute.name, "chart": chart.id}
    if chart.polarity:
        labels["polarity"] = chart.polarity
    if chart.chart_type:
        labels["chart_type"] = chart.chart_type
    if chart.family:
        labels["family"] = chart.family
    labels.update(extra)
    return labels


def _stats(responses: Sequence[ModelResponse | None]) -> dict[str, Any]:
    got = [r for r in responses if r is not None]
    return {
        "calls": len(got),
        "cached": sum(1 for r in got if r.cached),
        "latency_s": round(sum(r.latency_s for r in got), 4),
    }


def _selection(
    ctx: AuditContext,
    protocol: str,
    unit: SelectUnit,
    choice: str | None,
    reply: str,
    steps: list[dict[str, JsonValue]],
    error: str | None,
    responses: Sequence[ModelResponse | None],
) -> SampleResult:
    """One group-selection unit's result (generated or likelihood-scored choice)."""
    first = unit.attribute.groups[0 if unit.order == "ab" else 1].label
    return SampleResult(
        sample_id=unit.id,
        protocol=protocol,
        model=ctx.model,
        prediction=choice,
        output=reply,
        groups=_labels(unit.chart, unit.attribute, order=unit.order, first_listed=first),
        steps=tuple(steps),
        error=error,
        **_stats(responses),
    )


# ------------------------------------------------------------------------------ narrative


def run_narrative(
    units: Sequence[PairUnit], ctx: AuditContext, protocol: str
) -> list[SampleResult]:
    """Two narratives per unit, the chart fixed and only [GROUP] swapped; dissimilarity."""
    reqs: dict[str, tuple[ModelRequest, ModelRequest]] = {}
    for u in units:
        analysis = analysis_for(u.chart.chart_type)
        a, b = u.attribute.groups
        reqs[u.id] = (
            ctx.request("audit_narrative", u.chart, f"{u.id}/{a.label}", analysis=analysis,
                        group=ctx.phrase(a, u.chart.id)),
            ctx.request("audit_narrative", u.chart, f"{u.id}/{b.label}", analysis=analysis,
                        group=ctx.phrase(b, u.chart.id)),
        )  # fmt: skip
    replies, pairs, dissim = _ask_pairs(ctx, reqs)
    out = []
    for u, (text_a, text_b), d in zip(units, pairs, dissim, strict=True):
        ra, rb = reqs[u.id]
        got = [replies.get(ra.id), replies.get(rb.id)]
        steps: list[dict[str, JsonValue]] = [
            {"group": g.label, "prompt": r.prompt, "output": t, **ctx.opinion(t)}
            for g, r, t in zip(u.attribute.groups, (ra, rb), (text_a, text_b), strict=True)
        ]
        out.append(
            SampleResult(
                sample_id=u.id,
                protocol=protocol,
                model=ctx.model,
                output=text_a,
                scores={"dissimilarity": d},
                groups=_labels(u.chart, u.attribute),
                steps=tuple(steps),
                error=_error(got),
                **_stats(got),
            )
        )
    return out


# ------------------------------------------------------------------------------ selection


def run_selection(
    units: Sequence[SelectUnit], ctx: AuditContext, protocol: str
) -> list[SampleResult]:
    """Stage 1: a factual analysis naming no group (one per chart); stage 2: which group the
    chart describes, from that analysis, options in the unit's order, abstention allowed."""
    facts_req = {
        u.chart.id: ctx.request(
            "audit_facts",
            u.chart,
            f"{u.chart.id}/facts",
            max_tokens=min(ctx.max_tokens, 192),
            analysis=analysis_for(u.chart.chart_type),
        )
        for u in units
    }
    facts = ctx.ask(list(facts_req.values()))
    select: dict[str, ModelRequest] = {}
    for u in units:
        a, b = u.attribute.groups
        one, two = (a, b) if u.order == "ab" else (b, a)
        # stage 2 reads the stage-1 analysis only, not the chart: the group is chosen from
        # what the model itself said the chart shows (seed 003 Figure 13)
        select[u.id] = ctx.request(
            "audit_select", None, f"{u.id}/select", max_tokens=48,
            facts=_text(facts.get(facts_req[u.chart.id].id)) or "(no description)",
            option_a=ctx.phrase(one, u.chart.id), option_b=ctx.phrase(two, u.chart.id),
        )  # fmt: skip
    if ctx.choice != "generate":
        return _scored_selection(units, ctx, protocol, facts, facts_req, select)
    chosen = ctx.ask(list(select.values()))
    out = []
    for u in units:
        f = facts.get(facts_req[u.chart.id].id)
        s = chosen.get(select[u.id].id)
        reply = _text(s)
        choice = parse_choice(reply, u.attribute, ctx.lexicon) if s is not None and s.ok else None
        first = u.attribute.groups[0 if u.order == "ab" else 1].label
        steps: list[dict[str, JsonValue]] = [
            {"stage": "facts", "prompt": facts_req[u.chart.id].prompt, "output": _text(f)},
            {"stage": "select", "prompt": select[u.id].prompt, "output": reply, "choice": choice,
             "first_listed": first},
        ]  # fmt: skip
        out.append(_selection(ctx, protocol, u, choice, reply, steps, _error([f, s]), [f, s]))
    return out


def _scored_selection(
    units: Sequence[SelectUnit],
    ctx: AuditContext,
    protocol: str,
    facts: dict[str, ModelResponse],
    facts_req: dict[str, ModelRequest],
    select: dict[str, ModelRequest],
) -> list[SampleResult]:
    """Stage 2 answered by likelihood: each allowed reply (the two options in the unit's
    order and the abstention) is scored as the whole answer, and the best one is the
    choice, as lm-evaluation-harness scores multiple choice (no reply is unreadable)."""
    if ctx.scorer is None:
        raise ValueError(f"choice {ctx.choice!r} needs a model that scores replies")
    out = []
    for u in units:
        f = facts.get(facts_req[u.chart.id].id)
        a, b = u.attribute.groups
        one, two = (a, b) if u.order == "ab" else (b, a)
        request = select[u.id]
        replies = [str(request.metadata["option_a"]), str(request.metadata["option_b"]),
                   ABSTAIN_REPLY]  # fmt: skip
        labels = [one.label, two.label, "abstain"]
        error = _error([f])
        try:
            scored = ctx.scorer(request, replies)
        except (ValueError, RuntimeError) as e:  # one chart's failure must not end the run
            scored, error = [], error or f"scoring failed: {e}"
        if scored:
            # per character (lm-evaluation-harness's acc_norm) or summed (its acc)
            keys = [
                lp / max(1, len(r)) if ctx.choice == "likelihood-norm" else lp
                for (lp, _), r in zip(scored, replies, strict=True)
            ]
            best = max(range(len(keys)), key=lambda i: keys[i])
            choice: str | None = labels[best]
            reply = replies[best]
        else:
            choice, reply = None, ""
        first = u.attribute.groups[0 if u.order == "ab" else 1].label
        steps: list[dict[str, JsonValue]] = [
            {"stage": "facts", "prompt": facts_req[u.chart.id].prompt, "output": _text(f)},
            {"stage": "select", "prompt": request.prompt, "output": reply, "choice": choice,
             "first_listed": first, "scoring": ctx.choice,
             "loglikelihoods": {lab: lp for lab, (lp, _) in zip(labels, scored, strict=False)},
             "tokens": {lab: n for lab, (_, n) in zip(labels, scored, strict=False)}},
        ]  # fmt: skip
        out.append(_selection(ctx, protocol, u, choice, reply, steps, error, [f]))
    return out


# ------------------------------------------------------------------------------ cue

CONTROL = "none"
"""The user group of the no-cue control."""


def _persona(ctx: AuditContext, group: Group, chart_id: str) -> str:
    """The user's statement of their own group that opens a cue prompt."""
    return f"About me, the user: I count myself among {ctx.phrase(group, chart_id)}.\n\n"


def run_cue(units: Sequence[CueUnit], ctx: AuditContext, protocol: str) -> list[SampleResult]:
    """Each question asked with no cue and with the user stating each group; correctness by
    relaxed accuracy against the executable gold answer."""
    asked: dict[str, list[tuple[str, ModelRequest]]] = {}
    for u in units:
        personas = [(CONTROL, "")] + [
            (g.label, _persona(ctx, g, u.chart.id)) for g in u.attribute.groups
        ]
        asked[u.id] = [
            (label, ctx.request("audit_cue", u.chart, f"{u.sample.id}/cue/{label}",
                                max_tokens=32, persona=text, question=u.sample.question))
            for label, text in personas
        ]  # fmt: skip
    replies = ctx.ask([r for rs in asked.values() for _, r in rs])
    out = []
    for u in units:
        got = [replies.get(r.id) for _, r in asked[u.id]]
        steps: list[dict[str, JsonValue]] = []
        scores: dict[str, float | None] = {}
        for (label, r), resp in zip(asked[u.id], got, strict=True):
            answer = resp.parsed.answer if resp is not None and resp.ok and resp.parsed else None
            right = relaxed_accuracy(answer, u.sample.answer) if answer else 0.0
            scores[f"correct:{label}"] = right if resp is not None and resp.ok else None
            steps.append({"user": label, "prompt": r.prompt, "output": _text(resp),
                          "answer": answer, "correct": right})  # fmt: skip
        out.append(
            SampleResult(
                sample_id=u.id,
                protocol=protocol,
                model=ctx.model,
                output=_text(got[0]),
                scores=scores,
                groups=_labels(u.chart, u.attribute, question=u.sample.id),
                steps=tuple(steps),
                error=_error(got),
                **_stats(got),
            )
        )
    return out


def run_cue_narrative(
    units: Sequence[PairUnit], ctx: AuditContext, protocol: str
) -> list[SampleResult]:
    """The cue setting's narrative side: the same chart and the same narrative task (about
    the chart, not the user), once with a user of each group; dissimilarity of the two
    narratives, their whole-text sentiment and the stance of their `<opinion>` spans."""
    reqs: dict[str, tuple[ModelRequest, ModelRequest]] = {}
    for u in units:
        analysis = analysis_for(u.chart.chart_type)
        a, b = u.attribute.groups
        reqs[u.id] = (
            ctx.request("audit_cue_narrative", u.chart, f"{u.id}/cue-narrative/{a.label}",
                        analysis=analysis, persona=_persona(ctx, a, u.chart.id)),
            ctx.request("audit_cue_narrative", u.chart, f"{u.id}/cue-narrative/{b.label}",
                        analysis=analysis, persona=_persona(ctx, b, u.chart.id)),
        )  # fmt: skip
    replies, pairs, dissim = _ask_pairs(ctx, reqs)
    out = []
    for u, (text_a, text_b), d in zip(units, pairs, dissim, strict=True):
        ra, rb = reqs[u.id]
        got = [replies.get(ra.id), replies.get(rb.id)]
        scores: dict[str, float | None] = {"dissimilarity": d}
        steps: list[dict[str, JsonValue]] = []
        for side, g, r, t in zip("ab", u.attribute.groups, (ra, rb), (text_a, text_b), strict=True):
            opinion = ctx.opinion(t)
            # an empty reply has no sentiment, not a neutral one; an output without an
            # opinion span has no opinion sentiment (never its whole text's in its place)
            score = ctx.sentiment if t.strip() else None
            sentiment = score(t) if score is not None else None
            span = opinion["opinion"]
            stance_of = score(span) if score is not None and isinstance(span, str) else None
            scores[f"sentiment_{side}"] = sentiment
            scores[f"opinion_{side}"] = stance_of
            steps.append({"user": g.label, "prompt": r.prompt, "output": t, **opinion,
                          "sentiment": sentiment, "opinion_sentiment": stance_of})  # fmt: skip
        out.append(
            SampleResult(
                sample_id=u.id,
                protocol=protocol,
                model=ctx.model,
                output=text_a,
                scores=scores,
                groups=_labels(u.chart, u.attribute),
                steps=tuple(steps),
                error=_error(got),
                **_stats(got),
            )
        )
    return out


# ------------------------------------------------------------------------------ mitigation


def _judge(ctx: AuditContext, a: str, b: str, similarity: float | None) -> dict[str, JsonValue]:
    if ctx.sentiment is None:
        return {"flagged": None, "note": "judge not run: no sentiment scorer"}
    # a text without an opinion span leaves the stance check out (never its whole text)
    op_a, op_b = ctx.opinion(a)["opinion"], ctx.opinion(b)["opinion"]
    verdict = judge_pair(
        opinion_a=ctx.sentiment(op_a) if isinstance(op_a, str) else None,
        opinion_b=ctx.sentiment(op_b) if isinstance(op_b, str) else None,
        sentiment_a=ctx.sentiment(a),
        sentiment_b=ctx.sentiment(b),
        similarity=similarity,
        thresholds=ctx.thresholds,
    )
    return dict(verdict.model_dump(mode="json"))


@dataclass(frozen=True)
class _Asked:
    """One mitigation stage's requests, keyed (unit id, group label or "*"), and replies."""

    requests: dict[tuple[str, str], ModelRequest]
    replies: dict[str, ModelResponse]

    @classmethod
    def of(cls, ctx: AuditContext, requests: dict[tuple[str, str], ModelRequest]) -> _Asked:
        return cls(requests, ctx.ask(list(requests.values())))

    def reply(self, key: tuple[str, str]) -> ModelResponse | None:
        return self.replies.get(self.requests[key].id)

    def text(self, key: tuple[str, str]) -> str:
        return _text(self.reply(key))


@dataclass(frozen=True)
class _Mitigation:
    """A batch's mitigation: every stage asked, and the rewrites' problems."""

    ctx: AuditContext
    protocol: str
    masked: bool
    evidence: _Asked
    generated: _Asked
    refs: _Asked
    rewrites: _Asked
    problems: dict[tuple[str, str], list[str]]

    def result(
        self,
        u: PairUnit,
        texts: tuple[tuple[str, ...], tuple[str, ...]],
        dissimilarity: tuple[float | None, float | None],
        verdict: dict[str, JsonValue],
    ) -> SampleResult:
        """One unit's result: (paired, final) texts, dissimilarity before and after."""
        (first, final), (d0, d1) = texts, dissimilarity
        ctx, masked = self.ctx, self.masked
        keys = [(u.id, g.label) for g in u.attribute.groups]
        used = [self.evidence.replies.get(r.id) for k, r in self.evidence.requests.items()
                if k[0] == u.id]  # fmt: skip
        used += [self.generated.reply(k) for k in keys]
        rewritten = keys[0] in self.rewrites.requests
        if rewritten:
            used += [self.refs.reply(k) for k in keys] + [self.rewrites.reply(k) for k in keys]
        steps: list[dict[str, JsonValue]] = [
            {"stage": "mask", "masked": masked,
             "groups_in_extractor_prompt": [] if masked else list(u.attribute.labels)},
        ]  # fmt: skip
        for k in self.evidence.requests:
            if k[0] == u.id:
                steps.append({"stage": "evidence", "group": k[1], "output": self.evidence.text(k)})
        for g, text in zip(u.attribute.groups, first, strict=True):
            steps.append({"stage": "paired", "group": g.label, "output": text,
                          **ctx.opinion(text)})  # fmt: skip
        steps.append({"stage": "judge", **verdict})
        accepted = rewritten and not any(self.problems[k] for k in keys)
        if rewritten:
            for g in u.attribute.groups:
                k = (u.id, g.label)
                text = self.rewrites.text(k)
                steps.append({"stage": "reference", "group": g.label, "output": self.refs.text(k)})
                steps.append({"stage": "rewrite", "group": g.label, "output": text,
                              "accepted": accepted, "rejected_for": list(self.problems[k]),
                              **ctx.opinion(text)})  # fmt: skip
        flagged = verdict.get("flagged")
        return SampleResult(
            sample_id=u.id,
            protocol=self.protocol,
            model=ctx.model,
            output=final[0],
            scores={
                "dissimilarity_before": d0,
                "dissimilarity": d1,
                "flagged": None if flagged is None else float(bool(flagged)),
                "rewrite_accepted": float(accepted) if rewritten else None,
            },
            groups=_labels(u.chart, u.attribute, masked=str(masked).lower()),
            steps=tuple(steps),
            error=_error(used),
            **_stats(used),
        )


def _evidence_requests(
    units: Sequence[PairUnit], ctx: AuditContext, masked: bool
) -> dict[tuple[str, str], ModelRequest]:
    """Stage 1, masking: the extractor's prompt names no group; chart text given to a text
    model is masked too (an image cannot be, and an eligible chart names no group anyway).
    The ablation tells the extractor the group: one evidence per group."""
    ev_req: dict[tuple[str, str], ModelRequest] = {}
    for u in units:
        analysis = analysis_for(u.chart.chart_type)
        if masked:
            ev_req[(u.id, "*")] = ctx.request(
                "audit_evidence", u.chart, f"{u.chart.id}/evidence", analysis=analysis, about=""
            )
        else:
            for g in u.attribute.groups:
                about = f"\nThe facts will be used to write about {ctx.phrase(g, u.chart.id)}."
                ev_req[(u.id, g.label)] = ctx.request(
                    "audit_evidence", u.chart, f"{u.id}/evidence/{g.label}", analysis=analysis,
                    about=about,
                )  # fmt: skip
    return ev_req


def run_mitigation(
    units: Sequence[PairUnit], ctx: AuditContext, protocol: str, *, masked: bool
) -> list[SampleResult]:
    """Masking → evidence → paired generation from the evidence → judge → rewrite of the
    flagged pairs from a group-neutral reference; `masked=False` is the ablation whose
    evidence extractor is told the group (one evidence per group)."""
    evidence = _Asked.of(ctx, _evidence_requests(units, ctx, masked))
    tag = "m" if masked else "u"

    def ev(u: PairUnit, g: Group) -> str:
        return evidence.text((u.id, "*") if masked else (u.id, g.label)) or "(no facts extracted)"

    def ask(
        stage: str, us: Sequence[PairUnit], **fields: Callable[[PairUnit, Group], str]
    ) -> _Asked:
        return _Asked.of(ctx, {
            (u.id, g.label): ctx.request(
                "audit_rewrite" if stage == "rewrite" else "audit_paired", None,
                f"{u.id}/{tag}/{stage}/{g.label}",
                **cast(dict[str, Any], {k: f(u, g) for k, f in fields.items()}),
            )
            for u in us
            for g in u.attribute.groups
        })  # fmt: skip

    def phrase(u: PairUnit, g: Group) -> str:
        return ctx.phrase(g, u.chart.id)

    generated = ask("paired", units, evidence=ev, group=phrase)
    firsts = [tuple(generated.text((u.id, g.label)) for g in u.attribute.groups) for u in units]
    before = ctx.dissimilarities([(a, b) for a, b in firsts])
    verdicts = [
        _judge(ctx, a, b, None if d is None else 1.0 - d)
        for (a, b), d in zip(firsts, before, strict=True)
    ]
    flagged = [u for u, v in zip(units, verdicts, strict=True) if v.get("flagged")]
    refs = ask("reference", flagged, evidence=ev, group=lambda u, g: NEUTRAL_AUDIENCE)
    rewrites = ask(
        "rewrite", flagged, reference=lambda u, g: refs.text((u.id, g.label)), group=phrase
    )
    # a rewrite replaces the pair only when both pass (`rewrites.check_rewrite`)
    problems = {
        (u.id, g.label): check_rewrite(
            rewrites.text((u.id, g.label)), refs.text((u.id, g.label)), ev(u, g), g
        )
        for u in flagged
        for g in u.attribute.groups
    }
    finals = []
    for u, first in zip(units, firsts, strict=True):
        keys = [(u.id, g.label) for g in u.attribute.groups]
        if keys[0] in rewrites.requests and not any(problems[k] for k in keys):
            finals.append(tuple(rewrites.text(k) for k in keys))
        else:
            finals.append(first)
    after = ctx.dissimilarities([(a, b) for a, b in finals])
    done = _Mitigation(ctx, protocol, masked, evidence, generated, refs, rewrites, problems)
    return [
        done.result(u, (first, final), (d0, d1), verdict)
        for u, first, final, d0, d1, verdict in zip(
            units, firsts, finals, before, after, verdicts, strict=True
        )
    ]
