"""The report's sample gallery: a fixed, varied selection of answers with their chart
thumbnail, gold and predicted answers, the model's output (escaped) and step tables."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from chartproof.metrics.registry import correct_value
from chartproof.reports.html import Html, el, img_png, join, table
from chartproof.types import ChainStepRecord, PremiseStepRecord, Sample, SampleResult

__all__ = ["GALLERY_SIZE", "THUMB_WIDTH", "gallery"]

GALLERY_SIZE = 36
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


def pick(results: Sequence[SampleResult]) -> list[SampleResult]:
    """A fixed, varied selection: wrong and right answers interleaved, failures included."""
    main = [r for r in results if r.error is None]
    wrong = [r for r in main if (correct_value(r.scores) or 0) < 1]
    right = [r for r in main if r not in wrong]
    failed = [r for r in results if r.error is not None]
    picked: list[SampleResult] = []
    for i in range(GALLERY_SIZE):
        for pool in (wrong, right):
            if i < len(pool) and len(picked) < GALLERY_SIZE:
                picked.append(pool[i])
    picked.extend(failed[: max(0, GALLERY_SIZE - len(picked))][:4])
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
        if s is not None and root is not None:
            key = s.image.path
            if key not in thumbs:
                from chartproof.datasets import resolve_image

                try:
                    thumbs[key] = thumbnail(resolve_image(root, s.image))
                except (OSError, ValueError):
                    thumbs[key] = None
            png = thumbs[key]
            if png is not None:
                parts.append(img_png(png, f"chart of {s.id}"))
            else:
                parts.append(el("div", "image unavailable (unreadable or too large)", cls="noimg"))
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
        items.append(el("div", *parts, cls="item"))
    if not items:
        return Html("")
    return join(
        [
            el("h2", "Samples"),
            el(
                "p",
                "A fixed selection of wrong and right answers; model outputs are shown verbatim (escaped).",
                cls="note",
            ),
            el("div", *items, cls="gallery"),
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
            rows.append(
                [
                    st.get("task_type"),
                    st.get("question"),
                    st.get("gold"),
                    st.get("prediction"),
                    _tick(bool(st.get("correct"))),
                ]
            )
    head = (
        ["kind", "premise", "truth", "said", ""]
        if r.steps and isinstance(r.steps[0], PremiseStepRecord)
        else ["task", "sub-question", "gold", "said", ""]
    )
    return table(head, rows, cls="grid")


def _tick(correct: bool) -> str:
    return "✓" if correct else "✗"
