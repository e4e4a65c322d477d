"""`demo`: generate a small suite, evaluate the built-in offline chart reader on it under the
direct, chain and premise protocols, redraw some charts as code and grow counterfactual
families from the faithful redraws (evaluated too), and write one HTML report — offline, in
minutes; then a small bias audit of the offline text model with its own report."""

from __future__ import annotations

import multiprocessing
import traceback
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from pydantic import Field

from chartproof.pipelines.evaluate import evaluate
from chartproof.pipelines.generate import generate
from chartproof.pipelines.settings import fields_of, settings_of
from chartproof.types import Record

__all__ = ["DemoResult", "DemoSettings", "demo"]

Say = Callable[[str], None]

Bars = Callable[[str], AbstractContextManager[Callable[[int, int], None] | None]]
"""Opens a progress display for a stage (by label); yields its (done, total) hook."""


@dataclass(frozen=True)
class DemoResult:
    """Where the demo wrote its data, runs and report."""

    data: Path
    """The generated dataset folder."""
    runs: tuple[Path, ...]
    """One run folder per protocol, then the families run (when families were grown)."""
    derender: Path | None
    """The derender output folder (None when turned off, or skipped because the sandbox has
    no operating-system isolation here)."""
    report: Path
    """The HTML report."""
    audit: Path | None = None
    """The bias audit's report (None when turned off or the text model is unavailable)."""


class DemoSettings(Record):
    """What `demo` and `chartproof demo` run (unknown fields are errors)."""

    out: Path = Path("demo-output")
    """Folder for the data, runs and reports."""
    model: str = "builtin:reader"
    """Backend spec evaluated (one backend serves every stage)."""
    suite: str = "chartqax"
    """Synthetic suite generated."""
    n: int = Field(default=16, ge=1)
    """Charts generated."""
    per_chart: int = Field(default=3, ge=1)
    """Questions per chart."""
    variants: tuple[str, ...] = ("blur:2", "watermark:2", "label_removal")
    """Perturbations of every chart (`generate`'s `variants`)."""
    levels: int | None = None
    """Top perturbation level (None: each perturbation's own)."""
    protocols: tuple[str, ...] = ("direct", "chain", "premise")
    """Evaluation protocols, one run each."""
    derender_charts: int = Field(default=6, ge=0)
    """Charts redrawn as code (0: none)."""
    counterfactuals: int = Field(default=3, ge=0)
    """Data edits grown from each faithful redraw."""
    seed: int = 0
    """Seed of the generated data and the edits."""
    audit_charts: int = Field(default=2, ge=0)
    """Charts of the bias audit (0: no audit)."""
    audit_model: str = "text:smollm2"
    """Model the bias audit audits."""
    executor: str | None = None
    """Where generation and a CPU-bound model run (`chartproof.executors` spec)."""


@fields_of(DemoSettings)
def demo(
    out: str | Path | DemoSettings | None = None,
    *,
    say: Say | None = None,
    progress: Bars | None = None,
    **fields: Any,
) -> DemoResult:
    """Run generate → eval (one run per protocol) → derender → families eval → report
    under `out`.

    One backend serves every step, so the reader perceives each image once. The premise
    protocol (dozens of premises per question) runs on the unperturbed charts only. The
    first `derender_charts` charts are redrawn as code by the model (0 turns this off);
    each faithful redraw grows a family of `counterfactuals` seeded data edits, whose
    questions the model then answers (the report's family section). Generation and a
    CPU-bound model run on `executor` (default "local": every core; see
    `chartproof.executors`); the outputs do not depend on it. `progress(label)`, when
    given, opens a progress display for one stage and yields its `(done, total)` hook. On a local pool of several
    workers, the bias audit (`audit_charts` charts, 0 turns it off) runs in a process of its
    own beside the reader's stages; otherwise after them, on `executor`. `out` may be a
    `DemoSettings` record (the keywords then change it); every other keyword is one of its
    fields.
    """
    from chartproof.executors import LocalExecutor, load_backend_on, open_executor
    from chartproof.pipelines.derender import derender_dataset
    from chartproof.reports import report

    given = out if isinstance(out, DemoSettings) else None
    if out is not None and given is None:
        fields["out"] = out
    cfg = settings_of(DemoSettings, given, fields)
    root = cfg.out
    tell = say or (lambda _: None)
    tell(f"generating {cfg.n} {cfg.suite} charts with {cfg.per_chart} questions each ...")
    pool = open_executor(cfg.executor)
    # On a local pool of several workers the audit runs beside the reader, in a process of
    # its own: one text model batching in one process gains little from more workers, and
    # the reader's stages leave cores idle between them; its outputs are the same either way.
    beside = cfg.audit_charts > 0 and pool.workers > 1 and isinstance(pool, LocalExecutor)
    background = (
        _start_audit(root, cfg.audit_charts, cfg.audit_model, cfg.seed, tell) if beside else None
    )
    try:
        with _bar(progress, f"generate {cfg.suite}") as hook:
            data = generate(
                cfg.suite,
                cfg.n,
                root / "data",
                seed=cfg.seed,
                per_chart=cfg.per_chart,
                variants=cfg.variants,
                levels=cfg.levels,
                executor=pool,
                progress=hook,
            ).folder
        backend = load_backend_on(cfg.model, pool)
    except BaseException:
        pool.close()
        _cancel(background)
        raise
    runs = []
    try:
        for protocol in cfg.protocols:
            tell(f"evaluating {cfg.model} ({protocol} protocol) ...")
            run = root / "runs" / protocol
            where = {"perturbation": "original"} if protocol == "premise" else None
            with _bar(progress, f"eval {protocol}") as hook:
                evaluate(
                    data, cfg.model, run, protocol=protocol, backend=backend, where=where,
                    progress=hook,
                )  # fmt: skip
            runs.append(run)
        derendered = None
        if cfg.derender_charts > 0:
            tell(f"redrawing {cfg.derender_charts} charts as code with {cfg.model} ...")
            with _bar(progress, "derender") as hook:
                made = _derender_or_skip(
                    derender_dataset,
                    tell,
                    data,
                    backend,
                    root / "derender",
                    limit=cfg.derender_charts,
                    counterfactuals=cfg.counterfactuals,
                    seed=cfg.seed,
                    per_chart=cfg.per_chart,
                    executor=pool,
                    progress=hook,
                )
            derendered = None if made is None else root / "derender"
            if made is not None:
                overall = made.summary["overall"]
                tell(f"  {overall['faithful']} of {made.charts} redraws faithful")
            if made is not None and made.families is not None and made.families.samples:
                tell(f"evaluating {cfg.model} on the counterfactual families ...")
                run = root / "runs" / "families"
                with _bar(progress, "eval families") as hook:
                    evaluate(made.families.folder, cfg.model, run, backend=backend, progress=hook)
                runs.append(run)
    except BaseException:
        _cancel(background)
        raise
    finally:
        backend.close()
        pool.close()
    path = report(*runs, out=root / "report.html")
    audited = _audit_stage(
        background, root, cfg.audit_charts, cfg.audit_model, cfg.seed, cfg.executor, tell, progress
    )
    return DemoResult(data=data, runs=tuple(runs), derender=derendered, report=path, audit=audited)


def _audit_stage(
    background: Any,
    root: Path,
    charts: int,
    model: str,
    seed: int,
    executor: str | None,
    tell: Say,
    progress: Bars | None,
) -> Path | None:
    """The bias audit's report: the one `background` ran beside the reader's stages, else
    one run now (`charts` 0: none); a skipped audit says why in one line."""
    audited: Path | None = None
    skipped: str | None = None
    if background is not None:
        audited, skipped = _finish_audit(background, root, tell, progress)
    elif charts > 0:
        tell(f"auditing {model} for bias on {charts} generated charts (race, gender) ...")
        bias_data = _bias_data(root, charts, seed)
        with _bar(progress, "bias audit") as hook:
            skipped = _audit(bias_data, root, model, executor=executor, progress=hook)
        audited = None if skipped else _audit_report(root)
    if skipped:
        tell(f"  bias audit skipped: {skipped}")
    return audited


def _bar(progress: Bars | None, label: str) -> AbstractContextManager[Any]:
    return progress(label) if progress is not None else nullcontext(None)


def _derender_or_skip(derender: Callable[..., Any], tell: Say, *args: Any, **kwargs: Any) -> Any:
    """The derender stage, or None (after one line saying why) when the sandbox has no
    operating-system isolation here: the redraws are model-written code, which never runs
    without it, and the rest of the demo does not need them."""
    from chartproof.sandbox import IsolationUnavailable

    try:
        return derender(*args, **kwargs)
    except IsolationUnavailable as exc:
        tell(f"  skipped redrawing charts as code (and its counterfactual families): {exc}")
        return None


@dataclass
class _Background:
    """The bias audit running in a forked process, and the pipe its outcome comes back on."""

    process: BaseProcess
    outcome: Connection
    counts: Any
    """The audit's progress, (done, total), written by the child (total -1 until known)."""


def _start_audit(root: Path, charts: int, model: str, seed: int, tell: Say) -> _Background:
    """The bias data generated here, then the audit started in a process of its own (its text
    model in that one process), forked when this process runs no other thread, else spawned.

    A process, not a thread: a second thread here would make every later worker pool spawn
    fresh interpreters instead of forking this one (see `chartproof.executors.local`); a
    forked child also sees what this process registered (built-in models, chart kinds).
    """
    tell(
        f"auditing {model} for bias on {charts} generated charts (race, gender), "
        "beside the reader ..."
    )
    data = _bias_data(root, charts, seed)
    receive, send = multiprocessing.Pipe(duplex=False)
    context: Any = multiprocessing.get_context(_audit_start_method())
    # shared numbers, not messages: a child never blocks on a pipe nobody reads yet
    counts = context.Array("q", [0, -1])
    process: BaseProcess = context.Process(
        target=_audit_child, args=(send, data, root, model, counts), name="chartproof-demo-audit"
    )
    process.start()
    send.close()
    return _Background(process=process, outcome=receive, counts=counts)


def _audit_start_method() -> str:
    """fork where it is safe, else spawn: the rule the local executor's workers follow."""
    from chartproof.executors.local import process_context

    method: str = process_context().get_start_method()
    return method


def _audit_child(send: Connection, data: Path, root: Path, model: str, counts: Any) -> None:
    """The forked audit: ("ok", why-skipped-or-None) or ("error", traceback) on the pipe, its
    progress in `counts`. Ctrl-C is the parent's to handle (it stops this process; the
    audit's run folder resumes)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def progress(done: int, total: int) -> None:
        with counts.get_lock():
            counts[0], counts[1] = done, total

    try:
        send.send(("ok", _audit(data, root, model, executor="local:1", progress=progress)))
    except BaseException:
        send.send(("error", traceback.format_exc()))
    finally:
        send.close()


def _finish_audit(
    background: _Background, root: Path, tell: Say, progress: Bars | None = None
) -> tuple[Path | None, str | None]:
    """Wait for the forked audit (its progress on a bar while it runs); its report, or why it
    was skipped. Raises RuntimeError with the child's traceback when it failed, or its exit
    code when it died."""
    if not background.outcome.poll():
        tell("waiting for the bias audit ...")
        with _bar(progress, "bias audit") as hook:
            finished = False
            while not finished:
                finished = background.outcome.poll(0.2)  # one more look once it is done
                with background.counts.get_lock():
                    done, total = background.counts[0], background.counts[1]
                if hook is not None and total >= 0:
                    hook(done, total)
    try:
        status, detail = background.outcome.recv()
    except EOFError:
        background.process.join()
        raise RuntimeError(
            f"the bias audit process died (exit code {background.process.exitcode}); "
            "its run folder resumes: rerun the demo"
        ) from None
    finally:
        background.outcome.close()
    background.process.join()
    if status == "error":
        raise RuntimeError(f"the bias audit failed:\n{detail}")
    return (None, detail) if detail else (_audit_report(root), None)


def _cancel(background: _Background | None) -> None:
    """Stop a background audit when a reader stage fails (its run folder resumes, as after
    any crash)."""
    if background is not None and background.process.is_alive():
        background.process.terminate()
        background.process.join()


def _bias_data(root: Path, charts: int, seed: int) -> Path:
    """The audit's generated bias charts (one process: a couple of charts)."""
    return generate(
        "bias", charts, root / "bias-data", seed=seed, per_chart=1, premises=False,
        executor="local:1",
    ).folder  # fmt: skip


MITIGATED_PAIRS = 1
"""Chart–attribute pairs the demo's audit mitigates (the first eligible ones). The mitigation
asks about 15 generations per pair (evidence, paired texts, reference and rewrites, masked
and not), which on SmolLM2 on the CPU costs about as much as the rest of the audit per
pair; its report section names the subset and its n."""

MITIGATION_RUN = "audit-mitigation"
"""The run folder (under RUNS) of the demo's mitigation: a run of its own, so the audit's run
keeps the configuration it always had (a demo folder written before resumes) and holds only
the settings' results."""


def _audit(
    data: Path,
    root: Path,
    model: str,
    *,
    executor: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> str | None:
    """A small bias audit of the offline text model (text over table) on the generated bias
    charts, two attributes, then the mitigation on its first `MITIGATED_PAIRS` pairs (run
    `MITIGATION_RUN`), the model fanned out over `executor` on a machine without an
    accelerator; None when done, else why the model cannot run here."""
    from chartproof.models.registry import MissingDependencyError
    from chartproof.pipelines.audit import audit

    common: dict[str, Any] = dict(
        attributes=("race", "gender"), max_tokens=96, executor=executor, progress=progress
    )
    try:
        audit(data, model, root / "runs" / "audit",
              settings=("narrative", "hallucination", "polarity"), **common)  # fmt: skip
        audit(data, model, root / "runs" / MITIGATION_RUN, settings=(), mitigate=True,
              mitigation_pairs=MITIGATED_PAIRS, **common)  # fmt: skip
    except (MissingDependencyError, ImportError, OSError) as exc:
        return str(exc)
    return None


def _audit_report(root: Path) -> Path:
    """The audit's report (`runs/audit/report.html`), its mitigation run beside it."""
    from chartproof.reports import report

    runs = [root / "runs" / "audit", root / "runs" / MITIGATION_RUN]
    return report(*(r for r in runs if (r / "run.json").is_file()))
