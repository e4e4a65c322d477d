"""Evaluation protocols: how a sample becomes model requests and how the replies are scored.

direct — one question, one answer; chain — the ChartR sub-questions in dependency order, each
prompt carrying the model's own earlier answers to its `depends_on` steps, then the final
question with every sub-answer; premise — a true/false verdict for each VPP premise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeAlias, TypeVar

from pydantic import JsonValue

from chartproof.datasets import resolve_image
from chartproof.metrics.chains import step_right
from chartproof.metrics.registry import metric, scorers
from chartproof.models import Backend, PromptSet, build_request, default_prompts
from chartproof.models.base import Shares
from chartproof.models.chart_text import chart_metadata
from chartproof.models.images import image_part
from chartproof.types import (
    ChainStepRecord,
    GenerationConfig,
    ImagePart,
    ModelRequest,
    ModelResponse,
    PremiseStepRecord,
    Sample,
    SampleResult,
    StepRecord,
    TextPart,
)
from chartproof.types.registry import Registry

__all__ = [
    "PROTOCOLS",
    "PROTOCOL_CLASSES",
    "ChainProtocol",
    "DirectProtocol",
    "PremiseProtocol",
    "Protocol",
    "ProtocolName",
    "RunContext",
    "Scored",
    "answer_scores",
    "applies",
    "build_result",
    "register_protocol",
    "rendered_prompt",
    "run_protocol",
    "step_scores",
]

ProtocolName: TypeAlias = str
"""A registered protocol's name: a key of `PROTOCOLS` (built in: "direct", "chain",
"premise"; a plugin adds its own, so the set is open and checked at run time)."""


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
        """The sample's (first) image as a request part: checked to stay inside `root`, hashed."""
        return self.image_parts(sample)[0]

    def image_parts(self, sample: Sample) -> tuple[ImagePart, ...]:
        """Every image of the sample as request parts, in order (multi-chart questions)."""
        parts: list[ImagePart] = []
        for ref in sample.images:
            part = self.images.get(ref.path)
            if part is None:
                part = self.images[ref.path] = image_part(resolve_image(self.root, ref))
            parts.append(part)
        return tuple(parts)


def answer_scores(
    prediction: str | None, sample: Sample, protocol: str = "direct"
) -> dict[str, float | None]:
    """Every registered per-sample metric of a sample's final answer under `protocol` (the
    accuracy family: typed accuracy, relaxed accuracy, exact match, ANLS, and any added
    scorer), against `sample.answer`.

    A missing prediction scores 0 everywhere: a model that gives no answer is wrong.
    """
    text = prediction or ""
    out: dict[str, float | None] = {}
    for entry in scorers("sample", protocol):
        out.update(entry.score_answer(text, sample, out))
    return out


def step_scores(
    sample: Sample,
    steps: Sequence[StepRecord],
    scores: Mapping[str, float | None],
    protocol: str,
) -> dict[str, float | None]:
    """Every registered per-step metric of one sample's step records under `protocol`."""
    out: dict[str, float | None] = {}
    for entry in scorers("step", protocol):
        out.update(entry.fn(sample, steps, {**scores, **out}))
    return out


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
    earlier_steps: Sequence[int] | None = None,
    choices: Sequence[str] = (),
) -> ModelRequest:
    if not choices and "options" in ctx.prompts.get(prompt).fields():
        raise ValueError(
            f"prompt {ctx.prompts.get(prompt).id} shows answer options, but sample "
            f"{sample.id!r} has none; use it on multiple-choice samples only"
        )
    return build_request(
        prompt,
        ctx.image_parts(sample),
        _question_text(sample, question, ctx),
        request_id=f"{sample.id}/{suffix}",
        earlier=earlier,
        earlier_steps=earlier_steps,
        choices=choices,
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


def rendered_prompt(request: ModelRequest) -> str:
    """A request as the model got it, as text: each text part verbatim, each image as
    ``[image: NAME]``; a message other than the single user turn is headed by its role."""
    out = []
    several = len(request.messages) > 1
    for message in request.messages:
        parts = [
            p.text if isinstance(p, TextPart) else f"[image: {Path(p.path).name}]"
            for p in message.content
        ]
        head = [f"[{message.role}]"] if several or message.role != "user" else []
        out.append("\n".join(head + parts))
    return "\n\n".join(out)


def _image_paths(sample: Sample) -> tuple[str, ...]:
    # every image a sample shows; `Sample.images` (multi-image samples) when the type has it
    more = getattr(sample, "images", None) or ()
    paths = [sample.image.path] + [getattr(i, "path", str(i)) for i in more]
    return tuple(dict.fromkeys(paths))


def _generate(
    ctx: RunContext,
    requests: Sequence[ModelRequest],
    shares: Shares | None = None,
    share: float = 1.0,
) -> list[ModelResponse]:
    # each response the backend reports ready moves the caller's progress by `share` of a
    # sample (a sample of several requests moves it request by request)
    with shares.worth(share) if shares is not None else nullcontext():
        responses = ctx.backend.generate(requests)
    _check_responses(requests, responses)
    return responses


# ------------------------------------------------------------------------------ protocols


@dataclass(frozen=True)
class Scored:
    """What a protocol's `score` makes of one answered sample's replies."""

    scores: dict[str, float | None]
    """Per-sample metric values."""
    prediction: str | None = None
    """Parsed final answer."""
    output: str = ""
    """Raw model text of the final answer."""
    explanation: str | None = None
    """Parsed explanation."""
    steps: tuple[StepRecord, ...] = ()
    """Step or premise records."""


class Protocol:
    """How a sample becomes model requests and its replies a scored result.

    A single-round protocol defines `requests(sample, ctx)` and `score(sample, replies, ctx)`;
    `run` asks every sample's requests in one batch and builds each result with
    `build_result`. A protocol whose later requests depend on earlier replies (chain)
    overrides `run` and still scores through `score` and `build_result`.
    """

    name: ClassVar[str]
    """Protocol name, as `evaluate(protocol=...)` takes it."""
    prompt: ClassVar[str | None] = None
    """The prompt it asks with, recorded in the run's config; None: the run's own prompt
    (`evaluate(prompt=...)`, as the direct protocol)."""

    def applies(self, sample: Sample) -> bool:
        """Whether the sample can be asked under this protocol."""
        return True

    def requests(self, sample: Sample, ctx: RunContext) -> list[ModelRequest]:
        """Every request of one sample."""
        raise NotImplementedError

    def score(self, sample: Sample, replies: Sequence[ModelResponse], ctx: RunContext) -> Scored:
        """Scores (and steps) of one sample from its replies, all of them successful."""
        raise NotImplementedError

    def error(self, replies: Sequence[ModelResponse]) -> str | None:
        """Why the sample failed: the first failed reply's error, None when all succeeded."""
        return next((r.error for r in replies if not r.ok), None)

    def failure_steps(
        self, sample: Sample, replies: Sequence[ModelResponse], ctx: RunContext
    ) -> tuple[StepRecord, ...]:
        """Step records kept on a failed sample's result (none by default)."""
        return ()

    def run(self, samples: Sequence[Sample], ctx: RunContext) -> list[SampleResult]:
        """Ask and score a batch of samples; one result per sample, in order."""
        per_sample = [self.requests(s, ctx) for s in samples]
        flat = [q for qs in per_sample for q in qs]
        share = len(samples) / len(flat) if flat else 1.0
        responses = iter(_generate(ctx, flat, Shares(), share))
        return [
            build_result(
                self, s, [next(responses) for _ in qs], ctx, final=qs[0] if len(qs) == 1 else None
            )
            for s, qs in zip(samples, per_sample, strict=True)
        ]


def build_result(
    protocol: Protocol,
    sample: Sample,
    replies: Sequence[ModelResponse],
    ctx: RunContext,
    *,
    error: str | None = None,
    final: ModelRequest | None = None,
) -> SampleResult:
    """One sample's result: what was asked (question, gold, options, images and, given the
    `final` answer's request, its prompt as sent), usage from its replies, then either the
    failure (`error`, or the protocol's reading of the replies) or the protocol's scores."""
    cached, calls, latency = _usage(replies)
    common = {
        "sample_id": sample.id,
        "protocol": protocol.name,
        "model": ctx.model,
        "groups": sample.group_labels(),
        "cached": cached,
        "calls": calls,
        "latency_s": latency,
        "question": sample.question,
        "gold": sample.answer.text(),
        "choices": sample.choices,
        "images": _image_paths(sample),
        "prompt": final.prompt if final is not None else None,
        "prompt_text": rendered_prompt(final) if final is not None else None,
    }
    failed = error if error is not None else protocol.error(replies)
    if failed is not None:
        steps = protocol.failure_steps(sample, replies, ctx)
        # metrics defined to score a failure as a missing answer record that value
        kept = {
            m: v
            for m, v in answer_scores("", sample, protocol.name).items()
            if (d := metric(m)) is not None and d.on_failure == "recorded"
        }
        return SampleResult(error=failed, steps=steps, scores=kept, **common)
    scored = protocol.score(sample, replies, ctx)
    return SampleResult(
        prediction=scored.prediction,
        output=scored.output,
        explanation=scored.explanation,
        scores=scored.scores,
        steps=scored.steps,
        **common,
    )


PROTOCOL_CLASSES: Registry[Protocol] = Registry(
    "protocol", modules=("chartproof.pipelines.protocols",), group="chartproof.protocols"
)
"""Every protocol by name; a new protocol is one `Protocol` subclass decorated with
`@register_protocol` (another package's: a module named by a ``chartproof.protocols``
entry point)."""

PROTOCOLS: Registry[Protocol] = PROTOCOL_CLASSES
"""Names `evaluate(protocol=...)` accepts (`name in PROTOCOLS`, iteration gives names)."""

ProtocolT = TypeVar("ProtocolT", bound=type[Protocol])


def register_protocol(cls: ProtocolT) -> ProtocolT:
    """Class decorator: register one instance of a `Protocol` subclass under its `name`."""
    PROTOCOL_CLASSES.register(cls.name, cls())
    return cls


@register_protocol
class DirectProtocol(Protocol):
    """One question, one answer, scored by every registered per-sample metric."""

    name = "direct"

    def requests(self, sample: Sample, ctx: RunContext) -> list[ModelRequest]:
        return [
            _request(
                sample,
                ctx,
                prompt=ctx.prompt,
                question=sample.question,
                suffix="direct",
                choices=sample.choices,
            )
        ]

    def score(self, sample: Sample, replies: Sequence[ModelResponse], ctx: RunContext) -> Scored:
        (reply,) = replies
        prediction = _answer_of(reply)
        return Scored(
            prediction=prediction,
            output=reply.text,
            explanation=reply.parsed.explanation if reply.parsed else None,
            scores=answer_scores(prediction, sample, self.name),
        )


@register_protocol
class ChainProtocol(Protocol):
    """ChartR chains: the sub-questions in dependency order, each prompt carrying the
    model's own earlier answers to its `depends_on` steps, then the final question with
    every sub-answer; scored on the final answer and per step."""

    name = "chain"
    prompt = "chain_step"

    def applies(self, sample: Sample) -> bool:
        return bool(sample.chain)

    def error(self, replies: Sequence[ModelResponse]) -> str | None:
        # a chain stops at its first failing wave; within it the last failure is reported
        failures = [r.error or "failed" for r in replies if not r.ok]
        return failures[-1] if failures else None

    def run(self, samples: Sequence[Sample], ctx: RunContext) -> list[SampleResult]:
        """Ask every sample's steps in waves: a step is asked once all its parents are
        answered, so one batch holds the ready steps of many samples."""
        answers: dict[tuple[str, int], str] = {}
        records: dict[tuple[str, int], ModelResponse] = {}
        failed: set[str] = set()
        # progress per request: each of a sample's requests (its steps, then its final
        # question) is 1/(steps + 1) of it
        shares = Shares()
        while True:
            batch: list[tuple[Sample, int, ModelRequest]] = []
            for s in samples:
                if s.id in failed:
                    continue
                for step in s.chain:
                    if (s.id, step.id) in records:
                        continue
                    if all((s.id, d) in records for d in step.depends_on):
                        earlier = [
                            (s.chain[d].question, answers.get((s.id, d), ""))
                            for d in step.depends_on
                        ]
                        req = _request(
                            s,
                            ctx,
                            prompt="chain_step",
                            question=step.question,
                            suffix=f"chain/{step.id}",
                            earlier=earlier,
                            earlier_steps=[d + 1 for d in step.depends_on],
                        )
                        batch.append((s, step.id, req))
            if not batch:
                break
            share = sum(1 / (len(b[0].chain) + 1) for b in batch) / len(batch)
            responses = _generate(ctx, [b[2] for b in batch], shares, share)
            for (s, step_id, _), resp in zip(batch, responses, strict=True):
                records[(s.id, step_id)] = resp
                if not resp.ok and s.id not in failed:
                    failed.add(s.id)
                    # the steps and final question it will not ask count as done
                    asked = sum(1 for st in s.chain if (s.id, st.id) in records)
                    shares.add(len(s.chain) + 1 - asked, 1 / (len(s.chain) + 1))
                answers[(s.id, step_id)] = _answer_of(resp) or ""
        finals = [(s, self._final_request(s, ctx, answers)) for s in samples if s.id not in failed]
        share = sum(1 / (len(s.chain) + 1) for s, _ in finals) / max(1, len(finals))
        final_responses = _generate(ctx, [f[1] for f in finals], shares, share)
        final_by_id = {s.id: r for (s, _), r in zip(finals, final_responses, strict=True)}
        final_request = {s.id: q for s, q in finals}
        out = []
        for s in samples:
            replies = [records[(s.id, st.id)] for st in s.chain if (s.id, st.id) in records]
            final = final_by_id.get(s.id)
            if final is not None:
                replies.append(final)
            out.append(build_result(self, s, replies, ctx, final=final_request.get(s.id)))
        return out

    def _final_request(
        self, sample: Sample, ctx: RunContext, answers: Mapping[tuple[str, int], str]
    ) -> ModelRequest:
        earlier = [(st.question, answers.get((sample.id, st.id), "")) for st in sample.chain]
        return _request(
            sample,
            ctx,
            prompt="chain_step",
            question=sample.question,
            suffix="chain/final",
            earlier=earlier,
            earlier_steps=[st.id + 1 for st in sample.chain],
        )

    def score(self, sample: Sample, replies: Sequence[ModelResponse], ctx: RunContext) -> Scored:
        *step_replies, final = replies
        steps: list[StepRecord] = []
        for st, resp in zip(sample.chain, step_replies, strict=True):
            pred = _answer_of(resp) or ""
            steps.append(
                ChainStepRecord(
                    id=st.id,
                    task_type=st.task_type,
                    depends_on=st.depends_on,
                    question=st.question,
                    gold=st.answer.text(),
                    prediction=pred,
                    output=resp.text,
                    correct=step_right(pred, st.answer, "exact"),
                    correct_with_tolerance=step_right(pred, st.answer, "tolerance"),
                )
            )
        prediction = _answer_of(final)
        scores = answer_scores(prediction, sample, self.name)
        scores.update(step_scores(sample, steps, scores, self.name))
        return Scored(prediction=prediction, output=final.text, scores=scores, steps=tuple(steps))


@register_protocol
class PremiseProtocol(Protocol):
    """VPP: a true/false verdict for each premise, scored per premise and per sequence."""

    name = "premise"
    prompt = "premise"

    def applies(self, sample: Sample) -> bool:
        return bool(sample.premises)

    def requests(self, sample: Sample, ctx: RunContext) -> list[ModelRequest]:
        return [
            _request(sample, ctx, prompt="premise", question=p.text, suffix=f"premise/{p.id}")
            for p in sample.premises
        ]

    def score(self, sample: Sample, replies: Sequence[ModelResponse], ctx: RunContext) -> Scored:
        steps = self._steps(sample, replies)
        return Scored(scores=step_scores(sample, list(steps), {}, self.name), steps=steps)

    def failure_steps(
        self, sample: Sample, replies: Sequence[ModelResponse], ctx: RunContext
    ) -> tuple[StepRecord, ...]:
        # every premise keeps a step, failed calls too (no verdict, counted wrong), so the
        # run's premise figures keep one denominator: all premises of all questions asked
        return self._steps(sample, replies)

    @staticmethod
    def _steps(sample: Sample, replies: Sequence[ModelResponse]) -> tuple[StepRecord, ...]:
        steps: list[StepRecord] = []
        for p, resp in zip(sample.premises, replies, strict=True):
            verdict = resp.parsed.truth if resp.ok and resp.parsed else None
            steps.append(
                PremiseStepRecord(
                    id=p.id,
                    kind=p.kind,
                    slot=p.slot,
                    statement=p.text,
                    truth=p.truth,
                    prediction=verdict,
                    output=resp.text,
                    correct=verdict is not None and verdict == p.truth,
                    error=None if resp.ok else resp.error,
                )
            )
        return tuple(steps)


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


def applies(protocol: ProtocolName, sample: Sample) -> bool:
    """Whether a sample can be asked under a protocol (chains need steps, VPP premises)."""
    entry = PROTOCOL_CLASSES.get(protocol)
    return entry.applies(sample) if entry is not None else True


def run_protocol(
    protocol: ProtocolName, samples: Sequence[Sample], ctx: RunContext
) -> list[SampleResult]:
    """Ask and score one batch of samples under a protocol; one result per sample, in order."""
    entry = PROTOCOL_CLASSES.get(protocol)
    if entry is None:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {list(PROTOCOLS)}")
    if not samples:
        return []
    return entry.run(samples, ctx)
