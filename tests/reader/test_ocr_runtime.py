"""The OCR runtime plan: each network on the backend measured fastest on this machine (stored,
measured once, by one process), or the one the environment pins; the plan is part of the
reader's cache identity; every backend reads the same table."""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chartproof import ocr
from chartproof.ocr import runtime
from chartproof.reader import backend as reader_backend

from .conftest import SPECS

HAS_OPENVINO = importlib.util.find_spec("openvino") is not None
HAS_RAPIDOCR = importlib.util.find_spec("rapidocr") is not None


@pytest.fixture
def fresh_plan(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No pinned runtime, a plan file of this test's own, no plan cached in the process."""
    monkeypatch.delenv(ocr.OCR_ENGINE_ENV, raising=False)
    path = tmp_path / "plans" / "ocr-plan.json"
    monkeypatch.setenv(runtime.PLAN_ENV, str(path))
    runtime.ocr_plan.cache_clear()
    yield path
    runtime.ocr_plan.cache_clear()


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ("onnxruntime", "onnxruntime"),
        ("ONNXRuntime ", "onnxruntime"),
        pytest.param(
            "openvino-f32",
            "openvino-f32",
            marks=pytest.mark.skipif(not HAS_OPENVINO, reason="openvino not installed"),
        ),
    ],
)
def test_the_environment_pins_both_networks(
    monkeypatch: pytest.MonkeyPatch, fresh_plan: Path, env: str, expected: str
) -> None:
    monkeypatch.setenv(ocr.OCR_ENGINE_ENV, env)
    plan = ocr.ocr_plan()
    assert (plan.det, plan.rec) == (expected, expected)
    assert plan.how == f"${ocr.OCR_ENGINE_ENV}={env.strip().lower()}"
    assert f"/ {runtime.describe(expected)}" in ocr.engine_identity()
    assert not fresh_plan.exists()  # nothing measured


@pytest.mark.skipif(not HAS_OPENVINO, reason="openvino not installed")
def test_openvino_means_its_default_precision_here() -> None:
    assert runtime.resolve("openvino") == f"openvino-{runtime.openvino_precision()}"
    if runtime.openvino_precision() != "bf16":
        with pytest.raises(ValueError, match="no bfloat16"):
            runtime.resolve("openvino-bf16")


def test_unknown_or_missing_runtime_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, fresh_plan: Path
) -> None:
    monkeypatch.setenv(ocr.OCR_ENGINE_ENV, "tensorrt")
    with pytest.raises(ValueError, match=r"CHARTPROOF_OCR_ENGINE='tensorrt'.*openvino-f32"):
        ocr.ocr_plan()
    real = importlib.util.find_spec
    monkeypatch.setattr(
        runtime.importlib.util, "find_spec", lambda name: None if name == "openvino" else real(name)
    )
    monkeypatch.setenv(ocr.OCR_ENGINE_ENV, "openvino")
    with pytest.raises(ImportError, match="pip install openvino"):
        ocr.ocr_plan()
    with pytest.raises(ValueError, match="unknown OCR runtime 'tflite'"):
        ocr.OcrEngine("tflite")


def test_plan_identity_names_each_network_when_they_differ() -> None:
    same = runtime.OcrPlan("onnxruntime", "onnxruntime")
    assert same.identity() == runtime.describe("onnxruntime")
    mixed = runtime.OcrPlan("openvino-bf16", "onnxruntime")
    assert mixed.identity() == (
        f"det {runtime.describe('openvino-bf16')} / rec {runtime.describe('onnxruntime')}"
    )
    assert runtime.describe("openvino-bf16").startswith("openvino ")
    assert runtime.describe("openvino-bf16").endswith(" bf16")


class _Clock:
    """A fake `time.perf_counter` that only fake sessions move."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# seconds of one call of each fake session, per backend and network; each backend's first
# measured round is slower (load on the machine), which the minimum ignores
COSTS = {
    "a": {"det": 0.30, "rec": 0.10},
    "b": {"det": 0.20, "rec": 0.15},
    "c": {"det": 0.20, "rec": 0.40},
}


def _fake_sessions(
    clock: _Clock, calls: list[str], shapes: list[tuple[int, ...]] | None = None
) -> Callable[[str], dict[str, Any]]:
    def make(backend: str) -> dict[str, Any]:
        def run(net: str) -> Callable[[np.ndarray], None]:
            per_round = len(runtime._DET_INPUTS if net == "det" else runtime._REC_CALLS)

            def call(x: np.ndarray) -> None:
                calls.append(f"{backend}.{net}")
                if shapes is not None and backend == "a" and net == "rec":
                    shapes.append(x.shape)
                first_measured = calls.count(f"{backend}.{net}") > per_round
                first_measured &= calls.count(f"{backend}.{net}") <= 2 * per_round
                clock.now += COSTS[backend][net] * (2.0 if first_measured else 1.0)

            return call

        return {net: run(net) for net in ("det", "rec")}

    return make


def test_the_fastest_backend_per_network_is_kept_and_ties_go_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock, calls = _Clock(), []
    monkeypatch.setattr(runtime.time, "perf_counter", clock)
    plan = runtime.measure_plan(["a", "b", "c"], _fake_sessions(clock, calls))
    # det: b and c tie (b listed first); rec: a
    assert (plan.det, plan.rec) == ("b", "a")
    # seconds of a round: every detector input, every recogniser call
    det, rec = len(runtime._DET_INPUTS), len(runtime._REC_CALLS)
    assert plan.seconds["det"] == pytest.approx({"a": 0.3 * det, "b": 0.2 * det, "c": 0.2 * det})
    assert plan.seconds["rec"] == pytest.approx({"a": 0.1 * rec, "b": 0.15 * rec, "c": 0.4 * rec})
    assert plan.how.startswith("measured on this machine on ")
    # a warm-up round each, then the measured rounds taken in turns across backends
    one = [f"{b}.{n}" for b in "abc" for n, k in (("det", det), ("rec", rec)) for _ in range(k)]
    assert calls[: len(one)] == one
    assert calls[len(one) : 2 * len(one)] == one
    assert len(calls) == len(one) * (1 + runtime._ROUNDS)


def test_recogniser_rounds_are_a_charts_calls_on_the_width_grid(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock, calls, shapes = _Clock(), [], []
    monkeypatch.setattr(runtime.time, "perf_counter", clock)
    runtime.measure_plan(["a"], _fake_sessions(clock, calls, shapes))
    rounds = [
        shapes[k : k + len(runtime._REC_CALLS)]
        for k in range(0, len(shapes), len(runtime._REC_CALLS))
    ]
    assert len(rounds) == 1 + runtime._ROUNDS
    for got in rounds:  # the same calls every round, as the reader pads them
        assert got == [(n, 3, 48, w) for n, w in runtime._REC_CALLS]
    assert all(ocr.padded_width(w) == w for _, w in runtime._REC_CALLS)
    steps = {w for w, _ in ocr.RECOGNITION_STEPS} | {320}
    assert {w for _, w in runtime._REC_CALLS} >= steps


def test_the_plan_is_measured_once_then_read_back(
    monkeypatch: pytest.MonkeyPatch, fresh_plan: Path
) -> None:
    measured: list[list[str]] = []

    def fake_measure(candidates: list[str]) -> runtime.OcrPlan:
        measured.append(candidates)
        return runtime.OcrPlan("b", "a", how="measured here", seconds={"det": {"b": 0.2}})

    monkeypatch.setattr(runtime, "available_backends", lambda: ["a", "b"])
    monkeypatch.setattr(runtime, "measure_plan", fake_measure)
    first = ocr.ocr_plan()
    assert (first.det, first.rec, len(measured)) == ("b", "a", 1)
    stored = json.loads(fresh_plan.read_text(encoding="utf-8"))
    assert [v["det"] for v in stored.values()] == ["b"]
    runtime.ocr_plan.cache_clear()
    again = ocr.ocr_plan()  # a new process: read from the file, not measured
    assert again == first and len(measured) == 1
    # another CPU or runtime version: measured again and stored beside the first
    runtime.ocr_plan.cache_clear()
    monkeypatch.setattr(runtime, "_machine_key", lambda c: "another machine")
    ocr.ocr_plan()
    assert len(measured) == 2
    assert len(json.loads(fresh_plan.read_text(encoding="utf-8"))) == 2


def test_the_measured_plan_chooses_among_float32_backends(
    monkeypatch: pytest.MonkeyPatch, fresh_plan: Path
) -> None:
    """bfloat16 reads differently, so it is asked for, never measured in."""
    seen: list[list[str]] = []

    def measure(candidates: list[str]) -> runtime.OcrPlan:
        seen.append(list(candidates))
        return runtime.OcrPlan(candidates[-1], candidates[0], how="m")

    monkeypatch.setattr(
        runtime, "available_backends", lambda: ["onnxruntime", "openvino-f32", "openvino-bf16"]
    )
    monkeypatch.setattr(runtime, "measure_plan", measure)
    plan = ocr.ocr_plan()
    assert seen == [["onnxruntime", "openvino-f32"]]
    assert (plan.det, plan.rec) == ("openvino-f32", "onnxruntime")
    # one float32 backend besides bfloat16: nothing to measure
    monkeypatch.setattr(runtime, "available_backends", lambda: ["openvino-f32", "openvino-bf16"])
    runtime.ocr_plan.cache_clear()
    assert ocr.ocr_plan().rec == "openvino-f32"
    assert len(seen) == 1


def test_an_unreadable_plan_file_is_measured_again(
    monkeypatch: pytest.MonkeyPatch, fresh_plan: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fresh_plan.parent.mkdir(parents=True)
    fresh_plan.write_text("{not json", encoding="utf-8")
    monkeypatch.setattr(runtime, "available_backends", lambda: ["a", "b"])
    monkeypatch.setattr(runtime, "measure_plan", lambda c: runtime.OcrPlan("a", "a", how="m"))
    assert ocr.ocr_plan().det == "a"
    assert "unreadable OCR plan file" in caplog.text
    assert json.loads(fresh_plan.read_text(encoding="utf-8"))  # replaced by a good one


def test_a_plan_that_cannot_be_stored_is_still_measured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.delenv(ocr.OCR_ENGINE_ENV, raising=False)
    monkeypatch.setenv(runtime.PLAN_ENV, str(blocker / "sub" / "ocr-plan.json"))
    monkeypatch.setattr(runtime, "available_backends", lambda: ["a", "b"])
    monkeypatch.setattr(runtime, "measure_plan", lambda c: runtime.OcrPlan("b", "b", how="m"))
    runtime.ocr_plan.cache_clear()
    try:
        assert ocr.ocr_plan().det == "b"
    finally:
        runtime.ocr_plan.cache_clear()
    assert "cannot store the OCR plan" in caplog.text


def test_processes_starting_together_measure_once(fresh_plan: Path, tmp_path: Path) -> None:
    """The file lock: the first process measures, the others wait and read its plan. Three
    fresh interpreters (no fork of this one, whose runtime threads could hold a lock) each
    wait for the same signal, then ask for the plan; the measurement is a stand-in that takes
    0.3 s and notes who ran it."""
    tally, go = tmp_path / "tally", tmp_path / "go"
    child = f"""
import os, sys, time
from pathlib import Path
from chartproof.ocr import runtime

def measure(candidates):
    with open({str(tally)!r}, "a", encoding="utf-8") as f:
        f.write(str(os.getpid()) + " ")
    time.sleep(0.3)
    return runtime.OcrPlan("b", "a", how="measured by " + str(os.getpid()))

runtime.available_backends = lambda: ["a", "b"]
runtime.measure_plan = measure
Path(sys.argv[1]).touch()
while not Path({str(go)!r}).exists():
    time.sleep(0.01)
print(runtime.ocr_plan().how)
"""
    ready = [tmp_path / f"ready{i}" for i in range(3)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", child, str(r)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for r in ready
    ]
    try:
        deadline = time.monotonic() + 120
        while not all(r.exists() for r in ready):
            assert time.monotonic() < deadline, "the child interpreters did not start"
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.05)
        go.touch()
        outs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0, 0, 0], outs
    assert len(tally.read_text(encoding="utf-8").split()) == 1
    assert len({out.strip() for out, _ in outs}) == 1


def test_the_plan_is_part_of_the_reader_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    revisions = set()
    for backend in ("onnxruntime", "openvino-f32", "openvino-bf16"):
        monkeypatch.setattr(ocr.engine, "ocr_plan", lambda b=backend: runtime.OcrPlan(b, b))
        reader_backend._perception_hash.cache_clear()
        revisions.add(reader_backend.reader_revision())
    reader_backend._perception_hash.cache_clear()
    assert len(revisions) == 3


@pytest.mark.skipif(not (HAS_OPENVINO and HAS_RAPIDOCR), reason="needs rapidocr and openvino")
def test_openvino_float32_is_compiled_in_float32() -> None:
    """rapidocr compiles in OpenVINO's default precision; openvino-f32 is compiled again."""
    engine = ocr.OcrEngine("openvino-f32")
    engine._load()
    assert engine.plan is not None and engine.plan.rec == "openvino-f32"
    for net in (engine._engine.text_det, engine._engine.text_rec._rec):
        hint = net.session.session.get_compiled_model().get_property("INFERENCE_PRECISION_HINT")
        assert "32" in str(hint)


@pytest.mark.skipif(not (HAS_OPENVINO and HAS_RAPIDOCR), reason="needs rapidocr and openvino")
@pytest.mark.parametrize("name", ["vbar", "line", "stacked"])
def test_every_runtime_recovers_the_same_table(chart_dir: Path, name: str) -> None:
    """bfloat16 may add or drop a borderline box (a tick read as "1"); the chart's labels and
    the recovered table stay the same on every backend this machine runs."""
    from chartproof.reader.perception import read_chart
    from chartproof.reader.perception.image import load_image

    image = load_image(chart_dir / f"{name}.png")
    tables = {}
    for backend in runtime.available_backends():
        engine = ocr.OcrEngine(backend)
        tables[backend] = read_chart(image, engine.read(image)).table.to_csv()
        assert engine.plan is not None and engine.plan.det == engine.plan.rec == backend
    assert len(set(tables.values())) == 1, tables
    assert SPECS[name].table.names[1] in tables["onnxruntime"] or len(SPECS[name].table.names) == 2


@pytest.mark.skipif(not HAS_OPENVINO, reason="openvino not installed")
def test_openvino_loads_without_its_telemetry_thread() -> None:
    """OpenVINO's conversion tools send a usage event on import and leave a thread, after
    which worker pools cannot fork; chartproof imports OpenVINO without them."""
    import subprocess
    import sys

    code = (
        "import sys, threading\n"
        "from chartproof import ocr\n"
        "ocr.runtime.openvino_precision()\n"
        "print('openvino' in sys.modules, 'openvino.tools.ovc' in sys.modules,"
        " threading.active_count())\n"
    )  # not in sys.modules: no None entry left behind, so the user's own import still works
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "1"]


# (score at the narrow step, score at the middle step) of three crops: sure at once; unsure
# twice, so read at rapidocr's width; unsure at first, sure at the middle step
SCORES = [(0.99, None), (0.5, 0.5), (0.9, 0.8)]


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_unsure_crops_go_on_to_wider_padding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every crop is first read with the narrowest padding; those read below a step's
    confidence go on to the next step, and the last ones to rapidocr's 320 px; each crop keeps
    the reading of the last step it reached."""
    narrow, middle = ocr.RECOGNITION_STEPS
    assert narrow[0] < middle[0] < 320 and SCORES[2][0] < narrow[1] <= SCORES[0][0]
    assert SCORES[1][1] < middle[1] <= SCORES[2][1]
    monkeypatch.setenv(ocr.FAST_ENV, "off")  # the small recogniser alone
    engine = ocr.OcrEngine("onnxruntime")
    engine._load()
    rec = engine._engine.text_rec
    assert isinstance(rec, ocr._PaddingSteps)
    inner = rec._rec
    seen: list[tuple[int, int]] = []
    real = type(inner).__call__
    step_of = {narrow[0]: 0, middle[0]: 1}

    def spy(self: object, args: object) -> object:
        out = real(self, args)
        n = 1 if isinstance(args.img, np.ndarray) else len(args.img)  # type: ignore[attr-defined]
        width = inner.rec_image_shape[2]
        seen.append((width, n))
        if width in step_of:  # crops arrive in order, the sure ones left out
            step = step_of[width]
            crops = [i for i, sc in enumerate(SCORES) if step == 0 or sc[0] < narrow[1]]
            out.scores = [SCORES[i][step] for i in crops]
            out.txts = tuple(f"read at {width}" for _ in crops)
        return out

    monkeypatch.setattr(type(inner), "__call__", spy)
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    crops = [np.full((30, 60, 3), 255, np.uint8) for _ in SCORES]
    got = rec(TextRecInput(img=crops, return_word_box=False))
    assert seen == [(narrow[0], 3), (middle[0], 2), (320, 1)]
    assert got.txts[0] == f"read at {narrow[0]}" and got.txts[2] == f"read at {middle[0]}"
    assert got.txts[1] not in (got.txts[0], got.txts[2])  # rapidocr's own reading at 320
    assert inner.rec_image_shape == [3, 48, 320]  # restored


@pytest.mark.parametrize(
    ("first", "second", "calls", "kept"),
    [
        (("Revenue", 0.99), ("euneveR", 0.2), 1, "Revenue"),  # sure: not turned the other way
        (("R3venue", 0.6), ("Revenue", 0.9), 2, "Revenue"),  # unsure: the surer one kept
        (("ab", 0.3), ("cd", 0.4), 2, "det reading"),  # neither beats the first pass
    ],
)
@pytest.mark.parametrize("det_score", [0.5, 0.99])
def test_vertical_text_is_read_again_only_when_unsure(
    monkeypatch: pytest.MonkeyPatch,
    first: tuple[str, float],
    second: tuple[str, float],
    calls: int,
    kept: str,
    det_score: float,
) -> None:
    pytest.importorskip("cv2")
    engine = ocr.OcrEngine("onnxruntime")
    answers = [first, second]
    asked: list[int] = []

    def fake(crop: np.ndarray) -> tuple[str, float]:
        asked.append(1)
        return answers[len(asked) - 1]

    monkeypatch.setattr(engine, "recognize", fake)
    tok = ocr.OcrToken(text="det reading", box=(10, 10, 30, 120), score=det_score, vertical=True)
    image = np.full((200, 100, 3), 255, np.uint8)
    if det_score >= ocr.RECOGNITION_STEPS[0][1]:  # read surely by the first pass: kept as is
        assert engine._reread_vertical(image, tok) is tok and not asked
        return
    assert engine._reread_vertical(image, tok).text == kept
    assert len(asked) == calls


def test_tokens_without_a_letter_or_digit_are_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A recognised mark ("_", "—") is no label; "5%" and "Teal" are kept."""
    from types import SimpleNamespace

    def quad(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)

    found = SimpleNamespace(
        txts=("_", "Teal", "—", "5%"),
        scores=(0.9, 0.95, 0.8, 0.99),
        boxes=[
            quad(10, 10, 30, 30),
            quad(40, 10, 90, 30),
            quad(100, 10, 130, 30),
            quad(10, 50, 40, 70),
        ],
        word_results=None,
    )
    engine = ocr.OcrEngine("onnxruntime")
    monkeypatch.setattr(engine, "_load", lambda: None)
    monkeypatch.setattr(engine, "_call", lambda *a, **k: found)
    image = np.full((800, 800, 3), 255, dtype=np.uint8)
    assert sorted(t.text for t in engine.read(image)) == ["5%", "Teal"]


@pytest.mark.parametrize(
    ("processor", "machine", "model", "expected"),
    [
        ("x86_64", "x86_64", "Intel(R) Xeon(R) Processor", "Intel(R) Xeon(R) Processor"),
        ("", "aarch64", "", "aarch64"),  # no model name anywhere: the architecture
        ("Apple M2", "arm64", "", "Apple M2"),  # Python's own name says more
        ("", "x86_64", "AMD EPYC 7B13", "AMD EPYC 7B13"),
    ],
)
def test_cpu_model(
    monkeypatch: pytest.MonkeyPatch, processor: str, machine: str, model: str, expected: str
) -> None:
    from chartproof.ocr import runtime

    monkeypatch.setattr(runtime.platform, "processor", lambda: processor)
    monkeypatch.setattr(runtime.platform, "machine", lambda: machine)
    monkeypatch.setattr(runtime, "_cpuinfo", lambda: (model, "fpu sse"))
    assert runtime.cpu_model() == expected


# (crop widths at the recogniser's height, the step's least width, the calls, as crop indices
# sorted by width); worked by hand with a call costing 64 px of width
BATCH_CASES = [
    ([], 96, []),
    ([50] * 7, 96, [[0, 1, 2, 3, 4, 5], [6]]),  # like widths: six a call, as rapidocr does
    # a 2,026 px subtitle and a 1,204 px note no longer pad the labels: 4,650 px, not 12,220
    ([2026, 1204, 356, 340, 330, 96], 96, [[5], [4, 3, 2], [1], [0]]),
    ([10, 20, 300], 256, [[0, 1], [2]]),  # 64 + 512 + 64 + 300 < 64 + 3 * 300
    ([120, 100, 110], 96, [[1, 2, 0]]),  # 64 + 360 < 3 * 64 + 330
]


# (the widest crop of a call, the width the call is padded to)
PADDED_WIDTH_CASES = [
    (1, 96),
    (96, 96),
    (97, 112),  # 96 * 2 ** (1/8) = 104.7, rounded up to a multiple of 8
    (250, 256),  # the second step's width is on the grid
    (300, 304),
    (320, 320),  # and rapidocr's own
    (321, 328),
    (1000, 1000),
    (1001, 1088),
    (2400, 2584),
    (10**7, 10**7),  # past the grid: its own width
]


@pytest.mark.parametrize(("width", "padded"), PADDED_WIDTH_CASES)
def test_padded_width(width: int, padded: int) -> None:
    assert ocr.padded_width(width) == padded


def test_padded_widths_are_few_and_close() -> None:
    grid = ocr._width_grid()
    assert len([w for w in grid if w <= 2000]) <= 40
    assert all(b / a <= 1.17 for a, b in itertools.pairwise(grid))  # 2 ** (1/8) + rounding
    # rapidocr computes a call's width back from the ratio: every width of the grid survives
    assert all(int(48 * (w / 48)) == w for w in grid)


@pytest.mark.parametrize(("widths", "floor", "runs"), BATCH_CASES)
def test_recognition_batches(widths: list[int], floor: int, runs: list[list[int]]) -> None:
    assert ocr.recognition_batches(widths, floor) == runs


def test_recognition_batches_never_cost_more_than_rapidocrs_grouping() -> None:
    rng = np.random.default_rng(0)

    def cost(widths: list[int], runs: list[list[int]], floor: int) -> int:
        return sum(ocr._CALL_COST_PX + len(r) * max(floor, *(widths[i] for i in r)) for r in runs)

    for _ in range(200):
        n = int(rng.integers(1, 40))
        widths = [int(w) for w in rng.lognormal(5, 1, n)]
        runs = ocr.recognition_batches(widths, 96)
        assert sorted(i for r in runs for i in r) == list(range(n))
        assert all(1 <= len(r) <= ocr._BATCH for r in runs)
        order = sorted(range(n), key=lambda i: widths[i])
        theirs = [order[k : k + ocr._BATCH] for k in range(0, n, ocr._BATCH)]
        assert cost(widths, runs, 96) <= cost(widths, theirs, 96)


class FakeRecogniser:
    """Stands in for rapidocr's recogniser: records each call's padding width and crop ids
    (a crop's id is its pixel value) and reads every crop as "crop ID" with `score`."""

    def __init__(self, score: float = 0.99) -> None:
        self.rec_image_shape = [3, 48, 320]
        self.calls: list[tuple[int, list[int]]] = []
        self.score = score

    def __call__(self, args: Any) -> Any:
        from rapidocr.ch_ppocr_rec.typings import TextRecOutput

        crops = list(args.img)
        ids = [int(c[0, 0, 0]) for c in crops]
        self.calls.append((self.rec_image_shape[2], ids))
        return TextRecOutput(
            imgs=crops,
            txts=tuple(f"crop {i}" for i in ids),
            scores=[self.score] * len(ids),
            word_results=tuple((f"crop {i}", self.score, None) for i in ids),
        )


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_each_batch_is_padded_to_its_own_widest_crop_and_readings_keep_their_order() -> None:
    """A wide crop is read in a call of its own; the narrow ones share one padded to the step's
    width, and every reading comes back in the order the crops were given."""
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fake = FakeRecogniser()
    steps = ocr._PaddingSteps(fake)
    crops = [np.full((30, 60, 3), 1, np.uint8), np.full((30, 1500, 3), 2, np.uint8)]
    crops += [np.full((30, 50, 3), 3, np.uint8)]
    got = steps(TextRecInput(img=crops, return_word_box=True))
    narrow = ocr.RECOGNITION_STEPS[0][0]
    # each call sorted by width; the wide crop (2,400 px at 48 px high) padded to the grid
    assert fake.calls == [(narrow, [3, 1]), (2584, [2])]
    assert got.txts == ("crop 1", "crop 2", "crop 3")
    assert [w[0] for w in got.word_results] == ["crop 1", "crop 2", "crop 3"]
    assert fake.rec_image_shape == [3, 48, 320]


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_an_unsure_crop_read_at_its_own_width_is_not_read_at_that_width_again() -> None:
    """Every crop reads unsure. The narrow one goes through every step; the 505 px one was
    read at its own width's padding (544 px on the grid) and is not read again; the 500 px
    one shared its first call with it, padded to 544 px, so it is read once more, alone, at
    its own width's padding (504 px), and not at the last step, which would pad it so again."""
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fake = FakeRecogniser(score=0.5)
    steps = ocr._PaddingSteps(fake)
    crops = [np.full((48, w, 3), i, np.uint8) for i, w in ((1, 80), (2, 500), (3, 505))]
    got = steps(TextRecInput(img=crops, return_word_box=False))
    (narrow, _), (middle, _) = ocr.RECOGNITION_STEPS
    assert fake.calls == [
        (narrow, [1]),
        (544, [2, 3]),
        (middle, [1]),
        (504, [2]),
        (320, [1]),
    ]
    assert got.txts == ("crop 1", "crop 2", "crop 3")


@pytest.mark.parametrize(
    ("shape", "side"),
    [
        ((557, 800), 2000),  # short side at most 960: rapidocr's own limit
        ((800, 1286), 2000),  # a tall layout of ordinary text
        ((960, 1000), 2000),
        ((1212, 1242), 754),  # 1242 * 736 / 1212
        ((1179, 1252), 782),
        ((1140, 1400), 904),  # a 3420x2784 export once shrunk to the reader's 1400 px
        ((961, 5000), 2000),  # never past rapidocr's 2000
    ],
)
def test_detection_side(shape: tuple[int, int], side: int) -> None:
    assert ocr.detection_side(*shape) == side
    assert ocr.detection_side(*shape[::-1]) == side


def _slanted(x: float, y: float, length: float, degrees: float, thick: float = 18) -> np.ndarray:
    """A text quad whose baseline climbs `degrees` counter-clockwise from (x, y)."""
    import math

    a = math.radians(degrees)
    ux, uy = math.cos(a), -math.sin(a)  # image y points down
    nx, ny = -uy, ux  # towards the bottom of the text
    p0 = (x, y)
    p1 = (x + length * ux, y + length * uy)
    return np.array(
        [p0, p1, (p1[0] + thick * nx, p1[1] + thick * ny), (x + thick * nx, y + thick * ny)]
    )


@pytest.mark.parametrize(
    ("text", "degrees", "kept"),
    [
        ("1", -32, False),  # a segment of a plotted line read as a digit
        ("l", 40, False),
        ("1", 0, True),  # an upright value label
        ("7", 10, True),  # slightly skewed: still read as a label
        ("Jan 17", 45, True),  # a turned tick label
        ("Jan 17", -32, True),
    ],
)
def test_a_single_character_on_a_slanted_baseline_is_a_stroke(
    text: str, degrees: float, kept: bool
) -> None:
    quad = _slanted(100, 100, 110, degrees)
    tokens = ocr.tokens_from_lines([(text, 0.9, quad)], None)
    assert [t.text for t in tokens] == ([text] if kept else [])


@pytest.mark.skipif(not HAS_RAPIDOCR, reason="needs rapidocr")
def test_no_crops_mean_no_recogniser_calls() -> None:
    from rapidocr.ch_ppocr_rec.typings import TextRecInput

    fake = FakeRecogniser()
    got = ocr._PaddingSteps(fake)(TextRecInput(img=[], return_word_box=True))
    assert fake.calls == [] and got.txts == () and list(got.scores) == []


@pytest.mark.parametrize(
    "runs",
    ["up", "down"],  # a y-axis title; a category label turned as FigureQA turns them
)
def test_a_vertical_line_is_read_the_way_it_runs_in_the_first_pass(
    engine: Any, monkeypatch: pytest.MonkeyPatch, runs: str
) -> None:
    # rapidocr turns the crop of a vertical line a quarter counter-clockwise, upside down for
    # a line running up the page; `ocr.turn_upright` turns such a crop the way it reads
    # before it is recognised, so the first reading is sure either way and the vertical
    # re-read (two more recognitions) is never needed.
    cv2 = pytest.importorskip("cv2")
    line = np.full((44, 420, 3), 255, np.uint8)
    cv2.putText(line, "Revenue in million", (6, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
    turn = cv2.ROTATE_90_COUNTERCLOCKWISE if runs == "up" else cv2.ROTATE_90_CLOCKWISE
    image = np.full((520, 200, 3), 255, np.uint8)
    image[50:470, 80:124] = cv2.rotate(line, turn)
    asked: list[np.ndarray] = []
    monkeypatch.setattr(engine, "recognize", lambda crop: asked.append(crop))
    tokens = engine.read(image)
    assert [(t.text, t.vertical) for t in tokens] == [("Revenue in million", True)]
    assert tokens[0].score >= ocr.RECOGNITION_STEPS[0][1]
    assert not asked


@pytest.mark.parametrize(("det", "warmed"), [("openvino-f32", True), ("onnxruntime", False)])
def test_openvinos_detector_is_warmed_once_at_load(
    monkeypatch: pytest.MonkeyPatch, det: str, warmed: bool
) -> None:
    # OpenVINO grows its memory for every input larger than any before, on the chart that
    # brings it: the engine runs its detector once at load on a square of
    # `_DETECT_WARM_SIDE`. onnxruntime's detector has no such cost and is not run.
    shapes: list[tuple[int, ...]] = []

    class Fake:
        fast_rec = None
        detect_and_crop = None
        text_rec = type("Rec", (), {"rec_image_shape": [3, 48, 320]})()
        text_det = type("Det", (), {"session": staticmethod(lambda x: shapes.append(x.shape))})()

    monkeypatch.setattr(ocr.engine, "build_rapidocr", lambda d, r: Fake())
    engine = ocr.OcrEngine(det)
    engine._load()
    engine._load()
    side = ocr._DETECT_WARM_SIDE
    assert shapes == ([(1, 3, side, side)] if warmed else [])
