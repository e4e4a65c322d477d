"""The glossary the report and the viewer end with: every task and premise code, and every
registered metric with its source and formula (a metric registered without an entry here
is listed with its registry description, so none goes unexplained)."""

from __future__ import annotations

from chartproof.metrics import registry
from chartproof.reports.html import Html, el, join, table

__all__ = ["CODES", "METRICS", "glossary"]

CHARTR = "ChartR"
REALCQA = "RealCQA-V2"
CHARTQA = "ChartQA"
ROSCOE = "ROSCOE (ChartQA-X)"

CODES: tuple[tuple[str, str, str], ...] = (
    ("VE", "value extraction: read one value off the chart", CHARTR),
    ("CI", "colour identification: name the colour of a mark or series", CHARTR),
    ("PR", "position identification: find which mark sits at a place", CHARTR),
    ("VC", "value comparison: compare two or more values", CHARTR),
    ("CP", "conditional processing: filter or select marks by a condition", CHARTR),
    ("TI", "trend identification: say how a series moves", CHARTR),
    ("SO", "sequence ordering: rank marks by value", CHARTR),
    ("NC", "numerical computation: compute from several values (sum, mean, ratio…)", CHARTR),
    ("SP", "structural premise: about the chart's layout (type, axes, legend)", REALCQA),
    ("DP", "data premise: about one value or label", REALCQA),
    ("RP", "reasoning premise: about a relation between values", REALCQA),
    ("MP", "math premise: about a computed quantity", REALCQA),
)
"""(code, meaning, paper) of the task types and premise kinds."""

METRICS: dict[str, tuple[str, str]] = {
    "accuracy": (
        "chartproof",
        "1 when the answer matches the gold by its kind: a number within the gold's own "
        "tolerance (years exact), text equal after normalising, yes/no read from the "
        "reply's start, lists as sets (ranked lists in order). Differs from relaxed "
        "accuracy where a gold sets its own tolerance (not a fixed 5 %) and where a yes/no "
        "reply goes on after its verdict, so the two may differ by a few samples either way",
    ),
    "relaxed_accuracy": (
        CHARTQA,
        "1 when a numeric answer is within 5 % of the gold (|pred − gold| ≤ 0.05·|gold|), "
        "else the normalised text must equal the gold's; the papers' headline number",
    ),
    "exact_match": ("—", "1 when the normalised answer equals the gold text (case ignored)"),
    "anls": (
        "ST-VQA / ANLS*",
        "1 − normalised Levenshtein distance, 0 below 0.5 similarity; lists matched item "
        "by item (ANLS*)",
    ),
    "chance_corrected_accuracy": ("—", "(accuracy − 1/k) / (1 − 1/k) for k options"),
    "isa": (CHARTR, "ISA = mean over chains of the share of its steps (and final) right"),
    "csa": (CHARTR, "CSA: a step counts only when it and every step it depends on are right"),
    "faa": (CHARTR, "FAA: accuracy of the chain's final answer alone"),
    "cfa": (CHARTR, "CFA: 1 only when every step and the final answer are right"),
    "premise_accuracy": (REALCQA, "share of a question's premises judged right"),
    "acc_vpp": (REALCQA, "Acc_VPP: 1 when every premise of the question is judged right"),
    "premise_balanced_accuracy": (REALCQA, "mean of the accuracies on true and on false premises"),
    "dcp": (
        REALCQA,
        "DCP = mean over the sequences with a wrong premise of (right premises / premises); "
        "0 when none has a wrong premise",
    ),
    "arm": (
        CHARTR,
        "ARM = (M_original − mean over perturbations of M_v) / M_original; near 0 is robust; "
        "negative when perturbed charts score higher (a weak baseline)",
    ),
    "cf_sensitivity": (
        "—",
        "share of (original, counterfactual) pairs whose gold answers differ where the "
        "model's two answers differ too, compared as the golds are (numbers within their "
        "tolerance, labels as text); a model that ignores the chart scores 0",
    ),
    "cf_follow": (
        "—",
        "share of those pairs answered right on the counterfactual, of the pairs answered "
        "right on the original",
    ),
    "cf_both_right": ("—", "share of those pairs answered right on both charts"),
    **{
        f"roscoe_{key}": (ROSCOE, text)
        for key, text in (
            (
                "fs",
                "FS, faithfulness-step: mean over explanation steps h_i of r-align(h_i → s), "
                "each step's best scaled cosine to a source sentence",
            ),
            (
                "ft",
                "FT, faithfulness-token: the step alignments and every step token's alignment "
                "to the source tokens, averaged together",
            ),
            ("is", "IS, informativeness-step: (mean r-align(s → h) + mean r-align(h → s)) / 2"),
            (
                "ic",
                "IC, informativeness-chain: (1 + cos(h, s)) / 2 of the whole explanation's "
                "and the whole source's embeddings (the reference code scales it twice)",
            ),
            (
                "src",
                "SRC, source consistency: 1 − the largest NLI contradiction probability of "
                "a step against a source sentence (needs an NLI model)",
            ),
            (
                "sfc",
                "SFC, self-consistency: 1 − the largest NLI contradiction probability "
                "between two steps (needs an NLI model)",
            ),
            ("ps", "PS, perplexity-step: 1 / mean perplexity of the steps under a language model"),
            ("pc", "PC, perplexity-chain: 1 / perplexity of the whole explanation"),
            ("gs", "GS, grammar: mean over steps of a grammar acceptability score"),
            (
                "as",
                "AS = 0.20 FS + 0.15 FT + 0.15 IS + 0.15 IC + 0.10 SRC + 0.10 SFC + 0.05 PS "
                "+ 0.05 PC + 0.05 GS (ChartQA-X); labelled 'AS over N of 9 scores' when some "
                "score was not computed and the weights are renormalised, which is not the paper's",
            ),
        )
    },
}
"""Metric → (paper, definition and formula) for the metrics a reader meets first."""


def glossary() -> Html:
    """The glossary section: codes, then every registered metric."""
    codes = table(
        ["code", "meaning", "from"], [list(c) for c in CODES], cls="grid text", caption=None
    )
    rows = []
    for m in registry.metrics().values():
        source, text = METRICS.get(m.name, ("—", m.description or "(no description)"))
        rows.append([m.display, m.name, source, text])
    for name in sorted(set(METRICS) - set(registry.metrics())):
        source, text = METRICS[name]
        rows.append([name.upper() if len(name) <= 4 else name, name, source, text])
    metrics = table(["metric", "key", "from", "definition"], rows, cls="grid text")
    return join(
        [
            el("h2", "Glossary", id="glossary"),
            el("h3", "Task and premise codes"),
            codes,
            el("h3", "Metrics"),
            metrics,
        ]
    )
