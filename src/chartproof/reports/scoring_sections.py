"""Report sections of scoring: each benchmark's published score beside chartproof's
(`metrics.conventions`), the judge's verdicts with their agreement (`metrics.judging`), and
the counterfactual sensitivity of the answers (`metrics.cf_sensitivity`).
Registered on import (`reports.build` imports this module); model outputs are escaped by
`table`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chartproof.reports.html import Html, el, join, table
from chartproof.reports.sections import fmt, pct, report_section, summary_of
from chartproof.types import RunSummary

__all__ = ["conventions_section", "counterfactual_section", "judge_section"]


@report_section("conventions", order=5)
def conventions_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    """Each benchmark's published score beside chartproof's, and where the two disagree
    (`metrics.conventions`); every model output is escaped by `table`."""
    section = summary_of(summary).section("conventions") or {}
    rows = []
    differ: list[list[object]] = []
    for name, fig in section.items():
        plus = fig.get("acc_plus")
        rows.append(
            [
                name,
                fig.get("title"),
                pct(fig.get("official")),
                pct(fig.get("chartproof")),
                fig.get("n"),
                fig.get("disagree"),
                "" if plus is None else f"{pct(plus)} ({fig.get('pairs')} pairs)",
            ]
        )
        for d in fig.get("disagreements", []):
            differ.append(
                [name, d["sample_id"], d["prediction"], d["gold"], d["official"], d["chartproof"]]
            )
    parts: list[Html] = [
        el("h2", "Published scoring conventions"),
        table(
            ["convention", "scorer", "official %", "chartproof %", "n", "disagree", "Acc+"],
            rows,
            caption="each benchmark's reference scorer reproduced exactly, beside chartproof's accuracy",
        ),
        el(
            "p",
            "; ".join(f"{name}: {fig.get('reference')}" for name, fig in section.items()),
            cls="note",
        ),
    ]
    if differ:
        parts.append(
            table(
                ["convention", "sample", "prediction", "gold", "official", "chartproof"],
                differ,
                cls="grid text",
                caption="samples where the published scorer and chartproof disagree",
            )
        )
    return join(parts)


@report_section("judge", order=6)
def judge_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    """The judge's verdicts and their agreement with the rule-based scores
    (`metrics.judging`); every model output is escaped by `table`."""
    j = summary_of(summary).section("judge") or {}
    rows = [
        [rule, a.get("n"), pct(a.get("agreement")), fmt(a.get("kappa"))]
        for rule, a in (j.get("agreement") or {}).items()
    ]
    differ = [
        [d["sample_id"], d["prediction"], fmt(d["judge"]), fmt(d["accuracy"]), fmt(d["official"])]
        for d in j.get("disagreements", [])
    ]
    parts: list[Html] = [
        el("h2", "Judge"),
        el(
            "p",
            f"{j.get('model')} with {j.get('prompt')}: {pct(j.get('judge'))} % of "
            f"{j.get('n')} answers judged correct; {j.get('ungraded', 0)} not graded "
            "(failed call or no verdict).",
            cls="note",
        ),
        table(["rule", "n", "agreement %", "Cohen's κ"], rows, caption="judge vs rule"),
    ]
    if differ:
        parts.append(
            table(
                ["sample", "prediction", "judge", "accuracy", "official"],
                differ,
                cls="grid text",
                caption="samples where the judge and chartproof's accuracy disagree",
            )
        )
    return join(parts)


_CF_NAMES = {
    "cf_sensitivity": "sensitivity (the answer changed with the chart)",
    "cf_follow": "follow (right on the counterfactual, of pairs right on the original)",
    "cf_both_right": "both right",
}


@report_section("cf_sensitivity", order=45)
def counterfactual_section(summary: RunSummary | Mapping[str, Any]) -> Html:
    """Counterfactual sensitivity (ChartCF) over the (original, counterfactual) pairs whose
    gold answers differ, with the constant-answer baseline beside it."""
    section = summary_of(summary).cf_sensitivity
    assert section is not None  # the section is shown only when the summary has one
    rows = [
        [_CF_NAMES.get(sc.metric, sc.metric), pct(sc.value), sc.n, sc.note or ""]
        for sc in section.scores
    ]
    return join(
        [
            el("h2", "Counterfactual sensitivity (ChartCF)"),
            el(
                "p",
                "Pairs of an original chart and a counterfactual edit of its data that changes "
                "the right answer. A model that ignores the chart answers both alike: its "
                "sensitivity is 0.",
                cls="note",
            ),
            table(["metric", "%", "pairs", "how"], rows),
        ]
    )
