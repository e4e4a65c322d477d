"""rapidocr's recogniser and crop step replaced: `_PaddingSteps` reads crops fast recogniser first,
then through the padding steps within budget; `_KeepBoxes` hands it the detected boxes and angles.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from chartproof.ocr.batching import (
    FAST_SURE,
    GLYPH_WIDTH,
    NOT_TEXT,
    RECOGNITION_STEPS,
    _affordable,
    padded_width,
    recognition_batches,
    small_budget,
)
from chartproof.ocr.footnotes import (
    UNREAD_FOOTNOTE,
    _opens_note,
    _spread,
    footnote_candidates,
    page_footer,
)
from chartproof.ocr.marks import dotted_rule, plotted_mark
from chartproof.ocr.tokens import Box, _quad_angle
from chartproof.ocr.turning import _LEAST_TURN, _SLANT, ink_slant, level_crop, turn_upright


class _PaddingSteps:
    """rapidocr's text recogniser run through `RECOGNITION_STEPS`: the crops read below a
    step's confidence are read again at the next step's padding, and after the last at
    rapidocr's own width, whose reading is kept. Called like rapidocr's recogniser (a
    `TextRecInput`, a `TextRecOutput` back). Crops of dotted rules (`dotted_rule`) are read as
    nothing, by no recogniser.

    With a `fast` recogniser, every crop is read by it first, at the first step's padding,
    and the readings it is sure of (`FAST_SURE`) stand; of the others, pieces of plotted
    lines (`plotted_mark`) are read as nothing, slanted labels are read turned level when
    the detected boxes' `angles` are given (`_level`), and the rest go through the steps
    as far as `SMALL_BUDGET_PX` affords (least sure first; the others keep their reading).

    When the crops' detected `boxes` are given (`OcrEngine.read` with `footnotes=False`),
    the paragraph at the bottom of the image (`footnote_candidates`) is read line by line
    from the top, and the lines after the first that opens a footnote are not read: they
    come back as `UNREAD_FOOTNOTE`, sure. So do the lines under a credit line
    (`page_footer`), once the fast recogniser has read them."""

    def __init__(self, rec: Any, fast: Any = None) -> None:
        self._rec = rec
        self._fast = fast
        self._shape = list(rec.rec_image_shape)  # rapidocr's own: [3, 48, 320]
        self.boxes: list[Box] | None = None
        """The detected box of each crop of the next call, when footnotes may be skipped."""
        self.angles: list[float] | None = None
        """The angle of each crop's detected box (`_quad_angle`) in the next call."""

    def _at(
        self, width: int, images: list[Any], own: list[int], word_box: bool, rec: Any = None
    ) -> tuple[Any, list[int]]:
        """The readings of `images` (whose `widths` are `own`) padded to at least `width`, in
        `recognition_batches`, by `rec` (the small recogniser by default), and the width each
        crop was padded to."""
        from rapidocr.ch_ppocr_rec.typings import TextRecInput, TextRecOutput

        txts: list[Any] = [""] * len(images)
        scores: list[Any] = [0.0] * len(images)
        words: list[Any] = [None] * len(images)
        padded = [0] * len(images)
        out: Any = TextRecOutput()  # its fields are all set below, also with no crops
        rec = rec if rec is not None else self._rec
        try:
            for run in recognition_batches(own, width):
                widest = padded_width(max(width, *(own[i] for i in run)))
                rec.rec_image_shape = [*self._shape[:2], widest]
                out = rec(TextRecInput(img=[images[i] for i in run], return_word_box=word_box))
                for k, i in enumerate(run):
                    txts[i], scores[i] = out.txts[k], out.scores[k]
                    words[i], padded[i] = out.word_results[k], widest
        finally:
            rec.rec_image_shape = list(self._shape)
        out = dataclasses.replace(
            out, imgs=images, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )
        return out, padded

    def widths(self, images: Sequence[Any]) -> list[int]:
        """Each crop's width once scaled to the recogniser's height (rapidocr rounds up)."""
        height = self._shape[1]
        return [math.ceil(height * im.shape[1] / max(1, im.shape[0])) for im in images]

    def __call__(self, args: Any) -> Any:
        from rapidocr.ch_ppocr_rec.typings import WordInfo

        images = [args.img] if isinstance(args.img, np.ndarray) else list(args.img)
        boxes, self.boxes = self.boxes, None
        if boxes is not None and len(boxes) != len(images):
            boxes = None
        angles, self.angles = self.angles, None
        if angles is not None and len(angles) != len(images):
            angles = None
        notes = footnote_candidates(boxes) if boxes else []
        txts: list[Any] = [""] * len(images)
        scores: list[Any] = [0.0] * len(images)
        words: list[Any] = [WordInfo() for _ in images]
        first: Any = None

        def read(indices: list[int], note: bool = False) -> None:
            nonlocal first
            out = self._steps(
                [images[i] for i in indices],
                args.return_word_box,
                [boxes[i] for i in indices] if boxes else None,
                [angles[i] for i in indices] if angles else None,
                note=note,
            )
            first = out if first is None else first
            for k, i in enumerate(indices):
                txts[i], scores[i], words[i] = out.txts[k], out.scores[k], out.word_results[k]

        # Dotted rules are read as nothing, by neither recogniser.
        rules = {i for i, image in enumerate(images) if dotted_rule(image)}
        notes = [i for i in notes if i not in rules]
        read([i for i in range(len(images)) if i not in notes and i not in rules])
        # The bottom paragraph line by line, top down, until a footnote starts: the lines
        # after it are left unread, but still text (the reader masks text out of the marks).
        for k, i in enumerate(notes):
            read([i], note=True)
            if _opens_note(txts[i], scores[i]):
                for j in notes[k + 1 :]:
                    txts[j], scores[j], words[j] = UNREAD_FOOTNOTE, 1.0, _spread(UNREAD_FOOTNOTE)
                break
        return dataclasses.replace(
            first, imgs=images, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )

    def _steps(
        self,
        images: list[Any],
        word_box: bool,
        boxes: list[Box] | None = None,
        angles: list[float] | None = None,
        note: bool = False,
    ) -> Any:
        """The readings of `images`: the fast recogniser's where it is sure, the padding
        steps' for the rest (see the class doc). With the crops' `boxes`, the lines under a
        credit line (`page_footer`) are left unread, as `UNREAD_FOOTNOTE`. With their boxes'
        `angles`, doubted crops of slanted labels are read turned level (`_level`).

        For a `note` (a line of the bottom paragraph, `footnote_candidates`), the fast
        reading of a line that opens a footnote (`FOOTNOTE`, at `MIN_SCORE` or more) stands,
        doubted or not: it holds no chart data, and the lines after it go unread. Pew's
        "Note:" lines run the image's width, and the small recogniser read each at its own
        width, up to a tenth of a second."""
        if self._fast is None or not images:
            return self._padded(images, word_box)
        from rapidocr.ch_ppocr_rec.typings import WordInfo

        step = RECOGNITION_STEPS[0][0]
        widths = self.widths(images)
        quick, _ = self._at(step, images, widths, word_box, rec=self._fast)
        # The fast recogniser's work, which the small one's budget makes room for.
        fast_px = sum(max(step, w) for w in widths)
        footer = set(page_footer(quick.txts, boxes)) if boxes else set()
        # Every crop it doubts, even one it reads as nothing (a slanted tick label, "Q1" as
        # "oA" at 0.3, until turned level). But not a plotted line's stroke: that is read as
        # nothing.
        doubts = [
            i
            for i, s in enumerate(quick.scores)
            if (float(s) < FAST_SURE and not (note and _opens_note(quick.txts[i], s)))
            or i in footer
        ]
        if not doubts:
            return quick
        txts, scores, words = list(quick.txts), list(quick.scores), list(quick.word_results)
        rest = []
        for i in doubts:
            if i in footer:
                txts[i], scores[i], words[i] = UNREAD_FOOTNOTE, 1.0, _spread(UNREAD_FOOTNOTE)
            elif plotted_mark(images[i]):
                txts[i], scores[i], words[i] = "", 0.0, WordInfo()
            else:
                rest.append(i)
        if angles is not None:
            images = list(images)
            fast_px += self._level(images, rest, angles, word_box, (txts, scores, words))
            rest = [i for i in rest if float(scores[i]) < FAST_SURE]
        own = self.widths(images)
        budget = small_budget(fast_px)
        rest, spent = _affordable(rest, {i: max(step, own[i]) for i in rest}, scores, budget)
        slow = self._padded([images[i] for i in rest], word_box, budget=budget - spent)
        for k, i in enumerate(rest):
            txts[i], scores[i], words[i] = slow.txts[k], slow.scores[k], slow.word_results[k]
        return dataclasses.replace(
            quick, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )

    def _level(
        self,
        images: list[Any],
        doubted: list[int],
        angles: list[float],
        word_box: bool,
        readings: tuple[list[Any], list[Any], list[Any]],
    ) -> int:
        """Read the `doubted` crops of slanted labels turned level by the fast recogniser, and
        where that reads surer, put the turned crop in `images` and its reading in `readings`
        (texts, scores, character positions), in place; the padded width it read.

        The detector boxes small labels printed at 45 degrees ("Q1 '14") level or at about 20
        degrees, one box per word, so the crop holds text still slanted 20-45 degrees.
        PP-OCRv6 tiny read two_col_61921's "Q1" as "oA" or "à" at 0.2-0.3, and the small
        recogniser read 51 of its crops through the padding steps. Turned level, tiny reads
        "Q1" to "Q4" at 0.99-1.00: 23 crops go on to the small recogniser, 22 "Q" words are
        read instead of 17, and the chart's OCR takes 1.03 s instead of 1.47 s.

        A crop is a slanted label's when its ink (`ink_slant`) runs `_SLANT` degrees from the
        horizontal, its box's angle counted, and at least `_LEAST_TURN` degrees from its box;
        it is turned by the ink's angle within the crop (`level_crop`). Ink running steeper
        than that is a label running up or down the page in a box too short for rapidocr to
        turn (Kaiser's month labels): it is turned level both ways, and the surer reading
        counts. A turned reading of one character is not kept: that is a piece of a plotted
        line, not a label. The box stays as detected, the text's place on the page."""
        txts, scores, words = readings
        turns: list[tuple[int, float]] = []
        for i in doubted:
            inner = ink_slant(images[i])
            if inner is None or abs(inner) < _LEAST_TURN:
                continue
            slant = abs(angles[i] + inner)
            if _SLANT[0] <= slant <= _SLANT[1]:
                turns.append((i, inner))
            elif slant > _SLANT[1]:
                # Running up or down the page: which way, only the readings tell.
                turns += [(i, inner), (i, inner - math.copysign(180.0, inner))]
        if not turns:
            return 0
        turned = [level_crop(images[i], a) for i, a in turns]
        step, widths = RECOGNITION_STEPS[0][0], self.widths(turned)
        out, _ = self._at(step, turned, widths, word_box, rec=self._fast)
        best: dict[int, int] = {}
        for k, (i, _) in enumerate(turns):
            if i not in best or float(out.scores[k]) > float(out.scores[best[i]]):
                best[i] = k
        for i, k in best.items():
            text, score = str(out.txts[k]), float(out.scores[k])
            if score > float(scores[i]) and len(text.replace(" ", "")) >= 2:
                images[i] = turned[k]
                txts[i], scores[i], words[i] = out.txts[k], out.scores[k], out.word_results[k]
        return sum(max(step, w) for w in widths)

    def _padded(self, images: list[Any], word_box: bool, budget: float | None = None) -> Any:
        """The readings of `images` through the padding steps (see the class doc); with a
        `budget` (padded width, `SMALL_BUDGET_PX`), the steps after the first read only the
        crops it affords, least sure first (`_affordable`), and the others keep their
        reading."""
        steps = [*RECOGNITION_STEPS, (self._shape[2], 0.0)]
        own = self.widths(images)
        first, padded = self._at(steps[0][0], images, own, word_box)
        txts, scores, words = list(first.txts), list(first.scores), list(first.word_results)
        # Below NOT_TEXT at the first step a crop is an icon, a marker or a stroke: wider
        # padding does not make it text. Nor a glyph-sized crop read as one character.
        todo = [
            i
            for i, s in enumerate(scores)
            if NOT_TEXT <= float(s) < steps[0][1]
            and (own[i] >= GLYPH_WIDTH or len(str(txts[i]).strip()) > 1)
        ]
        for width, sure in steps[1:]:
            # A crop already read at the padding this step would give it alone (its own
            # width's, when that is at least the step's) would read the same: its reading
            # stands. One padded to a wider neighbour is read again (skipping those lost a
            # line chart's math labels, "Ta = 400 °C", on the realcqa suite).
            todo = [i for i in todo if padded[i] != padded_width(max(width, own[i]))]
            if budget is not None:
                todo, spent = _affordable(
                    todo, {i: max(width, own[i]) for i in todo}, scores, budget
                )
                budget -= spent
            if not todo:
                break
            again, wide = self._at(
                width, [images[i] for i in todo], [own[i] for i in todo], word_box
            )
            for k, i in enumerate(todo):
                txts[i], scores[i], words[i] = again.txts[k], again.scores[k], again.word_results[k]
                padded[i] = wide[k]
            todo = [i for i in todo if float(scores[i]) < sure]
        return dataclasses.replace(
            first, txts=tuple(txts), scores=scores, word_results=tuple(words)
        )


class _KeepBoxes:
    """rapidocr's `detect_and_crop` that turns the crops of vertical lines the way they read
    (`turn_upright`), hands the recogniser's `_PaddingSteps` the angle of each detected box
    and, while `keep` is set, the boxes themselves (axis-aligned, in the cropped image's
    pixels)."""

    def __init__(self, detect: Any, steps: _PaddingSteps) -> None:
        self._detect = detect
        self._steps = steps
        self.keep = False

    def __call__(self, img: Any, op_record: Any) -> Any:
        crops, det = self._detect(img, op_record)
        if det.boxes is not None:
            turn_upright(crops, det.boxes, self._steps)
            self._steps.angles = [_quad_angle(q) for q in det.boxes]
        if self.keep and det.boxes is not None:
            self._steps.boxes = [
                (
                    float(q[:, 0].min()),
                    float(q[:, 1].min()),
                    float(q[:, 0].max()),
                    float(q[:, 1].max()),
                )
                for q in np.asarray(det.boxes)
            ]
        return crops, det
