"""`view`: one self-contained HTML page listing every sample of one or more runs, with
filters, search, sorting, a sample panel (images, exact prompt, raw reply, parsed answer,
gold, steps, scores, latency, cache) and, with several runs, their paired comparison.

The page works offline from ``file://``: its script and stylesheet (`assets/viewer.js`,
`assets/viewer.css`, hand-written, no dependencies) are inlined, the data is one JSON
document in a ``<script type="application/json">`` element with every ``<``, ``>`` and
``&`` written as a JSON escape (no model text can close the element), and the script puts
model text on the page with `textContent` only. Rows are drawn as they scroll into view,
so 10^5 samples stay responsive; facet values and prompt templates are stored once.
"""

from __future__ import annotations

import base64
import json
import logging
import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from chartproof.metrics import registry
from chartproof.reports.compare import PairedComparison, compare
from chartproof.reports.gallery import run_samples, thumbnail
from chartproof.reports.glossary import glossary
from chartproof.reports.html import Html, document, el, join, table
from chartproof.reports.sections import fmt, run_names
from chartproof.runs import Run, load_run
from chartproof.types import SampleResult

__all__ = ["ImageMode", "outcome", "view", "view_html"]

log = logging.getLogger(__name__)

ImageMode = Literal["embed", "link", "none"]
"""How the page shows chart images: thumbnails inside the file (self-contained), links to
the dataset's files (small page, needs the data folder), or not at all."""

FACET_KEYS = (
    "chart_type", "task_type", "question_type", "program", "perturbation", "level",
    "family_member", "split",
)  # fmt: skip
"""Group labels offered as filters first, in this order; any other label follows."""

OUTCOMES = ("right", "wrong", "failed", "unscored")
"""Outcomes of a result (`outcome`), in the order the page codes them."""

_COLUMNS = ("r", "i", "o", "pr", "q", "a", "p", "h", "l", "e", "m")
"""The list's columns: run, sample id, outcome, protocol, question, gold, prediction,
headline score, latency, error, image keys."""

_PROMPT_MARK = "\u0000Q"
"""Stands for the question inside a stored prompt template (NUL never occurs in prompts
that use it: a prompt holding NUL is stored whole)."""


def outcome(result: SampleResult) -> str:
    """ "failed" (a model call failed), "right" / "wrong" (the first right/wrong metric is
    1 / below 1), or "unscored" (no right/wrong metric recorded)."""
    if result.error is not None:
        return "failed"
    value = registry.correct_value(result.scores)
    if value is None:
        return "unscored"
    return "right" if value == 1.0 else "wrong"


def view(*runs: str | Path, out: str | Path | None = None, images: ImageMode = "embed") -> Path:
    """Write the viewer page of one or more run folders; returns its path (default
    `RUN/view.html` of the first run)."""
    if not runs:
        raise ValueError("view needs at least one run folder")
    loaded = [(Path(r), load_run(r)) for r in runs]
    target = Path(out) if out is not None else loaded[0][0] / "view.html"
    text = view_html(loaded, images=images, base=target.parent)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def view_html(
    runs: Sequence[tuple[Path, Run]], *, images: ImageMode = "embed", base: Path | None = None
) -> str:
    """The viewer page of loaded runs; `base` is the page's folder (for linked images)."""
    names = run_names([(p, r.record) for p, r in runs])
    builder = _Payload(images, base)
    for i, ((path, run), name) in enumerate(zip(runs, names, strict=True)):
        builder.add_run(i, name, path, run)
    comparisons = [compare(runs[0][1].results, run.results) for _, run in runs[1:]]
    payload = builder.finish(comparisons, names)
    body = [
        el("header", el("h1", "chartproof viewer"), el("p", " · ".join(names), cls="note")),
        _tabs(len(runs) > 1),
        el("section", _runs_table(runs, names), id="cp-tab-runs", hidden=True),
        el("section", _samples_skeleton(), id="cp-tab-samples"),
    ]
    if comparisons:
        section = [
            _comparison_html(c, names[0], names[i + 1], i) for i, c in enumerate(comparisons)
        ]
        body.append(el("section", *section, id="cp-tab-compare", hidden=True))
    body.append(el("section", glossary(), id="cp-tab-glossary", hidden=True))
    return _page("chartproof viewer · " + names[0], payload, builder.details, body)


# ------------------------------------------------------------------------------ payload


class _Payload:
    """The page's JSON data, built run by run with strings and prompt templates interned."""

    def __init__(self, images: ImageMode, base: Path | None) -> None:
        self.images = images
        self.base = base
        self.strings: list[str] = []
        self._string_ids: dict[str, int] = {}
        self.image_src: dict[str, str] = {}
        self._image_keys: dict[Path, str] = {}
        self.rows: list[dict[str, Any]] = []
        self.details: list[dict[str, Any]] = []
        self.metric_index: dict[str, int] = {}
        self.runs: list[dict[str, Any]] = []
        self.row_of: list[dict[str, int]] = []

    def intern(self, text: str) -> int:
        found = self._string_ids.get(text)
        if found is None:
            found = self._string_ids[text] = len(self.strings)
            self.strings.append(text)
        return found

    def add_run(self, index: int, name: str, path: Path, run: Run) -> None:
        record = run.record
        samples, root = run_samples(record) if self.images != "none" else ({}, None)
        summary = record.read_summary()
        self.runs.append(
            {
                "name": name,
                "id": record.id,
                "path": str(path),
                "model": summary.model or str(record.config.get("model", "")),
                "protocol": summary.protocol,
                "n": len(run.results),
            }
        )
        rows: dict[str, int] = {}
        for result in run.results:
            sample = samples.get(result.sample_id)
            paths = list(result.images) or ([sample.image.path] if sample is not None else [])
            keys = [k for p in paths if (k := self._image(root, p)) is not None]
            rows[result.sample_id] = len(self.rows)
            self.rows.append(self._row(index, result, keys))
            self.details.append(self._detail(result))
        self.row_of.append(rows)

    def _image(self, root: Path | None, rel: str) -> str | None:
        if root is None or self.images == "none":
            return None
        from chartproof.datasets import resolve_image

        try:
            path = resolve_image(root, rel)
        except (OSError, ValueError) as exc:
            log.warning("view: image %s not shown (%s)", rel, exc)
            return None
        key = self._image_keys.get(path)
        if key is not None:
            return key
        if self.images == "link":
            src = _relative_url(path, self.base)
        else:
            png = thumbnail(path)
            if png is None:
                return None
            src = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        key = self._image_keys[path] = str(len(self._image_keys))
        self.image_src[key] = src
        return key

    def _row(self, run: int, r: SampleResult, images: list[str]) -> dict[str, Any]:
        """The fields the list, filters and search read (the rest is in `_detail`)."""
        head = registry.correct_value(r.scores)
        if head is None and r.scores:
            head = next(iter(r.scores.values()))
        row: dict[str, Any] = {
            "r": run,
            "i": r.sample_id,
            "o": OUTCOMES.index(outcome(r)),
            "pr": self.intern(r.protocol),
            "g": {k: self.intern(v) for k, v in r.groups.items()},
            "q": r.question,
            "a": r.gold,
            "p": r.prediction,
            "h": head if head is None or math.isfinite(head) else None,
            "l": round(r.latency_s, 4),
        }
        row["e"] = r.error
        row["m"] = images or None
        return row

    def _detail(self, r: SampleResult) -> dict[str, Any]:
        """What only the sample panel (and a search of the replies) reads: parsed by the
        page on first use, so opening it does not wait for the bulk of the text."""
        scores = {
            str(self.metric_index.setdefault(m, len(self.metric_index))): (
                v if v is None or math.isfinite(v) else None
            )
            for m, v in r.scores.items()
        }
        row: dict[str, Any] = {"x": r.output, "s": scores, "k": r.cached, "n": r.calls}
        if r.prompt is not None:
            row["pi"] = self.intern(r.prompt)
        if r.prompt_text is not None:
            text, question = r.prompt_text, r.question
            if question and "\u0000" not in text and text.count(question) == 1:
                row["t"] = self.intern(text.replace(question, _PROMPT_MARK))
            else:
                row["T"] = text
        optional = {
            "h2": r.explanation,
            "c": list(r.choices) or None,
            "st": [s if isinstance(s, dict) else s.model_dump(mode="json") for s in r.steps]
            or None,
        }
        row.update({k: v for k, v in optional.items() if v is not None})
        return row

    def finish(self, comparisons: Sequence[PairedComparison], names: list[str]) -> dict[str, Any]:
        present = {k for row in self.rows for k in row["g"]}
        keys = [k for k in FACET_KEYS if k in present]
        keys += sorted(present - set(keys))
        lists = []
        for i, c in enumerate(comparisons):
            rows_a, rows_b = self.row_of[0], self.row_of[i + 1]
            lists.append(
                {
                    "a": 0,
                    "b": i + 1,
                    "a_right": [[rows_a[s], rows_b[s]] for s in c.a_right_b_wrong],
                    "b_right": [[rows_a[s], rows_b[s]] for s in c.b_right_a_wrong],
                }
            )
        return {
            "runs": self.runs,
            "strings": self.strings,
            "groups": keys,
            "outcomes": OUTCOMES,
            "metrics": list(self.metric_index),
            "labels": {k: k.replace("_", " ") for k in keys},
            # column-wise: JSON.parse reads ten arrays much faster than 10^5 objects
            "cols": {c: [row[c] for row in self.rows] for c in _COLUMNS},
            "gcols": {k: [row["g"].get(k, -1) for row in self.rows] for k in keys},
            "images": self.image_src,
            "compare": lists,
            "mark": _PROMPT_MARK,
        }


def _relative_url(path: Path, base: Path | None) -> str:
    import os
    from urllib.parse import quote

    if base is not None:
        try:
            return quote(os.path.relpath(path, base.resolve()).replace(os.sep, "/"))
        except ValueError:
            pass
    return path.resolve().as_uri()


# ------------------------------------------------------------------------------ markup


def _tabs(compare_tab: bool) -> Html:
    buttons = [
        el("button", "Samples", type="button", data_tab="samples", cls="on"),
        el("button", "Runs", type="button", data_tab="runs"),
    ]
    if compare_tab:
        buttons.append(el("button", "Compare", type="button", data_tab="compare", id="cp-compare"))
    buttons.append(el("button", "Glossary", type="button", data_tab="glossary"))
    return el("nav", *buttons, cls="cp-tabs")


def _samples_skeleton() -> Html:
    return join(
        [
            el(
                "div",
                el(
                    "input",
                    type="search",
                    id="cp-search",
                    placeholder="search id, question, gold, answer, reply…",
                ),
                el("span", "", id="cp-filters"),
                el("button", "clear filters", type="button", id="cp-clear"),
                el("span", "", id="cp-count", cls="cp-count"),
                cls="cp-bar",
            ),
            el("div", "", id="cp-set", hidden=True, cls="warn"),
            el("div", "", id="cp-head", cls="cp-row cp-headrow"),
            el("div", el("div", "", id="cp-spacer"), el("div", "", id="cp-rows"), id="cp-list"),
            el("aside", "", id="cp-panel", hidden=True),
        ]
    )


def _runs_table(runs: Sequence[tuple[Path, Run]], names: Sequence[str]) -> Html:
    """Every run's overall metrics, aligned by metric."""
    summaries = [run.record.read_summary() for _, run in runs]
    scores = [s.scores or {m.metric: m.value for m in s.metrics if not m.group} for s in summaries]
    metrics = list(dict.fromkeys(m for sc in scores for m in sc))
    rows = [
        [registry.metric_label(m), *(fmt(sc.get(m)) if m in sc else "—" for sc in scores)]
        for m in metrics
    ]
    facts = [
        ["folder", *(str(p) for p, _ in runs)],
        ["results", *(str(len(r.results)) for _, r in runs)],
        ["failed", *(str(sum(x.error is not None for x in r.results)) for _, r in runs)],
    ]
    return join(
        [
            el("h2", "Runs"),
            el(
                "div",
                table(["", *names], facts + rows, caption="overall metrics of each run"),
                cls="scroll",
            ),
        ]
    )


def _p(value: float | None, metric: str) -> Html:
    if value is None:
        return el("span", "—")
    shown = f"{value:.2g}" if value < 0.001 else f"{value:.3f}"
    return el("span", shown, cls="cp-p", data_p=repr(value), data_metric=metric)


def _comparison_html(c: PairedComparison, a: str, b: str, index: int) -> Html:
    parts: list[Html] = [el("h2", f"{b} vs {a}")]
    if c.only_a or c.only_b:
        parts.append(
            el(
                "p",
                el("strong", "The runs cover different samples. "),
                f"{c.shared} shared, {c.only_a} only in {a}, {c.only_b} only in {b}: "
                f"everything below compares the {c.shared} shared samples only.",
                cls="warn cp-differ",
            )
        )
    else:
        parts.append(el("p", f"Both runs cover the same {c.shared} samples.", cls="note"))
    parts.extend(el("p", n, cls="note") for n in c.notes)
    rows = [
        [
            registry.metric_label(d.metric),
            str(d.n),
            fmt(d.a),
            fmt(d.b),
            el(
                "span", f"{d.delta:+.3f}", cls="ok" if d.delta > 0 else "bad" if d.delta < 0 else ""
            ),
            f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]",
            str(d.a_only) if d.binary else "—",
            str(d.b_only) if d.binary else "—",
            _p(d.p_value, d.metric),
        ]
        for d in c.metrics
    ]
    heads = ["metric", "n", a, b, "Δ (B − A)", "95 % CI of Δ", "A right, B wrong"]
    heads += ["B right, A wrong", "McNemar p"]
    parts.append(
        el(
            "div",
            table(
                heads,
                rows,
                caption="A = "
                + a
                + ", B = "
                + b
                + ". CI: paired bootstrap over samples (10,000 resamples, percentile). "
                "McNemar: exact two-sided binomial test on the discordant samples, for "
                "right/wrong metrics. A failed sample counts as its summary counts it.",
            ),
            cls="scroll",
            data_compare=str(index),
        )
    )
    if c.groups:
        metric = next((d.metric for d in c.metrics if d.binary), c.metrics[0].metric)
        grows = [
            [g.key, g.value, str(g.n), fmt(g.a), fmt(g.b), f"{g.delta:+.3f}",
             str(g.a_only), str(g.b_only), _p(g.p_value, metric)]
            for g in c.groups
        ]  # fmt: skip
        parts.append(el("h3", f"{registry.metric_label(metric)} per group"))
        parts.append(
            el(
                "div",
                table(
                    ["group", "value", "n", a, b, "Δ", "A right, B wrong", "B right, A wrong", "p"],
                    grows,
                    caption="p-values are per group and not corrected for the many groups.",
                ),
                cls="scroll",
            )
        )
    for side, who, count in (
        ("a_right", f"{a} right, {b} wrong", len(c.a_right_b_wrong)),
        ("b_right", f"{b} right, {a} wrong", len(c.b_right_a_wrong)),
    ):
        parts.append(el("h3", f"{who} ({count})"))
        parts.append(el("div", "", cls="cp-cards", data_list=f"{index}:{side}"))
    return el("div", *parts, cls="cp-comparison")


def _asset(name: str) -> str:
    return resources.files("chartproof.reports").joinpath("assets", name).read_text("utf-8")


def _json_script(element_id: str, value: Any) -> Html:
    """`value` as a JSON data element. Inside <script> only the text "</script" ends the
    element: every <, > and & is written as a JSON escape, so no model text can close it,
    and JSON.parse reads it unchanged."""
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    data = data.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Html(f'<script type="application/json" id="{element_id}">{data}</script>')


def _page(
    title: str, payload: dict[str, Any], details: list[dict[str, Any]], body: Sequence[Html]
) -> str:
    script = _asset("viewer.js")
    if "</" in script:
        raise RuntimeError("viewer.js must not contain '</' (it is inlined in a <script>)")
    return document(
        title,
        _asset("viewer.css"),
        el(
            "body",
            el("main", *body),
            _json_script("cp-data", payload),
            Html(f"<script>{script}</script>"),
            # after the script: the list is drawn before the parser reaches the bulk
            _json_script("cp-detail", details),
        ),
    )
