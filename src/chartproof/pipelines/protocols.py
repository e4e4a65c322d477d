"""Evaluation protocols: how a sample becomes model requests and how the replies are scored.

direct — one question, one answer; chain — the ChartR sub-questions in dependency order, each
prompt carrying the model's own earlier answers to its `depends_on` steps, then the final
question with every sub-answer; premise — a true/false verdict for each VPP premise.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias

from pydantic import JsonValue

from chartproof.datasets import resolve_image
from chartproof.metrics.accuracy import anls, exact_match, relaxed_accuracy, score_answer
from chartproof.metrics.chains import ChainOutcome, chain_scores
from chartproof.models import Backend, PromptSet, build_request, default_prompts
from chartproof.models.chart_text import chart_metadata
from chartproof.models.images import image_part
from chartproof.types import (
    Answer,
    GenerationConfig,
    ImagePart,
    ModelRequest,
    ModelResponse,
    Sample,
    SampleResult,
)

__all__ = [
    "PROTOCOLS",
    "ProtocolName",
    "RunContext",
    "answer_scores",
    "applies",
    "chain_outcome",
    "run_protocol",
]

ProtocolName: TypeAlias = Literal["direct", "chain", "premise"]
PROTOCOLS: tuple[ProtocolName, ...] = ("direct", "chain", "premise")


@dataclass(frozen=True)
class RunContext:
    """What every protocol needs besides the samples: where images live, the model, prompts."""

    root: Path
    """Dataset folder the samples' image paths are relative to."""
    backend: Backend
    """The model (already wrapped in the response cache when caching)."""
    model: str
    """Spec string recorded on results."""
    prompt: str = "chartqax"
    """Prompt of the direct protocol (name or name@version)."""
    prompts: PromptSet = field(default_factory=default_prompts)
    """Where prompt names are looked up."""
    config: GenerationConfig = field(default_factory=GenerationConfig)
    """Decoding settings for every call."""
    with_table: bool = False
    """Give the model the gold data table (ChartQA-X's with-table setting)."""
    images: dict[str, ImagePart] = field(default_factory=dict, compare=False, repr=False)
    """Resolved and hashed image of each image path seen in this run (many questions share
    a chart; resolving and hashing it once per run saves most of the request building)."""

    def image(self, sample: Sample) -> ImagePart:
        """The sample's image as a request part: checked to stay inside `root`, hashed."""
        part = self.images.get(sample.image.path)
        if part is None:
            part = image_part(resolve_image(self.root, sample.image))
            self.images[sample.image.path] = part
        return part


def answer_scores(prediction: str | None, gold: Answer) -> dict[str, float | None]:
    """The accuracy family for one answer: typed accuracy, relaxed accuracy, exact match, ANLS.

    A missing prediction scores 0 everywhere: a model that gives no answer is wrong.
    """
    text = prediction or ""
    return {
        "accuracy": score_answer(text, gold),
        "relaxed_accuracy": relaxed_accuracy(text, gold),
        "exact_match": exact_match(text, gold),
        "anls": anls(text, gold),
    }


def _metadata(sample: Sample, ctx: RunContext) -> dict[str, JsonValue]:
    meta: dict[str, JsonValue] = {"sample_id": sample.id}
    if sample.chart_type:
        meta["chart_type"] = sample.chart_type
    if ctx.with_table and sample.table is not None:
        meta["table"] = sample.table.to_csv()
    # text-only models (text:...) read the chart as text from here in place of the image
    meta.update(chart_metadata(sample))
    return meta


def _question_text(sample: Sample, question: str, ctx: RunContext) -> str:
    if ctx.with_table and sample.table is not None:
        return f"{question}\n\nThe chart's data table (CSV):\n{sample.table.to_csv().strip()}"
    return question


def _request(
    sample: Sample,
    ctx: RunContext,
    *,
    prompt: str,
    question: str,
    suffix: str,
    earlier: Sequence[tuple[str, str]] = (),
) -> ModelRequest:
    return build_request(
        prompt,
        ctx.image(sample),
        _question_text(sample, question, ctx),
        request_id=f"{sample.id}/{suffix}",
        earlier=earlier,
        config=ctx.config,
        prompts=ctx.prompts,
        metadata=_metadata(sample, ctx),
    )


def _usage(responses: Sequence[ModelResponse]) -> tuple[int, int, float]:
    return (
        sum(1 for r in responses if r.cached),
        len(responses),
        sum(r.latency_s for r in responses),
    )


def _answer_of(response: ModelResponse) -> str | None:
    if response.parsed is None:
        return None
    return response.parsed.answer


# ------------------------------------------------------------------------------ direct


def _run_direct(samples: Sequence[Sample], ctx: RunContext) -> list[SampleResult]:
    requests: list[ModelRequest] = []
    for s in samples:
        requests.append(_request(s, ctx, prompt=ctx.prompt, question=s.question, suffix="direct"))
    responses = ctx.backend.generate(requests)
    _check_responses(requests, responses)
    out = []
    for s, resp in zip(samples, responses, strict=True):
        cached, calls, latency = _usage([resp])
        if not resp.ok:
            out.append(
                SampleResult(
                    sample_id=s.id,
                    protocol="direct",
                    model=ctx.model,
                    groups=s.group_labels(),
                    error=resp.error,
                    cached=cached,
                    calls=calls,
                    latency_s=latency,
                )
            )
            continue
        prediction = _answer_of(resp)
        out.append(
            SampleResult(
                sample_id=s.id,
                protocol="direct",
                model=ctx.model,
                prediction=prediction,
                output=resp.text,
                explanation=resp.parsed.explanation if resp.parsed else None,
                scores=answer_scores(prediction, s.answer),
                groups=s.group_labels(),
                cached=cached,
                calls=calls,
                latency_s=latency,
            )
        )
    return out


# ------------------------------------------------------------------------------ chain


def _run_chain(samples: Sequence[Sample], ctx: RunContext) -> list[SampleResult]:
    """Ask every sample's steps in waves: a step is asked once all its parents are answered,
    so one batch holds the ready steps of many samples."""
    answers: dict[tuple[str, int], str] = {}
    records: dict[tuple[str, int], ModelResponse] = {}
    pending = {s.id: list(s.chain) for s in samples}
    by_id = {s.id: s for s in samples}
    failed: dict[str, str] = {}
    while True:
        batch: list[tuple[Sample, int, ModelRequest]] = []
        for sid, chain in pending.items():
            if sid in failed:
                continue
            s = by_id[sid]
            for step in chain:
                if (sid, step.id) in records:
                    continue
                if all((sid, d) in records for d in step.depends_on):
                    earlier = [
                        (s.chain[d].question, answers.get((sid, d), "")) for d in step.depends_on
                    ]
                    req = _request(
                        s,
                        ctx,
                        prompt="chain_step",
                        question=step.question,
                        suffix=f"chain/{step.id}",
                        earlier=earlier,
                    )
                    batch.append((s, step.id, req))
        if not batch:
            break
        responses = ctx.backend.generate([b[2] for b in batch])
        _check_responses([b[2] for b in batch], responses)
        for (s, step_id, _), resp in zip(batch, responses, strict=True):
            records[(s.id, step_id)] = resp
            if not resp.ok:
                failed[s.id] = resp.error or "failed"
            answers[(s.id, step_id)] = _answer_of(resp) or ""
    finals: list[tuple[Sample, ModelRequest]] = []
    for s in samples:
        if s.id in failed:
            continue
        earlier = [(st.question, answers.get((s.id, st.id), "")) for st in s.chain]
        finals.append(
            (
                s,
                _request(
                    s,
                    ctx,
                    prompt="chain_step",
                    question=s.question,
                    suffix="chain/final",
                    earlier=earlier,
                ),
            )
        )
    final_responses = ctx.backend.generate([f[1] for f in finals])
    _check_responses([f[1] for f in finals], final_responses)
    final_by_id = {s.id: r for (s, _), r in zip(finals, final_responses, strict=True)}
    out = []
    for s in samples:
        responses = [records[(s.id, st.id)] for st in s.chain if (s.id, st.id) in records]
        final = final_by_id.get(s.id)
        if final is not None:
            responses.append(final)
        cached, calls, latency = _usage(responses)
        error = failed.get(s.id) or (final.error if final is not None else None)
        if error is not None:
            out.append(
                SampleResult(
                    sample_id=s.id,
                    protocol="chain",
                    model=ctx.model,
                    groups=s.group_labels(),
                    error=error,
                    cached=cached,
                    calls=calls,
                    latency_s=latency,
                )
            )
            continue
        assert final is not None
        steps: list[dict[str, JsonValue]] = []
        for st in s.chain:
            pred = answers.get((s.id, st.id))
            steps.append(
                {
                    "id": st.id,
                    "task_type": st.task_type,
                    "depends_on": list(st.depends_on),
                    "question": st.question,
                    "gold": st.answer.text(),
                    "prediction": pred,
                    "output": records[(s.id, st.id)].text,
                    "correct": score_answer(pred or "", st.answer) == 1.0,
                }
            )
        prediction = _answer_of(final)
        scores = answer_scores(prediction, s.answer)
        scores.update(_chain_scores(steps, scores["accuracy"] == 1.0))
        out.append(
            SampleResult(
                sample_id=s.id,
                protocol="chain",
                model=ctx.model,
                prediction=prediction,
                output=final.text,
                scores=scores,
                groups=s.group_labels(),
                steps=tuple(steps),
                cached=cached,
                calls=calls,
                latency_s=latency,
            )
        )
    return out


def chain_outcome(steps: Sequence[Mapping[str, JsonValue]], final_correct: bool) -> ChainOutcome:
    """A chain's outcome from the step records a chain result stores."""

    def ints(value: JsonValue) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise ValueError(f"depends_on must be a list of step ids, got {value!r}")
        return tuple(int(d) for d in value if isinstance(d, int | str))

    return ChainOutcome(
        correct=tuple(bool(st["correct"]) for st in steps),
        depends_on=tuple(ints(st["depends_on"]) for st in steps),
        task_types=tuple(str(st["task_type"]) for st in steps),
        final_correct=final_correct,
    )


def _chain_scores(
    steps: Sequence[Mapping[str, JsonValue]], final_right: bool
) -> dict[str, float | None]:
    """Per-chain ISA/CSA/FAA/CFA (ChartR): the run's values are their means over chains."""
    return dict(chain_scores(chain_outcome(steps, final_right)))


# ------------------------------------------------------------------------------ premise


def _run_premise(samples: Sequence[Sample], ctx: RunContext) -> list[SampleResult]:
    batch: list[tuple[Sample, int, ModelRequest]] = []
    for s in samples:
        for i, p in enumerate(s.premises):
            req = _request(s, ctx, prompt="premise", question=p.text, suffix=f"premise/{p.id}")
            batch.append((s, i, req))
    responses = ctx.backend.generate([b[2] for b in batch])
    _check_responses([b[2] for b in batch], responses)
    per_sample: dict[str, list[ModelResponse]] = {s.id: [] for s in samples}
    for (s, _, _), resp in zip(batch, responses, strict=True):
        per_sample[s.id].append(resp)
    out = []
    for s in samples:
        resps = per_sample[s.id]
        cached, calls, latency = _usage(resps)
        error = next((r.error for r in resps if not r.ok), None)
        if error is not None:
            out.append(
                SampleResult(
                    sample_id=s.id,
                    protocol="premise",
                    model=ctx.model,
                    groups=s.group_labels(),
                    error=error,
                    cached=cached,
                    calls=calls,
                    latency_s=latency,
                )
            )
            continue
        steps: list[dict[str, JsonValue]] = []
        for p, resp in zip(s.premises, resps, strict=True):
            verdict = resp.parsed.truth if resp.parsed else None
            steps.append(
                {
                    "id": p.id,
                    "kind": p.kind,
                    "slot": p.slot,
                    "statement": p.text,
                    "truth": p.truth,
                    "prediction": verdict,
                    "output": resp.text,
                    "correct": verdict is not None and verdict == p.truth,
                }
            )
        right = [bool(st["correct"]) for st in steps]
        scores: dict[str, float | None] = {
            "premise_accuracy": sum(right) / len(right),
            "acc_vpp": 1.0 if all(right) else 0.0,
        }
        out.append(
            SampleResult(
                sample_id=s.id,
                protocol="premise",
                model=ctx.model,
                scores=scores,
                groups=s.group_labels(),
                steps=tuple(steps),
                cached=cached,
                calls=calls,
                latency_s=latency,
            )
        )
    return out


# ------------------------------------------------------------------------------ dispatch


def _check_responses(requests: Sequence[ModelRequest], responses: Sequence[ModelResponse]) -> None:
    """Backends must answer every request once, in order; anything else is a backend bug."""
    if len(responses) != len(requests) or any(
        q.id != r.request_id for q, r in zip(requests, responses, strict=False)
    ):
        raise RuntimeError(
            f"backend returned {len(responses)} responses for {len(requests)} requests "
            "(or out of order); every request must get exactly one response"
        )


_RUNNERS: dict[str, Callable[[Sequence[Sample], RunContext], list[SampleResult]]] = {
    "direct": _run_direct,
    "chain": _run_chain,
    "premise": _run_premise,
}


def applies(protocol: str, sample: Sample) -> bool:
    """Whether a sample can be asked under a protocol (chains need steps, VPP premises)."""
    if protocol == "chain":
        return bool(sample.chain)
    if protocol == "premise":
        return bool(sample.premises)
    return True


def run_protocol(protocol: str, samples: Sequence[Sample], ctx: RunContext) -> list[SampleResult]:
    """Ask and score one batch of samples under a protocol; one result per sample, in order."""
    runner = _RUNNERS.get(protocol)
    if runner is None:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {list(PROTOCOLS)}")
    if not samples:
        return []
    return runner(samples, ctx)
