"""Result records: metric values, the step records of a result, one sample's outcome in a
run, and a run's identity card."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Discriminator, Field, JsonValue, Tag

from chartproof.types.data import Record
from chartproof.types.steps import CandidateStepRecord, DerenderStepRecord, legacy_step_kind

__all__ = [
    "ChainSection",
    "ChainStepRecord",
    "DatasetInfo",
    "FailureNote",
    "FamiliesSection",
    "NgramSection",
    "PremiseBaseline",
    "PremiseFigures",
    "PremiseSection",
    "PremiseStepRecord",
    "RobustnessRow",
    "RobustnessSection",
    "RunCounts",
    "RunRecord",
    "RunSummary",
    "SampleResult",
    "Score",
    "StepRecord",
    "SummarySection",
    "VPPFigures",
]


class ChainStepRecord(Record):
    """One sub-question of a chain, as the chain protocol asked and scored it."""

    type: Literal["chain"] = "chain"
    """Discriminator."""
    id: int
    """Step id within the chain."""
    task_type: str
    """ChartR task type of the step."""
    depends_on: tuple[int, ...] = ()
    """Ids of the steps whose answers this one uses."""
    question: str
    """The sub-question."""
    gold: str
    """The gold answer as text."""
    prediction: str | None = None
    """The model's parsed answer (None when it gave none)."""
    output: str = ""
    """The model's raw reply."""
    correct: bool
    """Whether the prediction is the gold answer by exact match (ChartR's ACC: typed, no
    numeric tolerance; runs before that rule recorded the tolerant verdict here)."""
    correct_with_tolerance: bool | None = None
    """Whether it matches within the gold's tolerance (5 % for numbers); None in old runs."""
    error: str | None = None
    """Why the step's model call failed (then it counts as wrong)."""


class PremiseStepRecord(Record):
    """One premise of a VPP sequence, as the premise protocol asked and scored it."""

    type: Literal["premise"] = "premise"
    """Discriminator."""
    id: str
    """Premise id within the sample."""
    kind: str
    """Premise kind (structural, data, reasoning, math)."""
    slot: str | None = None
    """Template slot the premise fills, when known."""
    statement: str
    """The premise as asked."""
    truth: bool
    """Whether the premise holds."""
    prediction: bool | None = None
    """The model's verdict (None when unreadable)."""
    output: str = ""
    """The model's raw reply."""
    correct: bool
    """Whether the verdict equals the truth."""
    error: str | None = None
    """Why the premise's model call failed (then it counts as wrong)."""


_TYPED = ("chain", "premise", "explain_candidate", "derender")


def _step_kind(value: Any) -> str:
    """Tag of a step record: its `type`; records written before steps were typed are told
    apart by their fields; anything else is a pipeline's own record (kept as a dict)."""
    if isinstance(
        value, ChainStepRecord | PremiseStepRecord | CandidateStepRecord | DerenderStepRecord
    ):
        return value.type
    if isinstance(value, dict):
        kind = value.get("type")
        if kind in _TYPED:
            return str(kind)
        if kind is None:
            return legacy_step_kind(value) or "other"
    return "other"


StepRecord: TypeAlias = Annotated[
    Annotated[ChainStepRecord, Tag("chain")]
    | Annotated[PremiseStepRecord, Tag("premise")]
    | Annotated[CandidateStepRecord, Tag("explain_candidate")]
    | Annotated[DerenderStepRecord, Tag("derender")]
    | Annotated[dict[str, JsonValue], Tag("other")],
    Discriminator(_step_kind),
]
"""A step of a result: a chain step, a premise verdict, an explanation candidate, a redraw's
outcome, or a pipeline's own record (the audit's prompts and replies) as a plain dict."""


class Score(Record):
    """One metric value, optionally for one group."""

    metric: str
    """Metric name, e.g. "relaxed_accuracy"."""
    value: float | None
    """The value; None when it could not be computed (see `note`)."""
    n: int = 0
    """Number of items behind the value."""
    stderr: float | None = None
    """Standard error of the mean, when defined."""
    group: dict[str, str] = Field(default_factory=dict)
    """Group labels this value is restricted to; empty for the whole set."""
    note: str | None = None
    """Why the value is missing or how it was computed."""


class SampleResult(Record):
    """One sample's outcome in a run: appended to the run's results file once finished."""

    sample_id: str
    """The sample scored."""
    protocol: str
    """Evaluation protocol: "direct", "chain" or "premise"."""
    model: str
    """Backend spec string."""
    prediction: str | None = None
    """Parsed final answer (None when missing or failed)."""
    output: str = ""
    """Raw model text of the final answer."""
    explanation: str | None = None
    """Parsed explanation."""
    scores: dict[str, float | None] = Field(default_factory=dict)
    """Per-sample metric values (None = not computed)."""
    groups: dict[str, str] = Field(default_factory=dict)
    """The sample's group labels."""
    steps: tuple[StepRecord, ...] = ()
    """Per-step (chain) or per-premise records: prediction, correctness and raw output."""
    error: str | None = None
    """Why the sample failed, None when it was answered."""
    cached: int = 0
    """How many of its model calls came from the cache."""
    calls: int = 0
    """How many model calls it made."""
    latency_s: float = 0.0
    """Total model time."""
    question: str | None = None
    """The question asked (None in results written before questions were recorded)."""
    gold: str | None = None
    """The gold answer as text (None in older results)."""
    choices: tuple[str, ...] = ()
    """A multiple-choice question's options in display order."""
    images: tuple[str, ...] = ()
    """The sample's image paths, relative to the dataset folder."""
    prompt: str | None = None
    """Prompt template of the final answer's request, as name@version."""
    prompt_text: str | None = None
    """The final answer's request as the model got it: each text part verbatim, each image
    as ``[image: NAME]`` (None for protocols without one final request, and older results)."""


class RunCounts(Record):
    """How many results a run summary covers and what they cost."""

    results: int
    """Results summarised."""
    answered: int
    """Results with an answer."""
    failed: int
    """Results whose model call failed (scored as wrong)."""
    calls: int
    """Model calls made."""
    cached_calls: int
    """Model calls answered by the response cache."""
    model_seconds: float
    """Total model time."""


class FailureNote(Record):
    """One failed sample (the first 50 are listed)."""

    sample_id: str
    """The sample."""
    error: str | None
    """Why it failed."""


class DatasetInfo(Record):
    """The dataset an evaluation read."""

    spec: str
    """Dataset spec as given."""
    root: str
    """Folder the image paths are relative to."""
    samples: int
    """Samples after `where` and `limit`."""
    bad_rows: int
    """Rows that could not be read."""
    not_applicable: int
    """Samples the protocol cannot ask (no chain, no premises)."""


# ------------------------------------------------------------ summary sections


class SummarySection(BaseModel):
    """Base of the summary sections: immutable, tolerant of keys it does not know."""

    model_config = ConfigDict(frozen=True, extra="allow", use_attribute_docstrings=True)


class ChainSection(SummarySection):
    """Step error rate and first-error ratio per task type (ChartR), chain protocol."""

    step_error_rate: dict[str, float] = {}
    """Per task type, the share of its steps answered wrong."""
    first_error_ratio: dict[str, float] = {}
    """Per task type, the share of erring chains whose first wrong item has that type."""
    steps_per_task_type: dict[str, int] = {}
    """Steps asked per task type."""
    chains: int = 0
    """Answered chains."""
    chains_with_error: int = 0
    """Chains with at least one wrong item."""


class PremiseBaseline(SummarySection):
    """What answering every premise with one constant verdict scores."""

    answer: str | None = None
    """The constant verdict ("true" or "false")."""
    accuracy: float | None = None
    """Its accuracy over premises."""
    balanced_accuracy: float | None = None
    """Its balanced accuracy (0.5 for any constant)."""
    mcc: float | None = None
    """Its Matthews correlation (0 for any constant)."""
    acc_vpp: float | None = None
    """Its Acc_VPP."""


class PremiseFigures(SummarySection):
    """RealCQA-V2 figures over a set of premise sequences."""

    accuracy: float | None = None
    """Share of premises judged right."""
    acc_vpp: float | None = None
    """Share of sequences with every premise right."""
    dcp: float | None = None
    """Depth of correct premises (mean share right before the first error)."""
    dcp_note: str | None = None
    """Why DCP is 0 when no sequence has a wrong premise."""
    balanced_accuracy: float | None = None
    """Mean of the accuracies on true and on false premises."""
    mcc: float | None = None
    """Matthews correlation of verdicts and labels."""
    baseline: PremiseBaseline | None = None
    """The constant-answer baseline beside these figures."""
    n: int | None = None
    """Premises counted."""
    sequences: int | None = None
    """Sequences (questions) counted."""
    code: str | None = None
    """Short name of the premise kind (SP, DP, RP, MP) in `by_kind` entries."""


class VPPFigures(SummarySection):
    """Acc_VPP and DCP under one definition of a VPP sequence."""

    definition: str = ""
    """What a sequence holds."""
    acc_vpp: float | None = None
    """Share of sequences with every premise right."""
    dcp: float | None = None
    """Depth of correct premises over the sequences with an error."""
    premise_accuracy: float | None = None
    """Share of the premises in these sequences judged right."""
    sequences: int = 0
    """Sequences counted."""
    premises: int = 0
    """Premises in them."""


class PremiseSection(PremiseFigures):
    """Premise figures overall and per kind, with the counting rule (premise protocol).
    The Table-4 figures (`acc_vpp`, `dcp`, `by_kind`) chain every premise; `vpp` gives
    Acc_VPP and DCP under each sequence definition (all_premises, and chained_true: the
    authors' evaluator)."""

    vpp: dict[str, VPPFigures] = {}
    """Acc_VPP and DCP per sequence definition (all_premises, chained_true)."""
    by_kind: dict[str, PremiseFigures] = {}
    """The figures per premise kind, in RealCQA-V2 order."""
    rule: str | None = None
    """The counting rule behind every figure."""
    questions: int | None = None
    """Questions asked."""
    failed: int = 0
    """Questions whose call failed."""


class RobustnessRow(SummarySection):
    """One metric on the originals, per perturbation, and its ARM."""

    original: float | None = None
    """Mean on the unperturbed samples that have perturbed variants in the run."""
    by_perturbation: dict[str, float | None] = {}
    """Mean per perturbation at its headline level (`RobustnessSection.headline_levels`)."""
    arm: float | None = None
    """ChartR's average robustness metric over the headline levels (None when undefined)."""
    arm_note: str | None = None
    """Why ARM is undefined, when it is."""
    by_level: dict[str, dict[str, float | None]] = {}
    """Mean per perturbation and level (the sweep)."""
    arm_by_perturbation: dict[str, float | None] = {}
    """(M_orig − M_p) / M_orig per perturbation at its headline level."""
    arm_by_level: dict[str, float | None] = {}
    """ARM over the perturbations that have each level."""


class RobustnessSection(SummarySection):
    """Metrics per perturbation and intensity level (with perturbed samples)."""

    metrics: dict[str, RobustnessRow] = {}
    """Per metric, its row."""
    curves: dict[str, dict[str, list[tuple[float, float]]]] = {}
    """Per metric and perturbation, (level, value) points from level 0 (the original)."""
    n_original: int | None = None
    """Originals in M_original (those with perturbed variants)."""
    excluded_originals: int = 0
    """Unperturbed samples left out of M_original (reconstructions, counterfactuals, charts
    without variants)."""
    headline_levels: dict[str, str] = {}
    """The level of each perturbation the headline figures use ("all": levels pooled)."""


class FamiliesSection(SummarySection):
    """Counterfactual-family metrics (Chartographer)."""

    scores: tuple[Score, ...] = ()
    """Accuracy on originals, edits and reconstructions, and family consistency."""
    edit_break_rate: tuple[Score, ...] = ()
    """Per (edit, task type), the share of right answers an edit broke."""


class CounterfactualSection(SummarySection):
    """Counterfactual sensitivity (ChartCF) over the run's (original, counterfactual) pairs
    whose gold answers differ (`metrics/cf_sensitivity.py`)."""

    scores: tuple[Score, ...] = ()
    """cf_sensitivity (the answer moved with the chart), cf_follow and cf_both_right."""


class NgramSection(SummarySection):
    """BLEU-4, METEOR, ROUGE-L and CIDEr-D of the explanations (opt-in)."""

    corpus: dict[str, float | None] = {}
    """Corpus-level score per metric."""
    n: int = 0
    """Samples with a reference explanation."""
    self_template: dict[str, Any] | None = None
    """Set when the references came from the same generator as the explanations."""
    notes: dict[str, str] = {}
    """Per metric, why it was not computed."""
    note: str | None = None
    """A note on the whole section."""


class RunSummary(Record):
    """An evaluation's `summary.json`: counts, metric means, breakdowns and the optional
    sections the registered run scorers write (chain, premise, robustness, families,
    cf_sensitivity, ngram,
    and any scorer added later, kept as extra fields)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    protocol: str
    """The run's protocol."""
    counts: RunCounts
    """Result counts and cost."""
    metrics: tuple[Score, ...] = ()
    """Mean of every metric, headline metrics first."""
    breakdowns: dict[str, tuple[Score, ...]] = Field(default_factory=dict)
    """Every metric per value of each group label."""
    grid: tuple[Score, ...] = ()
    """The headline metric per chart type × question type."""
    failures: tuple[FailureNote, ...] = ()
    """The first failed samples."""
    model: str | None = None
    """Backend spec (or backend name)."""
    prompt: str | None = None
    """Prompt id."""
    dataset: DatasetInfo | None = None
    """What was read."""
    robustness: RobustnessSection | None = None
    """Metrics per perturbation and ARM (with perturbed samples)."""
    chain: ChainSection | None = None
    """Step error rate and first-error ratio (chain protocol)."""
    premise: PremiseSection | None = None
    """Accuracy, Acc_VPP and DCP per premise kind (premise protocol)."""
    families: FamiliesSection | None = None
    """Counterfactual-family metrics (with family members)."""
    cf_sensitivity: CounterfactualSection | None = None
    """Counterfactual sensitivity (with counterfactual pairs, direct and chain protocols)."""
    ngram: NgramSection | None = None
    """BLEU-4, METEOR, ROUGE-L, CIDEr-D of the explanations (opt-in)."""
    scores: dict[str, float | None] = Field(default_factory=dict)
    """Every overall metric value by name (the `metrics` rows without a group), flat for
    jq and pandas; empty in summaries written before it was added."""

    def section(self, name: str) -> Any:
        """A section by its summary key (declared or added by a later scorer) in its
        `summary.json` form, None if absent (the typed form is the attribute: `s.chain`)."""
        if name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, BaseModel):
                return value.model_dump(mode="json", exclude_unset=True)
            return value
        return (self.model_extra or {}).get(name)

    def __getitem__(self, key: str) -> Any:
        """`summary["metrics"]`: a key in its `summary.json` form, for report sections
        written against the file; KeyError when the file would not have it."""
        if key not in self:
            raise KeyError(key)
        if key in type(self).model_fields and not isinstance(getattr(self, key), BaseModel):
            return self.model_dump(mode="json", include={key})[key]
        return self.section(key)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        given = key in self.model_fields_set or key in (self.model_extra or {})
        return given and self.section(key) is not None

    @classmethod
    def read(cls, data: Mapping[str, Any], *, protocol: str | None = None) -> RunSummary:
        """Any run's summary, typed: the counts (and dataset facts) a summary lacks (one from
        an earlier version, or of a pipeline other than evaluation) read as 0 and a missing protocol as
        `protocol` (else "unknown"); everything else keeps its meaning (other pipelines'
        keys are kept as extra sections). Raises ValidationError for a malformed field."""
        counts = data.get("counts")
        dataset = data.get("dataset")
        filled = {
            **data,
            "protocol": data.get("protocol") or protocol or "unknown",
            "counts": {
                **dict.fromkeys(RunCounts.model_fields, 0),
                **(counts if isinstance(counts, Mapping) else {}),
            },
        }
        if isinstance(dataset, Mapping):
            filled["dataset"] = {"spec": "", "root": "", "samples": 0, "bad_rows": 0}
            filled["dataset"] |= {"not_applicable": 0, **dataset}
        return cls.model_validate(filled)


class RunRecord(Record):
    """A run's identity card, written to `run.json` in the run folder."""

    id: str
    """Run id (folder name by default)."""
    created: str
    """ISO-8601 creation time."""
    config: dict[str, Any]
    """Everything needed to reproduce the run: data, model, protocol, prompt, metrics."""
    dataset_fingerprint: str
    """Hash of the dataset's sample ids and image hashes."""
    code_version: str
    """chartproof version (and git commit when known)."""
    status: Literal["running", "done", "failed"] = "running"
    """Where the run stands."""
    counts: dict[str, int] = Field(default_factory=dict)
    """Samples total, done, failed, skipped."""
    summary: dict[str, Any] = Field(default_factory=dict)
    """Headline metrics once done."""

    def run_summary(self) -> RunSummary:
        """The summary as a typed `RunSummary` (evaluation runs; raises ValidationError for
        other pipelines' summaries)."""
        return RunSummary.model_validate(self.summary)

    def read_summary(self) -> RunSummary:
        """The summary typed however old or partial it is (`RunSummary.read`), with the
        run's configured protocol where the summary names none."""
        protocol = self.config.get("protocol")
        return RunSummary.read(
            self.summary, protocol=protocol if isinstance(protocol, str) else None
        )
