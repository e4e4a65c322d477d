"""Report sections of a bias audit run, in the layouts of seed 003: narrative shift
(Table 2 and the per-attribute Tables 9–14, heatmap Figure 5), group hallucination
(Table 3), polarity preference (Table 4, heatmap Figure 9), the causal trend-flip test,
the demographic-cue accuracy gap, mitigation (Table 5, heatmap Figure 11), eligibility
and an escaped gallery of paired outputs.

Each section is registered with its place (`@audit_section(name, order=..., statistics=...)`
in `AUDIT_SECTIONS`) and says which audit statistics it shows; every other statistic of the
summary (`metrics.bias_summary.AUDIT_STATISTICS`) is shown as a table of its section's
fields, so a new statistic reaches the report without a section of its own."""

from __future__ import annotations

import io
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chartproof.metrics.bias import OpinionTags, PositionEffect
from chartproof.metrics.bias_summary import (
    AUDIT_STATISTICS,
    AuditSummary,
    CueNarrativeSection,
    CueSection,
    EligibilityCounts,
    HallucinationSection,
    PolaritySection,
    SentimentSection,
    ShiftSection,
)
from chartproof.reports.gallery import run_samples, thumbnail
from chartproof.reports.html import Html, el, img_png, join, table
from chartproof.types import RunRecord, SampleResult
from chartproof.types.registry import Registry

__all__ = [
    "AUDIT_SECTIONS",
    "AuditPage",
    "AuditSection",
    "audit_section",
    "audit_sections",
    "heatmap",
    "is_audit",
]


@dataclass(frozen=True)
class AuditPage:
    """What an audit report section renders from."""

    record: RunRecord
    """The run (its config and raw summary)."""
    summary: AuditSummary
    """The typed summary."""
    results: Sequence[SampleResult]
    """The run's results (empty when the report is built without them)."""


@dataclass(frozen=True)
class AuditSection:
    """A registered section of the audit report."""

    name: str
    """Section name."""
    render: Callable[[AuditPage], Html]
    """Renders it (an empty `Html` when the run has nothing for it)."""
    order: int
    """Place in the report (smaller first)."""
    statistics: tuple[str, ...] = ()
    """The audit statistics it shows (they get no table of their own)."""


AUDIT_SECTIONS: Registry[AuditSection] = Registry(
    "audit report section",
    modules=("chartproof.reports.bias",),
    group="chartproof.audit_sections",
)
"""Sections of the audit report by name (`audit_sections` puts them in `order`)."""

PageFn = Callable[[AuditPage], Html]


def audit_section(
    name: str, *, order: int, statistics: Sequence[str] = (), replace: bool = False
) -> Callable[[PageFn], PageFn]:
    """Register the decorated function `(page) -> Html` as the audit report section `name`
    at `order`, showing the audit `statistics` it names."""

    def register(fn: PageFn) -> PageFn:
        AUDIT_SECTIONS.register(
            name, AuditSection(name, fn, order, tuple(statistics)), replace=replace
        )
        return fn

    return register


_SHORT = {
    "Christian": "Christ.", "Immigrant": "Immig.", "Low-income": "Low",
    "High-income": "High", "abstain": "Abs.",
}  # fmt: skip


_SELECTION = {
    "generate": "generated reply, parsed (the paper's protocol)",
    "likelihood": "LIKELIHOOD-SCORED choice: the allowed reply of highest summed "
    "log-probability (lm-evaluation-harness style, not the paper's protocol)",
    "likelihood-norm": "LIKELIHOOD-SCORED choice: the allowed reply of highest "
    "log-probability per character (lm-evaluation-harness acc_norm, not the paper's protocol)",
}


def is_audit(record: RunRecord) -> bool:
    """Whether a run folder holds a bias audit."""
    return record.config.get("pipeline") == "audit"


def _f(value: Any, digits: int = 2) -> str:
    return "n/a" if not isinstance(value, int | float) else f"{float(value):.{digits}f}"


def _p(value: Any) -> str:
    return "n/a" if not isinstance(value, int | float) else f"{100 * float(value):.2f}"


def _tost(value: Any) -> str:
    return {True: "✓ Eq.", False: "✗ N.E."}.get(value, "n/a")


def heatmap(
    values: Mapping[str, Mapping[str, float | None]],
    *,
    title: str,
    cmap: str = "Reds",
    scale: tuple[float, float] = (0.0, 1.0),
    counts: Mapping[str, Mapping[str, int]] | None = None,
) -> bytes:
    """Rows × columns heatmap with the value (and, given `counts`, the n behind it) in each
    cell; None cells are left blank. The colour scale is fixed (`scale`, 0 to 1 unless a
    diverging measure asks for -1 to 1), so one row of two close values is not stretched
    into white against dark."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = list(values)
    cols = list(dict.fromkeys(c for r in values.values() for c in r))
    grid = np.array(
        [
            [np.nan if values[r].get(c) is None else float(values[r][c] or 0) for c in cols]
            for r in rows
        ]
    )
    fig = Figure(figsize=(1.2 * len(cols) + 2.2, 0.5 * len(rows) + 1.4), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow(
        np.ma.masked_invalid(grid), cmap=cmap, aspect="auto", vmin=scale[0], vmax=scale[1]
    )
    fig.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not np.isnan(grid[i, j]):
                # white on the dark end of the colour map, black elsewhere: always legible
                low, high = image.get_clim()
                share = (grid[i, j] - low) / (high - low) if high > low else 0.0
                # a diverging map is dark at both ends
                dark = share > 0.6 if scale[0] >= 0 else not 0.25 <= share <= 0.75
                colour = "white" if dark else "black"
                n = (counts or {}).get(rows[i], {}).get(cols[j])
                text = f"{grid[i, j]:.2f}" + (f"\nn={n}" if n is not None else "")
                ax.text(j, i, text, ha="center", va="center", fontsize=9, color=colour)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _names(s: AuditSummary) -> list[str]:
    return s.names()


def _label(s: AuditSummary, record: RunRecord) -> str:
    return s.model or record.id


def _tagged(tags: OpinionTags | None) -> str:
    """'tagged %' cell: the share of outputs that carried an `<opinion>` span, with n."""
    if tags is None:
        return "n/a"
    if not tags.outputs:
        return "no outputs"
    return f"{_p(tags.share_tagged)} ({tags.tagged}/{tags.outputs})"


NO_TAGS = "not computed (no tagged outputs)"
"""What an opinion-based cell says when no output carried an `<opinion>` span."""


def _shift_head(names: Sequence[str]) -> list[str]:
    return ["Model"] + [f"{n} {h}" for n in names for h in ("Diss. ↓", "% > 0.1 ↓", "TOST")]


def _shift_row(label: str, block: Mapping[str, ShiftSection], names: Sequence[str]) -> list[str]:
    """One narrative-shift row: per attribute the mean dissimilarity, the share of pairs above
    0.10 and the TOST verdict."""
    empty = ShiftSection.model_validate({})
    return [label] + [
        x
        for n in names
        for b in (block.get(n, empty),)
        for x in (_f(b.mean), _p(b.share_above), _tost(b.equivalent))
    ]


@audit_section("overview", order=10)
def _overview(page: AuditPage) -> Html:
    s = page.summary
    none = EligibilityCounts.model_validate({})
    rows = [
        [a.name, " / ".join(a.groups), e.eligible, e.skipped, e.unchecked]
        for a in s.attributes
        for e in (s.eligibility.get(a.name, none),)
    ]
    label = (
        f" ({s.model_reads}: the model reads the chart's table, not its pixels)"
        if s.model_reads
        else ""
    )
    fallback = (
        "none: an output without <opinion> tags has no opinion"
        if s.opinion_fallback == "none"
        else f"{s.opinion_fallback.upper()} of an untagged output taken as its opinion "
        "(an approximation, not the paper's protocol)"
    )
    facts = [
        ("model", s.model + label),
        ("charts", s.charts),
        ("counterfactual charts", s.counterfactual_charts),
        ("polarity", ", ".join(f"{k}: {v}" for k, v in s.polarity_sources.items())),
        ("embedder", s.embedder or "none (dissimilarity not computed)"),
        ("sentiment", s.sentiment or "none (judge not run)"),
        ("model calls", f"{s.calls} ({s.cached_calls} cached)"),
        ("failed units", s.failed),
        ("group selection", _SELECTION.get(s.selection, "n/a")),
        ("opinion fallback", fallback),
    ]
    return join(
        [
            el("h2", "Bias audit (ChartBias)"),
            el("p", join(el("span", el("b", k), ": ", v, " · ") for k, v in facts), cls="lead"),
            table(
                ["attribute", "pair", "eligible charts", "skipped", "unchecked"],
                rows,
                caption="Eligibility: a chart that names a group or the attribute itself is "
                "not audited for it (seed 003 Figure 7).",
            ),
        ]
    )


@audit_section("narrative", order=20, statistics=("narrative",))
def _narrative(page: AuditPage) -> Html:
    record, s = page.record, page.summary
    block = s.narrative
    if not block:
        return Html("")
    model, names = _label(s, record), _names(s)
    empty = ShiftSection.model_validate({})
    parts = [
        el("h3", "Narrative shift (Table 2)"),
        table(_shift_head(names), [_shift_row(model, block, names)],
              caption="Mean 1 − cosine of the paired narratives' sentence "
              "embeddings, share of pairs above 0.10, TOST equivalence at ±0.10 (α = 0.05)."),
    ]  # fmt: skip
    for n in names:
        b = block.get(n, empty)
        parts.append(
            table(["Model", "n", "Mean Diss.", "% > 0.1", "t", "p", "TOST", "tagged %"],
                  [[model, b.n, _f(b.mean), _p(b.share_above), _f(b.t), _f(b.p, 3),
                    "Eq." if b.equivalent else ("N.E." if b.equivalent is False else "n/a"),
                    _tagged(b.opinions)]],
                  caption=f"{n}: H0 mean ≤ 0.10 vs H1 mean > 0.10 (one-sided t-test); "
                  + (b.note or "") + (f" {b.not_computed} pairs not computed." if b.not_computed else "")
                  + " tagged %: outputs that put their opinion in <opinion> tags.")
        )  # fmt: skip
    cells = {model: {n: block.get(n, empty).mean for n in names}}
    if any(v is not None for v in cells[model].values()):
        parts.append(
            img_png(
                heatmap(
                    cells,
                    title="Narrative shift (mean dissimilarity)",
                    counts={model: {n: block.get(n, empty).n for n in names}},
                ),
                "heatmap",
                cls="plot",
            )
        )
    return join(parts)


@audit_section("hallucination", order=30, statistics=("hallucination",))
def _hallucination(page: AuditPage) -> Html:
    record, s = page.record, page.summary
    block = s.hallucination
    if not block:
        return Html("")
    model = _label(s, record)
    empty = HallucinationSection.model_validate({})
    head = ["Model"] + [
        f"{a.name} {_SHORT.get(g, g)}" for a in s.attributes for g in (*a.groups, "abstain")
    ]
    row = [model] + [
        _p(block.get(a.name, empty).shares.get(g)) for a in s.attributes for g in (*a.groups, "abstain")
    ]  # fmt: skip
    pos = []
    for a in s.attributes:
        b = block.get(a.name, empty)
        p = b.position or PositionEffect(n=0, first_listed=None, group_a=None)
        pos.append([a.name, p.n, _p(p.first_listed), _p(p.group_a), _p(b.invalid)])
    return join(
        [
            el("h3", "Group hallucination (Table 3)"),
            table(head, [row], caption="% of outputs naming each group and % abstentions; the "
                  "chart gives no evidence for either group, so abstaining is the expected answer."),
            table(["attribute", "committed", "% first listed", "% first group", "% unreadable"], pos,
                  caption="Both option orders asked: position preference (first listed, 50 = none) "
                  "apart from group preference (first group, 50 = none)."),
        ]
    )  # fmt: skip


_POLARITIES = ("positive", "neutral", "negative", "volatile")


@audit_section("polarity", order=40, statistics=("polarity", "causal"))
def _polarity(page: AuditPage) -> Html:
    record, s = page.record, page.summary
    block = s.polarity
    if not block:
        return Html("")
    model = _label(s, record)
    empty = PolaritySection.model_validate({})
    head = ["Model"] + [
        f"{a.name} ({_SHORT.get(a.groups[0], a.groups[0])}) {p}"
        for a in s.attributes
        for p in ("Pos.", "Neu.", "Neg.", "Vol.")
    ]
    row = [model] + [
        _p(block.get(a.name, empty).shares.get(p)) for a in s.attributes for p in _POLARITIES
    ]
    counts = [
        [a.name, *(b.counts.get(p, 0) for p in _POLARITIES), _f(b.gap)]
        for a in s.attributes
        for b in (block.get(a.name, empty),)
    ]
    parts = [
        el("h3", "Preference polarity (Table 4)"),
        table(head, [row], caption="% of outputs naming the pair's first group per chart polarity "
              "(volatile apart, outside the gap)."),
        table(["attribute", "positive", "neutral", "negative", "volatile", "|pos − neg| gap"], counts,
              caption="Outputs behind each share, and the gap of Figure 9."),
    ]  # fmt: skip
    gaps = {model: {a.name: block.get(a.name, empty).gap for a in s.attributes}}
    if any(v is not None for v in gaps[model].values()):
        parts.append(
            img_png(
                heatmap(
                    gaps,
                    title="Preference-polarity gap |pos − neg|",
                    cmap="Blues",
                    counts={
                        model: {
                            a.name: sum(block.get(a.name, empty).counts.values())
                            for a in s.attributes
                        }
                    },
                ),
                "heatmap",
                cls="plot",
            )
        )
    if s.causal:
        rows = [[n, c.n, _p(c.flip_rate), _p(c.baseline), c.abstained] for n, c in s.causal.items()]
        parts.append(el("h3", "Causal polarity test (trend flips)"))
        parts.append(table(["attribute", "pairs", "% group flipped", "% expected if chart ignored", "pairs abstained"], rows,
                           caption="Each generated chart against its counterfactual with the trend reversed "
                           "(opposite polarity): a flip rate above the independence baseline 2p(1−p) says "
                           "the data's direction drives which group is named."))  # fmt: skip
    return join(parts)


@audit_section("cue", order=50, statistics=("cue", "cue_narrative"))
def _cue(page: AuditPage) -> Html:
    s = page.summary
    block = s.cue
    if not block:
        return Html("")
    rows = []
    for n, c in block.items():
        for g, acc in c.accuracy.items():
            rows.append([n, "no cue (control)" if g == "none" else g, c.counts.get(g, 0), _p(acc),
                         "" if g == "none" else _p(c.gaps.get(g)), _p(c.spread) if g == "none" else ""])  # fmt: skip
    parts = [
        el("h3", "Demographic cue (accuracy per stated user group)"),
        table(["attribute", "user", "n", "accuracy %", "gap to control (pts)", "spread (pts)"], rows,
              caption="The user states their own group; the question is about the chart only. "
              "Relaxed accuracy against executable gold answers."),
    ]  # fmt: skip
    if s.cue_narrative:
        parts.append(_cue_narrative(s, block, s.cue_narrative))
    return join(parts)


def _stance(st: SentimentSection | None, tags: OpinionTags | None) -> str:
    """The stance-agreement cell: the share with its n, or why it is not computed."""
    if tags is None:
        # summaries written before tags were counted scored an untagged output's whole
        # text as its opinion: their agreement is not the opinion figure
        return "not recorded (older summary)"
    if st is None or st.stance_n == 0 or st.stance_agreement is None:
        return NO_TAGS if tags.tagged + tags.fallback == 0 else "n/a (no pair with two opinions)"
    return f"{_p(st.stance_agreement)} (n={st.stance_n})"


def _cue_narrative(
    s: AuditSummary, cue: Mapping[str, CueSection], narr: Mapping[str, CueNarrativeSection]
) -> Html:
    """Per attribute: the accuracy gap between the two stated user groups beside the
    comparison of the narratives written for them (shift statistics and sentiment gap)."""
    rows = []
    for a in s.attributes:
        n = a.name
        if n not in narr:
            continue
        acc = cue[n].accuracy if n in cue else {}
        ga, gb = a.groups
        va, vb = acc.get(ga), acc.get(gb)
        gap = va - vb if va is not None and vb is not None else None
        b = narr[n]
        st = b.sentiment
        rows.append([n, f"{ga} − {gb}", _p(gap), b.n, _f(b.mean, 3), _p(b.share_above),
                     _f(b.t), _f(b.p, 3), _tost(b.equivalent),
                     _f(st.mean_diff if st else None, 3), _f(st.p if st else None, 3),
                     _tagged(b.opinions), _stance(st, b.opinions)])  # fmt: skip
    return table(
        ["attribute", "users", "accuracy gap (pts)", "narrative pairs", "Diss. ↓", "% > 0.1 ↓",
         "t", "p", "TOST", "sentiment A − B", "p (≠ 0)", "tagged %", "% same stance"],
        rows,
        caption="The same chart and the same narrative task (about the chart, not the user), "
        "written for a user of each group: dissimilarity 1 − cosine of the two narratives with "
        "the narrative setting's statistics (one-sided t-test against 0.10, TOST at ±0.10), "
        "the mean VADER compound difference of the two narratives with its two-sided t-test "
        "against 0, the share of outputs that put their opinion in <opinion> tags, and the "
        "share of pairs whose two opinions take the same stance (over the n pairs with an "
        "opinion on both sides" + ("" if s.opinion_fallback == "none" else
        f"; {s.opinion_fallback.upper()} FALLBACK for untagged outputs") + ").",
    )  # fmt: skip


@audit_section("mitigation", order=60, statistics=("mitigation", "nomask"))
def _mitigation(page: AuditPage) -> Html:
    record, s = page.record, page.summary
    if not s.mitigation:
        return Html("")
    model, names = _label(s, record), _names(s)
    head = _shift_head(names)
    mit, nomask = s.mitigation, s.nomask or {}

    rows = []
    if s.narrative:
        rows.append(_shift_row(model, s.narrative, names))
    rows.append(
        _shift_row(f"{model} paired from evidence", {n: m.paired for n, m in mit.items()}, names)
    )
    rows.append(_shift_row(f"{model}-Multistep", {n: m.final for n, m in mit.items()}, names))
    if nomask:
        rows.append(
            _shift_row(f"{model} w/o masking", {n: m.final for n, m in nomask.items()}, names)
        )
    flags = []
    for n in names:
        m, u = mit.get(n), nomask.get(n)
        stance = (
            "n/a"
            if m is None or not m.judged
            else NO_TAGS
            if not m.stance_checked
            else f"{m.stance_checked}/{m.judged}"
        )
        flags.append(
            [
                n,
                m.n if m else 0,
                _p(m.flagged if m else None),
                _p(u.flagged if u else None),
                _tagged(m.paired.opinions if m else None),
                stance,
                _rejected(m),
            ]
        )
    parts = [
        el("h3", "Mitigation (Table 5)"),
        table(head, rows, caption="Masking → evidence → paired generation from the same evidence → "
              "judge (stance of the <opinion> spans, similarity, VADER sentiment) → rewrite of "
              "flagged pairs; the same statistics before and after." + _subset(page)),
        table(["attribute", "pairs", "% flagged (masked)", "% flagged (w/o masking)",
               "tagged % (paired texts)", "stance checked (pairs)", "rewrites rejected"], flags,
              caption="The judge compares the stances of the two <opinion> spans only where both "
              "paired texts carry one; elsewhere it flags on similarity and sentiment alone. A "
              "rewrite is used only if it names its group, differs from the neutral reference "
              "and states no number or trend the evidence lacks; a rejected pair keeps its "
              "paired texts."),
    ]  # fmt: skip
    if s.narrative:
        gains: dict[str, dict[str, float | None]] = {model: {}}
        for n in names:
            before = s.narrative[n].mean if n in s.narrative else None
            after = mit[n].final.mean if n in mit else None
            gains[model][n] = None if before is None or after is None else before - after
        if any(v is not None for v in gains[model].values()):
            parts.append(
                img_png(
                    heatmap(
                        gains,
                        title="Mitigation gain (reduction in mean dissimilarity)",
                        cmap="PiYG",
                        scale=(-1.0, 1.0),
                    ),
                    "heatmap",
                    cls="plot",
                )
            )
    return join(parts)


def _subset(page: AuditPage) -> str:
    """What the mitigation ran on when it was limited to the first pairs (`mitigation_pairs`)."""
    first = page.record.config.get("mitigation_pairs")
    if not isinstance(first, int):
        return ""
    s = page.summary
    ran = sum(m.n for m in (s.mitigation or {}).values())
    return (
        f" MITIGATION ON A SUBSET: the first {first} eligible chart–attribute pairs only "
        f"(n = {ran} pairs; 'pairs' below per attribute), while the narrative row covers "
        "every eligible pair."
    )


def _rejected(m: Any) -> str:
    """ "1/3 (copy 1, group_dropped 1)": rejected of rewritten pairs, by reason."""
    if m is None or not m.rewritten:
        return "–"
    why = ", ".join(f"{k} {v}" for k, v in sorted(m.rejected_for.items()))
    return f"{m.rejected}/{m.rewritten}" + (f" ({why})" if why else "")


@audit_section("skipped", order=80)
def _skipped(page: AuditPage) -> Html:
    s = page.summary
    if not s.skipped:
        return Html("")
    rows = [[e.chart, e.attribute, e.source, e.reason or ""] for e in s.skipped[:200]]
    return join([el("h3", f"Skipped chart–attribute pairs ({len(s.skipped)})"),
                 table(["chart", "attribute", "decided by", "why"], rows, cls="grid text")])  # fmt: skip


def _chart_images(record: RunRecord) -> dict[str, Path]:
    """Each chart id of the audit's dataset (sample ids and spec ids) → its image file."""
    from chartproof.datasets import resolve_image

    samples, root = run_samples(record)
    out: dict[str, Path] = {}
    if root is None:
        return out
    for sample in samples.values():
        for key in (sample.id, sample.spec.id if sample.spec is not None else None):
            if key is not None and key not in out:
                try:
                    out[key] = resolve_image(root, sample.image)
                except (OSError, ValueError):
                    continue
    return out


@audit_section("gallery", order=90)
def _gallery(page: AuditPage) -> Html:
    """The most shifted pairs: the chart beside its two narratives, every model output
    escaped."""
    results = page.results
    images = _chart_images(page.record) if results else {}
    items = []
    shown = sorted(
        (r for r in results if r.protocol == "audit.narrative" and r.error is None),
        key=lambda r: -(r.scores.get("dissimilarity") or 0.0),
    )[:6]
    for r in shown:
        # audit steps are the pipeline's own records (dicts), never chain or premise steps
        cells = [
            el("div", el("b", st.get("group")), el("pre", st.get("output", "")))
            for st in r.steps
            if isinstance(st, dict)
        ]
        path = images.get(r.groups.get("chart", ""))
        png = thumbnail(path) if path is not None else None
        chart = img_png(png, f"chart {r.groups.get('chart')}") if png else Html("")
        items.append(
            el("div", chart, el("div", f"{r.groups.get('chart')} · {r.groups.get('attribute')} · dissimilarity "
                        f"{_f(r.scores.get('dissimilarity'), 3)}", cls="q"), *cells, cls="item")
        )  # fmt: skip
    if not items:
        return Html("")
    return join([el("h3", "Most shifted pairs"), el("div", *items, cls="gallery")])


@audit_section("statistics", order=70)
def _other_statistics(page: AuditPage) -> Html:
    """Every statistic of the summary that no section shows: a table of its section's
    fields per attribute, captioned with their descriptions."""
    claimed = {k for section in AUDIT_SECTIONS.values() for k in section.statistics}
    parts = []
    for key, stat in AUDIT_STATISTICS.items():
        block = None if key in claimed else page.summary.statistic(key)
        if not block:
            continue
        fields = [
            (n, info) for n, info in stat.section.model_fields.items() if _scalar(info.annotation)
        ]
        rows = [
            [n, *(_cell(getattr(block[n], name, None)) for name, _ in fields)]
            for n in page.summary.names()
            if n in block
        ]
        caption = "; ".join(
            f"{name}: {info.description}" for name, info in fields if info.description
        )
        parts += [
            el("h3", stat.title),
            table(["attribute", *(n for n, _ in fields)], rows, caption=caption),
        ]
    return join(parts)


def _scalar(annotation: Any) -> bool:
    """Whether a field holds one number, text or flag (or None): a table cell."""
    return all(
        a in (int, float, str, bool, type(None))
        for a in typing.get_args(annotation) or (annotation,)
    )


def _cell(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "n/a"}[value]
    return _f(value, 3) if isinstance(value, float) else str(value)


def audit_sections(record: RunRecord, results: Sequence[SampleResult]) -> list[Html]:
    """Every registered section of an audit run, in order, from its typed summary."""
    page = AuditPage(record, AuditSummary.read(record.summary), results)
    return [
        section.render(page) for section in sorted(AUDIT_SECTIONS.values(), key=lambda x: x.order)
    ]
