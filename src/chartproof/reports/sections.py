"""Report sections: headline cards, the ChartQA-X Table-3 grid, breakdowns, and the chain,
premise, robustness, family and explanation-quality sections, each from a run's typed
summary (`RunSummary`; a plain `summary.json` mapping of any version is read with
`RunSummary.read`).

Sections about one summary part are registered with `@report_section(name, order=...)`: the
report shows each, in order, whenever its `when(summary)` holds (by default: the summary has
the key `name`, which a run scorer of `chartproof.metrics.registry` writes). A new section is
one decorated function, in this module, in a module of `SECTIONS`' built-ins, in a module
imported before the report is built, or in another package's module named by an entry point
of the group ``chartproof.report_sections``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chartproof.charts.kinds import chart_kinds
from chartproof.metrics import registry
from chartproof.reports import plots
from chartproof.reports.html import Html, el, img_png, join, table
from chartproof.types import PremiseFigures, RunRecord, RunSummary, Score
from chartproof.types.registry import Registry

__all__ = [
    "SECTIONS",
    "ReportSection",
    "breakdowns",
    "card",
    "chain_section",
    "compared_bars",
    "comparison",
    "failures",
    "family_section",
    "fmt",
    "header",
    "headline",
    "headline_metric",
    "metric_label",
    "ngram_section",
    "pct",
    "premise_section",
    "report_section",
    "report_sections",
    "robustness_section",
    "roscoe_section",
    "run_name",
    "run_names",
    "summary_of",
    "table3",
    "unregister_section",
]


@dataclass(frozen=True)
class ReportSection:
    """A registered report section: how to render it and when it applies."""

    name: str
    """Section name (by default also the summary key it needs)."""
    render: Callable[[RunSummary], Html]
    """Renders the section from a run's summary."""
    order: int
    """Place among the registered sections (smaller first)."""
    when: Callable[[RunSummary], bool]
    """Whether a summary gets this section."""


SECTIONS: Registry[ReportSection] = Registry(
    "report section",
    modules=("chartproof.reports.sections", "chartproof.reports.scoring_sections"),
    group="chartproof.report_sections",
)
"""Report sections by name (`@report_section` registers here)."""

SectionFn = Callable[[RunSummary], Html]


def report_section(
    name: str, *, order: int, when: Callable[[RunSummary], bool] | None = None
) -> Callable[[SectionFn], SectionFn]:
    """Register the decorated function as the report section `name`, shown (at `order`)
    when `when(summary)` holds, by default when the summary has the key `name`. Both get
    the typed `RunSummary`, which also reads like its file (`summary["metrics"]`,
    `"chain" in summary`)."""

    def register(fn: SectionFn) -> SectionFn:
        if name in SECTIONS:
            raise ValueError(f"a report section named {name!r} is registered already")
        SECTIONS.register(
            name,
            ReportSection(name=name, render=fn, order=order, when=when or (lambda s: name in s)),
        )
        return fn

    return register


def report_sections(summary: RunSummary | Mapping[str, Any]) -> list[ReportSection]:
    """The registered sections a summary gets, in order."""
    typed = summary_of(summary)
    return sorted((s for s in SECTIONS.values() if s.when(typed)), key=lambda s: s.order)


def summary_of(summary: RunSummary | Mapping[str, Any]) -> RunSummary:
    """A summary typed: itself, or a `summary.json` mapping of any version read with
    `RunSummary.read`."""
    return summary if isinstance(summary, RunSummary) else RunSummary.read(summary)


def _record_summary(record: RunRecord) -> RunSummary:
    return record.read_summary()


def unregister_section(name: str) -> None:
    """Remove a registered section (tests that add their own)."""
    SECTIONS.unregister(name)


def fmt(value: object, digits: int = 3) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def pct(value: object) -> str:
    return "n/a" if not isinstance(value, float | int) else f"{100 * float(value):.2f}"


def metric_label(name: str) -> str:
    return registry.metric_label(name)


def headline_metric(summary: RunSummary | Mapping[str, Any]) -> str:
    metrics = summary_of(summary).metrics
    return metrics[0].metric if metrics else "accuracy"


# ------------------------------------------------------------------------------ sections


def header(record: RunRecord, path: Path, *, several: bool = False) -> Html:
    s = _record_summary(record)
    if several:
        facts: list[tuple[str, object]] = [
            ("dataset", record.config.get("data")),
            ("created", record.created),
            ("chartproof", record.code_version),
        ]
        return join(
            [
                el("h1", "chartproof report"),
                el("p", join(el("span", el("b", k), ": ", v, " · ") for k, v in facts), cls="lead"),
            ]
        )
    facts = [
        ("model", s.model if s.model is not None else record.config.get("model")),
        ("protocol", _protocol(s, record)),
        ("prompt", s.prompt if s.prompt is not None else record.config.get("prompt")),
        ("dataset", record.config.get("data")),
        ("run", str(path)),
        ("status", record.status),
        ("created", record.created),
        ("chartproof", record.code_version),
    ]
    return join(
        [
            el("h1", "chartproof report"),
            el(
                "p",
                join(
                    (el("span", el("b", k), ": ", v, " · ") for k, v in facts if v is not None),
                ),
                cls="lead",
            ),
        ]
    )


def card(key: str, value: str, sub: str | None = None) -> Html:
    return el(
        "div",
        el("div", key, cls="k"),
        el("div", value, cls="v"),
        el("div", sub or "", cls="note"),
        cls="card",
    )


def _protocol(s: RunSummary, record: RunRecord) -> object:
    """The summary's protocol, or the configured one when the summary names none."""
    return s.protocol if s.protocol != "unknown" else record.config.get("protocol")


def _seconds(x: float) -> str:
    return str(int(x)) if x == int(x) else str(x)


def headline(record: RunRecord) -> Html:
    s = _record_summary(record)
    counts = s.counts
    cards = []
    for m in s.metrics[:6]:
        err = m.stderr
        sub = f"n={m.n}" + (f", ±{100 * err:.2f} s.e." if isinstance(err, float) else "")
        if m.note:
            sub += f" · {m.note}"
        cards.append(card(metric_label(m.metric), pct(m.value), sub))
    cards.append(card("answered", str(counts.answered), f"of {counts.results}"))
    cards.append(card("failed", str(counts.failed), "counted as wrong"))
    cards.append(
        card(
            "cache hits",
            f"{counts.cached_calls}/{counts.calls}",
            f"{_seconds(counts.model_seconds)} s of model time",
        )
    )
    return join(
        [
            el("h2", "Summary"),
            el("p", "Values in %, with n and standard error.", cls="note"),
            el("div", *cards, cls="cards"),
        ]
    )


def table3(
    runs: Sequence[tuple[str, RunSummary | Mapping[str, Any]]], *, compare: bool = False
) -> Html:
    """ChartQA-X Table 3: accuracy per chart type and question type, and overall; one row
    per run (with `compare`, a metric column, and no per-cell grid)."""
    rows = [(name, summary_of(s)) for name, s in runs]
    charts: set[str] = set()
    questions: set[str] = set()
    for _, s in rows:
        metric = headline_metric(s)
        for sc in s.breakdowns.get("chart_type", ()):
            if sc.metric == metric:
                charts.add(sc.group["chart_type"])
        for sc in s.breakdowns.get("question_type", ()):
            if sc.metric == metric:
                questions.add(sc.group["question_type"])
    ranks = {k.name: k.report_rank for k in chart_kinds()}
    chart_cols = sorted(charts, key=lambda c: (ranks.get(c, 99), c))
    q_cols = sorted(questions)
    body = []
    for name, s in rows:
        metric = headline_metric(s)

        def value(key: str, label: str, s: RunSummary = s, metric: str = metric) -> str:
            for sc in s.breakdowns.get(key, ()):
                if sc.metric == metric and sc.group.get(key) == label:
                    return pct(sc.value)
            return "–"

        overall = next((m.value for m in s.metrics if m.metric == metric), None)
        cells = [
            *(value("chart_type", c) for c in chart_cols),
            *(value("question_type", q) for q in q_cols),
        ]
        # comparing, "overall" comes first: many runs' names and chart types make the table
        # wider than a window, and the number read first must not be the one scrolled away
        if compare:
            body.append([name, metric_label(metric), pct(overall), *cells])
        else:
            body.append([name, *cells, pct(overall)])
    metric0 = headline_metric(rows[0][1])
    caption = "headline metric of each run (%)" if compare else f"{metric_label(metric0)} (%)"
    out = [
        Html("") if compare else el("h2", "Accuracy by chart type and question type"),
        el(
            "div",
            table(
                ["run", "metric", "overall", *chart_cols, *q_cols]
                if compare
                else ["model", *chart_cols, *q_cols, "overall"],
                body,
                caption=f"{caption} — layout of ChartQA-X Table 3",
            ),
            cls="scroll",
        ),
    ]
    grid = rows[0][1].grid
    if grid and chart_cols and q_cols and not compare:
        cell = {(g.group["chart_type"], g.group["question_type"]): g for g in grid}
        grid_rows = []
        for c in chart_cols:
            grid_rows.append(
                [
                    c,
                    *(
                        f"{pct(cell[(c, q)].value)} (n={cell[(c, q)].n})" if (c, q) in cell else "–"
                        for q in q_cols
                    ),
                ]
            )
        out.append(
            table(["chart type \\ question type", *q_cols], grid_rows, caption="the same, per cell")
        )
    return join(out)


def breakdowns(summary: RunSummary | Mapping[str, Any]) -> Html:
    s = summary_of(summary)
    metric = headline_metric(s)
    parts: list[Html] = [el("h2", "Breakdowns")]
    # the breakdowns people read as plots, as plots (the tables below keep n and s.e.)
    parts += [
        compared_bars([("this run", s)], key) for key in ("chart_type", "task_type", "program")
    ]
    for key, scores in s.breakdowns.items():
        if key in ("chart_type", "question_type"):
            continue
        rows = [
            [
                sc.group[key],
                pct(sc.value),
                sc.n,
                pct(sc.stderr) if sc.stderr is not None else "–",
            ]
            for sc in scores
            if sc.metric == metric
        ]
        if len(rows) < 2 and key not in ("task_type",):
            continue
        parts.append(el("h3", f"by {key.replace('_', ' ')}"))
        parts.append(
            table([key.replace("_", " "), f"{metric_label(metric)} %", "n", "s.e. %"], rows)
        )
    return join(parts) if any(str(p) for p in parts[1:]) else Html("")


@report_section("chain", order=10)
def chain_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    s = summary_of(summary)
    chain = s.chain
    assert chain is not None  # the section is shown only when the summary has one
    metrics = _by_metric(s.metrics)
    cards = [
        card(metric_label(k), pct(metrics[k].value), f"n={metrics[k].n}")
        for k in ("isa", "csa", "faa", "cfa")
        if k in metrics
    ]
    parts: list[Html] = [el("h2", "Reasoning chains (ChartR)"), el("div", *cards, cls="cards")]
    isa, csa, faa, cfa = (
        metrics[k].value if k in metrics else None for k in ("isa", "csa", "faa", "cfa")
    )
    if (
        isinstance(isa, float)
        and isinstance(csa, float)
        and isinstance(faa, float)
        and isinstance(cfa, float)
    ):
        parts.append(
            el(
                "p",
                f"ISA − CSA gap {100 * (isa - csa):.2f} points (error propagation along chains); "
                f"FAA − CFA gap {100 * (faa - cfa):.2f} points (final answers right without a right chain).",
                cls="note",
            )
        )
    ser = chain.step_error_rate
    fer = chain.first_error_ratio
    if ser:
        parts.append(
            img_png(
                plots.bar_chart(
                    {k: float(v) for k, v in ser.items() if v is not None},
                    title="Step error rate per task type",
                    y_label="share of steps wrong",
                ),
                "step error rate",
                cls="plot",
            )
        )
    if fer:
        parts.append(
            img_png(
                plots.bar_chart(
                    {k: float(v) for k, v in fer.items() if v is not None},
                    title="First-error ratio per task type",
                    y_label="share of first errors",
                ),
                "first error ratio",
                cls="plot",
            )
        )
    return join(parts)


@report_section("premise", order=20)
def premise_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    prem = summary_of(summary).premise
    assert prem is not None  # the section is shown only when the summary has one
    parts: list[Html] = [el("h2", "Visual premise proving (VPP)")]

    def cells(label: str, vals: PremiseFigures, n: int | None) -> list[object]:
        return [
            label,
            pct(vals.accuracy),
            pct(vals.balanced_accuracy),
            fmt(vals.mcc),
            pct(vals.acc_vpp),
            pct(vals.dcp),
            "–" if n is None else n,
        ]

    rows = [cells(kind, vals, vals.n) for kind, vals in prem.by_kind.items()]
    rows.append(cells("all", prem, prem.n))
    base = prem.baseline
    if base is not None:
        as_figures = PremiseFigures(
            accuracy=base.accuracy,
            balanced_accuracy=base.balanced_accuracy,
            mcc=base.mcc,
            acc_vpp=base.acc_vpp,
            dcp=getattr(base, "dcp", None),
        )
        rows.append(cells(f"baseline: always {base.answer!r}", as_figures, prem.n))
    parts.append(
        table(
            ["premise kind", "accuracy %", "balanced acc. %", "MCC", "Acc_VPP %", "DCP %", "n"],
            rows,
            caption="layout of RealCQA-V2 Table 4, with class-balanced figures and the "
            "constant-answer baseline; Acc_VPP and DCP here chain every premise asked",
        )
    )
    if prem.vpp:
        parts.append(
            table(
                ["VPP sequence", "Acc_VPP %", "DCP %", "premise acc. %", "sequences"],
                [
                    [v.definition, pct(v.acc_vpp), pct(v.dcp), pct(v.premise_accuracy), v.sequences]
                    for v in prem.vpp.values()
                ],
                caption="Acc_VPP and DCP by sequence definition (the summary's Acc_VPP is "
                "the first; the second is the RealCQA-V2 authors' evaluator, where always "
                "'true' scores Acc_VPP 100 % and DCP 0)",
            )
        )
    rule, failed = prem.rule, prem.failed
    parts.append(
        el(
            "p",
            f"Premises are generated 1 true : 3 false, so a constant answer already scores the "
            f"baseline row; balanced accuracy (mean of the accuracy on true and on false "
            f"premises) and MCC give a constant answer 50 % and 0. Every figure here and in the "
            f"summary is {rule or 'over the answered premises'}"
            + (f" ({failed} questions had a failed call)." if failed else "."),
            cls="note",
        )
    )
    return join(parts)


@report_section("robustness", order=30)
def robustness_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    s = summary_of(summary)
    rob = s.robustness
    assert rob is not None  # the section is shown only when the summary has one
    parts: list[Html] = [el("h2", "Robustness under visual perturbations")]
    rows = []
    perts: list[str] = sorted({p for v in rob.metrics.values() for p in v.by_perturbation})
    for m, v in rob.metrics.items():
        rows.append(
            [
                metric_label(m),
                pct(v.original),
                *(pct(v.by_perturbation.get(p)) for p in perts),
                fmt(v.arm, 4),
            ]
        )
    heads = rob.headline_levels
    parts.append(
        table(
            ["metric", "original", *(f"{p} (level {heads.get(p, '?')})" for p in perts), "ARM"],
            rows,
            caption="metric (%) per perturbation at its headline level; ARM = (M_orig − mean "
            f"M_v) / M_orig (ChartR), M_orig over the {rob.n_original} originals with variants"
            + (
                f" ({rob.excluded_originals} other unperturbed samples left out)"
                if rob.excluded_originals
                else ""
            ),
        )
    )
    levels = sorted({lv for v in rob.metrics.values() for lv in v.arm_by_level}, key=int)
    if levels:
        parts.append(
            table(
                ["metric", *(f"level {lv}" for lv in levels)],
                [
                    [metric_label(m), *(fmt(v.arm_by_level.get(lv), 4) for lv in levels)]
                    for m, v in rob.metrics.items()
                ],
                caption="ARM per intensity level (the sweep: the perturbations that have it)",
            )
        )
    metric = headline_metric(s)
    curves = rob.curves.get(metric) or {}
    if curves:
        parts.append(
            img_png(
                plots.line_chart(
                    {p: [(float(x), float(y)) for x, y in pts] for p, pts in curves.items()},
                    title=f"{metric_label(metric)} vs perturbation intensity",
                    x_label="intensity level (0 = original)",
                    y_label=metric_label(metric),
                ),
                "robustness curves",
                cls="plot",
            )
        )
    return join(parts)


@report_section("families", order=40)
def family_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    fam = summary_of(summary).families
    assert fam is not None  # the section is shown only when the summary has one
    names = {
        "family_accuracy_original": "accuracy on originals",
        "family_accuracy_variants": "accuracy on counterfactual edits",
        "family_accuracy_reconstruction": "accuracy on reconstructions from code",
        "family_consistency": "consistency (original right → every edit right)",
    }
    rows = [[names.get(sc.metric, sc.metric), pct(sc.value), sc.n] for sc in fam.scores]
    parts: list[Html] = [
        el("h2", "Counterfactual families (Chartographer)"),
        el(
            "p",
            "Each chart's original, its exact reconstruction from code and seed-controlled data edits; answers re-derived by the same programs.",
            cls="note",
        ),
        table(["metric", "%", "n"], rows),
    ]
    cells = fam.edit_break_rate
    if cells:
        edits = sorted({c.group["edit"] for c in cells})
        tasks = sorted({c.group["task_type"] for c in cells})
        cell = {(c.group["edit"], c.group["task_type"]): c for c in cells}
        grid = [
            [
                e,
                *(
                    f"{pct(cell[(e, t)].value)} (n={cell[(e, t)].n})" if (e, t) in cell else "–"
                    for t in tasks
                ),
            ]
            for e in edits
        ]
        parts.append(
            table(
                ["edit \\ task type", *tasks],
                grid,
                caption="share of answers broken by an edit, among questions answered right on the original",
            )
        )
    return join(parts)


_ROSCOE_ORDER = ("FS", "FT", "IS", "IC", "SRC", "SFC", "PS", "PC", "GS", "AS")


def _has_roscoe(summary: RunSummary) -> bool:
    roscoe = registry.explanation_scorers().get("roscoe")
    names = {m.name for m in roscoe.metrics} if roscoe is not None else set()
    return any(m.metric in names for m in summary.metrics)


def _by_metric(scores: Sequence[Score]) -> dict[str, Score]:
    return {m.metric: m for m in scores}


def _model(s: RunSummary) -> str:
    return "model" if s.model is None else s.model


@report_section("roscoe", order=50, when=_has_roscoe)
def roscoe_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    """ROSCOE means in the layout of ChartQA-X Table 5 (PS/PC on its 1 − 1/PPL scale)."""
    s = summary_of(summary)
    by = _by_metric(s.metrics)
    cells = [by.get(f"roscoe_{c.lower()}") for c in (*_ROSCOE_ORDER, "AS_renormalised")]
    row = [_model(s), *(fmt(c.value) if c else "–" for c in cells)]
    as_renorm = cells[-1]
    # "AS over N of 9 scores (...): not the paper's AS" when scores were missing
    label = as_renorm.note.split(" (")[0] if as_renorm and as_renorm.note else "AS renorm."
    notes = sorted({c.note for c in cells[:-1] if c and c.note})
    parts: list[Html] = [
        el("h2", "Explanation quality: ROSCOE"),
        table(
            ["model", *_ROSCOE_ORDER, label],
            [row],
            caption="means over answered samples — layout of ChartQA-X Table 5; the last column "
            "is the answer-selection score with the weights renormalised over the scores "
            "computed, not the paper's AS when fewer than 9 were",
        ),
    ]
    if notes:
        parts.append(el("p", "Not computed: ", "; ".join(notes), cls="note"))
    return join(parts)


@report_section("ngram", order=60)
def ngram_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    """BLEU-4, METEOR, ROUGE-L and CIDEr-D against reference explanations (Table 6 layout)."""
    s = summary_of(summary)
    ng = s.ngram
    assert ng is not None  # the section is shown only when the summary has one
    corpus = ng.corpus
    names = (
        ("bleu4", "BLEU-4"),
        ("meteor", "METEOR"),
        ("rouge_l", "ROUGE-L"),
        ("cider_d", "CIDEr-D"),
    )
    row = [_model(s), *(fmt(corpus.get(k)) for k, _ in names)]
    parts: list[Html] = [
        el("h2", "Explanation quality: n-gram overlap"),
        table(
            ["model", *(label for _, label in names)],
            [row],
            caption=f"against the reference explanations of {ng.n} samples — layout of ChartQA-X Table 6",
        ),
    ]
    own = ng.self_template
    if own:
        parts.append(
            el(
                "p",
                el("b", "Not a measure of explanation quality: "),
                f"{own.get('shared')} of {own.get('of')} reference explanations were written by "
                f"the same trace-to-text code ({own.get('generator')}) that writes this model's "
                "explanations, so these overlap scores are high by construction. The run is "
                "left out of explanation rankings.",
                cls="warn",
            )
        )
    notes = ng.notes
    if notes or ng.note:
        parts.append(
            el(
                "p",
                "; ".join(
                    [
                        *(f"{k}: {v}" for k, v in notes.items()),
                        *([ng.note] if ng.note else []),
                    ]
                ),
                cls="note",
            )
        )
    return join(parts)


def failures(summary: RunSummary | Mapping[str, Any]) -> Html:
    s = summary_of(summary)
    if not s.failures:
        return Html("")
    rows = [[f.sample_id, f.error] for f in s.failures]
    return join(
        [
            el("h2", f"Failed samples ({s.counts.failed or len(rows)})"),
            # every column is text: left-aligned, not the numeric tables' right alignment
            table(["sample", "error"], rows, cls="grid text"),
        ]
    )


def comparison(runs: Sequence[tuple[Path, RunRecord]]) -> Html:
    rows = list(zip(run_names(runs), (_record_summary(r) for _, r in runs), strict=True))
    return join(
        [
            el("h2", "Runs compared"),
            table3(rows, compare=True),
            *(compared_bars(rows, key) for key in ("chart_type", "task_type", "program")),
            explanation_ranking(rows),
        ]
    )


def compared_bars(rows: Sequence[tuple[str, RunSummary]], key: str) -> Html:
    """Grouped bars of the first run's headline metric per value of `key`, one bar per run
    (one run: plain bars; nothing when fewer than two values or no run has the breakdown)."""
    metric = headline_metric(rows[0][1])
    values = {
        name: {
            sc.group[key]: sc.value
            for sc in s.breakdowns.get(key, ())
            if sc.metric == metric and key in sc.group
        }
        for name, s in rows
    }
    labels = {k for v in values.values() for k in v}
    if len(labels) < 2:
        return Html("")
    png = plots.grouped_bars(
        values, title=f"{metric_label(metric)} by {key.replace('_', ' ')}", y_label=metric
    )
    return img_png(png, f"{metric} by {key} per run", cls="plot")


def explanation_ranking(rows: Sequence[tuple[str, RunSummary | Mapping[str, Any]]]) -> Html:
    """Runs ranked by CIDEr-D of their explanations against the references; a run whose
    explanations share the references' generator is listed apart, unranked."""
    typed = [(name, summary_of(s).ngram) for name, s in rows]
    scored = [
        (name, ng) for name, ng in typed if ng is not None and "corpus" in ng.model_fields_set
    ]
    if not scored:
        return Html("")
    ranked = sorted(
        ((n, ng) for n, ng in scored if not ng.self_template),
        key=lambda item: -(item[1].corpus.get("cider_d") or 0.0),
    )
    body: list[list[object]] = [
        [str(i), n, fmt(ng.corpus.get("bleu4")), fmt(ng.corpus.get("cider_d"))]
        for i, (n, ng) in enumerate(ranked, start=1)
    ]
    body += [
        ["not ranked", n, fmt(ng.corpus.get("bleu4")), fmt(ng.corpus.get("cider_d"))]
        for n, ng in scored
        if ng.self_template
    ]
    return join(
        [
            el("h3", "Explanations ranked by CIDEr-D"),
            table(
                ["rank", "run", "BLEU-4", "CIDEr-D"],
                body,
                caption="runs whose explanations come from the references' own generator are "
                "not ranked",
            ),
        ]
    )


def run_names(runs: Sequence[tuple[Path, RunRecord]]) -> list[str]:
    """`run_name` of each run, with the run folder's name added where two would read the
    same (one model and protocol on two datasets)."""
    names = [run_name(r) for _, r in runs]
    counts = Counter(names)
    return [
        f"{n} ({path.name})" if counts[n] > 1 else n
        for n, (path, _) in zip(names, runs, strict=True)
    ]


def run_name(record: RunRecord) -> str:
    s = _record_summary(record)
    model = s.model if s.model is not None else record.config.get("model", record.id)
    protocol = _protocol(s, record)
    return f"{model} · {protocol}" if protocol else str(model)
