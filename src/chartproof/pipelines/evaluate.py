"""`evaluate`: ask a model every sample of a dataset under a protocol and score it, in a
resumable run folder (config, append-only results, summary)."""

from __future__ import annotations

import logging
import string
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from chartproof.datasets import dataset_fingerprint, load_dataset
from chartproof.executors import Executor
from chartproof.metrics.conventions import check_conventions
from chartproof.metrics.registry import explanation_scorers
from chartproof.models import load_prompts
from chartproof.models.base import Backend, explanation_generator
from chartproof.models.prompts import PromptTemplate
from chartproof.models.registry import run_identity
from chartproof.pipelines.engine import After, Stage, open_run
from chartproof.pipelines.protocols import PROTOCOLS, RunContext, applies, run_protocol
from chartproof.pipelines.settings import cache_setting, fields_of, settings_of
from chartproof.pipelines.summarize import summarize
from chartproof.types import (
    GenerationConfig,
    Record,
    RunRecord,
    RunSummary,
    Sample,
)
from chartproof.types.names import UnknownNameError, unknown_name

__all__ = ["EvalIdentity", "EvalSettings", "JudgeIdentity", "evaluate", "run_evaluation"]

log = logging.getLogger(__name__)

ProgressHook = Callable[[int, int], None]
"""Called with (samples finished so far, samples to do) as each is recorded."""


class EvalSettings(Record):
    """What an evaluation is asked to do: the typed run configuration `evaluate` and
    `chartproof eval` share (unknown fields are errors)."""

    data: str
    """Dataset folder or spec ("chartqa:/path", a JSONL file, ...)."""
    model: str = "builtin:reader"
    """Backend spec (recorded as the model unless a backend object is given)."""
    out: Path = Path("runs/latest")
    """Run folder (rerun to resume)."""
    protocol: str = "direct"
    """Evaluation protocol (`PROTOCOLS`)."""
    prompt: str = "chartqax"
    """Prompt of the direct protocol (name or name@version)."""
    prompts_file: Path | None = None
    """Extra prompt templates (TOML/JSON)."""
    limit: int | None = None
    """Only the first `limit` samples."""
    where: dict[str, str] | None = None
    """Keep samples whose group labels match."""
    metrics: tuple[str, ...] = ()
    """Opt-in explanation scorers (`metrics.registry.explanation_scorers`)."""
    batch_size: int | None = None
    """Samples per unit of work, recorded together (default: 1 for an API backend, the
    model's own batch size for a local one)."""
    max_tokens: int = 256
    """Largest reply in tokens."""
    with_table: bool = False
    """Give the model the gold data table."""
    cache: bool | Path = True
    """Response cache: True for the default file, a path for that file, False for none."""
    strict: bool = False
    """Stop at the first bad dataset row."""
    shuffle_choices: int = Field(default=0, ge=0)
    """Seeded option-order shuffles added per multiple-choice sample."""
    rotate_choices: bool = False
    """Also ask every circular rotation of a multiple-choice sample's options."""
    executor: str | None = None
    """Where a CPU-bound model runs (`chartproof.executors` spec; None: every local core)."""
    judge: str | None = None
    """Backend spec of a judge that grades every answer against the gold (`pipelines.judge`);
    None: no judge."""
    judge_prompt: str = "judge_answer"
    """The judge's prompt (name or name@version)."""

    _cache = field_validator("cache", mode="before")(cache_setting)

    @field_validator("protocol")
    @classmethod
    def _known_protocol(cls, value: str) -> str:
        if value not in PROTOCOLS:
            raise UnknownNameError(unknown_name("protocol", value, PROTOCOLS))
        return value

    @field_validator("batch_size")
    @classmethod
    def _positive_batch(cls, value: int | None) -> int | None:
        if value is not None and value < 1:
            raise ValueError("batch_size must be at least 1")
        return value

    @field_validator("metrics")
    @classmethod
    def _known_metrics(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        explainers = explanation_scorers()
        unknown = sorted(set(value) - set(explainers))
        if unknown:
            raise ValueError(f"unknown metrics {unknown}; choose from {list(explainers)}")
        return value

    def identity(
        self, model: str, prompt: str, prompts: Any, judge: Backend | None = None
    ) -> EvalIdentity:
        """What identifies the run these settings make (its `run.json` config): the model's
        run identity, the prompt's resolved id, and the judge (a built `judge` in place of
        the spec); a resumed run must have the same one."""
        judged = None
        if judge is not None or self.judge is not None:
            judged = JudgeIdentity(
                model=judge.name if judge is not None else run_identity(str(self.judge)),
                prompt=(prompts or _default_prompts()).get(self.judge_prompt).id,
            )
        return EvalIdentity(
            data=self.data,
            model=model,
            protocol=self.protocol,
            prompt=_protocol_prompt(self.protocol, prompts) or prompt,
            limit=self.limit,
            where=dict(sorted(self.where.items())) if self.where else None,
            metrics=tuple(sorted(set(self.metrics))),
            with_table=self.with_table,
            shuffle_choices=self.shuffle_choices,
            rotate_choices=self.rotate_choices,
            generation=GenerationConfig(max_tokens=self.max_tokens),
            judge=judged,
        )


class JudgeIdentity(Record):
    """The judge of a run, as its configuration records it."""

    model: str
    """The judge's run identity (or a built judge's name)."""
    prompt: str
    """The judge's prompt id (name@version)."""


class EvalIdentity(Record):
    """An evaluation run's identity: the `EvalSettings` fields that decide its results, as
    resolved when it starts (the model's run identity, prompt ids). It is `RunRecord.config`;
    resuming with another one is refused. Written exactly as runs have always recorded it
    (the choice-order fields and the judge only when set), so older runs resume."""

    data: str
    """Dataset spec as given."""
    model: str
    """The model's run identity (transport options dropped) or a given backend's name."""
    protocol: str
    """Evaluation protocol."""
    prompt: str
    """The protocol's prompt id (name@version)."""
    limit: int | None
    """Only the first `limit` samples."""
    where: dict[str, str] | None
    """The group-label filter, sorted by label."""
    metrics: tuple[str, ...]
    """Opt-in explanation scorers, sorted."""
    with_table: bool
    """Whether the model was given the gold data table."""
    shuffle_choices: int = 0
    """Seeded option-order shuffles per multiple-choice sample."""
    rotate_choices: bool = False
    """Whether every circular rotation of the options was asked."""
    generation: GenerationConfig
    """Decoding settings."""
    judge: JudgeIdentity | None = None
    """The judge, when answers are graded by one."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for key, unset in (("shuffle_choices", 0), ("rotate_choices", False), ("judge", None)):
                if data.get(key) == unset:
                    del data[key]
        return data


@fields_of(EvalSettings)
def evaluate(
    data: str | Path | EvalSettings,
    model: str | None = None,
    out: str | Path | None = None,
    *,
    backend: Backend | None = None,
    executor: str | Executor | None = None,
    judge: str | Backend | None = None,
    progress: ProgressHook | None = None,
    roscoe_scorer: Any = None,
    **fields: Any,
) -> RunRecord:
    """Evaluate `model` on the dataset `data` and write the run to `out`.

    `data` is a dataset spec (a chartproof folder, "chartqa:/path", a JSONL file, ...);
    `model` a backend spec ("builtin:reader", "openai:gpt-4o@http://host/v1", "hf:/ckpt").
    Rerunning with the same arguments resumes: finished samples are skipped, failed ones are
    asked again, nothing is counted twice. `cache` (default on) stores deterministic replies
    in the response cache (True: the default file; a path: that file; False: off). `where`
    keeps only samples whose group labels match, e.g. {"perturbation": "original"}.
    `metrics` adds explanation metrics to the accuracy family: "roscoe" (ChartQA-X's nine
    ROSCOE scores and AS per answered sample; `roscoe_scorer` overrides the offline default
    `RoscoeScorer()`) and "ngram" (BLEU-4, METEOR, ROUGE-L, CIDEr-D against the samples'
    reference explanations). Each result is appended to the run folder (and fsynced) as
    soon as it is finished: an API backend answers samples one by one, as many at once as
    it has request slots; a local model answers `batch_size` samples at a time (default: its
    own batch size), recorded together. Ctrl-C raises `runs.Interrupted` with the number of
    results kept. Pass `backend` to use an already-built backend (its
    `name` is recorded as the model; it is not closed). `shuffle_choices` adds that many
    seeded option-order shuffles of every multiple-choice sample and `rotate_choices` its
    circular rotations (`chartproof.variants.choice_order`), so the summary's robustness
    section and `gold_position` breakdown measure position bias. A CPU-bound `model` (the
    built-in reader, an ``hf:`` model on the CPU) is fanned out over `executor` ("local": one
    copy per core, the default; "local:1": this process; "ray[:ADDRESS]"), each worker
    loading it once; the results do not depend on the executor and only this process writes
    the run. `judge` (a backend spec, or a built backend) grades every answer against the
    gold with `judge_prompt` (`pipelines.judge`); the summary's `judge` section gives its
    agreement with the rule-based scores. `data` may be an `EvalSettings` record (the
    keywords then change it); every other keyword is a field of that record, validated the
    same way for the CLI and this function (an unknown one is refused, named).
    """
    given = data if isinstance(data, EvalSettings) else None
    named = {"data": None if given is not None else str(data), "model": model, "out": out}
    named |= {"executor": executor if isinstance(executor, str) else None}
    named |= {"judge": judge if isinstance(judge, str) else None}
    fields |= {k: v for k, v in named.items() if v is not None}
    return run_evaluation(
        settings_of(EvalSettings, given, fields),
        backend=backend,
        progress=progress,
        roscoe_scorer=roscoe_scorer,
        executor=None if isinstance(executor, str) else executor,
        judge_backend=None if judge is None or isinstance(judge, str) else judge,
    )


def run_evaluation(
    settings: EvalSettings,
    *,
    backend: Backend | None = None,
    progress: ProgressHook | None = None,
    roscoe_scorer: Any = None,
    executor: Executor | None = None,
    judge_backend: Backend | None = None,
) -> RunRecord:
    """Run the evaluation `settings` describe (see `evaluate`); an open `executor` (shared
    by several runs, as the demo does) overrides `settings.executor`, and a built
    `judge_backend` (not closed) grades the answers in place of `settings.judge`."""
    cfg = settings
    loaded = load_dataset(cfg.data, strict=cfg.strict)
    if loaded.errors:
        log.warning("%s", loaded.summary())
    samples = _selected(cfg, loaded.samples)
    prompts = load_prompts(cfg.prompts_file) if cfg.prompts_file else None
    template = _template(cfg, prompts, samples)
    # transport options (?concurrency=, timeouts, retries) are not part of the run's identity
    model_name = backend.name if backend is not None else run_identity(cfg.model)
    identity = cfg.identity(model_name, template.id, prompts, judge_backend)
    fingerprint = dataset_fingerprint(samples, loaded.root)
    todo_all = [s for s in samples if applies(cfg.protocol, s)]
    where_to_run = executor if executor is not None else cfg.executor
    # refuses a folder of other files before a model loads
    with open_run(cfg.out, executor=where_to_run, cache=cfg.cache) as run:
        wrapped = run.backend(backend if backend is not None else cfg.model)
        inner = run.loaded(wrapped)
        run.start(identity.model_dump(mode="json"), fingerprint)
        ctx = RunContext(
            root=loaded.root,
            backend=wrapped,
            model=model_name,
            prompt=template.id,
            config=identity.generation,
            with_table=cfg.with_table,
            prompts=prompts if prompts is not None else _default_prompts(),
        )
        by_id = {s.id: s for s in samples}
        after = _post_stages(cfg, template, by_id, roscoe_scorer)
        if identity.judge is not None:
            judge = run.backend(judge_backend if judge_backend is not None else str(cfg.judge),
                                fan_out=False)  # fmt: skip
            after.append(_on(_judge_stage(judge, identity.judge.prompt, prompts), by_id))
        # a local model's rows, the reader's requests and a fanned-out model's chunks move
        # the bar inside a batch (a chain's steps and a question's premises as their share of
        # a sample: `protocols.Shares`)
        stage = Stage(cfg.protocol, model_name, todo_all, partial(run_protocol, cfg.protocol, ctx=ctx),
                      backend=wrapped, batch_size=cfg.batch_size, after=tuple(after),
                      ticks=True)  # fmt: skip
        run.execute([stage], progress=progress)
        results = run.results(cfg.protocol)
        summary = summarize(results, protocol=cfg.protocol, samples=samples)
        explainers = explanation_scorers()
        for m, entry in explainers.items():
            if m in cfg.metrics and entry.section is not None:
                # section scorers learn whether the backend wrote its explanations with the
                # references' own generator (n-gram scores against itself)
                summary[entry.section] = entry.fn(
                    results, by_id, generator=explanation_generator(inner)
                )
        if identity.judge is not None and isinstance(summary.get("judge"), dict):
            summary["judge"] |= identity.judge.model_dump()
        # what the model saw, for every table of the report ("text over table" backends)
        label = getattr(inner, "label", None)
        summary["model"] = f"{model_name} ({label})" if isinstance(label, str) else model_name
        summary["prompt"] = identity.prompt
        summary["dataset"] = {
            "spec": cfg.data,
            "root": str(loaded.root),
            "samples": len(samples),
            "bad_rows": loaded.n_bad,
            "not_applicable": len(samples) - len(todo_all),
        }
        counts = {
            "samples": len(samples),
            "applicable": len(todo_all),
            "answered": summary["counts"]["answered"],
            "failed": summary["counts"]["failed"],
            "bad_rows": loaded.n_bad,
        }
        # the typed summary is the format's definition: a malformed section is a bug here,
        # not a report that fails later
        RunSummary.model_validate(summary)
        return run.finish(summary, counts)


def _selected(cfg: EvalSettings, samples: list[Sample]) -> list[Sample]:
    """The samples to evaluate: `where`, `limit`, then the choice-order variants."""
    data, where = cfg.data, cfg.where
    if samples and all(s.source.get("audit_only") for s in samples):
        raise ValueError(
            f"{data} holds charts without questions (ChartBias layout): there is nothing to "
            f"score; audit them with `chartproof audit --data {data}`"
        )
    if where:
        samples = [s for s in samples if _matches(s, where)]
    samples = samples[: cfg.limit] if cfg.limit is not None else samples
    if cfg.shuffle_choices or cfg.rotate_choices:
        from chartproof.variants.choice_order import choice_order_variants

        samples = choice_order_variants(
            samples, shuffles=cfg.shuffle_choices, rotations=cfg.rotate_choices
        )
    if not samples:
        raise ValueError(f"no samples to evaluate in {data}" + (f" where {where}" if where else ""))
    check_conventions(samples)
    return samples


def _template(cfg: EvalSettings, prompts: Any, samples: Sequence[Sample]) -> PromptTemplate:
    """The direct protocol's prompt, refused when it lists options some samples lack."""
    template: PromptTemplate = (prompts or _default_prompts()).get(cfg.prompt)
    if cfg.protocol == "direct" and "options" in template.fields():
        bare = [s.id for s in samples if not s.choices]
        if bare:
            raise ValueError(
                f"prompt {template.id} lists answer options, but {len(bare)} of {len(samples)} "
                f"samples have none (first: {bare[0]!r}); select the multiple-choice samples "
                "(--where) or use a prompt such as chartqax, which shows the options of the "
                "samples that have them"
            )
    return template


def _post_stages(
    cfg: EvalSettings, template: PromptTemplate, by_id: Mapping[str, Sample], roscoe: Any
) -> list[After]:
    """The explanation scorers without a summary section: they score each batch as it
    finishes (stored with the results, so a resumed run never rescores)."""
    explainers = explanation_scorers()
    models = {"roscoe": roscoe}
    # ROSCOE's source context is the paper's: the prompt's instruction + the question
    extra = {"roscoe": {"instruction": prompt_instruction(template)}}
    return [
        _on(
            explainers[m].fn(scorer=models.get(m), with_table=cfg.with_table, **extra.get(m, {})),
            by_id,
        )
        for m in explainers
        if m in cfg.metrics and explainers[m].section is None
    ]


def _on(stage: Any, by_id: Mapping[str, Sample]) -> After:
    """A per-batch scorer over (results, samples by id) as an engine post-stage."""
    return lambda results: list(stage(results, by_id))


def _judge_stage(backend: Backend, prompt: str, prompts: Any) -> Any:
    from chartproof.pipelines.judge import judge_stage

    return judge_stage(backend, prompts=prompts or _default_prompts(), prompt=prompt)


def prompt_instruction(template: PromptTemplate) -> str:
    """The instruction of a prompt without its filled-in parts: the template's lines with
    each field left empty, dropping lines that held only a short label and a field
    ("Question: {question}"), so the question is not counted twice in ROSCOE's source."""
    keep: list[str] = []
    for line in template.text.splitlines():
        fields = [f for _, f, _, _ in string.Formatter().parse(line) if f]
        literal = "".join(t for t, _, _, _ in string.Formatter().parse(line))
        if fields and len(literal.strip()) <= 24:
            continue
        keep.append(line.format_map(defaultdict(str)) if fields else line)
    return "\n".join(keep).strip()


def _matches(sample: Sample, where: dict[str, str]) -> bool:
    labels = sample.group_labels()
    return all(labels.get(k) == v for k, v in where.items())


def _default_prompts() -> Any:
    from chartproof.models import default_prompts

    return default_prompts()


def _protocol_prompt(protocol: str, prompts: Any) -> str | None:
    name = PROTOCOLS[protocol].prompt  # None: the run's own prompt
    return None if name is None else str((prompts or _default_prompts()).get(name).id)
