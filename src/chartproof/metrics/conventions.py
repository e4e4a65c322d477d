"""Scoring conventions: each benchmark's published scorer, reproduced exactly, shown beside
chartproof's own semantic score (`accuracy`, the rules of `chartproof.answers`).

chartproof's `accuracy` reads answers the way a careful person would ("52%" is 52, "Asia."
is Asia, 2006 is not the year 2005), so its numbers are not the ones on the leaderboards.
A convention is the scorer a benchmark's numbers are published with, kept verbatim, quirks
included (each quirk is a row of its case table in `tests/metrics/cases/convention_*.json`,
recorded by running the reference code side by side). A convention is chosen from the
loader's `Sample.source["dataset"]` (or named by `source["convention"]`, e.g. a JSONL
row's extra key, for a benchmark converted into another folder); a dataset without one
gets chartproof's score only
(CharXiv's judge grading is not reproduced yet). PlotQA's authors publish no
scorer; their relaxed accuracy (Methani et al., 2020) is the definition pix2struct cites.

| dataset | convention | reference |
|---|---|---|
| chartqa, plotqa | `chartqa` relaxed correctness | pix2struct `metrics.relaxed_correctness` (= lmms-eval, VLMEvalKit) |
| dvqa | `exact` | VLMEvalKit `vqa_eval.process_line(method="accuracy")` |
| figureqa | `binary` | FigureQA's 1/0 answers, no published scorer |
| chartbench | `chartbench` | ChartBench `Stat/stat_all_metric.py` (Acc, Acc+, NQA) |
| realcqa | `realcqa` | RealCQA `code/evaluation/eval_PMC.py` |
| chartqapro | `chartqapro` | VLMEvalKit `dataset/utils/chartqapro.py` (relaxed + ANLS, year flags) |
| evochart | `evochart` | MuyeHuang/EvoChart `README.md` "Answer Verification" (a rule; no scorer code) |

What a sample must carry (loaders fill it): `source["answer_raw"]` (the answer as the
release spells it; `gold.text()` otherwise), `source["answers"]` (a list of accepted
answers, when the release gives several: the best one counts, as pix2struct and ChartBench
take the max), `Sample.pair_id` (or `source["pair_id"]`; ChartBench: the two yes/no
questions asked of one chart share it, and Acc+ counts a pair right when both are), `source["answer_type"]` (RealCQA:
"Binary", "Numerical", "String", "Unranked List", "Ranked List"), `source["year_flags"]`
and `source["question_type"]` (ChartQA-Pro: the row's "YES"/"NO" year flags, its type),
`source["is_clear"]` (EvoChart: string matching when true, 5 % when false).

The per-sample value is the metric `official`; the run scorer writes the summary section
`conventions` (per convention: its mean, chartproof's accuracy on the same samples, Acc+
for pairs, and the samples where the two disagree).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chartproof.metrics.registry import Metric, RunInput, scorer
from chartproof.types import Sample, SampleResult
from chartproof.types.registry import Registry

__all__ = [
    "CONVENTIONS",
    "Convention",
    "binary_correct",
    "chartbench_nqa",
    "chartbench_yes",
    "check_conventions",
    "convention",
    "convention_for",
    "conventions",
    "evochart_correct",
    "exact_correct",
    "official_score",
    "register_convention",
    "relaxed_correctness",
]

DISAGREEMENTS_LISTED = 100
"""How many disagreeing samples a convention's summary section lists (all are counted)."""


@dataclass(frozen=True)
class Convention:
    """A benchmark's published scorer: how one prediction scores against one sample."""

    name: str
    """Registry name (`chartqa`, `exact`, ...)."""
    title: str
    """What the headline calls the number."""
    reference: str
    """The reference implementation reproduced (repository and path)."""
    score: Callable[[str, Sample], float]
    """The score of one prediction (1.0 right, 0.0 wrong; RealCQA's lists in between)."""
    datasets: tuple[str, ...] = ()
    """`Sample.source["dataset"]` names it applies to."""
    pairs: bool = False
    """Whether it also reports Acc+ over samples sharing `Sample.pair_id`."""


CONVENTIONS: Registry[Convention] = Registry(
    "scoring convention",
    modules=("chartproof.metrics.conventions",),
    group="chartproof.conventions",
)
"""Scoring conventions by name (`register_convention` registers here; another package's
through the ``chartproof.conventions`` entry-point group)."""


def register_convention(conv: Convention) -> Convention:
    """Register a convention for its datasets; ValueError on a name or dataset taken."""
    if conv.name in CONVENTIONS:
        raise ValueError(f"a scoring convention named {conv.name!r} is registered already")
    taken = [d for d in conv.datasets if _for_dataset(d) is not None]
    if taken:
        raise ValueError(f"convention {conv.name!r}: datasets {taken} have one already")
    return CONVENTIONS.register(conv.name, conv)


def _for_dataset(dataset: str) -> Convention | None:
    return next((c for c in CONVENTIONS.values() if dataset in c.datasets), None)


def conventions() -> dict[str, Convention]:
    """Every registered convention by name."""
    return dict(CONVENTIONS.items())


def convention(name: str) -> Convention:
    """A convention by name; KeyError listing the known ones."""
    found = CONVENTIONS.get(name)
    if found is None:
        raise KeyError(f"no scoring convention {name!r}; known: {sorted(CONVENTIONS)}")
    return found


def convention_for(sample: Sample) -> Convention | None:
    """The convention of the sample's benchmark: `source["convention"]` when the sample
    names one (a JSONL row's extra key "convention": "chartqa"; "none" for no convention),
    else the one registered for `source["dataset"]`; None without one. A name that is not
    registered is a KeyError listing the known ones."""
    named = sample.source.get("convention")
    if isinstance(named, str) and named:
        return None if named == "none" else convention(named)
    name = sample.source.get("dataset")
    return _for_dataset(name) if isinstance(name, str) else None


def check_conventions(samples: Sequence[Sample]) -> None:
    """ValueError naming the first sample whose `source["convention"]` is not registered
    (run before any model call, so a typo costs nothing)."""
    for s in samples:
        named = s.source.get("convention")
        if named is not None and named != "none" and named not in CONVENTIONS:
            raise ValueError(
                f"sample {s.id!r}: unknown scoring convention {named!r}; "
                f"known: {sorted(CONVENTIONS)} or 'none'"
            )


# ------------------------------------------------------------------------ gold strings


def _targets(sample: Sample) -> list[str]:
    """The gold answers as the release spells them (several when it lists several)."""
    many = sample.source.get("answers")
    if isinstance(many, list) and many:
        return [x if isinstance(x, str) else json.dumps(x) for x in many]
    raw = sample.source.get("answer_raw")
    return [raw if isinstance(raw, str) else sample.answer.text()]


def _float(text: str) -> float | None:
    # Python's float() is the reference: it takes "1e3", "1_000", " 12 ", "nan", "inf"
    try:
        return float(text)
    except ValueError:
        return None


# ------------------------------------------------------------------------ ChartQA


def relaxed_correctness(target: str, prediction: str, max_relative_change: float = 0.05) -> bool:
    """pix2struct's relaxed correctness, as published: both sides read with `float()`
    (a trailing "%" divides by 100), right within `max_relative_change` of |target|;
    a target of 0 or any side that is no float compares the strings, case-insensitively."""

    def to_float(text: str) -> float | None:
        return _percent(text, 100.0) if text.endswith("%") else _float(text)

    p, t = to_float(prediction), to_float(target)
    if p is not None and t:
        return abs(p - t) / abs(t) <= max_relative_change
    return prediction.lower() == target.lower()


def _percent(text: str, divide: float) -> float | None:
    value = _float(text.rstrip("%"))
    return None if value is None else value / divide


def _chartqa(prediction: str, sample: Sample) -> float:
    # VLMEvalKit strips the prediction; the best of several golds counts (pix2struct's max)
    pred = prediction.strip()
    return float(max(relaxed_correctness(t, pred) for t in _targets(sample)))


# ------------------------------------------------------------------------ DVQA, FigureQA


def exact_correct(prediction: str, target: str) -> bool:
    """VLMEvalKit's exact accuracy: equal after stripping and lower-casing both sides."""
    return target.strip().lower() == prediction.strip().lower()


def _exact(prediction: str, sample: Sample) -> float:
    return float(any(exact_correct(prediction, t) for t in _targets(sample)))


_ONE = frozenset({"1", "yes", "true"})
_ZERO = frozenset({"0", "no", "false"})


def binary_correct(prediction: str, gold: bool) -> bool:
    """FigureQA's 1/0: the prediction, stripped, lower-cased and without one trailing
    period, must be 1/yes/true for a gold 1 and 0/no/false for a gold 0."""
    word = prediction.strip().lower()
    word = word[:-1] if word.endswith(".") else word
    return word in (_ONE if gold else _ZERO)


def _binary(prediction: str, sample: Sample) -> float:
    gold = sample.answer.value
    if not isinstance(gold, bool):
        # a FigureQA gold that is not yes/no: compare as given
        return _exact(prediction, sample)
    return float(binary_correct(prediction, gold))


# ------------------------------------------------------------------------ EvoChart


def evochart_correct(prediction: str, target: str, is_clear: bool) -> bool:
    """EvoChart-QA's rule as its README states it: a clear answer (`is_clear`) is right when
    the strings match (read here as equal after stripping, case-insensitively), any other
    when both sides read as numbers (`float()`) within 5 % of the target (a target of 0
    needs 0), else again by string matching. The authors publish no scorer code, so the
    reading of "string matching" is chartproof's."""
    pred, gold = prediction.strip(), target.strip()
    if not is_clear:
        p, t = _float(pred), _float(gold)
        if p is not None and t is not None and math.isfinite(t):
            return p == t if t == 0 else abs(p - t) / abs(t) <= 0.05
    return pred.lower() == gold.lower()


def _evochart(prediction: str, sample: Sample) -> float:
    clear = sample.source.get("is_clear")
    return float(any(evochart_correct(prediction, t, clear is not False) for t in _targets(sample)))


# ------------------------------------------------------------------------ ChartBench


def chartbench_yes(prediction: str, gold: bool) -> bool:
    """ChartBench's yes/no reading (`fuzzy_match`): a reply says yes when "yes" occurs in it
    anywhere (case-insensitive), and no otherwise."""
    says_yes = "yes" in prediction.lower()
    return says_yes if gold else not says_yes


def chartbench_nqa(prediction: str, label: str, max_relative_change: float = 0.05) -> bool:
    """ChartBench's NQA check: its `relaxed_correctness(prediction.strip(), label)`, whose
    "target" slot holds the prediction: a "%" on the prediction reads as the number and as
    its hundredth, a "%" on the label is dropped (not divided), and a prediction of 0 is
    right when the label is at most 0.05."""
    pred = prediction.strip()
    label_value = _float(label.rstrip("%")) if label.endswith("%") else _float(label)
    if pred.endswith("%"):
        whole = _float(pred.rstrip("%"))
        readings = None if whole is None else [whole, whole / 100.0]
    else:
        value = _float(pred)
        readings = None if value is None else [value]
    if label_value is not None and readings is not None:
        for t in readings:
            change = label_value if t == 0 else abs(label_value - t) / abs(t)
            if change <= max_relative_change:
                return True
        return False
    return label.lower() == pred.lower()


def _chartbench(prediction: str, sample: Sample) -> float:
    gold = sample.answer.value
    if isinstance(gold, bool):
        return float(chartbench_yes(prediction, gold))
    return float(max(chartbench_nqa(prediction, t) for t in _targets(sample)))


# ------------------------------------------------------------------------ registry


def _register_builtin() -> None:
    register_convention(
        Convention(
            name="chartqa",
            title="relaxed correctness (pix2struct)",
            reference=(
                "google-research/pix2struct pix2struct/metrics.py relaxed_correctness "
                "on the stripped prediction; the same function in lmms-eval "
                "tasks/chartqa/utils.py (no strip) and VLMEvalKit dataset/utils/vqa_eval.py "
                "(which reads a bracketed gold as alternatives)"
            ),
            score=_chartqa,
            datasets=("chartqa", "plotqa"),
        )
    )
    register_convention(
        Convention(
            name="exact",
            title="exact match (VLMEvalKit accuracy)",
            reference="open-compass/VLMEvalKit dataset/utils/vqa_eval.py process_line(method='accuracy')",
            score=_exact,
            datasets=("dvqa",),
        )
    )
    register_convention(
        Convention(
            name="binary",
            title="1/0 accuracy (FigureQA)",
            reference="FigureQA's 1/0 answers (Kahou et al., 2018); the authors publish no scorer",
            score=_binary,
            datasets=("figureqa",),
        )
    )
    register_convention(
        Convention(
            name="chartbench",
            title="Acc / NQA (ChartBench)",
            reference="IDEA-FinAI/ChartBench Stat/stat_all_metric.py (fuzzy_match, relaxed_correctness)",
            score=_chartbench,
            datasets=("chartbench",),
            pairs=True,
        )
    )
    from chartproof.metrics._chartqapro import chartqapro_score
    from chartproof.metrics._realcqa import realcqa_score

    register_convention(
        Convention(
            name="chartqapro",
            title="relaxed correctness + ANLS (ChartQA-Pro)",
            reference="open-compass/VLMEvalKit dataset/utils/chartqapro.py "
            "evaluate_predictions_chartqapro",
            score=chartqapro_score,
            datasets=("chartqapro",),
        )
    )

    register_convention(
        Convention(
            name="evochart",
            title="string match if clear, else 5 % (EvoChart)",
            reference="MuyeHuang/EvoChart README.md, 'EvoChart-QA Benchmark Answer "
            "Verification' (a stated rule; the authors publish no scorer code)",
            score=_evochart,
            datasets=("evochart",),
        )
    )
    register_convention(
        Convention(
            name="realcqa",
            title="eval_PMC (RealCQA)",
            reference="cse-ai-lab/RealCQA code/evaluation/eval_PMC.py",
            score=realcqa_score,
            datasets=("realcqa",),
        )
    )


_register_builtin()


# ------------------------------------------------------------------------ scorers


@scorer(
    kind="sample",
    name="convention",
    protocols=("direct", "chain"),
    metrics=[
        Metric(
            "official",
            "official score",
            headline={"direct": 0.5, "chain": 4.5},
            description="the benchmark's published scorer (`metrics.conventions`)",
            on_failure="recorded",
        )
    ],
)
def official_score(prediction: str, gold: Any, *, sample: Sample) -> dict[str, float | None]:
    """The sample's benchmark convention's score; nothing for a dataset without one. A
    missing answer (a failed call, an empty reply) scores 0, as everywhere in chartproof,
    although ChartBench's rule would count an empty reply to a "no" question right."""
    conv = convention_for(sample)
    if conv is None:
        return {}
    return {"official": conv.score(prediction, sample) if prediction.strip() else 0.0}


@scorer(kind="run", name="conventions", section="conventions")
def conventions_section(run: RunInput) -> dict[str, Any] | None:
    """Per convention in the run: its mean, chartproof's accuracy on the same samples,
    Acc+ over complete pairs, and the samples where the two disagree."""
    by_id = {s.id: s for s in run.samples}
    groups: dict[str, list[tuple[SampleResult, Sample]]] = {}
    for r in run.results:
        sample = by_id.get(r.sample_id)
        conv = convention_for(sample) if sample is not None else None
        if conv is not None and sample is not None and "official" in r.scores:
            groups.setdefault(conv.name, []).append((r, sample))
    if not groups:
        return None
    return {name: _convention_figures(CONVENTIONS[name], rows) for name, rows in groups.items()}


def _convention_figures(
    conv: Convention, rows: Sequence[tuple[SampleResult, Sample]]
) -> dict[str, Any]:
    official = [_value(r.scores.get("official")) for r, _ in rows]
    ours = [_value(r.scores.get("accuracy")) for r, _ in rows]
    differ = [
        i for i, (o, c) in enumerate(zip(official, ours, strict=True)) if (o >= 1.0) != (c >= 1.0)
    ]
    out: dict[str, Any] = {
        "title": conv.title,
        "reference": conv.reference,
        "n": len(rows),
        "official": math.fsum(official) / len(rows),
        "chartproof": math.fsum(ours) / len(rows),
        "disagree": len(differ),
        "official_only": sum(1 for i in differ if official[i] >= 1.0),
        "disagreements": [
            {
                "sample_id": rows[i][0].sample_id,
                "prediction": rows[i][0].prediction,
                "gold": _targets(rows[i][1])[0],
                "official": official[i],
                "chartproof": ours[i],
            }
            for i in differ[:DISAGREEMENTS_LISTED]
        ],
    }
    if conv.pairs:
        out |= _pair_figures(rows)
    return out


def _value(v: float | None) -> float:
    return 0.0 if v is None else float(v)


def _pair_figures(rows: Sequence[tuple[SampleResult, Sample]]) -> dict[str, Any]:
    """ChartBench's Acc+: a pair (two samples sharing `pair_id`) counts right
    when both of its questions are; pairs with a member missing are left out and counted."""
    pairs: dict[str, list[float]] = {}
    for r, s in rows:
        pid = s.pair_id or s.source.get("pair_id")
        if isinstance(pid, str | int) and not isinstance(pid, bool):
            pairs.setdefault(str(pid), []).append(_value(r.scores.get("official")))
    complete = [v for v in pairs.values() if len(v) == 2]
    return {
        "pairs": len(complete),
        "incomplete_pairs": len(pairs) - len(complete),
        "acc_plus": (
            sum(1 for v in complete if min(v) >= 1.0) / len(complete) if complete else None
        ),
    }


@scorer(kind="summary", name="conventions_headline")
def _headline_notes(summary: dict[str, Any], run: RunInput) -> None:
    """The headline says which rule each number follows: the `official` row names its
    conventions, `accuracy` says it is chartproof's own."""
    section = summary.get("conventions")
    if not isinstance(section, Mapping):
        return
    names = ", ".join(f"{name}: {fig['title']} (n={fig['n']})" for name, fig in section.items())
    for row in summary.get("metrics", []):
        if row.get("metric") == "official":
            row["note"] = f"follows {names}"
        elif row.get("metric") == "accuracy" and not row.get("note"):
            row["note"] = "chartproof's own rules (chartproof.answers)"


def convention_lines(summary: Mapping[str, Any]) -> list[str]:
    """Plain lines for the terminal: each convention's number beside chartproof's, and the
    judge's with its agreement (`metrics.judging`)."""
    section = summary.get("conventions")
    lines = []
    for name, fig in (section if isinstance(section, Mapping) else {}).items():
        line = (
            f"  {name} convention ({fig['title']}): {100 * fig['official']:.2f} %  "
            f"vs chartproof accuracy {100 * fig['chartproof']:.2f} %  "
            f"(n={fig['n']}, {fig['disagree']} disagree)"
        )
        if fig.get("acc_plus") is not None:
            line += f"; Acc+ {100 * fig['acc_plus']:.2f} % over {fig['pairs']} pairs"
        lines.append(line)
    judge = summary.get("judge")
    if isinstance(judge, Mapping) and judge.get("judge") is not None:
        agree = judge.get("agreement", {}).get("accuracy") or {}
        share = agree.get("agreement")
        lines.append(
            f"  judge {judge.get('model')} ({judge.get('prompt')}): "
            f"{100 * judge['judge']:.2f} % of {judge['n']} graded"
            + (f", agrees with accuracy on {100 * share:.2f} %" if share is not None else "")
            + (f", {judge['ungraded']} not graded" if judge.get("ungraded") else "")
        )
    return lines
