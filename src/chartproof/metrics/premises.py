"""Visual premise proving metrics of RealCQA-V2: per-premise accuracy by kind, Acc_VPP
(share of sequences with every premise right) and DCP (depth of correct premises), with the
figures a reader needs to judge them: the constant-answer baseline and two class-balanced
scores (balanced accuracy, MCC).

Premises are generated 1 true : 3 false, so answering "false" to everything scores about
75 % premise accuracy; `premise_baseline` gives that figure for the premises at hand and
`balanced_accuracy` (mean of the per-class accuracies, 50 % for any constant answer) and
`mcc` (Matthews correlation, 0 for any constant answer) do not reward it.

Pure functions of per-premise correctness; sequences are the ordered premise lists of one
question each. What a sequence holds has two definitions (`VPP_DEFINITIONS`), each figure
named with its own: `all_premises` chains every premise asked, the
false distractors included (the headline `acc_vpp` and the Table-4 figures); the RealCQA-V2
authors' evaluator (`run_vpp_eval.py`, mode `chained_true`) chains each question's TRUE
premises only (`acc_vpp_chained`). Under the authors' definition answering "true" to every
premise scores Acc_VPP 1.0 and DCP 0, so its figures carry that baseline. Premise accuracy,
balanced accuracy, MCC and the baseline count every premise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.metrics.aggregations import aggregation
from chartproof.metrics.registry import Metric, RunInput, scorer
from chartproof.types import (
    PremiseKind,
    PremiseStepRecord,
    Record,
    Sample,
    SampleResult,
    Score,
    StepRecord,
)

__all__ = [
    "KIND_CODES",
    "KIND_ORDER",
    "PREMISE_RULE",
    "VPP_DEFINITIONS",
    "PremiseOutcome",
    "acc_vpp",
    "balanced_accuracy",
    "chained_true",
    "dcp",
    "mcc",
    "premise_accuracy",
    "premise_balanced",
    "premise_baseline",
    "premise_figures",
    "premise_level",
    "premise_metrics",
    "premise_step_scores",
    "vpp",
    "vpp_chained",
    "vpp_figures",
]

KIND_ORDER: tuple[PremiseKind, ...] = ("structural", "data", "reasoning", "math")
"""Premise kinds in RealCQA-V2 order: SP, DP, RP, MP."""

KIND_CODES: dict[str, str] = {"structural": "SP", "data": "DP", "reasoning": "RP", "math": "MP"}
"""RealCQA-V2's short names of the premise kinds."""

VPP_DEFINITIONS = {
    "chained_true": "each question's true premises only, the authors' chained mode "
    "(RealCQA-V2 run_vpp_eval.py)",
    "all_premises": "each question's premises, the false distractors included",
}
"""How a VPP sequence is built, by name: the `acc_vpp` metric uses all_premises,
`acc_vpp_chained` chained_true; the summary's `premise.vpp` gives Acc_VPP and DCP under both."""

DCP_ALL_RIGHT_NOTE = (
    "no sequence has a wrong premise: the seed's formula divides by zero; DCP is 0 by the "
    "SPEC §7 convention"
)


class PremiseOutcome(Record):
    """Whether one premise of a sequence was judged right."""

    kind: str
    """Premise kind: "structural", "data", "reasoning" or "math"."""
    correct: bool
    """The model's true/false verdict matched the premise's label (no verdict is wrong)."""
    truth: bool | None = None
    """The premise's label, when known: needed for the baseline and the balanced scores."""


def _check(sequences: Sequence[Sequence[bool]]) -> None:
    for i, seq in enumerate(sequences):
        if len(seq) == 0:
            raise ValueError(f"premise sequence {i} is empty; every sequence needs a premise")


def acc_vpp(sequences: Sequence[Sequence[bool]]) -> float | None:
    """Share of sequences whose premises are all right (None without sequences)."""
    _check(sequences)
    if not sequences:
        return None
    return sum(1 for seq in sequences if all(seq)) / len(sequences)


def dcp(sequences: Sequence[Sequence[bool]]) -> float | None:
    """Mean fraction of right premises over the sequences that are not all right.

    RealCQA-V2: DCP = 1/(S − S_correct) · Σ over wrong sequences of (right premises / P_s).
    0 when every sequence is all right (the seed's ratio is 0/0 there; SPEC §7 sets 0);
    None without sequences.
    """
    _check(sequences)
    if not sequences:
        return None
    wrong = [seq for seq in sequences if not all(seq)]
    if not wrong:
        return 0.0
    return sum(sum(seq) / len(seq) for seq in wrong) / len(wrong)


def premise_accuracy(sequences: Sequence[Sequence[bool]]) -> float | None:
    """Share of all premises judged right (None without premises)."""
    _check(sequences)
    n = sum(len(seq) for seq in sequences)
    return None if n == 0 else sum(sum(seq) for seq in sequences) / n


def _labelled(sequences: Sequence[Sequence[PremiseOutcome]]) -> list[PremiseOutcome] | None:
    """Every premise, or None when one lacks its label (class-aware figures need them all)."""
    flat = [p for seq in sequences for p in seq]
    if not flat or any(p.truth is None for p in flat):
        return None
    return flat


def balanced_accuracy(sequences: Sequence[Sequence[PremiseOutcome]]) -> float | None:
    """Mean of the accuracy on true premises and on false ones (over the classes present);
    None without premises or when a label is missing. Any constant answer scores 0.5 when
    both classes occur."""
    flat = _labelled(sequences)
    if flat is None:
        return None
    recalls = []
    for label in (True, False):
        cls = [p.correct for p in flat if p.truth is label]
        if cls:
            recalls.append(sum(cls) / len(cls))
    return sum(recalls) / len(recalls)


def mcc(sequences: Sequence[Sequence[PremiseOutcome]]) -> float | None:
    """Matthews correlation between verdicts and labels, "true" the positive class.

    A premise without a verdict counts as the wrong verdict. 0 when a row or column of the
    confusion matrix is empty (a constant answer; scikit-learn's convention); None without
    premises or when a label is missing."""
    flat = _labelled(sequences)
    if flat is None:
        return None
    tp = sum(1 for p in flat if p.truth and p.correct)
    fn = sum(1 for p in flat if p.truth and not p.correct)
    tn = sum(1 for p in flat if not p.truth and p.correct)
    fp = sum(1 for p in flat if not p.truth and not p.correct)
    denom = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    if denom == 0:
        return 0.0
    return float((tp * tn - fp * fn) / denom**0.5)


def premise_baseline(sequences: Sequence[Sequence[PremiseOutcome]]) -> dict[str, object] | None:
    """What the better constant answer scores on these premises: its answer ("true" or
    "false"), premise accuracy, Acc_VPP (sequences whose premises all carry that label),
    balanced accuracy and MCC. None without premises or when a label is missing."""
    flat = _labelled(sequences)
    if flat is None:
        return None
    n_true = sum(1 for p in flat if p.truth)
    answer = n_true > len(flat) - n_true  # ties go to "false", the designed majority
    constant = [
        [PremiseOutcome(kind=p.kind, correct=p.truth is answer, truth=p.truth) for p in seq]
        for seq in sequences
    ]
    right = [[p.correct for p in seq] for seq in constant]
    return {
        "answer": "true" if answer else "false",
        "accuracy": premise_accuracy(right),
        "acc_vpp": acc_vpp(right),
        "balanced_accuracy": balanced_accuracy(constant),
        "mcc": mcc(constant),
    }


def _by_kind_outcomes(
    sequences: Sequence[Sequence[PremiseOutcome]],
) -> dict[str, list[list[PremiseOutcome]]]:
    """Per kind, each sequence restricted to that kind's premises (empty ones dropped)."""
    kinds = [k for k in KIND_ORDER] + sorted(
        {p.kind for seq in sequences for p in seq} - set(KIND_ORDER)
    )
    out: dict[str, list[list[PremiseOutcome]]] = {}
    for kind in kinds:
        sub = [[p for p in seq if p.kind == kind] for seq in sequences]
        sub = [s for s in sub if s]
        if sub:
            out[kind] = sub
    return out


def _figures(sequences: Sequence[Sequence[PremiseOutcome]]) -> dict[str, object]:
    flat = [[p.correct for p in seq] for seq in sequences]
    return {
        "accuracy": premise_accuracy(flat),
        "acc_vpp": acc_vpp(flat),
        "dcp": dcp(flat),
        **({"dcp_note": DCP_ALL_RIGHT_NOTE} if flat and all(all(s) for s in flat) else {}),
        "balanced_accuracy": balanced_accuracy(sequences),
        "mcc": mcc(sequences),
        "baseline": premise_baseline(sequences),
        "n": sum(len(s) for s in flat),
        "sequences": len(flat),
    }


def premise_metrics(sequences: Sequence[Sequence[PremiseOutcome]]) -> dict[str, object]:
    """Accuracy, Acc_VPP, DCP, balanced accuracy, MCC, the constant-answer baseline and
    counts, overall and per kind (RealCQA-V2 Table 4 layout: per kind, sequences are
    restricted to that kind's premises)."""
    out = _figures(sequences)
    out["by_kind"] = {
        kind: {"code": KIND_CODES.get(kind, kind), **_figures(sub)}
        for kind, sub in _by_kind_outcomes(sequences).items()
    }
    return out


# --------------------------------------------------------------------------- registry


def _premise_steps(steps: Sequence[StepRecord]) -> list[PremiseStepRecord]:
    out = [st for st in steps if isinstance(st, PremiseStepRecord)]
    if len(out) != len(steps):
        raise ValueError(f"not a premise step record: {next(s for s in steps if s not in out)!r}")
    return out


@scorer(
    kind="step",
    name="premise",
    protocols=("premise",),
    metrics=[
        Metric(
            "premise_accuracy",
            means_correct=True,
            headline={"premise": 0},
            description="share of a sample's premises judged right",
            aggregation="premise",
        ),
        Metric(
            "acc_vpp",
            "Acc_VPP",
            headline={"premise": 2},
            description="1 when every premise of the sample, distractors included, is right",
            aggregation="vpp",
        ),
        Metric(
            "acc_vpp_chained",
            "Acc_VPP (true premises, authors' chained mode)",
            description="1 when every true premise of the sample is judged right "
            "(RealCQA-V2 run_vpp_eval chained_true; always 'true' scores 1)",
            aggregation="vpp_chained",
        ),
    ],
)
def premise_step_scores(
    sample: Sample, steps: Sequence[StepRecord], scores: Mapping[str, float | None]
) -> dict[str, float | None]:
    """Premise accuracy and Acc_VPP of one sample's premise sequence, under both sequence
    definitions (`VPP_DEFINITIONS`; None for chained_true when no premise is true)."""
    records = _premise_steps(steps)
    right = [[st.correct for st in records]]
    true_only = [st.correct for st in records if st.truth]
    return {
        "premise_accuracy": premise_accuracy(right),
        "acc_vpp": acc_vpp(right),
        "acc_vpp_chained": acc_vpp([true_only]) if true_only else None,
    }


def chained_true(
    sequences: Sequence[Sequence[PremiseOutcome]],
) -> list[list[PremiseOutcome]]:
    """The authors' chained sequences: each question's true premises (questions with none
    drop out, as grouping the true premises by question drops them there)."""
    out = [[p for p in q if p.truth] for q in sequences]
    return [q for q in out if q]


def vpp_figures(sequences: Sequence[Sequence[PremiseOutcome]]) -> dict[str, Any]:
    """Acc_VPP, DCP, premise accuracy and counts under each sequence definition."""
    out: dict[str, Any] = {}
    for name, seqs in (
        ("all_premises", [list(q) for q in sequences if q]),
        ("chained_true", chained_true(sequences)),
    ):
        flat = [[p.correct for p in q] for q in seqs]
        value = dcp(flat)
        out[name] = {
            "definition": VPP_DEFINITIONS[name],
            "acc_vpp": acc_vpp(flat),
            "dcp": value,
            "premise_accuracy": premise_accuracy(flat),
            "sequences": len(flat),
            "premises": sum(len(q) for q in flat),
        }
    return out


PREMISE_RULE = (
    "over every premise of every question asked: a premise whose call failed or whose reply "
    "gave no true/false verdict counts as wrong"
)
"""The one counting rule behind every premise figure of a summary (stated in the report)."""


def _premise_sequences(
    results: Sequence[SampleResult], samples: Sequence[Sample]
) -> dict[str, list[PremiseOutcome]]:
    """Each result's premise outcomes; a failed result recorded without steps (older runs)
    has all its dataset premises wrong."""
    premises = {s.id: s.premises for s in samples}
    out: dict[str, list[PremiseOutcome]] = {}
    for r in results:
        if r.steps:
            out[r.sample_id] = [
                PremiseOutcome(kind=st.kind, correct=st.correct, truth=st.truth)
                for st in _premise_steps(r.steps)
            ]
        elif premises.get(r.sample_id):
            out[r.sample_id] = [
                PremiseOutcome(kind=p.kind, correct=False, truth=p.truth)
                for p in premises[r.sample_id]
            ]
    return out


def _baseline_note(seqs: Sequence[Sequence[PremiseOutcome]], key: str) -> str | None:
    base = premise_baseline(seqs) or {}
    value = base.get(key)
    if not isinstance(value, float):
        return None
    return f"always {base['answer']!r} scores {100 * value:.2f}"


def _accuracy_score(metric: str, seqs: Sequence[Sequence[PremiseOutcome]]) -> Score:
    """Accuracy over every premise, with a standard error clustered by question (premises
    of one question are not independent)."""
    value = premise_accuracy([[p.correct for p in q] for q in seqs])
    n_prem = sum(len(q) for q in seqs)
    stderr = None
    if isinstance(value, float) and len(seqs) > 1:
        k = len(seqs)
        resid = sum((sum(p.correct for p in q) - value * len(q)) ** 2 for q in seqs)
        stderr = (resid * k / (k - 1)) ** 0.5 / n_prem
    return Score(
        metric=metric,
        value=value if isinstance(value, float) else None,
        n=n_prem,
        stderr=stderr,
        note=_baseline_note(seqs, "accuracy"),
    )


def _balanced_score(metric: str, seqs: Sequence[Sequence[PremiseOutcome]]) -> Score:
    """Balanced accuracy over every premise."""
    value = balanced_accuracy(seqs)
    return Score(
        metric=metric,
        value=value if isinstance(value, float) else None,
        n=sum(len(q) for q in seqs),
        note=_baseline_note(seqs, "balanced_accuracy"),
    )


def _vpp_score(metric: str, seqs: Sequence[Sequence[PremiseOutcome]], *, chained: bool) -> Score:
    """Acc_VPP over questions: every premise chained, or (`chained`) the authors' chained
    mode, true premises only, whose constant 'true' baseline scores 1."""
    if chained:
        seqs = chained_true(seqs)
        note = "always 'true' scores 100.00" if seqs else None
    else:
        note = _baseline_note(seqs, "acc_vpp")
    value = acc_vpp([[p.correct for p in q] for q in seqs])
    n = len(seqs)
    stderr = (value * (1 - value) / (n - 1)) ** 0.5 if isinstance(value, float) and n > 1 else None
    return Score(
        metric=metric,
        value=value if isinstance(value, float) else None,
        n=n,
        stderr=stderr,
        note=note,
    )


_last: tuple[RunInput, dict[str, list[PremiseOutcome]]] | None = None


def _run_sequences(run: RunInput) -> dict[str, list[PremiseOutcome]]:
    # every cell of a summary reads the same run: its sequences are built once
    global _last
    last = _last
    if last is not None and last[0] is run:
        return last[1]
    seqs = _premise_sequences(run.results, run.samples)
    _last = (run, seqs)
    return seqs


def _cell(results: Sequence[SampleResult], run: RunInput) -> list[list[PremiseOutcome]]:
    seqs = _run_sequences(run)
    return [seqs[r.sample_id] for r in results if r.sample_id in seqs]


@aggregation("premise")
def premise_level(
    metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
) -> Score:
    """Premise accuracy over the cell's premises (RealCQA-V2's definition, `PREMISE_RULE`),
    its standard error clustered by question."""
    score = _accuracy_score(metric, _cell(results, run))
    return score.model_copy(update={"group": dict(group)})


@aggregation("premise_balanced", per_sample=False)
def premise_balanced(
    metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
) -> Score:
    """Balanced accuracy over the cell's premises (mean of the accuracies on true and on
    false premises); no per-sample value."""
    score = _balanced_score(metric, _cell(results, run))
    return score.model_copy(update={"group": dict(group)})


@aggregation("vpp")
def vpp(
    metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
) -> Score:
    """Acc_VPP over the cell's questions, each sequence holding every premise asked."""
    score = _vpp_score(metric, _cell(results, run), chained=False)
    return score.model_copy(update={"group": dict(group)})


@aggregation("vpp_chained")
def vpp_chained(
    metric: str, results: Sequence[SampleResult], group: Mapping[str, str], run: RunInput
) -> Score:
    """Acc_VPP over the cell's questions in the authors' chained mode (true premises)."""
    score = _vpp_score(metric, _cell(results, run), chained=True)
    return score.model_copy(update={"group": dict(group)})


@scorer(
    kind="run",
    name="premise_figures",
    protocols=("premise",),
    section="premise",
    metrics=[
        Metric(
            "premise_balanced_accuracy",
            "premise balanced accuracy",
            headline={"premise": 1},
            description="mean of the accuracies on true and on false premises (50 % for any "
            "constant answer)",
            aggregation="premise_balanced",
        )
    ],
)
def premise_figures(run: RunInput) -> dict[str, Any]:
    """The "premise" section: accuracy, Acc_VPP, DCP overall and per kind, the
    constant-answer baseline, balanced accuracy and MCC, the VPP table under both sequence
    definitions, and the one rule (`PREMISE_RULE`) every premise figure of the summary
    follows (headline, breakdown cells and grid, through the premise aggregations)."""
    results = run.results
    seqs = _run_sequences(run)
    premise = dict(premise_metrics(list(seqs.values())))
    premise["vpp"] = vpp_figures(list(seqs.values()))
    premise["rule"] = PREMISE_RULE
    premise["questions"] = len(results)
    premise["failed"] = sum(1 for r in results if r.error is not None)
    return premise
