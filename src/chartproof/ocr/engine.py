"""The OCR engine: rapidocr built on the measured runtimes (`build_rapidocr`), `OcrEngine` (detection
scale, upscaling, sharpening, a second look through coloured strokes) and the process-wide one.
"""

from __future__ import annotations

import copy
import importlib
import importlib.metadata
import importlib.util
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from chartproof._heap import keep_freed_memory
from chartproof.ocr._deps import INSTALL_HINT, _cv2
from chartproof.ocr._rapid import speed_up
from chartproof.ocr.batching import FAST_SURE, MIN_SCORE, RECOGNITION_STEPS
from chartproof.ocr.recognisers import (
    _bundled_recogniser,
    charset,
    fast_recogniser,
    latin_recogniser,
)
from chartproof.ocr.recognition import _KeepBoxes, _PaddingSteps
from chartproof.ocr.runtime import (
    OcrPlan,
    import_openvino,
    ocr_plan,
    openvino_precision,
    resolve,
)
from chartproof.ocr.tokens import Box, OcrToken, _quad_box, tokens_from_lines

DETECT_BOX_THRESHOLD = 0.3
"""Least mean text probability of a detected box (rapidocr's `Det.box_thresh`)."""


_TRAINING_SIDE = 736
_MAX_UPSCALE = 2.0


_DETECT_MAX_SIDE = 2000
_DETECT_WARM_SIDE = 1248
"""OpenVINO's detector is run once on a square input of this side when the engine loads.
OpenVINO grows its memory each time an input is larger than any before, and the chart that
brings it pays: 2429.png, the first 918 x 1193 Pew chart of the bench (1216 x 928 for the
detector), read in 2.11 s and in 0.89 s when read again. Run first at 1,248 px (1.56
million pixels; each of the 1,529 shared charts is detected on fewer, at most 1,856 x 800),
the detector took 0.88 s instead of 1.51 s on its first 1,856 x 800 input, its process
peaked at 716 MB instead of 1,206 MB over the same inputs, and later calls ran as fast or
faster (median 0.37 s against 0.41 s at 736 x 1,056). It costs about 1.4 s once per
process."""
_PRINT_SCALE_SIDE = 960


def engine_identity() -> str:
    """What the OCR's output depends on besides chartproof's code: rapidocr's version and each
    network's runtime, version and precision (`OcrPlan.identity`), e.g.
    "rapidocr 3.10.0 / openvino 2026.4.1 f32"."""
    latin = " / latin recogniser" if charset() == "latin" else ""
    fast = fast_recogniser()
    first = f" / {fast.stem} first, sure at {FAST_SURE}" if fast is not None else ""
    return f"rapidocr {_version('rapidocr')} / {ocr_plan().identity()}{latin}{first}"


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def build_rapidocr(det: str, rec: str) -> Any:
    """A rapidocr engine tuned for chart text (see `chartproof.ocr`) whose detector runs on the
    backend `det` and recogniser on `rec` (`chartproof.ocr.runtime.BACKENDS`), one thread
    each (the executor runs one process per core), both networks loaded. OpenVINO's CPU
    pinning is off: with it, two worker processes pin their threads to the same core and run
    at half speed.

    Raises ImportError with the install command when rapidocr is missing.
    """
    try:
        from rapidocr import EngineType, RapidOCR
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    kinds = {"det": det, "rec": rec}
    if any(b.startswith("openvino") for b in kinds.values()):
        import_openvino()  # before rapidocr imports it
    engine: Any = RapidOCR(
        params={
            "Global.log_level": "error",
            "Global.use_cls": False,
            # confidence is filtered here (`min_score`), not inside rapidocr
            "Global.text_score": 0.0,
            "Det.limit_type": "max",
            "Det.limit_side_len": _DETECT_MAX_SIDE,
            "Det.box_thresh": DETECT_BOX_THRESHOLD,
            **{
                f"{net.capitalize()}.engine_type": EngineType.OPENVINO
                if backend.startswith("openvino")
                else EngineType.ONNXRUNTIME
                for net, backend in kinds.items()
            },
            "EngineConfig.onnxruntime.intra_op_num_threads": 1,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            "EngineConfig.openvino.inference_num_threads": 1,
            "EngineConfig.openvino.num_streams": 1,
            "EngineConfig.openvino.enable_cpu_pinning": False,
        }
    )
    if charset() == "latin":
        engine.cfg.Rec.model_path = str(latin_recogniser(_bundled_recogniser(engine.cfg)))
    loaded = {"det": engine._load_det_model(), "rec": engine._load_rec_model()}
    speed_up(engine)
    engine.fast_rec = None
    fast = fast_recogniser()
    if fast is not None:
        from rapidocr.ch_ppocr_rec import TextRecognizer

        cfg = copy.deepcopy(engine.cfg.Rec)
        cfg.model_path = str(fast)
        engine.fast_rec = loaded["fast"] = TextRecognizer(cfg)
        kinds["fast"] = rec
    for net, backend in kinds.items():
        precision = backend.partition("-")[2]
        if precision and precision != openvino_precision():
            _recompile(loaded[net].session, precision)
    return engine


def _recompile(session: Any, precision: str) -> None:
    """Compile rapidocr's OpenVINO session again in `precision` (rapidocr compiles in
    OpenVINO's default precision and has no setting for it)."""
    core = import_openvino().Core()
    compiled = core.compile_model(
        session.model,
        "CPU",
        {
            "INFERENCE_NUM_THREADS": 1,
            "NUM_STREAMS": 1,
            "ENABLE_CPU_PINNING": False,
            "INFERENCE_PRECISION_HINT": precision,
        },
    )
    session.session = compiled.create_infer_request()


def detection_side(height: int, width: int) -> int:
    """The long side the detector sees an image of this size at (its `limit_side_len`, as
    rapidocr's "max" limit): an image whose short side is over 960 px is drawn at print
    scale, and is detected with its short side brought down to the detector's training scale
    (736 px); any other at its own size, up to rapidocr's 2,000 px. Text is recognised on
    crops of the image itself, so only detection runs smaller.

    On the two shared ChartQA charts over 960 px (Pew's large exports, 1,179 and 1,212 px
    short sides), detection at 736 px gave the same tokens but one line's trailing dot, on
    2.6 and 2.7 times fewer pixels. On 97 ChartQA charts blown up 1.75 times as print
    exports, it recovered 709 table cells of 1,491 against 642 and read 1.15 times faster.
    Below 960 px a short side over 736 is
    mostly a tall or wide layout of ordinary text (Statista's 800 x 1,176 px): shrinking
    that by even 8 % merged a legend marker into its label ("● 2019") and cost a chart 32
    of 50 cells."""
    short, long = min(height, width), max(height, width)
    if short <= _PRINT_SCALE_SIDE:
        return _DETECT_MAX_SIDE
    return min(_DETECT_MAX_SIDE, round(long * _TRAINING_SIDE / short))


def upscale_factor(height: int, width: int) -> float:
    """How much an image is enlarged before detection: its short side is brought to the
    detector's training scale (736 px), at most doubled, never shrunk."""
    return min(_MAX_UPSCALE, max(1.0, _TRAINING_SIDE / max(1, min(height, width))))


class OcrEngine:
    """rapidocr with single-threaded networks on the runtimes of an `OcrPlan`, loaded on
    first use (see `chartproof.ocr`)."""

    def __init__(self, runtime: str | None = None) -> None:
        self._asked = resolve(runtime) if runtime is not None else None
        self.plan: OcrPlan | None = None
        """The runtimes the networks run on: every network on the `runtime` given, else this
        machine's plan (`chartproof.ocr.runtime.ocr_plan`), set when the models load."""
        self._engine: Any = None
        self._load_lock = threading.Lock()
        self._call_lock = threading.Lock()

    def _load(self) -> Any:
        if self._engine is None:
            with self._load_lock:
                if self._engine is None:
                    keep_freed_memory()  # a reading's arrays reused by the next
                    plan = (
                        OcrPlan(self._asked, self._asked, how="asked for")
                        if self._asked is not None
                        else ocr_plan()
                    )
                    engine = build_rapidocr(plan.det, plan.rec)
                    if plan.det.startswith("openvino"):
                        side = _DETECT_WARM_SIDE
                        engine.text_det.session(np.zeros((1, 3, side, side), np.float32))
                    # short padding first for the recogniser's crops
                    engine.text_rec = steps = _PaddingSteps(engine.text_rec, engine.fast_rec)
                    engine.detect_and_crop = _KeepBoxes(engine.detect_and_crop, steps)
                    self.plan = plan
                    self._engine = engine
        return self._engine

    def _call(self, bgr: NDArray[np.uint8], *, footnotes: bool = True, **kwargs: bool) -> Any:
        engine = self._load()
        with self._call_lock:
            engine.text_det.limit_side_len = detection_side(*bgr.shape[:2])
            engine.detect_and_crop.keep = not footnotes
            try:
                return engine(bgr, **kwargs)
            finally:
                engine.text_det.limit_side_len = _DETECT_MAX_SIDE
                engine.detect_and_crop.keep = False
                engine.text_rec.boxes = None
                engine.text_rec.angles = None

    def read(
        self,
        image: NDArray[np.uint8],
        *,
        min_score: float = MIN_SCORE,
        through_marks: bool = False,
        footnotes: bool = True,
    ) -> tuple[OcrToken, ...]:
        """Every text token of an RGB uint8 image (H×W×3), boxes in the image's pixels.

        `footnotes=False` leaves a footnote's lines after its first unread: in a paragraph at
        the bottom of the image, the lines after one that opens with "Note:" or "Source:"
        (`footnote_candidates`; no chart data, and up to half of a Pew chart's recognition
        time) are tokens of the text `UNREAD_FOOTNOTE`. The chart reader reads so.

        `through_marks` adds a second look for text crossed by coloured strokes (a value
        label a line runs through): detection again on the image with its coloured pixels
        whitened, recognising only what the first pass missed or cut short. It costs one
        more detection (about a third of a read) and finds most such labels.

        Raises ImportError with the install command when rapidocr or OpenCV is missing.
        """
        cv2 = _cv2()
        self._load()
        image = _sharpen_if_blurry(np.ascontiguousarray(image, dtype=np.uint8))
        h, w = image.shape[:2]
        scale = upscale_factor(h, w)
        img = image
        if scale != 1.0:
            img = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        result = self._call(
            np.ascontiguousarray(img[:, :, ::-1]),
            use_det=True,
            use_cls=False,
            use_rec=True,
            return_word_box=True,
            return_single_char_box=True,
            footnotes=footnotes,
        )
        if result.txts is None or result.boxes is None:
            return ()
        kept = [i for i, s in enumerate(result.scores) if float(s) >= min_score]
        lines = [(result.txts[i], result.scores[i], result.boxes[i]) for i in kept]
        chars = [result.word_results[i] for i in kept] if result.word_results else None
        tokens = tokens_from_lines(lines, chars, scale=scale)
        tokens = tuple(self._reread_vertical(image, t) if t.vertical else t for t in tokens)
        # A token without a letter or digit is no label: the recogniser's reading of a
        # marker or a swatch ("_"), never a chart's text.
        tokens = tuple(t for t in tokens if any(ch.isalnum() for ch in t.text))
        if through_marks:
            tokens = self._look_through_marks(image, tokens, min_score)
        return tokens

    def _look_through_marks(
        self, image: NDArray[np.uint8], tokens: tuple[OcrToken, ...], min_score: float
    ) -> tuple[OcrToken, ...]:
        """`tokens` plus text found once coloured pixels are whitened: new boxes are
        recognised and added; a box that covers one token and reads longer replaces it."""
        cv2 = _cv2()
        plain = _without_colour(image)
        if plain is None:
            return tokens
        h, w = plain.shape[:2]
        scale = upscale_factor(h, w)
        big = plain
        if scale != 1.0:
            big = cv2.resize(plain, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        found = self._call(np.ascontiguousarray(big[:, :, ::-1]), use_det=True, use_rec=False)
        out = list(tokens)
        for quad in found.boxes if found.boxes is not None else ():
            x0, y0, x1, y1, vertical = _quad_box(quad)
            box = (x0 / scale, y0 / scale, x1 / scale, y1 / scale)
            hits = [t for t in out if _overlap(t.box, box) > 0.3]
            if vertical or (hits and not _wider(box, hits)):
                continue  # already read whole: no second recognition
            pad = 2 * scale
            crop = big[
                max(0, int(y0 - pad)) : min(big.shape[0], int(y1 + pad) + 1),
                max(0, int(x0 - pad)) : min(big.shape[1], int(x1 + pad) + 1),
            ]
            reading = self.recognize(crop) if crop.size else None
            if reading is None or reading[1] < min_score:
                continue
            if not any(ch.isalnum() for ch in reading[0]):
                continue
            token = OcrToken(text=reading[0], box=box, score=reading[1])
            if not hits:
                out.append(token)
            elif _extends(hits, token):
                out = [t for t in out if t not in hits] + [token]
        return tuple(out)

    def recognize(self, image: NDArray[np.uint8]) -> tuple[str, float] | None:
        """Text and confidence of one RGB crop holding a single line (no detection), or None
        when nothing is recognised."""
        res = self._call(
            np.ascontiguousarray(image[:, :, ::-1]), use_det=False, use_cls=False, use_rec=True
        )
        if not res.txts:
            return None
        text = str(res.txts[0]).strip()
        return (text, min(1.0, max(0.0, float(res.scores[0])))) if text else None

    def _reread_vertical(self, image: NDArray[np.uint8], tok: OcrToken) -> OcrToken:
        """Recognise vertical text again on crops turned both ways; keep the surer reading.
        Not at all when the first reading is sure (rapidocr turned the crop the right way),
        then clockwise first (text running bottom to top, as axis titles and turned labels
        mostly do), and the other way only when that reading is unsure too."""
        if tok.score >= RECOGNITION_STEPS[0][1]:
            return tok
        cv2 = _cv2()
        h, w = image.shape[:2]
        x0, y0 = max(0, int(tok.box[0]) - 3), max(0, int(tok.box[1]) - 3)
        x1, y1 = min(w, int(tok.box[2]) + 4), min(h, int(tok.box[3]) + 4)
        crop = image[y0:y1, x0:x1]
        if crop.size == 0:
            return tok
        best = tok
        for rot in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_90_COUNTERCLOCKWISE):
            found = self.recognize(cv2.rotate(crop, rot))
            if found is not None and found[1] > best.score:
                best = tok.model_copy(update={"text": found[0], "score": found[1]})
            if best.score >= RECOGNITION_STEPS[0][1]:
                break
        return best


def _without_colour(image: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
    """The image with its coloured pixels (chroma above 40) turned white, so dark text that a
    coloured line crosses stands alone; None when nothing is coloured."""
    chroma = image.max(axis=2).astype(np.int16) - image.min(axis=2).astype(np.int16)
    coloured = chroma > 40
    if not coloured.any():
        return None
    out = image.copy()
    out[coloured] = 255
    return out


def _overlap(a: Box, b: Box) -> float:
    """Intersection area over the smaller box's area."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / small if small > 0 else 0.0


def _wider(box: Box, tokens: Sequence[OcrToken]) -> bool:
    """Whether `box` reaches past the tokens' union by more than a quarter of its height on
    either side, or spans several tokens."""
    if len(tokens) > 1:
        return True
    slack = 0.25 * (box[3] - box[1])
    return box[0] < tokens[0].box[0] - slack or box[2] > tokens[0].box[2] + slack


def _extends(old: Sequence[OcrToken], new: OcrToken) -> bool:
    """Whether `new` reads the text of the `old` tokens (left to right) and more: a label the
    first pass cut short, or split in two, where a stroke crossed it."""
    before = "".join(ch for t in sorted(old, key=lambda t: t.cx) for ch in t.text if ch.isalnum())
    after = "".join(ch for ch in new.text if ch.isalnum())
    if len(old) > 1 and " " in new.text:
        return False  # several labels read as one line, not one label read in pieces
    return len(new.text) > sum(len(t.text) for t in old) and before in after


def _sharpen_if_blurry(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Unsharp-mask a blurred image (low Laplacian variance): the text detector loses most
    small labels at a blur of two pixels, and finds them again once edges are restored."""
    cv2 = _cv2()
    gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    sharpness = float(cv2.Laplacian(gray, cv2.CV_64F).var())
    if sharpness >= 40.0:
        return image
    # Stronger blur needs a wider, stronger mask.
    sigma, amount = (2.0, 1.5) if sharpness < 15.0 else (1.2, 1.0)
    soft = cv2.GaussianBlur(image, (0, 0), sigma)
    out: NDArray[np.uint8] = np.ascontiguousarray(
        cv2.addWeighted(image, 1 + amount, soft, -amount, 0)
    )
    return out


_ENGINE: OcrEngine | None = None
_ENGINE_LOCK = threading.Lock()


def get_engine() -> OcrEngine:
    """The process-wide OCR engine (its models load on the first `read`)."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = OcrEngine()
        return _ENGINE
