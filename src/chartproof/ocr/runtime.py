"""Which runtime and precision run each OCR network (detector, recogniser) on this machine.

The same rapidocr ONNX models run on onnxruntime (float32) or on OpenVINO, in float32 or, on
CPUs with bfloat16 instructions, in bfloat16. Which is fastest depends on the CPU, and not in
a way its feature flags tell: on an AMD EPYC with AVX-512 BF16, OpenVINO in bfloat16 read
charts 1.7 times faster than onnxruntime; on an Intel Xeon with the same flags, OpenVINO's
bfloat16 recogniser ran at half the speed of its float32 one, and onnxruntime's detector at a
third of OpenVINO's. So the choice is measured, once per machine: each candidate runs each
network on the same inputs, in turns, and the fastest is kept for that network
(`measure_plan`). The result is stored in the cache folder (``ocr-plan.json`` beside the
response cache; ``$CHARTPROOF_OCR_PLAN`` names another file), keyed by the CPU and the
runtimes' versions, so every later process (and
every worker of a pool) reads with the same runtime and the same readings; a file lock keeps
two processes from measuring at once. Delete the file to measure again.

The measured plan chooses among the float32 backends only. bfloat16 reads differently: on an
AMD EPYC with AVX-512 BF16, OpenVINO in bfloat16 read 1.35 times faster than in float32, but
the cells it recovered differed on 11 of the 248 shared ChartQA charts (one gained 16
cells, others lost one or two), while float32 on that machine reproduced an Intel Xeon's
tables to the cell. So by default a chart reads the same on every machine, and bfloat16 is asked for.

``$CHARTPROOF_OCR_ENGINE`` overrides the measurement for both networks: ``onnxruntime``,
``openvino`` (OpenVINO at its default precision on this CPU: bfloat16 where it has those
instructions), ``openvino-f32``, ``openvino-bf16``, or ``auto`` (the measured plan, the
default).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import platform
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from chartproof._cachedir import cache_home

__all__ = [
    "BACKENDS",
    "OCR_ENGINE_ENV",
    "PLAN_ENV",
    "PLAN_FILE",
    "OcrPlan",
    "available_backends",
    "cpu_model",
    "describe",
    "import_openvino",
    "measure_plan",
    "ocr_plan",
    "openvino_precision",
    "plan_path",
    "resolve",
]

OCR_ENGINE_ENV = "CHARTPROOF_OCR_ENGINE"
"""Environment variable that picks the OCR networks' runtime instead of the measured plan."""

BACKENDS = ("onnxruntime", "openvino-f32", "openvino-bf16")
"""Every runtime and precision a network can run on."""

NETWORKS = ("det", "rec")

PLAN_FILE = "ocr-plan.json"
"""Name of the stored plans in the cache folder (`plan_path`)."""

PLAN_ENV = "CHARTPROOF_OCR_PLAN"
"""Environment variable naming the file of stored plans instead of the cache folder's."""

_REQUESTS = ("auto", "onnxruntime", "openvino", "openvino-f32", "openvino-bf16")

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class OcrPlan:
    """The backend (one of `BACKENDS`) of each OCR network, and why it was chosen."""

    det: str
    rec: str
    how: str = ""
    """Where the choice came from: the measurement (with its date), the environment, the one
    runtime installed, or the caller."""
    seconds: Mapping[str, Mapping[str, float]] = dataclasses.field(default_factory=dict)
    """network -> backend -> seconds of one round of the measurement's inputs (a chart's
    calls; when measured)."""

    def identity(self) -> str:
        """The runtimes, versions and precisions the readings depend on, e.g.
        "openvino 2026.4.1 f32", or "det openvino 2026.4.1 bf16 / rec onnxruntime 1.32.0"."""
        det, rec = describe(self.det), describe(self.rec)
        return det if det == rec else f"det {det} / rec {rec}"


def describe(backend: str) -> str:
    """A backend with its runtime's version: "onnxruntime 1.32.0", "openvino 2026.4.1 bf16"."""
    runtime, _, precision = backend.partition("-")
    found = f"{runtime} {_version(runtime)}"
    return f"{found} {precision}" if precision else found


def resolve(name: str) -> str:
    """The backend a requested name stands for ("openvino" is OpenVINO at its default
    precision on this CPU). Raises ValueError for an unknown name or bfloat16 on a CPU without
    it, ImportError (with the install command) when the runtime is not installed."""
    key = name.strip().lower()
    if key not in _REQUESTS or key == "auto":
        raise ValueError(f"unknown OCR runtime {name!r}: choose one of {', '.join(_REQUESTS[1:])}")
    runtime = key.partition("-")[0]
    if importlib.util.find_spec(runtime) is None:
        raise ImportError(
            f"OCR runtime {key} needs {runtime}, which is not installed: pip install {runtime}"
        )
    if runtime == "onnxruntime":
        return "onnxruntime"
    default = openvino_precision()
    if default is None:
        raise ImportError("OpenVINO is installed but cannot start; see the log, or use onnxruntime")
    if key == "openvino":
        return f"openvino-{default}"
    if key == "openvino-bf16" and default != "bf16":
        raise ValueError("openvino-bf16: this CPU has no bfloat16 instructions OpenVINO uses")
    return key


def available_backends() -> list[str]:
    """The backends this installation and CPU can run, in `BACKENDS` order."""
    out = []
    if importlib.util.find_spec("onnxruntime") is not None:
        out.append("onnxruntime")
    precision = openvino_precision()
    if precision is not None:
        out.append("openvino-f32")
        if precision == "bf16":
            out.append("openvino-bf16")
    return out


@functools.cache
def ocr_plan() -> OcrPlan:
    """The plan this process reads with: `$CHARTPROOF_OCR_ENGINE` when set (and not
    ``auto``), else the one float32 runtime installed, else the plan measured on this machine
    among the float32 backends (stored, or measured now and stored; see the module doc).
    Cached per process (`ocr_plan.cache_clear()` to look again)."""
    asked = os.environ.get(OCR_ENGINE_ENV, "").strip().lower()
    if asked and asked != "auto":
        if asked not in _REQUESTS:
            raise ValueError(f"${OCR_ENGINE_ENV}={asked!r}: choose one of {', '.join(_REQUESTS)}")
        backend = resolve(asked)
        return OcrPlan(backend, backend, how=f"${OCR_ENGINE_ENV}={asked}")
    candidates = [b for b in available_backends() if not b.endswith("-bf16")]
    if not candidates:
        return OcrPlan("onnxruntime", "onnxruntime", how="no OCR runtime is installed")
    if len(candidates) == 1:
        return OcrPlan(candidates[0], candidates[0], how="the only runtime installed")
    return _stored_or_measured(candidates)


def plan_path() -> Path:
    """Where measured plans are stored: ``$CHARTPROOF_OCR_PLAN``, else
    ``<cache folder>/ocr-plan.json`` (``~/.cache/chartproof``)."""
    found = os.environ.get(PLAN_ENV, "").strip()
    return Path(found).expanduser() if found else cache_home() / PLAN_FILE


def _cpuinfo() -> tuple[str, str]:
    """(model name, feature flags) of the first processor in /proc/cpuinfo; empty where
    there is none."""
    model = flags = ""
    with contextlib.suppress(OSError):
        for line in (
            Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
        ):
            if line.startswith("model name") and not model:
                model = line.split(":", 1)[1].strip()
            elif line.startswith(("flags", "Features")) and not flags:
                flags = line.split(":", 1)[1].strip()
    return model, flags


def cpu_model() -> str:
    """The processor's model name ("Intel(R) Xeon(R) Processor"): Python's own where it
    says more than the architecture, else /proc/cpuinfo's, else the architecture."""
    cpu = platform.processor()
    if cpu in ("", platform.machine(), "x86_64"):
        cpu = _cpuinfo()[0] or cpu
    return cpu or platform.machine()


_MEASURE = "chart rounds on the width grid"
"""How `measure_plan` measures, part of a stored plan's key: plans measured otherwise (one
input shape per network, before) are measured again."""


def _machine_key(candidates: list[str]) -> str:
    """What a measurement holds for: the CPU (model and flags), the runtimes' versions, the
    candidates measured and how (`_MEASURE`)."""
    cpu, flags = cpu_model(), _cpuinfo()[1]
    versions = " ".join(f"{d} {_version(d)}" for d in ("rapidocr", "onnxruntime", "openvino"))
    digest = hashlib.sha256(flags.encode()).hexdigest()[:12]
    return f"{cpu} | flags {digest} | {versions} | {','.join(candidates)} | {_MEASURE}"


def _stored_or_measured(candidates: list[str]) -> OcrPlan:
    path = plan_path()
    key = _machine_key(candidates)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.with_suffix(".lock")):
            stored = _read_plans(path)
            if key in stored:
                return _plan_of(stored[key])
            plan = measure_plan(candidates)
            stored[key] = {
                "det": plan.det,
                "rec": plan.rec,
                "how": plan.how,
                "seconds": {n: dict(s) for n, s in plan.seconds.items()},
            }
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            tmp.replace(path)
            log.info("OCR plan measured and stored in %s: %s", path, plan.identity())
            return plan
    except OSError as e:
        log.warning(
            "cannot store the OCR plan in %s (%s): measured for this process only; other "
            "processes may choose otherwise, set $%s to pin one",
            path,
            e,
            OCR_ENGINE_ENV,
        )
        return measure_plan(candidates)


def _read_plans(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        log.warning("ignoring the unreadable OCR plan file %s (%s): measuring again", path, e)
        return {}
    return data if isinstance(data, dict) else {}


def _plan_of(entry: Mapping[str, Any]) -> OcrPlan:
    seconds = entry.get("seconds") or {}
    return OcrPlan(
        det=str(entry["det"]),
        rec=str(entry["rec"]),
        how=str(entry.get("how", "measured on this machine")),
        seconds={str(n): {str(b): float(s) for b, s in v.items()} for n, v in seconds.items()},
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` (created) for the duration; a plain pass-through where
    the platform has no `fcntl`."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not Linux or macOS
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# ------------------------------------------------------------------ measuring

_DET_INPUTS = ((736, 992), (1120, 800), (736, 1056))
"""Detector inputs (height, width) of typical charts after upscaling: two wide ones and a tall
one (Statista's 800 px columns). They run in turn, so each call's shape differs from the one
before, as it does from chart to chart."""

_REC_CALLS = (
    (6, 96), (6, 96), (4, 96), (3, 112), (2, 256), (3, 168), (1, 320), (2, 216), (2, 384),
    (1, 600),
)  # fmt: skip
"""One chart's recogniser calls, (crops, padded width), as the reader makes them: full
batches of short labels at the first step's 96 px, then fewer and wider crops (long labels,
titles, crops read again at 256 and 320 px). Over the 384 shared real charts the calls off
those three widths had a median width of 250 px and a few crops each. Every width is one of
the grid's (`chartproof.ocr.padded_width`), which the reader pads its calls to."""

_ROUNDS = 3


def _rec_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    """The recogniser inputs of `_REC_CALLS`. Each round reads the same shapes, so the
    warm-up round prepares them, as a run's first charts prepare the grid's shapes: a
    runtime that prepares each new input shape (OpenVINO) is timed as a run of charts meets
    it. (Before the grid, the reader padded each call to its widest crop, 1,757 shapes over
    5,490 calls on the 384 charts, and each round here had new widths.)"""
    return [rng.standard_normal((n, 3, 48, w), dtype=np.float32) for n, w in _REC_CALLS]


def measure_plan(
    candidates: list[str],
    sessions: Callable[[str], Mapping[str, Callable[[np.ndarray], Any]]] | None = None,
) -> OcrPlan:
    """Time every candidate backend on each network and keep the fastest per network.

    `sessions(backend)` gives {"det": fn, "rec": fn}, each running its network on an input
    array (by default rapidocr's own sessions on that backend, `_rapidocr_sessions`). A round
    runs a network on fixed pseudo-random inputs of a chart's shapes, one after another: the
    detector on `_DET_INPUTS`, the recogniser on `_REC_CALLS`. Each backend runs one round to
    warm up, then `_ROUNDS` rounds in turns with the others (so a change in machine load hits
    all alike); its fastest round counts. Ties go to the earlier candidate.

    One input shape, run again and again, misjudged the recogniser: on an AMD EPYC, OpenVINO
    and onnxruntime read a batch of six 256 px crops equally fast (0.122 s and 0.124 s), but
    replaying the reader's recogniser calls of 120 real charts, onnxruntime took 0.48 to 0.85
    of OpenVINO's time in every class of width and batch size, even once OpenVINO had
    prepared every shape; the shared ChartQA charts read 1.12 times faster, with the same
    tokens.
    """
    make = sessions or _rapidocr_sessions
    rng = np.random.default_rng(0)
    det_inputs = [rng.standard_normal((1, 3, h, w), dtype=np.float32) for h, w in _DET_INPUTS]
    rec_inputs = _rec_inputs(rng)
    rounds = [{"det": det_inputs, "rec": rec_inputs} for _ in range(1 + _ROUNDS)]
    built = {b: make(b) for b in candidates}
    for fns in built.values():
        for net in NETWORKS:
            for x in rounds[0][net]:
                fns[net](x)
    best: dict[str, dict[str, float]] = {net: {} for net in NETWORKS}
    for inputs in rounds[1:]:
        for backend, fns in built.items():
            for net in NETWORKS:
                t = time.perf_counter()
                for x in inputs[net]:
                    fns[net](x)
                took = time.perf_counter() - t
                best[net][backend] = min(best[net].get(backend, took), took)
    chosen = {net: min(candidates, key=best[net].__getitem__) for net in NETWORKS}
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    return OcrPlan(
        det=chosen["det"],
        rec=chosen["rec"],
        how=f"measured on this machine on {when}",
        seconds={n: {b: round(s, 5) for b, s in v.items()} for n, v in best.items()},
    )


def _rapidocr_sessions(backend: str) -> Mapping[str, Callable[[np.ndarray], Any]]:
    from chartproof.ocr import build_rapidocr

    engine = build_rapidocr(backend, backend)
    return {
        "det": engine._load_det_model().session,
        "rec": engine._load_rec_model().session,
    }


# ------------------------------------------------------------------ OpenVINO


@functools.cache
def openvino_precision() -> str | None:
    """The precision OpenVINO infers in on this CPU by default ("bf16" on CPUs with bfloat16
    instructions, else "f32"), or None when OpenVINO is not installed or cannot start."""
    if importlib.util.find_spec("openvino") is None:
        return None
    try:
        openvino = import_openvino()
        hint = openvino.Core().get_property("CPU", "INFERENCE_PRECISION_HINT")
    except Exception as e:  # a broken install must not take the reader down
        log.warning("OpenVINO is installed but cannot start (%s); OCR uses onnxruntime", e)
        return None
    return "bf16" if "bfloat16" in str(hint).lower() or "bf16" in str(hint).lower() else "f32"


def import_openvino() -> Any:
    """Import OpenVINO without its model-conversion tools, which send a usage event to Google
    Analytics on import unless the user opted out (openvino_telemetry's default) and leave a
    thread behind, after which chartproof's worker pools must spawn fresh interpreters
    instead of forking. chartproof converts no models; the tools import normally later."""
    import sys

    if "openvino" in sys.modules:
        return sys.modules["openvino"]
    blocked = "openvino.tools.ovc"
    had = blocked in sys.modules
    sys.modules.setdefault(blocked, None)  # type: ignore[arg-type]  # makes its import fail
    try:
        import openvino
    finally:
        if not had:
            sys.modules.pop(blocked, None)
    return openvino


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
