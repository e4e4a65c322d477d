"""The report's sample gallery: a fixed, varied selection of answers with their chart
thumbnail, gold and predicted answers, the model's output (escaped) and step tables."""

from __future__ import annotations

import hashlib
import io
import logging
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from chartproof.metrics.registry import correct_value
from chartproof.reports.html import Html, el, img_png, join, table
from chartproof.types import ChainStepRecord, PremiseStepRecord, RunRecord, Sample, SampleResult

__all__ = ["GALLERY_SIZE", "GALLERY_VISIBLE", "THUMB_WIDTH", "gallery", "pick", "run_samples"]

log = logging.getLogger(__name__)

GALLERY_SIZE = 36
"""Samples a report shows at most."""
GALLERY_VISIBLE = 12
"""Samples shown open; the rest sit in one collapsed block, so the gallery does not crowd
out the figures above it."""
THUMB_WIDTH = 520


def thumbnail(path: Path) -> bytes | None:
    from PIL import Image

    try:
        with Image.open(path) as src:
            # a decompression bomb raises before any pixel is read; refuse it like a bad file
            im = src.convert("RGB")
        if im.width > THUMB_WIDTH:
            im = im.resize((THUMB_WIDTH, round(im.height * THUMB_WIDTH / im.width)))
        buf = io.BytesIO()
        im.save(buf, format="PNG", optimize=True)
        return buf.getvalue()
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


def _outcome(r: SampleResult) -> str:
    if r.error is not None:
        return "failed"
    return "right" if correct_value(r.scores) == 1.0 else "wrong"


def _chart_of(r: SampleResult) -> str:
    """The chart a result is about: its id before the question part and the variant."""
    return r.sample_id.split("~", 1)[0].rsplit("/", 1)[0]


def _spread(r: SampleResult) -> str:
    # a fixed pseudo-random order within a stratum, so picks come from the whole run and
    # not its first charts, and the same run always shows the same samples
    return hashlib.sha1(r.sample_id.encode("utf-8")).hexdigest()


def pick(results: Sequence[SampleResult], size: int = GALLERY_SIZE) -> list[SampleResult]:
    """A fixed selection that samples the whole run: one result in turn from every stratum
    of (chart type, perturbation, outcome), so every chart type, perturbation and outcome
    (right, wrong, failed) present shows up before any repeats; at most two results per
    chart, and at most four failures."""
    strata: dict[tuple[str, str, str], list[SampleResult]] = defaultdict(list)
    for r in results:
        key = (
            r.groups.get("chart_type", "?"),
            r.groups.get("perturbation", "original"),
            _outcome(r),
        )
        strata[key].append(r)
    # the round-robin order: chart types take turns, and each type starts at a different
    # (perturbation, outcome) stratum, so the first cycle already varies all three
    by_type: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for key in sorted(strata):
        by_type[key[0]].append(key)
    order = sorted(
        (key for keys in by_type.values() for key in keys),
        key=lambda k: (
            (by_type[k[0]].index(k) - sorted(by_type).index(k[0])) % len(by_type[k[0]]),
            sorted(by_type).index(k[0]),
        ),
    )
    queues = [sorted(strata[k], key=_spread) for k in order]
    picked: list[SampleResult] = []
    per_chart: Counter[str] = Counter()
    failures = 0
    # first a round-robin that keeps to two results per chart, then one that fills up
    for limit in (2, None):
        progress = True
        while len(picked) < size and progress:
            progress = False
            for queue in queues:
                for i, r in enumerate(queue):
                    if limit is not None and per_chart[_chart_of(r)] >= limit:
                        continue
                    if r.error is not None and failures >= 4:
                        continue
                    queue.pop(i)
                    failures += r.error is not None
                    per_chart[_chart_of(r)] += 1
                    picked.append(r)
                    progress = True
                    break
                if len(picked) >= size:
                    break
    return picked


def gallery(
    results: Sequence[SampleResult], samples_root: tuple[dict[str, Sample], Path | None]
) -> Html:
    samples, root = samples_root
    items: list[Html] = []
    thumbs: dict[str, bytes | None] = {}
    for r in pick(results):
        s = samples.get(r.sample_id)
        parts: list[Html] = []
        picture: list[Html] = []
        if s is not None and root is not None:
            n = len(s.images)
            for i, ref in enumerate(s.images, start=1):  # every chart of the question, in order
                if ref.path not in thumbs:
                    from chartproof.datasets import resolve_image

                    try:
                        thumbs[ref.path] = thumbnail(resolve_image(root, ref))
                    except (OSError, ValueError):
                        thumbs[ref.path] = None
                png = thumbs[ref.path]
                alt = f"chart of {s.id}" if n == 1 else f"chart {i} of {n} of {s.id}"
                if png is not None:
                    picture.append(img_png(png, alt))
                else:
                    picture.append(
                        el("div", "image unavailable (unreadable or too large)", cls="noimg")
                    )
        tags = [
            el("span", f"{k}: {v}", cls="tag")
            for k, v in sorted(r.groups.items())
            if k in ("chart_type", "question_type", "task_type", "perturbation", "level")
        ]
        parts.append(el("div", *tags))
        parts.append(el("div", s.question if s else r.sample_id, cls="q"))
        if r.error is not None:
            parts.append(el("div", el("span", "failed", cls="bad"), ": ", r.error))
        else:
            ok = correct_value(r.scores) == 1.0
            verdict = el("span", "right" if ok else "wrong", cls="ok" if ok else "bad")
            gold = s.answer.text() if s else "?"
            parts.append(
                el(
                    "div",
                    verdict,
                    " · gold: ",
                    el("b", gold),
                    " · predicted: ",
                    el("b", r.prediction if r.prediction is not None else "(none)"),
                )
            )
            if r.output:
                parts.append(el("pre", r.output))
            if r.steps:
                parts.append(steps_table(r))
        parts.append(el("div", r.sample_id, cls="note"))
        if r.steps:
            # a chain or premise table needs the page's width: picture beside it, not above
            items.append(el("div", el("div", *picture), el("div", *parts), cls="item wide"))
        else:
            items.append(el("div", *picture, *parts, cls="item"))
    if not items:
        return Html("")
    shown, rest = items[:GALLERY_VISIBLE], items[GALLERY_VISIBLE:]
    body = [el("div", *shown, cls="gallery")]
    if rest:
        body.append(
            el(
                "details",
                el("summary", f"{len(rest)} more samples"),
                el("div", *rest, cls="gallery"),
            )
        )
    strata = sorted({(r.groups.get("chart_type", "?")) for r in results})
    return join(
        [
            el("h2", "Samples"),
            el(
                "p",
                f"{len(items)} of {len(results)} results, drawn from the whole run: in turn "
                f"from every chart type ({len(strata)}), perturbation and outcome, at most two "
                "per chart. Model outputs are shown verbatim (escaped).",
                cls="note",
            ),
            *body,
        ]
    )


def steps_table(r: SampleResult) -> Html:
    rows: list[list[object]] = []
    for st in r.steps[:12]:
        if isinstance(st, PremiseStepRecord):
            rows.append([st.kind, st.statement, st.truth, st.prediction, _tick(st.correct)])
        elif isinstance(st, ChainStepRecord):
            rows.append([st.task_type, st.question, st.gold, st.prediction, _tick(st.correct)])
        else:
            # another pipeline's record (typed: an explanation candidate, a redraw), as a dict
            row = st if isinstance(st, dict) else st.model_dump(mode="json")
            rows.append(
                [
                    row.get("task_type"),
                    row.get("question"),
                    row.get("gold"),
                    row.get("prediction"),
                    _tick(bool(row.get("correct"))),
                ]
            )
    head = (
        ["kind", "premise", "truth", "said", ""]
        if r.steps and isinstance(r.steps[0], PremiseStepRecord)
        else ["task", "sub-question", "gold", "said", ""]
    )
    return table(head, rows, cls="grid steps")


def _tick(correct: bool) -> str:
    return "✓" if correct else "✗"


def run_samples(record: RunRecord) -> tuple[dict[str, Sample], Path | None]:
    """The run's samples by id and their image folder; empty when the data moved away."""
    from chartproof.datasets import load_dataset

    spec = record.config.get("data")
    if not spec:
        return {}, None
    try:
        loaded = load_dataset(spec)
    except (OSError, ValueError) as exc:
        log.warning("report: cannot read the run's dataset %s (%s); no chart images", spec, exc)
        return {}, None
    return {s.id: s for s in loaded.samples}, loaded.root
