"""`compare_tuned`: evaluate a fine-tuned model and its base through `chartproof eval` on data
the run never trained on (checked against the card's image hashes) and put them side by side:
accuracy, explanation metrics, family metrics and counterfactual sensitivity."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from chartproof.datasets import load_dataset
from chartproof.metrics.cf_sensitivity import CF_METRICS
from chartproof.pipelines.finetune._card import TRAIN_IMAGES_FILE, read_card
from chartproof.pipelines.settings import cache_setting, fields_of, settings_of
from chartproof.types import Record, RunSummary

__all__ = [
    "CompareSettings",
    "Comparison",
    "compare_tuned",
    "held_out_overlap",
    "run_figures",
    "weights_identity",
]


@dataclass(frozen=True)
class Comparison:
    """Base vs tuned figures (also written to OUT/comparison.json and .md)."""

    rows: list[dict[str, Any]]
    """One row per figure: name, base, tuned, delta, n as [base, tuned]."""
    runs: dict[str, Path]
    """Run folder of each model ("base", "tuned")."""
    markdown: str
    """The table as Markdown."""


def held_out_overlap(card_dir: Path, data: str | Path) -> list[str]:
    """Ids of samples of `data` whose chart image was trained on (empty: truly held out)."""
    listed = card_dir / TRAIN_IMAGES_FILE
    if not listed.is_file():
        raise FileNotFoundError(f"{listed}: missing; cannot check that {data} was held out")
    trained = {line.strip() for line in listed.read_text(encoding="utf-8").splitlines()}
    return [s.id for s in load_dataset(data).samples if s.image.sha256 in trained]


def run_figures(run: Path) -> dict[str, tuple[float | None, int]]:
    """The headline figures of a run folder: overall accuracy family, n-gram and ROSCOE
    aggregates, family metrics, and the counterfactual sensitivity (the `cf_sensitivity`
    run scorer's summary section; absent when the data has no counterfactual pairs)."""
    summary = RunSummary.read(json.loads((run / "summary.json").read_text(encoding="utf-8")))
    out: dict[str, tuple[float | None, int]] = {}
    for score in summary.metrics:
        if not score.group:
            out[score.metric] = (score.value, score.n)

    if summary.ngram is not None:
        for name, value in summary.ngram.corpus.items():
            out[f"ngram/{name}"] = (value, summary.ngram.n)
    # a section no shipped scorer writes any more; kept for run folders that have it
    roscoe = summary.section("roscoe") or {}
    for score in roscoe.get("scores", []) if isinstance(roscoe, dict) else []:
        if isinstance(score, dict) and not score.get("group"):
            out[f"roscoe/{score['metric']}"] = (score.get("value"), int(score.get("n") or 0))
    for score in summary.families.scores if summary.families is not None else ():
        if not score.group:
            out[score.metric] = (score.value, score.n)
    cf = summary.cf_sensitivity
    scored = {s.metric: s for s in cf.scores if not s.group} if cf is not None else {}
    for name in CF_METRICS:  # not computed (None, 0) on data without counterfactual pairs
        got = scored.get(name)
        out[name] = (None, 0) if got is None else (got.value, got.n)
    return out


def weights_identity(spec: str, *, full: bool = False) -> str | None:
    """What weights a local ``hf:`` / ``text:`` spec resolves to: the checkpoint's
    fingerprint plus its adapter's (``?adapter=``); None for other kinds (an API model,
    the reader). The checkpoint fingerprint reads each weight file's first and last MiB;
    `full` hashes the weight files whole (a merged LoRA may change only middle layers)."""
    from chartproof.models.hf import adapter_fingerprint, adapter_folder, checkpoint_fingerprint
    from chartproof.models.registry import parse_spec
    from chartproof.models.text_llm import resolve_text_model

    parsed = parse_spec(spec)
    if parsed.kind == "text":
        folder = resolve_text_model(parsed.target)
    elif parsed.kind == "hf":
        folder = Path(parsed.target).expanduser().resolve()
    else:
        return None
    parts = [checkpoint_fingerprint(folder, full=full)]
    adapter = parsed.options.get("adapter")
    if adapter:
        parts.append(adapter_fingerprint(adapter_folder(str(adapter), kind=parsed.kind)))
    return "+".join(parts)


def _refuse_same_weights(base: str, tuned: str) -> None:
    """ValueError when both specs resolve to the same weights (base scored twice)."""
    first = weights_identity(base)
    if first is None or first != weights_identity(tuned):
        return
    if weights_identity(base, full=True) != weights_identity(tuned, full=True):
        return
    raise ValueError(
        f"finetune compare: base {base!r} and tuned {tuned!r} resolve to the same weights "
        f"(fingerprint {first}); the tuned model must carry its adapter (?adapter=DIR) or be "
        "the merged checkpoint"
    )


def _labels(runs: Sequence[Path]) -> dict[str, str]:
    """Figures shown under a longer name: ROSCOE AS over fewer than 9 scores says so."""
    notes: list[str] = []
    for run in runs:
        summary = RunSummary.read(json.loads((run / "summary.json").read_text(encoding="utf-8")))
        for score in summary.metrics:
            named = score.metric == "roscoe_as_renormalised" and not score.group
            if named and score.note and score.note not in notes:
                notes.append(score.note)
    return (
        {"roscoe_as_renormalised": f"roscoe_as_renormalised ({'; '.join(notes)})"} if notes else {}
    )


def _fmt(x: float | None) -> str:
    return "not computed" if x is None else f"{x:.4f}"


class CompareSettings(Record):
    """What `finetune compare` is asked to do: the typed configuration `compare_tuned` and
    `chartproof finetune compare` share (unknown fields are errors). Each model's run is an
    `EvalSettings` made from it."""

    tuned: Path
    """The finetune output folder (its card names the base and the tuned model)."""
    data: str
    """Held-out dataset (refused when any of its charts was trained on)."""
    out: Path
    """Folder for both runs (`base`, `tuned`), the table and the report."""
    max_tokens: int = Field(default=256, ge=1)
    """Largest reply in tokens."""
    metrics: tuple[str, ...] = ()
    """Opt-in explanation metrics of both runs ("roscoe", "ngram")."""
    limit: int | None = None
    """Only the first `limit` samples."""
    cache: bool | Path = True
    """Response cache: True for the default file, a path for that file, False for none."""
    base_spec: str | None = None
    """Compare against this spec instead of the card's base."""
    batch_size: int | None = Field(default=None, ge=1)
    """Samples per unit of work (default: the model's own batch size)."""
    merged: bool = False
    """Score the merged checkpoint (trained with --merge) instead of the adapter."""

    _cache = field_validator("cache", mode="before")(cache_setting)


@fields_of(CompareSettings)
def compare_tuned(
    tuned: str | Path | CompareSettings,
    data: str | Path | None = None,
    out: str | Path | None = None,
    **fields: Any,
) -> Comparison:
    """Evaluate the base and the tuned model of the finetune folder `tuned` on `data` (refused
    when any of its charts was trained on), into `out/base` and `out/tuned`, and compare.

    The tuned model is the base with the card's adapter, or with `merged` the merged
    checkpoint (``--merge``). Refused (ValueError) when both resolve to the same weights:
    an old card whose VLM spec lacked the adapter would otherwise score the base twice.
    `tuned` may be a `CompareSettings` record (the keywords then change it); every other
    keyword is one of its fields."""
    from chartproof.pipelines.evaluate import EvalSettings, run_evaluation
    from chartproof.reports import report

    given = tuned if isinstance(tuned, CompareSettings) else None
    named = {"tuned": None if given is not None else tuned, "data": data, "out": out}
    fields |= {k: str(v) if k == "data" else v for k, v in named.items() if v is not None}
    cfg = settings_of(CompareSettings, given, fields)
    tuned, data = cfg.tuned, cfg.data
    card_dir = Path(tuned)
    card = read_card(card_dir)
    overlap = held_out_overlap(card_dir, data)
    if overlap:
        raise ValueError(
            f"{data} is not held out: {len(overlap)} samples show charts {card_dir} trained on "
            f"(e.g. {overlap[:3]}); evaluate on data generated with another seed"
        )
    out_dir = cfg.out
    runs = {"base": out_dir / "base", "tuned": out_dir / "tuned"}
    tuned_spec = card.eval_spec
    if cfg.merged:
        if not card.merged_eval_spec:
            raise ValueError(
                f"{card_dir}: the run wrote no merged checkpoint (train with --merge), or its "
                "card predates merged_eval_spec"
            )
        tuned_spec = card.merged_eval_spec
    specs = {"base": cfg.base_spec or card.base_eval_spec, "tuned": tuned_spec}
    _refuse_same_weights(specs["base"], specs["tuned"])
    figures: dict[str, dict[str, tuple[float | None, int]]] = {}
    for name, run in runs.items():
        run_evaluation(
            EvalSettings(
                data=data,
                model=specs[name],
                out=run,
                prompt=card.prompt,
                max_tokens=cfg.max_tokens,
                metrics=cfg.metrics,
                limit=cfg.limit,
                cache=cfg.cache,
                batch_size=cfg.batch_size,
            )
        )
        figures[name] = run_figures(run)
    labels = _labels(list(runs.values()))
    rows: list[dict[str, Any]] = []
    for key in figures["base"]:
        b, nb = figures["base"][key]
        t, nt = figures["tuned"].get(key, (None, 0))
        delta = None if b is None or t is None else t - b
        rows.append({"figure": key, "base": b, "tuned": t, "delta": delta, "n": [nb, nt]})
    lines = [
        f"# {html.escape(specs['base'])} vs {html.escape(specs['tuned'])}",
        "",
        f"Held-out data: `{data}` (no chart in common with the {card.method} training set; "
        f"{card.n_train} examples, card `{card_dir}`). Prompt `{card.prompt}`, "
        f"{'text over table' if card.model_kind == 'text' else 'VLM'}.",
        "",
        "| figure | base | tuned | Δ | n (base / tuned) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        change = "" if r["delta"] is None else f"{r['delta']:+.4f}"
        lines.append(
            f"| {labels.get(r['figure'], r['figure'])} | {_fmt(r['base'])} "
            f"| {_fmt(r['tuned'])} | {change} "
            f"| {r['n'][0]} / {r['n'][1]} |"
        )
    markdown = "\n".join(lines) + "\n"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "comparison.json").write_text(
        json.dumps({"base": specs["base"], "tuned": specs["tuned"], "rows": rows}, indent=2),
        encoding="utf-8",
    )
    (out_dir / "comparison.md").write_text(markdown, encoding="utf-8")
    report(runs["base"], runs["tuned"], out=out_dir / "report.html")
    return Comparison(rows=rows, runs=runs, markdown=markdown)
