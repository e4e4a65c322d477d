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

With the default prompt, a CharXiv sample is graded with CharXiv's own prompts
(`models._charxiv_prompts`): a reasoning question with `charxiv_reasoning_<k>@1` for its
`source["inst_category"]` k (1-4) and its question without instructions
(`source["raw_question"]`, else the question); a descriptive one with the rubric of its
template id `source["qid"]` (1-19) and that template's overarching question, one response
per query. Their judge replies JSON; its `score` (`score_T1`) of 0 or 1 is the verdict.
A ChartX sample is graded with ChartX's own QA prompt (`chartx_qa@1`, its GPT-acc few-shot
prompt), whose judge replies True or False. Another `--judge-prompt` grades every sample with
that prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping

from chartproof.models import Backend, build_request
from chartproof.models._charxiv_prompts import DESCRIPTIVE_QUESTIONS, RUBRIC_OF_QID
from chartproof.models.base import uncounted
from chartproof.models.prompts import PromptSet
from chartproof.types import (
    GenerationConfig,
    ModelRequest,
    ModelResponse,
    Sample,
    SampleResult,
)

__all__ = [
    "JUDGE_PROMPT",
    "JudgeStage",
    "benchmark_prompt",
    "charxiv_prompt",
    "json_score",
    "judge_stage",
]

JUDGE_PROMPT = "judge_answer"
"""The default judge prompt (newest version)."""

JudgeStage = Callable[[list[SampleResult], Mapping[str, Sample]], list[SampleResult]]

_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def charxiv_prompt(sample: Sample) -> tuple[str, dict[str, str]] | None:
    """CharXiv's grading prompt for a CharXiv sample and its extra fields; None for any
    other sample or one without the ids the choice needs."""
    if sample.source.get("dataset") != "charxiv":
        return None
    kind = sample.source.get("charxiv_kind")
    if kind == "reasoning":
        category = sample.source.get("inst_category")
        if category not in (1, 2, 3, 4):
            return None
        raw = sample.source.get("raw_question")
        return f"charxiv_reasoning_{category}", {"question": raw if isinstance(raw, str) else ""}
    if kind == "descriptive":
        qid = sample.source.get("qid")
        if not isinstance(qid, int) or qid not in RUBRIC_OF_QID:
            return None
        rubric = RUBRIC_OF_QID[qid]
        return f"charxiv_descriptive_{rubric}", {"overarching": DESCRIPTIVE_QUESTIONS[qid]}
    return None


def benchmark_prompt(sample: Sample) -> tuple[str, dict[str, str], bool] | None:
    """The benchmark's own grading prompt for `sample`, its extra fields and whether its
    judge replies JSON (CharXiv) rather than a verdict (ChartX); None for a sample of a
    benchmark that publishes none."""
    charxiv = charxiv_prompt(sample)
    if charxiv is not None:
        return charxiv[0], charxiv[1], True
    if sample.source.get("dataset") == "chartx":
        return "chartx_qa", {}, False
    return None


def json_score(text: str) -> bool | None:
    """The 0/1 `score` (or `score_T1`) of a judge's JSON reply; None when there is none."""
    m = _JSON_OBJECT.search(text)
    if m is None:
        return None
    try:
        data = json.loads(m.group(0))
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    score = data.get("score", data.get("score_T1"))
    return bool(score) if score in (0, 1) and not isinstance(score, float) else None


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
        json_only: set[int] = set()
        requests: list[ModelRequest] = []
        for i, r in enumerate(results):
            sample = by_id.get(r.sample_id)
            if r.error is not None or sample is None:
                continue
            if not r.prediction:
                out[i] = _with_judge(r, 0.0)
                continue
            asked.append(i)
            own = benchmark_prompt(sample) if template.name == JUDGE_PROMPT else None
            prompt_id, fields, replies_json = own if own is not None else (template.id, {}, False)
            if replies_json:
                json_only.add(i)
            question = fields.pop("question", "") or sample.question
            requests.append(
                build_request(
                    prompt_id,
                    None,
                    question,
                    request_id=f"judge-{r.sample_id}-{r.protocol}",
                    config=GenerationConfig(max_tokens=256) if replies_json else gen,
                    prompts=prompts,
                    reference=_reference(sample),
                    candidate=r.prediction,
                    overarching=fields.get("overarching", ""),
                )
            )
        if requests:
            with uncounted():  # the bar counted these samples when they were answered
                verdicts = backend.generate(requests)
            for i, response in zip(asked, verdicts, strict=True):
                verdict = None if response.error is not None else _verdict(response, i in json_only)
                out[i] = _with_judge(results[i], None if verdict is None else float(verdict))
        return out

    return stage


def _verdict(response: ModelResponse, json_only: bool) -> bool | None:
    # CharXiv's prompts ask for JSON: a reply without its score is no verdict
    scored = json_score(response.text or "")
    if scored is not None or json_only:
        return scored
    return response.parsed.truth if response.parsed is not None else None


def _with_judge(r: SampleResult, value: float | None) -> SampleResult:
    return r.model_copy(update={"scores": {**r.scores, "judge": value}})
