"""Judge scoring during an evaluation: any backend grades each answer against the gold.

`eval --judge SPEC` loads the judge like every model (`models.load_backend`: an
OpenAI-compatible server, `text:smollm2` offline, a built-in) behind the same response
cache, so a rerun pays for no verdict twice. Each answered sample gets one text-only
request with the versioned prompt (`judge_answer@1` by default): the question, the reference
answer as the release spells it and the model's answer; the reply's Correct/Incorrect
(`models.parsing.extract_verdict`) becomes the `judge` score (1.0 / 0.0), a failed call or
an unreadable verdict None (not graded, counted in the summary's `judge` section), and a
sample answered with nothing 0.0 without asking. Verdicts are stored with the results, so a
resumed run never grades a sample again; `metrics.judging` writes the agreement with the
rule-based scores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from chartproof.models import Backend, build_request
from chartproof.models.prompts import PromptSet
from chartproof.types import GenerationConfig, ModelRequest, Sample, SampleResult

__all__ = ["JUDGE_PROMPT", "JudgeStage", "judge_stage"]

JUDGE_PROMPT = "judge_answer"
"""The default judge prompt (newest version)."""

JudgeStage = Callable[[list[SampleResult], Mapping[str, Sample]], list[SampleResult]]


def _reference(sample: Sample) -> str:
    raw = sample.source.get("answer_raw")
    return raw if isinstance(raw, str) and raw.strip() else sample.answer.text()


def judge_stage(
    backend: Backend,
    *,
    prompts: PromptSet,
    prompt: str = JUDGE_PROMPT,
    config: GenerationConfig | None = None,
) -> JudgeStage:
    """A stage that adds the `judge` score to each result of a batch (see the module)."""
    template = prompts.get(prompt)
    gen = config or GenerationConfig(max_tokens=16)

    def stage(results: list[SampleResult], by_id: Mapping[str, Sample]) -> list[SampleResult]:
        out = list(results)
        asked: list[int] = []
        requests: list[ModelRequest] = []
        for i, r in enumerate(results):
            sample = by_id.get(r.sample_id)
            if r.error is not None or sample is None:
                continue
            if not r.prediction:
                out[i] = _with_judge(r, 0.0)
                continue
            asked.append(i)
            requests.append(
                build_request(
                    template.id,
                    None,
                    sample.question,
                    request_id=f"judge-{r.sample_id}-{r.protocol}",
                    config=gen,
                    prompts=prompts,
                    reference=_reference(sample),
                    candidate=r.prediction,
                )
            )
        if requests:
            for i, response in zip(asked, backend.generate(requests), strict=True):
                parsed = response.parsed if response.error is None else None
                verdict = parsed.truth if parsed is not None else None
                out[i] = _with_judge(results[i], None if verdict is None else float(verdict))
        return out

    return stage


def _with_judge(r: SampleResult, value: float | None) -> SampleResult:
    return r.model_copy(update={"scores": {**r.scores, "judge": value}})
