"""The ChartQA-X selection loop for a batch of samples: candidates from every model → ROSCOE AS
ranking → leave-one-out votes on the best → next best on rejection → regenerate all, per round.

Samples of a batch move in lockstep, so each model gets one request batch per step (all the
batch's candidates, then all its votes on the current candidates) instead of one per sample,
and the models of one step work at the same time, each in its own thread.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets import resolve_image
from chartproof.metrics.roscoe import RoscoeItem
from chartproof.models import Backend, PromptSet, build_request
from chartproof.models.chart_text import chart_metadata
from chartproof.pipelines.explain_records import (
    Candidate,
    CandidateStatus,
    ExplainOutcome,
    Vote,
)
from chartproof.pipelines.explain_scoring import Ranking, Scored
from chartproof.types import GenerationConfig, ModelRequest, ModelResponse, Sample

__all__ = [
    "ExplainContext",
    "Model",
    "Usage",
    "explain_batch",
    "gold_answer",
    "majority_needed",
    "table_block",
]


@dataclass(frozen=True)
class Model:
    """A model taking part, under the name its candidates and votes are recorded with."""

    name: str
    """Unique name (the backend's spec string)."""
    backend: Backend
    """The backend, already behind the response cache when caching."""


@dataclass(frozen=True)
class ExplainContext:
    """Everything the selection loop needs besides the samples."""

    root: Path
    """Dataset folder the samples' image paths are relative to."""
    generators: tuple[Model, ...]
    """Models that write candidates, in order."""
    verifiers: tuple[Model, ...]
    """Models that vote; a candidate is never judged by its own author."""
    ranking: Ranking
    """Scorer and AS settings."""
    prompts: PromptSet
    """Where the two prompt ids are looked up."""
    candidate_prompt: str = "explain_candidate@1"
    """Prompt id of candidate generation."""
    verify_prompt: str = "explain_verify@1"
    """Prompt id of verification."""
    majority: int | None = None
    """Correct votes needed; None = more than half of the verifiers asked."""
    max_rounds: int = 2
    """Generation rounds at most (1 = no regeneration)."""
    max_tokens: int = 256
    """Largest reply."""
    regen_temperature: float = 0.7
    """Sampling temperature of rounds after the first."""
    instruction: str | None = None
    """Generation instruction put first in ROSCOE's source context."""


@dataclass
class Usage:
    """Model calls made for one sample."""

    calls: int = 0
    """Requests sent (cache hits included)."""
    cached: int = 0
    """Requests answered from the response cache."""
    latency_s: float = 0.0
    """Model time."""

    def add(self, response: ModelResponse) -> None:
        """Count one response."""
        self.calls += 1
        self.cached += int(response.cached)
        self.latency_s += response.latency_s


def gold_answer(sample: Sample) -> str:
    """The gold answer as the prompts show it."""
    return sample.answer.text().strip()


def table_block(sample: Sample) -> str:
    """The ``{table}`` field: the data table as CSV after a heading, or "" without a table."""
    if sample.table is None:
        return ""
    return f"\n\nThe chart's data table (CSV):\n{sample.table.to_csv().strip()}"


def majority_needed(asked: int, majority: int | None) -> int:
    """Correct votes a candidate needs: `majority`, or more than half of the `asked` verifiers
    (3 of 5 for ChartQA-X's six models)."""
    return majority if majority is not None else asked // 2 + 1


# ------------------------------------------------------------------------- the loop

_CALL_FAILED = "generation failed: "


@dataclass
class _Draft:
    model: str
    round: int
    index: int
    reply: str = ""
    explanation: str | None = None
    error: str | None = None
    scored: Scored | None = None
    rank: int | None = None
    status: CandidateStatus = "not_verified"
    reason: str | None = None
    votes: list[Vote] = field(default_factory=list)
    needed: int | None = None

    @property
    def correct(self) -> int:
        return sum(1 for v in self.votes if v.verdict is True)

    def freeze(self) -> Candidate:
        scored = self.scored or Scored({}, {}, None, None)
        reason = self.reason
        if self.status == "not_verified" and reason is None:
            reason = "not verified: a better-ranked candidate was accepted first"
        return Candidate(
            model=self.model,
            round=self.round,
            reply=self.reply,
            explanation=self.explanation,
            error=self.error,
            scores=scored.scores,
            score_notes=scored.notes,
            aggregate=scored.aggregate,
            aggregate_note=scored.note,
            rank=self.rank,
            status=self.status,
            reason=reason,
            votes=tuple(self.votes),
            correct=self.correct,
            needed=self.needed,
        )


@dataclass
class _State:
    sample: Sample
    image: Path | None
    error: str | None
    usage: Usage = field(default_factory=Usage)
    drafts: list[_Draft] = field(default_factory=list)
    accepted: _Draft | None = None
    rounds: int = 0

    @property
    def undecided(self) -> bool:
        return self.accepted is None and self.error is None

    def outcome(self) -> ExplainOutcome:
        candidates = tuple(d.freeze() for d in self.drafts)
        if self.accepted is not None:
            return ExplainOutcome(
                sample_id=self.sample.id,
                status="accepted",
                explanation=self.accepted.explanation,
                model=self.accepted.model,
                round=self.accepted.round,
                rounds=self.rounds,
                candidates=candidates,
            )
        error = self.error or _failure(candidates, self.rounds)
        return ExplainOutcome(
            sample_id=self.sample.id,
            status="failed" if error else "rejected",
            rounds=self.rounds,
            candidates=candidates,
            error=error,
        )


def _failure(candidates: tuple[Candidate, ...], rounds: int) -> str | None:
    """Why an unaccepted sample counts as failed (a model call failed), or None."""
    failed = [c.error for c in candidates if c.error and c.error.startswith(_CALL_FAILED)]
    failed += [v.error for c in candidates for v in c.votes if v.error]
    if not failed:
        return None
    return (
        f"no explanation accepted in {rounds} round(s) while {len(failed)} model call(s) "
        f"failed (first: {failed[0]}); a resumed run asks again"
    )


def explain_batch(
    samples: Sequence[Sample], ctx: ExplainContext
) -> list[tuple[ExplainOutcome, Usage]]:
    """Run the selection loop on `samples`; one outcome (and its model usage) per sample."""
    states = [_start(s, ctx.root) for s in samples]
    for rnd in range(1, ctx.max_rounds + 1):
        active = [st for st in states if st.undecided]
        if not active:
            break
        fresh = _generate(active, rnd, ctx)
        _score(active, fresh, ctx)
        queues = {i: _ranked(drafts) for i, drafts in enumerate(fresh)}
        _verify(active, {i: q for i, q in queues.items() if q}, ctx)
    return [(st.outcome(), st.usage) for st in states]


def _start(sample: Sample, root: Path) -> _State:
    if sample.more_images:
        reason = f"sample {sample.id} shows {len(sample.images)} charts; explain takes one"
        return _State(sample, None, reason)
    try:
        return _State(sample, resolve_image(root, sample.image), None)
    except (OSError, ValueError) as exc:
        return _State(sample, None, f"image of sample {sample.id}: {exc}")


def _seed(sample_id: str, rnd: int) -> int:
    digest = hashlib.sha256(f"{sample_id}/explain/round {rnd}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _candidate_config(ctx: ExplainContext, sample_id: str, rnd: int) -> GenerationConfig:
    if rnd == 1:
        return GenerationConfig(max_tokens=ctx.max_tokens)
    # a new round must not get the first round's texts back: sampled (so never served from
    # the response cache) with a seed derived from the sample and round
    return GenerationConfig(
        max_tokens=ctx.max_tokens, temperature=ctx.regen_temperature, seed=_seed(sample_id, rnd)
    )


def _request(
    state: _State,
    ctx: ExplainContext,
    *,
    prompt: str,
    request_id: str,
    config: GenerationConfig,
    explanation: str | None = None,
) -> ModelRequest:
    sample = state.sample
    metadata: dict[str, JsonValue] = {"sample_id": sample.id}
    if sample.chart_type:
        metadata["chart_type"] = sample.chart_type
    if sample.table is not None:
        # built-in models read the gold table here (the prompt shows it as text)
        metadata["table"] = sample.table.to_csv()
    # text-only models read the chart (table, type, titles) from here in place of the image
    metadata.update(chart_metadata(sample))
    return build_request(
        prompt,
        state.image,
        sample.question,
        request_id=request_id,
        config=config,
        prompts=ctx.prompts,
        metadata=metadata,
        answer=gold_answer(sample),
        table=table_block(sample),
        # only the verification prompt shows it; the candidate prompt ignores the field
        explanation=explanation or "",
    )


def _ask(model: Model, requests: list[ModelRequest]) -> list[ModelResponse]:
    if not requests:
        return []
    responses = model.backend.generate(requests)
    if len(responses) != len(requests) or any(
        r.request_id != q.id for r, q in zip(responses, requests, strict=False)
    ):
        raise RuntimeError(
            f"backend {model.name} broke the protocol: {len(requests)} requests, "
            f"{len(responses)} responses or ids out of order"
        )
    return responses


def _ask_all(jobs: Sequence[tuple[Model, list[ModelRequest]]]) -> list[list[ModelResponse]]:
    """Each model's responses to its requests; the models work at the same time (API models
    would otherwise wait for each other), each on one batch. Results keep the job order."""
    busy = [k for k, (_, requests) in enumerate(jobs) if requests]
    out: list[list[ModelResponse]] = [[] for _ in jobs]
    if len(busy) <= 1:
        for k in busy:
            out[k] = _ask(*jobs[k])
        return out
    with ThreadPoolExecutor(max_workers=len(busy), thread_name_prefix="explain") as pool:
        futures = {k: pool.submit(_ask, *jobs[k]) for k in busy}
        for k, future in futures.items():
            out[k] = future.result()
    return out


def _generate(active: list[_State], rnd: int, ctx: ExplainContext) -> list[list[_Draft]]:
    fresh: list[list[_Draft]] = [[] for _ in active]
    jobs = [
        (
            model,
            [
                _request(
                    st,
                    ctx,
                    prompt=ctx.candidate_prompt,
                    request_id=f"{st.sample.id}/explain/r{rnd}/c{g}",
                    config=_candidate_config(ctx, st.sample.id, rnd),
                )
                for st in active
            ],
        )
        for g, model in enumerate(ctx.generators)
    ]
    for g, ((model, _), responses) in enumerate(zip(jobs, _ask_all(jobs), strict=True)):
        for i, (st, response) in enumerate(zip(active, responses, strict=True)):
            st.usage.add(response)
            draft = _Draft(model=model.name, round=rnd, index=g, reply=response.text)
            if response.error is not None:
                draft.error = f"{_CALL_FAILED}{response.error}"
            else:
                parsed = response.parsed.explanation if response.parsed else None
                draft.explanation = parsed.strip() if parsed and parsed.strip() else None
                if draft.explanation is None:
                    draft.error = "empty explanation: the reply held no text to use"
            if draft.error is not None:
                draft.status, draft.reason = "failed", draft.error
            fresh[i].append(draft)
    for st, drafts in zip(active, fresh, strict=True):
        st.drafts.extend(drafts)
        st.rounds = rnd
    return fresh


def _score(active: list[_State], fresh: list[list[_Draft]], ctx: ExplainContext) -> None:
    todo: list[tuple[_Draft, RoscoeItem]] = []
    for st, drafts in zip(active, fresh, strict=True):
        sample = st.sample
        for d in drafts:
            if d.explanation is not None:
                item = RoscoeItem(
                    explanation=d.explanation,
                    question=sample.question,
                    answer=gold_answer(sample),
                    context=sample.table.to_csv() if sample.table is not None else None,
                    instruction=ctx.instruction,
                    id=sample.id,
                )
                todo.append((d, item))
    scored = ctx.ranking.score([item for _, item in todo])
    for (draft, _), result in zip(todo, scored, strict=True):
        draft.scored = result


def _ranked(drafts: list[_Draft]) -> list[_Draft]:
    """Usable candidates, highest AS first; ties keep model order; no AS comes last."""
    usable = [d for d in drafts if d.explanation is not None]

    def key(d: _Draft) -> tuple[int, float, int]:
        value = d.scored.aggregate if d.scored is not None else None
        return (1, 0.0, d.index) if value is None else (0, -value, d.index)

    order = sorted(usable, key=key)
    for rank, d in enumerate(order, start=1):
        d.rank = rank
    return order


def _verify(active: list[_State], queues: dict[int, list[_Draft]], ctx: ExplainContext) -> None:
    while queues:
        heads = {i: q[0] for i, q in queues.items()}
        asked = [
            [(i, d) for i, d in heads.items() if d.model != model.name] for model in ctx.verifiers
        ]
        jobs = [
            (
                model,
                [
                    _request(
                        active[i],
                        ctx,
                        prompt=ctx.verify_prompt,
                        request_id=f"{active[i].sample.id}/explain/r{d.round}/c{d.index}/v{v}",
                        config=GenerationConfig(max_tokens=ctx.max_tokens),
                        explanation=d.explanation or "",
                    )
                    for i, d in asked[v]
                ],
            )
            for v, model in enumerate(ctx.verifiers)
        ]
        # votes are appended in verifier order, whatever order the models finish in
        for (model, _), pairs, responses in zip(jobs, asked, _ask_all(jobs), strict=True):
            for (i, d), response in zip(pairs, responses, strict=True):
                active[i].usage.add(response)
                d.votes.append(_vote(model.name, response))
        for i, d in heads.items():
            _decide(d, ctx.majority)
            queue = queues[i]
            queue.pop(0)
            if d.status == "accepted":
                active[i].accepted = d
                del queues[i]
            elif not queue:
                del queues[i]


def _vote(verifier: str, response: ModelResponse) -> Vote:
    if response.error is not None:
        return Vote(verifier=verifier, verdict=None, reply=response.text, error=response.error)
    verdict = response.parsed.truth if response.parsed is not None else None
    return Vote(verifier=verifier, verdict=verdict, reply=response.text)


def _decide(draft: _Draft, majority: int | None) -> None:
    asked = len(draft.votes)
    draft.needed = majority_needed(asked, majority)
    correct = draft.correct
    tally = f"{correct} of {asked} verifiers said Correct, {draft.needed} needed"
    failed = sum(1 for v in draft.votes if v.error is not None)
    unread = sum(1 for v in draft.votes if v.error is None and v.verdict is None)
    extra = []
    if failed:
        extra.append(f"{failed} call(s) failed")
    if unread:
        extra.append(f"{unread} repl{'y' if unread == 1 else 'ies'} without a verdict")
    detail = f" ({'; '.join(extra)})" if extra else ""
    if correct >= draft.needed:
        draft.status, draft.reason = "accepted", f"accepted: {tally}{detail}"
    else:
        draft.status, draft.reason = "rejected", f"rejected: {tally}{detail}"
