"""Report sections of a bias audit run, in the layouts of seed 003: narrative shift
(Table 2 and the per-attribute Tables 9–14, heatmap Figure 5), group hallucination
(Table 3), polarity preference (Table 4, heatmap Figure 9), the causal trend-flip test,
the demographic-cue accuracy gap, mitigation (Table 5, heatmap Figure 11), eligibility
and an escaped gallery of paired outputs."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from chartproof.reports.html import Html, el, img_png, join, table
from chartproof.types import RunRecord, SampleResult

__all__ = ["audit_sections", "heatmap", "is_audit"]

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
    values: Mapping[str, Mapping[str, float | None]], *, title: str, cmap: str = "Reds"
) -> bytes:
    """Rows × columns heatmap with the value in each cell (None cells left blank)."""
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
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(cols)), cols)
    ax.set_yticks(range(len(rows)), rows)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not np.isnan(grid[i, j]):
                # white on the dark end of the colour map, black elsewhere: always legible
                low, high = image.get_clim()
                share = (grid[i, j] - low) / (high - low) if high > low else 0.0
                dark = share > 0.6
                colour = "white" if dark else "black"
                ax.text(
                    j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=9, color=colour
                )
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _attrs(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list(summary.get("attributes", []))


def _setting(record: RunRecord, key: str) -> tuple[Mapping[str, Any], str, list[dict[str, Any]]]:
    """The summary block of setting `key` ({} when the run has none), the model's name and the
    audited attributes."""
    s = record.summary
    return s.get(key, {}), str(s.get("model", record.id)), _attrs(s)


def _shift_head(names: Sequence[str]) -> list[str]:
    return ["Model"] + [f"{n} {h}" for n in names for h in ("Diss. ↓", "% > 0.1 ↓", "TOST")]


def _shift_row(label: str, block: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """One narrative-shift row: per attribute the mean dissimilarity, the share of pairs above
    0.10 and the TOST verdict."""
    return [label] + [
        x
        for n in names
        for x in (_f(block[n]["mean"]), _p(block[n]["share_above"]), _tost(block[n]["equivalent"]))
    ]


def _overview(record: RunRecord) -> Html:
    s = record.summary
    elig = s.get("eligibility", {})
    rows = [
        [a["name"], " / ".join(a["groups"]), elig.get(a["name"], {}).get("eligible", 0),
         elig.get(a["name"], {}).get("skipped", 0), elig.get(a["name"], {}).get("unchecked", 0)]
        for a in _attrs(s)
    ]  # fmt: skip
    model = str(s.get("model", ""))
    label = (
        " (text over table: the model reads the chart's table, not its pixels)"
        if model.startswith("text:")
        else ""
    )
    facts = [
        ("model", model + label),
        ("charts", s.get("charts")),
        ("counterfactual charts", s.get("counterfactual_charts")),
        ("polarity", ", ".join(f"{k}: {v}" for k, v in s.get("polarity_sources", {}).items())),
        ("embedder", s.get("embedder") or "none (dissimilarity not computed)"),
        ("sentiment", s.get("sentiment") or "none (judge not run)"),
        ("model calls", f"{s.get('calls', 0)} ({s.get('cached_calls', 0)} cached)"),
        ("failed units", s.get("failed", 0)),
        ("group selection", _SELECTION.get(str(s.get("selection", "generate")), "n/a")),
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


def _narrative(record: RunRecord) -> Html:
    block, model, attrs = _setting(record, "narrative")
    if not block:
        return Html("")
    names = [a["name"] for a in attrs]
    head = _shift_head(names)
    row = _shift_row(model, block, names)
    parts = [
        el("h3", "Narrative shift (Table 2)"),
        table(head, [row], caption="Mean 1 − cosine of the paired narratives' sentence "
              "embeddings, share of pairs above 0.10, TOST equivalence at ±0.10 (α = 0.05)."),
    ]  # fmt: skip
    for n in names:
        b = block[n]
        parts.append(
            table(["Model", "n", "Mean Diss.", "% > 0.1", "t", "p", "TOST"],
                  [[model, b["n"], _f(b["mean"]), _p(b["share_above"]), _f(b["t"]), _f(b["p"], 3),
                    "Eq." if b["equivalent"] else ("N.E." if b["equivalent"] is False else "n/a")]],
                  caption=f"{n}: H0 mean ≤ 0.10 vs H1 mean > 0.10 (one-sided t-test); "
                  + (b.get("note") or "") + (f" {b['not_computed']} pairs not computed." if b.get("not_computed") else ""))
        )  # fmt: skip
    cells = {model: {n: block[n]["mean"] for n in names}}
    if any(v is not None for v in cells[model].values()):
        parts.append(
            img_png(
                heatmap(cells, title="Narrative shift (mean dissimilarity)"), "heatmap", cls="plot"
            )
        )
    return join(parts)


def _hallucination(record: RunRecord) -> Html:
    block, model, attrs = _setting(record, "hallucination")
    if not block:
        return Html("")
    head = ["Model"] + [
        f"{a['name']} {_SHORT.get(g, g)}" for a in attrs for g in (*a["groups"], "abstain")
    ]
    row = [model] + [
        _p(block[a["name"]]["shares"].get(g)) for a in attrs for g in (*a["groups"], "abstain")
    ]
    pos = [
        [a["name"], block[a["name"]]["position"]["n"], _p(block[a["name"]]["position"]["first_listed"]),
         _p(block[a["name"]]["position"]["group_a"]), _p(block[a["name"]]["invalid"])]
        for a in attrs
    ]  # fmt: skip
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


def _polarity(record: RunRecord) -> Html:
    block, model, attrs = _setting(record, "polarity")
    if not block:
        return Html("")
    head = ["Model"] + [
        f"{a['name']} ({_SHORT.get(a['groups'][0], a['groups'][0])}) {p}"
        for a in attrs
        for p in ("Pos.", "Neu.", "Neg.", "Vol.")
    ]
    row = [model] + [
        _p(block[a["name"]]["shares"].get(p))
        for a in attrs
        for p in ("positive", "neutral", "negative", "volatile")
    ]
    counts = [
        [
            a["name"],
            *(
                block[a["name"]]["counts"].get(p, 0)
                for p in ("positive", "neutral", "negative", "volatile")
            ),
            _f(block[a["name"]]["gap"]),
        ]
        for a in attrs
    ]
    parts = [
        el("h3", "Preference polarity (Table 4)"),
        table(head, [row], caption="% of outputs naming the pair's first group per chart polarity "
              "(volatile apart, outside the gap)."),
        table(["attribute", "positive", "neutral", "negative", "volatile", "|pos − neg| gap"], counts,
              caption="Outputs behind each share, and the gap of Figure 9."),
    ]  # fmt: skip
    gaps = {model: {a["name"]: block[a["name"]]["gap"] for a in attrs}}
    if any(v is not None for v in gaps[model].values()):
        parts.append(
            img_png(
                heatmap(gaps, title="Preference-polarity gap |pos − neg|", cmap="Blues"),
                "heatmap",
                cls="plot",
            )
        )
    causal = record.summary.get("causal", {})
    if causal:
        rows = [
            [n, c["n"], _p(c["flip_rate"]), _p(c["baseline"]), c["abstained"]]
            for n, c in causal.items()
        ]
        parts.append(el("h3", "Causal polarity test (trend flips)"))
        parts.append(table(["attribute", "pairs", "% group flipped", "% expected if chart ignored", "pairs abstained"], rows,
                           caption="Each generated chart against its counterfactual with the trend reversed "
                           "(opposite polarity): a flip rate above the independence baseline 2p(1−p) says "
                           "the data's direction drives which group is named."))  # fmt: skip
    return join(parts)


def _cue(record: RunRecord) -> Html:
    block = record.summary.get("cue", {})
    if not block:
        return Html("")
    rows = []
    for n, c in block.items():
        for g, acc in c["accuracy"].items():
            rows.append([n, "no cue (control)" if g == "none" else g, c["counts"][g], _p(acc),
                         "" if g == "none" else _p(c["gaps"].get(g)), _p(c["spread"]) if g == "none" else ""])  # fmt: skip
    parts = [
        el("h3", "Demographic cue (accuracy per stated user group)"),
        table(["attribute", "user", "n", "accuracy %", "gap to control (pts)", "spread (pts)"], rows,
              caption="The user states their own group; the question is about the chart only. "
              "Relaxed accuracy against executable gold answers."),
    ]  # fmt: skip
    narr = record.summary.get("cue_narrative", {})
    if narr:
        parts.append(_cue_narrative(record, block, narr))
    return join(parts)


def _cue_narrative(record: RunRecord, cue: Mapping[str, Any], narr: Mapping[str, Any]) -> Html:
    """Per attribute: the accuracy gap between the two stated user groups beside the
    comparison of the narratives written for them (shift statistics and sentiment gap)."""
    rows = []
    for a in _attrs(record.summary):
        n = a["name"]
        if n not in narr:
            continue
        acc = cue.get(n, {}).get("accuracy", {})
        ga, gb = a["groups"]
        gap = (
            acc[ga] - acc[gb]
            if isinstance(acc.get(ga), int | float) and isinstance(acc.get(gb), int | float)
            else None
        )
        b, st = narr[n], narr[n]["sentiment"]
        rows.append([n, f"{ga} − {gb}", _p(gap), b["n"], _f(b["mean"], 3), _p(b["share_above"]),
                     _f(b["t"]), _f(b["p"], 3), _tost(b["equivalent"]), _f(st["mean_diff"], 3),
                     _f(st["p"], 3), _p(st["stance_agreement"])])  # fmt: skip
    return table(
        ["attribute", "users", "accuracy gap (pts)", "narrative pairs", "Diss. ↓", "% > 0.1 ↓",
         "t", "p", "TOST", "sentiment A − B", "p (≠ 0)", "% same stance"],
        rows,
        caption="The same chart and the same narrative task (about the chart, not the user), "
        "written for a user of each group: dissimilarity 1 − cosine of the two narratives with "
        "the narrative setting's statistics (one-sided t-test against 0.10, TOST at ±0.10), "
        "the mean VADER compound difference of the two narratives with its two-sided t-test "
        "against 0, and the share of pairs whose <opinion> spans take the same stance.",
    )  # fmt: skip


def _mitigation(record: RunRecord) -> Html:
    s = record.summary
    if "mitigation" not in s:
        return Html("")
    model = str(s.get("model", record.id))
    names = [a["name"] for a in _attrs(s)]
    head = _shift_head(names)

    def row(label: str, blk: Mapping[str, Any]) -> list[str]:
        return _shift_row(label, blk, names)

    rows = []
    if "narrative" in s:
        rows.append(row(model, s["narrative"]))
    rows.append(
        row(f"{model} paired from evidence", {n: s["mitigation"][n]["paired"] for n in names})
    )
    rows.append(row(f"{model}-Multistep", {n: s["mitigation"][n]["final"] for n in names}))
    if "nomask" in s:
        rows.append(row(f"{model} w/o masking", {n: s["nomask"][n]["final"] for n in names}))
    flags = [[n, s["mitigation"][n]["n"], _p(s["mitigation"][n]["flagged"]),
              _p(s.get("nomask", {}).get(n, {}).get("flagged"))] for n in names]  # fmt: skip
    parts = [
        el("h3", "Mitigation (Table 5)"),
        table(head, rows, caption="Masking → evidence → paired generation from the same evidence → "
              "judge (stance of the <opinion> spans, similarity, VADER sentiment) → rewrite of "
              "flagged pairs; the same statistics before and after."),
        table(["attribute", "pairs", "% flagged (masked)", "% flagged (w/o masking)"], flags),
    ]  # fmt: skip
    if "narrative" in s:
        gains = {model: {n: (None if s["narrative"][n]["mean"] is None or s["mitigation"][n]["final"]["mean"] is None
                             else s["narrative"][n]["mean"] - s["mitigation"][n]["final"]["mean"]) for n in names}}  # fmt: skip
        if any(v is not None for v in gains[model].values()):
            parts.append(
                img_png(
                    heatmap(
                        gains,
                        title="Mitigation gain (reduction in mean dissimilarity)",
                        cmap="Greens",
                    ),
                    "heatmap",
                    cls="plot",
                )
            )
    return join(parts)


def _skipped(record: RunRecord) -> Html:
    skipped = record.summary.get("skipped", [])
    if not skipped:
        return Html("")
    rows = [[e["chart"], e["attribute"], e["source"], e.get("reason") or ""] for e in skipped[:200]]
    return join([el("h3", f"Skipped chart–attribute pairs ({len(skipped)})"),
                 table(["chart", "attribute", "decided by", "why"], rows)])  # fmt: skip


def _gallery(results: Sequence[SampleResult]) -> Html:
    """A few paired narratives with every model output escaped."""
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
        items.append(
            el("div", el("div", f"{r.groups.get('chart')} · {r.groups.get('attribute')} · dissimilarity "
                        f"{_f(r.scores.get('dissimilarity'), 3)}", cls="q"), *cells, cls="item")
        )  # fmt: skip
    if not items:
        return Html("")
    return join([el("h3", "Most shifted pairs"), el("div", *items, cls="gallery")])


def audit_sections(record: RunRecord, results: Sequence[SampleResult]) -> list[Html]:
    """Every section of an audit run, in reading order."""
    return [
        _overview(record),
        _narrative(record),
        _hallucination(record),
        _polarity(record),
        _cue(record),
        _mitigation(record),
        _skipped(record),
        _gallery(results),
    ]
