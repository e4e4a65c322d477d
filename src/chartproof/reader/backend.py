"""The offline chart reader as a model backend (`builtin:reader`): read the chart once per
image (cached by content hash in memory and on disk, `chartproof.reader.readings`), answer
each request with the solver, never raise."""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from chartproof import __version__
from chartproof.models.base import BackendIdentity, answered, failed, note_answered, output_kind
from chartproof.models.chart_text import ChartText
from chartproof.questions import ChartView
from chartproof.reader._explain import explain_answer, verify_explanation
from chartproof.reader._redraw import code_reply
from chartproof.reader.perception.records import ChartReading
from chartproof.reader.readings import ReadingStore, readings_dir
from chartproof.reader.solver import (
    judge,
    narrative,
    reply,
    solve,
    unread,
    view_of,
    view_of_table,
)
from chartproof.types import (
    DataTable,
    ImagePart,
    ModelRequest,
    ModelResponse,
    Record,
    TextPart,
    chart_type_names,
)

__all__ = ["ReaderBackend", "ReaderSettings", "reader_revision"]


class ChartNotRead(ValueError):
    """The image was decoded but perception recovered no chart from it."""


class ReaderSettings(Record):
    """Options of `builtin:reader` (spec query string, e.g. ``builtin:reader?table=gold``)."""

    table: Literal["image", "gold"] = "image"
    """Where the data table comes from: "image" reads it from the chart; "gold" uses the
    table the request carries in ``metadata["table"]`` (ChartQA-X's with-table setting),
    which separates perception errors from solver errors."""
    cache_size: int = Field(default=256, ge=0)
    """Charts whose reading is kept in memory (several questions share one chart)."""
    disk_cache: bool = True
    """Keep readings on disk (`chartproof.reader.readings`), shared by worker processes and
    later runs; keyed by the image's bytes and the reader's code, so never stale."""
    abstain: bool = False
    """Answer "unknown" (saying why) where no program or check decides a yes/no or
    multiple-choice question, instead of a guess that says it is one."""
    premise_tolerance: float = Field(default=0.02, ge=0)
    """Relative tolerance when checking a premise's number against a value read from the
    image (gold tables use exact values)."""


class ReaderBackend:
    """Answers chart questions offline: OCR + derendering + question programs."""

    def __init__(self, settings: ReaderSettings | None = None) -> None:
        self.settings = settings or ReaderSettings()
        if self.settings.table == "image":
            # Fail at construction, with the install command, not on every request.
            from chartproof.models.registry import require

            for module in ("cv2", "rapidocr"):
                require(module, "reader", what="the offline chart reader (builtin:reader)")
        self._views: OrderedDict[str, ChartView | str] = OrderedDict()
        self._lock = threading.Lock()
        self._store: ReadingStore | None = None
        if self.settings.disk_cache and self.settings.table == "image":
            self._store = ReadingStore(readings_dir(), _perception_hash())

    @property
    def name(self) -> str:
        """``builtin:reader``, with ``?table=gold`` in gold-table mode."""
        return "builtin:reader" + ("?table=gold" if self.settings.table == "gold" else "")

    @property
    def explanation_generator(self) -> str:
        """The reader explains with the trace-to-text code that writes the reference
        explanations of chartproof's suites (`chartproof.questions.explain`), so its overlap
        scores against them measure that template, not explanation quality."""
        from chartproof.questions.explain import GENERATOR

        return GENERATOR

    @property
    def identity(self) -> BackendIdentity:
        """Cache identity: the mode is part of the model; the revision is the package version
        plus a hash of the reader's own source, so a changed reader never serves answers
        cached from an older one."""
        model = "reader" if self.settings.table == "image" else "reader-gold-table"
        return BackendIdentity(
            kind="builtin", model=model, revision=f"{__version__}+{_code_hash()}"
        )

    def chart_text(self, path: str) -> ChartText | str:
        """The chart image at `path` as text for a text-only model (`text:` backends with
        ``table=reader``): its recovered table, chart type and titles; the reason as a
        string when the chart cannot be read."""
        from chartproof.models.chart_text import table_csv

        with open(path, "rb") as f:
            reading = self._reading(hashlib.sha256(f.read()).hexdigest(), path)
        if isinstance(reading, str):
            return reading
        return ChartText(
            table=table_csv(reading.table),
            chart_type=reading.chart_type,
            title=reading.title,
            x_title=reading.x_title,
            y_title=reading.y_title,
            source="reader",
        )

    def generate(self, requests: Sequence[ModelRequest]) -> list[ModelResponse]:
        """One response per request; failures become responses with `error` set."""
        out = []
        for req in requests:
            start = time.perf_counter()
            try:
                text = self._answer(req)
            except Exception as e:  # a bad sample must not stop the run
                out.append(
                    failed(req, self.name, f"{type(e).__name__}: {e}", latency_s=_since(start))
                )
            else:
                out.append(answered(req, self.name, text, latency_s=_since(start)))
            note_answered(1)  # progress per request inside a long batch
        return out

    def close(self) -> None:
        """Forget cached chart readings."""
        with self._lock:
            self._views.clear()

    # ------------------------------------------------------------------ internals

    def _answer(self, req: ModelRequest) -> str:
        question = _question(req)
        output = output_kind(req)
        try:
            view = self._gold_view(req) if self.settings.table == "gold" else self._image_view(req)
        except ChartNotRead as e:
            guessed = (
                None
                if self.settings.abstain or output not in ("answer", "cot", "answer_explanation")
                else unread(question, str(e), choices=_choices(req))
            )
            if guessed is None:
                raise
            return reply(guessed, output)
        if output == "narrative":
            return narrative(view)
        if output == "code":
            width, height = _size(req)
            return code_reply(view, spec_id=_chart_id(req), width=width, height=height)
        if output == "truth":
            rel = 0.0005 if self.settings.table == "gold" else self.settings.premise_tolerance
            return reply(judge(question, view, rel=rel), output)
        earlier = _earlier(req)
        raw_steps = req.metadata.get("earlier_steps")
        steps = (
            [int(n) for n in raw_steps if isinstance(n, int)]
            if isinstance(raw_steps, list)
            else None
        )
        solution = solve(
            question, view, earlier, steps, choices=_choices(req), guess=not self.settings.abstain
        )
        if output == "explanation":
            return explain_answer(solution, _field(req, "answer"))
        if output == "verdict":
            answer, explanation = _field(req, "answer"), _field(req, "explanation")
            if answer is None or explanation is None:
                raise ValueError(
                    f"request {req.id}: a verdict needs the answer and the explanation to "
                    "check in metadata['answer'] and metadata['explanation']"
                )
            ok, reason = verify_explanation(view, question, answer, explanation, solution)
            return f"{'Correct' if ok else 'Incorrect'}. {reason[0].upper()}{reason[1:]}."
        return reply(solution, output)

    def _gold_view(self, req: ModelRequest) -> ChartView:
        raw = req.metadata.get("table")
        if not isinstance(raw, str) or not raw.strip():
            raise ValueError(
                f"request {req.id}: gold-table mode needs the data table as CSV text in "
                "metadata['table'] (evaluate with the with-table setting)"
            )
        table = DataTable.from_csv(raw)
        chart_type = req.metadata.get("chart_type")
        kind = (
            chart_type
            if isinstance(chart_type, str) and chart_type in chart_type_names()
            else "vbar"
        )
        return view_of_table(table, kind)

    def _image_view(self, req: ModelRequest) -> ChartView:
        part = _image(req)
        with open(part.path, "rb") as f:
            data = f.read()
        key = hashlib.sha256(data).hexdigest()
        with self._lock:
            cached = self._views.get(key)
            if cached is not None:
                self._views.move_to_end(key)
        if cached is None:
            found = self._reading(key, part.path)
            cached = found if isinstance(found, str) else view_of(found)
            with self._lock:
                if self.settings.cache_size:
                    self._views[key] = cached
                    while len(self._views) > self.settings.cache_size:
                        self._views.popitem(last=False)
        if isinstance(cached, str):
            # A file that is no image (its path opens the message) is bad input; an image
            # perception finds no chart in can still get a guess that says so.
            raise (ValueError if cached.startswith(str(part.path)) else ChartNotRead)(cached)
        return cached

    def _reading(self, sha256: str, path: str) -> ChartReading | str:
        """The chart's reading from the disk store, else read (and stored)."""
        found = self._store.get(sha256) if self._store is not None else None
        if found is None:
            found = _read(path)
            if self._store is not None:
                self._store.put(sha256, found)
        return found


def reader_revision() -> str:
    """The hash of the code a reading depends on, which names its readings' folder on disk:
    perception and OCR only, so a change to the solver reuses the charts already read."""
    return _perception_hash()


@functools.cache
def _code_hash() -> str:
    """Short hash of the reader's Python sources (solver, perception), the programs and step
    questions it answers through (`chartproof.questions`), the shared OCR package and the
    OCR runtime and versions (`chartproof.ocr.engine_identity`, a character now and then)."""
    return _sources_hash(Path(__file__).resolve().parent, Path(__file__).parents[1] / "questions")


@functools.cache
def _perception_hash() -> str:
    """`_code_hash` over perception alone (`reader/perception/`, which imports nothing else
    of the reader) with the OCR package and runtime: what a `ChartReading` is a function of."""
    return _sources_hash(Path(__file__).resolve().parent / "perception")


def _sources_hash(root: Path, *more: Path) -> str:
    import chartproof.ocr

    digest = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        digest.update(f.relative_to(root).as_posix().encode())
        digest.update(f.read_bytes())
    for package in (Path(chartproof.ocr.__file__).resolve().parent, *more):
        for f in sorted(package.rglob("*.py")):
            digest.update(f"chartproof/{package.name}/{f.relative_to(package).as_posix()}".encode())
            digest.update(f.read_bytes())
    digest.update(chartproof.ocr.engine_identity().encode())
    return digest.hexdigest()[:12]


def _read(path: str) -> ChartReading | str:
    """The chart's reading, or the error text (failures are cached too: a bad image stays
    bad)."""
    from chartproof.reader.perception import ReadingError, get_engine, read_chart
    from chartproof.reader.perception.image import ImageError, load_image

    try:
        image = load_image(path)
        return read_chart(image, get_engine().read(image, footnotes=False))
    except (ImageError, ReadingError) as e:
        return str(e)


def _since(start: float) -> float:
    return round(time.perf_counter() - start, 4)


def _image(req: ModelRequest) -> ImagePart:
    """The request's chart; ValueError (a failed, counted answer) when it carries none, or
    several: the reader reads one chart, and an answer read off the first chart of a
    multi-chart question would be a guess."""
    parts = [p for m in req.messages for p in m.content if isinstance(p, ImagePart)]
    if not parts:
        raise ValueError(f"request {req.id} carries no image")
    if len(parts) > 1:
        raise ValueError(
            f"request {req.id} shows {len(parts)} charts; the built-in reader answers "
            "questions about one chart"
        )
    return parts[0]


def _question(req: ModelRequest) -> str:
    q = req.metadata.get("question")
    if isinstance(q, str) and q.strip():
        return _without_table(q)
    texts = [
        p.text
        for m in req.messages
        if m.role == "user"
        for p in m.content
        if isinstance(p, TextPart)
    ]
    if not texts:
        raise ValueError(f"request {req.id} carries no question text")
    last = texts[-1]
    # Built-in prompts end with "Question: ..." or "Statement: ...".
    for marker in ("Question:", "Statement:"):
        if marker in last:
            return _without_table(last.rsplit(marker, 1)[1].strip())
    return _without_table(last.strip())


def _without_table(question: str) -> str:
    """The question without a data table appended after a blank line (the with-table
    setting puts the CSV into the question text; gold mode reads it from the metadata)."""
    head, sep, rest = question.partition("\n\n")
    return head.strip() if sep and "table" in rest.lower() else question.strip()


def _size(req: ModelRequest) -> tuple[int, int]:
    """The chart's size in pixels: the prompt's width and height fields, else the image's."""
    width, height = _field(req, "width"), _field(req, "height")
    if width and height and width.isdigit() and height.isdigit():
        return int(width), int(height)
    from chartproof.reader.perception.image import load_image

    image = load_image(_image(req).path)
    return int(image.shape[1]), int(image.shape[0])


def _chart_id(req: ModelRequest) -> str:
    sample = _field(req, "sample_id")
    return f"{sample or req.id}~read"


def _field(req: ModelRequest, name: str) -> str | None:
    value = req.metadata.get(name)
    return value if isinstance(value, str) else None


def _choices(req: ModelRequest) -> list[str] | None:
    """The options of a multiple-choice question (`metadata["choices"]`, texts in display
    order), None for an open question."""
    raw = req.metadata.get("choices")
    if not isinstance(raw, list | tuple) or not raw:
        return None
    return [str(c) for c in raw]


def _earlier(req: ModelRequest) -> list[tuple[str, str]]:
    raw = req.metadata.get("earlier")
    if not isinstance(raw, list):
        return []
    out = []
    for pair in raw:
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair):
            out.append((str(pair[0]), str(pair[1])))
    return out


def settings_from_options(options: dict[str, object], source: str) -> ReaderSettings:
    """Validate spec options; an unknown or bad option names itself."""
    from chartproof.models.registry import SpecError

    try:
        return ReaderSettings.model_validate(options)
    except ValidationError as e:
        raise SpecError(
            f"{source}: bad option for builtin:reader: {e.errors()[0]['msg']} "
            f"({', '.join(str(x) for x in e.errors()[0]['loc'])})"
        ) from None
