"""`explain`: build a ChartQA-X explanation dataset (seed 000 §3.2–3.4): candidates from several
models, ROSCOE AS selection, leave-one-out majority verification, next best, regeneration.

Output folder ``out``::

    samples.jsonl          accepted samples: `explanation` set, provenance in source["explain"]
    images/                the accepted samples' images, copied from the input dataset
    unaccepted.jsonl       one line per sample with no accepted explanation, with provenance
    explain_summary.json   counts per round, wins per model, votes, weight sensitivity
    run/                   the resumable run folder (config, append-only results)

How it decides, per sample with a gold answer:

1. Candidates. Every model gets the `explain_candidate` prompt (newest version): the chart
   image, the question, the gold answer and, when the sample has one, its data table as CSV.
   A failed call or an empty reply is a failed candidate: recorded, never ranked.
2. Ranking. Each usable candidate is scored with ROSCOE (the source context is the prompt's
   instruction paragraph, the table, the question and the gold answer) and ranked by the
   aggregate score AS with the chosen weights. Offline there is no NLI model, so SRC and SFC
   are not computed; with ``missing="renormalise"`` (the default) AS is then the weighted
   mean of the scores that exist, and the candidate's `aggregate_note` says so. With
   ``missing="not_computed"`` such candidates have no AS and are verified after those that
   have one, in model order. Ties keep model order.
3. Verification. The best candidate is put to every verifier except its own author
   (`verifiers` defaults to the generating models: leave-one-out). Each answers Correct or
   Incorrect with the same context plus the candidate (`explain_verify` prompt). It is
   accepted when the Correct votes reach `majority` (default: more than half of the
   verifiers asked, i.e. 3 of 5 with ChartQA-X's six models). A failed call or a reply
   without a verdict is recorded but never counts as Correct, and the threshold does not
   shrink: `majority` Correct votes are needed however many calls fail.
4. Otherwise the next-best candidate is put to the verifiers, and so on.
5. When no candidate of a round is accepted, all candidates are regenerated (round 2, ...) up
   to `max_rounds`. Later rounds sample at `regen_temperature` with a seed derived from the
   sample id and round, and get new request ids: they never come back from the response cache
   (only greedy calls are cached), so they are new texts, reproducible where a backend honours
   the seed. With ``regen_temperature=0`` a greedy model would repeat its first texts.
6. A sample with no accepted explanation is recorded as "rejected", or as "failed" when a
   model call failed along the way; a resumed run asks failed samples again.

Resuming: results are appended per batch of samples to ``out/run``; rerunning the same
command skips finished samples (a kill loses at most the batch in flight, whose greedy calls
then come from the cache). ``limit`` is not part of the run's identity, so a later run with a
larger limit extends the dataset. The dataset files are rewritten from all recorded results at
the end of every run.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeAlias

from pydantic import Field, JsonValue, field_validator, model_validator

from chartproof.datasets import SampleWriter, dataset_fingerprint, load_dataset
from chartproof.executors import Executor
from chartproof.metrics.weights import (
    CHARTQAX_WEIGHTS,
    MissingPolicy,
    PerplexityTransform,
    WeightSet,
    sensitivity_weight_sets,
)
from chartproof.models import Backend, default_prompts, load_prompts
from chartproof.pipelines.engine import Stage, open_run
from chartproof.pipelines.explain_records import (
    PROTOCOL,
    ExplainOutcome,
    explained_sample,
    outcome_from_result,
    outcome_to_result,
)
from chartproof.pipelines.explain_scoring import CandidateScorer, Ranking, RoscoeLike
from chartproof.pipelines.explain_select import ExplainContext, Model, explain_batch, gold_answer
from chartproof.pipelines.explain_summary import summarize_explain
from chartproof.pipelines.settings import cache_setting, fields_of, settings_of
from chartproof.types import Record, RunRecord, Sample, SampleResult

__all__ = [
    "RUN_DIR",
    "SUMMARY_FILE",
    "UNACCEPTED_FILE",
    "ExplainIdentity",
    "ExplainResult",
    "ExplainSettings",
    "explain",
    "run_explain",
]

log = logging.getLogger(__name__)

RUN_DIR = "run"
"""Sub-folder of the output holding the resumable run."""
SUMMARY_FILE = "explain_summary.json"
"""Summary file in the output folder."""
UNACCEPTED_FILE = "unaccepted.jsonl"
"""Samples without an accepted explanation, one provenance record a line."""

ProgressHook = Callable[[int, int], None]
"""Called with (samples finished so far, samples to do) after every batch."""

ModelArg: TypeAlias = str | Backend
"""A model: a backend spec string or a built backend (its `name` identifies it)."""


@dataclass(frozen=True)
class ExplainResult:
    """What `explain` wrote."""

    folder: Path
    """The output dataset folder."""
    samples: Path
    """`samples.jsonl` of the accepted samples."""
    unaccepted: Path
    """`unaccepted.jsonl`: samples with no accepted explanation."""
    summary: dict[str, Any]
    """The summary (also in `explain_summary.json`)."""
    run: RunRecord
    """The run record of `folder/run`."""

    @property
    def accepted(self) -> int:
        """Samples with an accepted explanation."""
        return int(self.summary["counts"]["accepted"])

    @property
    def rejected(self) -> int:
        """Samples whose every candidate was rejected."""
        return int(self.summary["counts"]["rejected"])

    @property
    def failed(self) -> int:
        """Samples left without an explanation while a model call failed."""
        return int(self.summary["counts"]["failed"])


class ExplainSettings(Record):
    """What an explanation-dataset build is asked to do: the typed configuration `explain`
    and `chartproof explain` share (unknown fields are errors). Model objects, the ROSCOE
    scorer, an open executor and the progress hook are passed to `run_explain` beside it."""

    data: str
    """Dataset folder or spec of the samples to explain."""
    models: tuple[str, ...]
    """Names of the models that write candidates (spec strings, or the `name` of a backend
    object given to `run_explain`); unique."""
    out: Path
    """Output dataset folder (rerun to resume)."""
    verifiers: tuple[str, ...] | None = None
    """Names of the verifiers (None: the models, leave-one-out)."""
    majority: int | None = None
    """Correct votes needed (None: more than half of the verifiers asked)."""
    max_rounds: int = 2
    """Generation rounds at most (regenerations + 1)."""
    weights: WeightSet | str = CHARTQAX_WEIGHTS
    """AS weight set, or the name of one of seed 000 A.3's sets."""
    missing: MissingPolicy = "renormalise"
    """What AS does when a ROSCOE score is not computed."""
    perplexity: PerplexityTransform = "one_minus"
    """How perplexity scores enter AS."""
    regen_temperature: float = 0.7
    """Sampling temperature of regenerated rounds."""
    max_tokens: int = 256
    """Largest reply in tokens."""
    batch_size: int = 16
    """Samples per step (recorded together)."""
    prompts_file: Path | None = None
    """Extra prompt templates (TOML/JSON)."""
    cache: bool | Path = True
    """Response cache: True for the default file, a path for that file, False for none."""
    limit: int | None = None
    """Only the first `limit` samples with a gold answer."""
    strict: bool = False
    """Stop at the first bad dataset row."""
    executor: str | None = Field(default=None)
    """Where a CPU-bound spec-string model runs (`chartproof.executors` spec)."""

    _cache = field_validator("cache", mode="before")(cache_setting)

    @model_validator(mode="after")
    def _consistent(self) -> ExplainSettings:
        _check_numbers(
            self.max_rounds,
            self.majority,
            self.batch_size,
            self.regen_temperature,
            self.max_tokens,
            self.limit,
        )
        gen_names = _names(self.models, "models")
        ver_names = _names(self.verifiers, "verifiers") if self.verifiers is not None else gen_names
        _check_verifiers(gen_names, ver_names, self.majority)
        _weight_set(self.weights)
        return self

    @property
    def verifier_names(self) -> tuple[str, ...]:
        """The verifiers, the models by default."""
        return self.verifiers if self.verifiers is not None else self.models


@fields_of(ExplainSettings)
def explain(
    data: str | Path | ExplainSettings,
    models: Sequence[ModelArg] | None = None,
    out: str | Path | None = None,
    *,
    verifiers: Sequence[ModelArg] | None = None,
    scorer: RoscoeLike | CandidateScorer | None = None,
    executor: str | Executor | None = None,
    progress: ProgressHook | None = None,
    **fields: Any,
) -> ExplainResult:
    """Build an explanation dataset from `data` with `models` into `out` (see the module doc).

    `models` and `verifiers` take spec strings or `Backend` objects (the caller's objects are
    used, not closed); names must be unique. `scorer` is a `RoscoeScorer` (default: the
    offline defaults, no NLI) or a callable mapping `RoscoeItem`s to one `RoscoeScores`, a
    mapping of the nine codes, or an AS value each. `weights` is a `WeightSet` or the name of
    one of seed 000 A.3's sets ("original", "uniform", "fluency", ...). `cache` (default on)
    puts every model behind the response cache (True: the default file; a path: that file).
    A CPU-bound spec-string model (the built-in reader, an ``hf:`` model on the CPU) is fanned
    out over `executor` ("local": one copy per core, the default; "local:1"; "ray[:ADDRESS]").
    `data` may be an `ExplainSettings` record (the keywords then change it); every other
    keyword is one of its fields (`run_explain` runs it).
    """
    given = data if isinstance(data, ExplainSettings) else None
    objects: dict[str, Backend] = {}
    if given is None:
        fields["data"] = str(data)
    if models is not None:
        fields["models"] = _names(models, "models")
        objects |= {_name(m): m for m in models if not isinstance(m, str)}
    if verifiers is not None:
        fields["verifiers"] = _names(verifiers, "verifiers")
        objects |= {_name(m): m for m in verifiers if not isinstance(m, str)}
    if out is not None:
        fields["out"] = out
    if isinstance(executor, str):
        fields["executor"] = executor
    return run_explain(
        settings_of(ExplainSettings, given, fields),
        backends=objects,
        scorer=scorer,
        executor=None if isinstance(executor, str) else executor,
        progress=progress,
    )


class ExplainIdentity(Record):
    """An explanation build's identity (`RunRecord.config` of its run folder); all but
    `pipeline` and `data` are also each sample's provenance `settings` and the summary's."""

    pipeline: str = PROTOCOL
    """The pipeline ("explain")."""
    data: str
    """Dataset spec as given."""
    models: tuple[str, ...]
    """The models that write candidates."""
    verifiers: tuple[str, ...]
    """The verifiers."""
    majority: int | str
    """Correct votes needed, or "more than half of those asked"."""
    max_rounds: int
    """Generation rounds at most."""
    prompts: dict[str, str]
    """Prompt id of candidate generation and of verification."""
    ranking: dict[str, JsonValue]
    """Scorer, weights, perplexity transform and missing-score policy (`Ranking.describe`)."""
    generation: dict[str, int | float]
    """max_tokens and regen_temperature."""


def run_explain(
    settings: ExplainSettings,
    *,
    backends: Mapping[str, Backend] | None = None,
    scorer: RoscoeLike | CandidateScorer | None = None,
    executor: Executor | None = None,
    progress: ProgressHook | None = None,
) -> ExplainResult:
    """Run the explanation build `settings` describe (see `explain`). `backends` gives the
    built backend of a model or verifier name (used, not closed); every other name is a spec
    string loaded here. An open `executor` overrides `settings.executor`."""
    cfg = settings
    objects = dict(backends or {})
    gen_names, ver_names = cfg.models, cfg.verifier_names
    prompts = load_prompts(cfg.prompts_file) if cfg.prompts_file else default_prompts()
    candidate_t, verify_t = prompts.get("explain_candidate"), prompts.get("explain_verify")
    loaded = load_dataset(cfg.data, strict=cfg.strict)
    if loaded.errors:
        log.warning("%s", loaded.summary())
    root = Path(cfg.out)
    if root.resolve() == loaded.root.resolve():
        raise ValueError(f"--out {root} is the input dataset's folder; choose another folder")
    samples = loaded.samples
    if not samples:
        raise ValueError(f"no samples in {cfg.data}")
    eligible = [s for s in samples if gold_answer(s)]
    if len(eligible) < len(samples):
        log.warning("%d samples without a gold answer skipped", len(samples) - len(eligible))
    selected = eligible[: cfg.limit] if cfg.limit is not None else eligible
    fingerprint = dataset_fingerprint(samples, loaded.root)

    if scorer is None:
        from chartproof.metrics.roscoe import RoscoeScorer

        scorer = RoscoeScorer()
    ranking = Ranking(scorer, _weight_set(cfg.weights), cfg.perplexity, cfg.missing)
    identity = ExplainIdentity(
        data=cfg.data,
        models=gen_names,
        verifiers=ver_names,
        majority=cfg.majority if cfg.majority is not None else "more than half of those asked",
        max_rounds=cfg.max_rounds,
        prompts={"candidate": candidate_t.id, "verify": verify_t.id},
        ranking=ranking.describe(),
        generation={"max_tokens": cfg.max_tokens, "regen_temperature": cfg.regen_temperature},
    )
    recorded = identity.model_dump(mode="json", exclude={"pipeline", "data"})
    key = ",".join(gen_names)

    where = executor if executor is not None else cfg.executor
    with open_run(root / RUN_DIR, executor=where, cache=cfg.cache) as run:
        # a model in both lists is loaded once; every one shares the run's response cache
        by_name: dict[str, Backend] = {}
        for name in [*gen_names, *ver_names]:
            if name not in by_name:
                by_name[name] = run.backend(objects.get(name, name))
        ctx = ExplainContext(
            root=loaded.root,
            generators=tuple(Model(n, by_name[n]) for n in gen_names),
            verifiers=tuple(Model(n, by_name[n]) for n in ver_names),
            ranking=ranking,
            prompts=prompts,
            candidate_prompt=candidate_t.id,
            verify_prompt=verify_t.id,
            majority=cfg.majority,
            max_rounds=cfg.max_rounds,
            max_tokens=cfg.max_tokens,
            regen_temperature=cfg.regen_temperature,
            instruction=_instruction(candidate_t.text),
        )
        run.start(identity.model_dump(mode="json"), fingerprint)
        stage = Stage(PROTOCOL, key, selected, partial(_solve, ctx=ctx, key=key),
                      batch_size=cfg.batch_size)  # fmt: skip
        run.execute([stage], progress=progress)
        results = run.results(PROTOCOL, key)
        found = {r.sample_id: outcome_from_result(r) for r in results}
        ordered = [(s, found[s.id]) for s in samples if s.id in found]
        paths = _write_dataset(root, loaded.root, ordered, recorded)
        summary = summarize_explain(
            [o for _, o in ordered],
            generators=gen_names,
            verifiers=ver_names,
            perplexity=cfg.perplexity,
            missing=cfg.missing,
        )
        summary["calls"] = {
            "calls": sum(r.calls for r in results),
            "cached": sum(r.cached for r in results),
        }
        summary["dataset"] = {
            "spec": cfg.data,
            "root": str(loaded.root),
            "samples": len(samples),
            "bad_rows": loaded.n_bad,
            "without_gold_answer": len(samples) - len(eligible),
            "selected": len(selected),
        }
        summary["settings"] = recorded
        _atomic_write(root / SUMMARY_FILE, json.dumps(summary, indent=2, sort_keys=True))
        counts = {**summary["counts"], "selected": len(selected), "bad_rows": loaded.n_bad}
        record = run.finish(summary, counts)
    return ExplainResult(
        folder=root, samples=paths[0], unaccepted=paths[1], summary=summary, run=record
    )


def _solve(batch: Sequence[Sample], *, ctx: ExplainContext, key: str) -> list[SampleResult]:
    """The selection loop on one batch of samples, each outcome as a run result."""
    return [
        outcome_to_result(
            outcome,
            key,
            groups=sample.group_labels(),
            calls=usage.calls,
            cached=usage.cached,
            latency_s=round(usage.latency_s, 4),
        )
        for sample, (outcome, usage) in zip(batch, explain_batch(batch, ctx), strict=True)
    ]


# ------------------------------------------------------------------------- helpers


def _check_numbers(
    max_rounds: int,
    majority: int | None,
    batch_size: int,
    regen_temperature: float,
    max_tokens: int,
    limit: int | None,
) -> None:
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
    if majority is not None and majority < 1:
        raise ValueError(f"majority must be at least 1 Correct vote, got {majority}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if regen_temperature < 0:
        raise ValueError(f"regen_temperature must be >= 0, got {regen_temperature}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")


def _name(model: ModelArg) -> str:
    return model.strip() if isinstance(model, str) else model.name


def _names(models: Sequence[ModelArg], what: str) -> tuple[str, ...]:
    if isinstance(models, str):
        raise TypeError(f"{what} must be a list of models, not the string {models!r}")
    names = tuple(_name(m) for m in models)
    if not names:
        raise ValueError(f"no {what} given")
    if any(not n for n in names):
        raise ValueError(f"{what}: an empty model name")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"{what} named twice: {dupes}; each model must have its own name")
    return names


def _check_verifiers(gens: tuple[str, ...], vers: tuple[str, ...], majority: int | None) -> None:
    for g in gens:
        asked = sum(1 for v in vers if v != g)
        if asked == 0:
            raise ValueError(
                f"no verifier for the candidates of {g}: a candidate is never judged by its "
                "own author, so give at least two models or other verifiers"
            )
        if majority is not None and majority > asked:
            raise ValueError(
                f"majority {majority} cannot be reached: the candidates of {g} have only "
                f"{asked} verifier(s) (leave-one-out); lower the majority or add verifiers"
            )


def _weight_set(weights: WeightSet | str) -> WeightSet:
    if isinstance(weights, WeightSet):
        return weights
    known = {w.name: w for w in sensitivity_weight_sets()}
    if weights not in known:
        raise ValueError(f"unknown weight set {weights!r}; choose one of {sorted(known)}")
    return known[weights]


def _instruction(text: str) -> str | None:
    """The candidate prompt's first paragraph when it is plain instruction (no fields)."""
    head = text.split("\n\n", 1)[0].strip()
    return head if head and "{" not in head else None


def _write_dataset(
    root: Path,
    source_root: Path,
    outcomes: Sequence[tuple[Sample, ExplainOutcome]],
    settings: dict[str, JsonValue],
) -> tuple[Path, Path]:
    """Write the accepted samples (images copied) and the unaccepted provenance records."""
    with SampleWriter(root, copy_images_from=source_root) as writer:
        for sample, outcome in outcomes:
            if outcome.explanation is not None:
                writer.write(explained_sample(sample, outcome, settings))
    lines = [
        json.dumps(
            {
                "question": sample.question,
                "answer": gold_answer(sample),
                **outcome.model_dump(mode="json", exclude={"candidates": {"__all__": {"type"}}}),
            },
            ensure_ascii=False,
        )
        for sample, outcome in outcomes
        if outcome.explanation is None
    ]
    unaccepted = root / UNACCEPTED_FILE
    _atomic_write(unaccepted, "".join(line + "\n" for line in lines))
    return writer.close(), unaccepted


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
