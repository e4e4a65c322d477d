"""`finetune_sft`: ChartQA-X LoRA supervised fine-tuning with trl's SFTTrainer.

Each sample becomes the exact request `chartproof eval` sends (prompt id recorded) plus the
target "Answer: <answer>. Explanation: <explanation>"; the loss covers the target only (the
prompt's labels are -100). Checkpoints every `save_steps`; a rerun resumes from the last one.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chartproof.datasets import load_dataset
from chartproof.pipelines.finetune._base import (
    BaseCheckpoint,
    Encoded,
    LoRASettings,
    MemoryEstimate,
    TrainSettings,
    adapter_fingerprint,
    base_kind,
    collate,
    estimate_memory,
    load_base,
    lora_config,
    peak_rss_gib,
)
from chartproof.pipelines.finetune._card import (
    CARD_FILE,
    LossPoint,
    TrainingCard,
    losses_from,
    read_card,
    write_card,
    write_train_images,
)
from chartproof.pipelines.finetune._data import (
    TARGET_FORMAT,
    SFTExample,
    data_fingerprint,
    sft_examples,
    split_samples,
)
from chartproof.pipelines.finetune._settings import SFTSettings, TuneSettings, tune_settings
from chartproof.pipelines.settings import fields_of

__all__ = ["SFTPlan", "SFTResult", "SFTSettings", "finetune_sft", "plan_sft", "run_trainer"]


@dataclass(frozen=True)
class SFTPlan:
    """What an SFT run would do (the `--dry-run` output)."""

    base: str
    """The base as given."""
    model_kind: str
    """text (over table) or vlm."""
    n_train: int
    """Training examples."""
    n_validation: int
    """Validation examples."""
    skipped: dict[str, int]
    """Samples left out, by reason."""
    split: str
    """The split rule."""
    steps: int
    """Optimiser steps."""
    epochs: float
    """Passes over the training examples those steps make."""
    prompt: str
    """Prompt id."""
    target_format: str
    """Target template."""
    example_target: str
    """The first training target, as trained."""
    memory: MemoryEstimate
    """Peak-memory estimate of one step."""

    def lines(self) -> list[str]:
        """The plan in words, for the CLI."""
        m = self.memory
        return [
            f"base: {self.base} ({'text over table' if self.model_kind == 'text' else 'VLM'})",
            f"data: {self.n_train} train, {self.n_validation} validation ({self.split})",
            f"skipped: {self.skipped or 'none'}",
            f"prompt: {self.prompt}; target: {self.target_format}",
            f"first target: {self.example_target[:160]}",
            f"steps: {self.steps} (~{self.epochs:.2f} epochs)",
            f"memory estimate: {m.total_gib:.2f} GiB = weights {m.weights_gib:.2f} + adapter and "
            f"optimizer {m.adapter_and_optimizer_gib:.3f} + activations {m.activations_gib:.2f} "
            f"(+10 %); {m.parameters:,} parameters, {m.lora_parameters:,} trainable",
        ]


@dataclass(frozen=True)
class SFTResult:
    """What `finetune_sft` wrote."""

    out: Path
    """The output folder."""
    adapter: Path
    """The LoRA adapter folder."""
    card: TrainingCard
    """The training card (also in `out/training_card.json`)."""


def _prepare(
    data: str | Path,
    *,
    prompt: str,
    target_format: str,
    train_split: str,
    val_split: str,
    val_fraction: float,
    limit: int | None,
) -> tuple[list[SFTExample], list[SFTExample], dict[str, int], str, str]:
    loaded = load_dataset(data)
    train_s, val_s, report = split_samples(
        loaded.samples, train_split=train_split, val_split=val_split, val_fraction=val_fraction
    )
    if limit is not None:
        train_s = train_s[:limit]
    train, skipped_t = sft_examples(
        train_s, loaded.root, prompt=prompt, target_format=target_format
    )
    val, skipped_v = sft_examples(val_s, loaded.root, prompt=prompt, target_format=target_format)
    if not train:
        raise ValueError(
            f"{data}: no training examples ({skipped_t} samples lack a reference explanation "
            f"for the target {target_format!r}; split: {report.rule})"
        )
    skipped = {"no_explanation": skipped_t + skipped_v} if skipped_t + skipped_v else {}
    fingerprint = data_fingerprint((prompt, e.sample_id, e.image_sha256, e.target) for e in train)
    return train, val, skipped, report.rule, fingerprint


def plan_sft(
    data: str | Path,
    base: str,
    *,
    prompt: str = "chartqax@1",
    target_format: str = TARGET_FORMAT,
    lora: LoRASettings | None = None,
    train: TrainSettings | None = None,
    train_split: str = "train",
    val_split: str = "val",
    val_fraction: float = 0.1,
    limit: int | None = None,
    seq_len: int = 512,
) -> SFTPlan:
    """The plan and memory estimate of `finetune_sft` with the same arguments; loads no model."""
    lora = lora or LoRASettings()
    train = train or TrainSettings()
    kind, _, folder = base_kind(base)
    tr, va, skipped, rule, _ = _prepare(
        data,
        prompt=prompt,
        target_format=target_format,
        train_split=train_split,
        val_split=val_split,
        val_fraction=val_fraction,
        limit=limit,
    )
    memory = estimate_memory(
        folder,
        lora,
        batch_size=train.batch_size,
        seq_len=seq_len,
        dtype_bytes=2 if train.dtype == "bfloat16" else 4,
    )
    per_step = train.batch_size * train.grad_accum
    return SFTPlan(
        base=base,
        model_kind=kind,
        n_train=len(tr),
        n_validation=len(va),
        skipped=skipped,
        split=rule,
        steps=train.max_steps,
        epochs=train.max_steps * per_step / len(tr),
        prompt=prompt,
        target_format=target_format,
        example_target=tr[0].target,
        memory=memory,
    )


@fields_of(SFTSettings)
def finetune_sft(
    data: str | Path | SFTSettings,
    base: str | None = None,
    out: str | Path | None = None,
    *,
    callbacks: Sequence[Any] = (),
    **fields: Any,
) -> SFTResult:
    """LoRA-tune `base` on the dataset `data` and write `out/adapter`, `out/training_card.json`
    (and `out/merged` with `merge`).

    `base` is ``smollm2`` / ``text:PATH`` (a causal LM that reads the chart as text) or a VLM
    folder (``hf:PATH`` or a folder with a processor config). A rerun into the same `out`
    resumes from the newest checkpoint in `out/checkpoints` (`resume=False` starts over);
    with the same seed it ends with the same adapter as an uninterrupted run. `data` may be
    an `SFTSettings` record (the keywords then change it); every other keyword but the
    trainer `callbacks` is one of its fields.
    """
    cfg = tune_settings(SFTSettings, {"data": data, "base": base, "out": out}, fields)
    lora, train = cfg.lora, cfg.train
    cfg.out.mkdir(parents=True, exist_ok=True)
    examples, val, skipped, rule, fingerprint = _prepare(
        cfg.data,
        prompt=cfg.prompt,
        target_format=cfg.target_format,
        train_split=cfg.train_split,
        val_split=cfg.val_split,
        val_fraction=cfg.val_fraction,
        limit=cfg.limit,
    )
    transformers: Any = importlib.import_module("transformers")
    transformers.set_seed(train.seed)
    model = load_base(cfg.base, device=train.device, dtype=train.dtype)
    encoded, too_long = _encode_all(model, examples, train.max_length)
    val_encoded, val_long = _encode_all(model, val, train.max_length)
    if too_long + val_long:
        skipped["too_long"] = too_long + val_long
    if not encoded:
        raise ValueError(f"every training example is longer than max_length={train.max_length}")
    card = TrainingCard(
        method="sft",
        base=cfg.base,
        base_path=str(model.path),
        base_fingerprint=model.fingerprint(),
        model_kind=model.kind,
        data=cfg.data,
        data_fingerprint=fingerprint,
        prompt=cfg.prompt,
        target_format=cfg.target_format,
        split=rule,
        n_train=len(encoded),
        n_validation=len(val_encoded),
        skipped=skipped,
        lora=lora,
        train=train,
        memory_estimate=estimate_memory(
            model.path,
            lora,
            batch_size=train.batch_size,
            seq_len=max(len(e.input_ids) for _, e in encoded),
        ),
    )
    trainer_cls = importlib.import_module("trl").SFTTrainer
    config_cls = importlib.import_module("trl").SFTConfig
    card = run_trainer(
        model,
        card,
        cfg,
        trainer_cls=trainer_cls,
        config_cls=config_cls,
        config_extra={
            "dataset_kwargs": {"skip_prepare_dataset": True},
            "max_length": None,
            "packing": False,
        },
        train_rows=encoded,
        val_rows=val_encoded,
        examples=[e.request for e in examples],
        callbacks=callbacks,
        train_images={e.image_sha256 for e in examples},
    )
    return SFTResult(out=cfg.out, adapter=cfg.out / card.adapter, card=card)


def _encode_all(
    model: BaseCheckpoint, examples: Sequence[SFTExample], max_length: int
) -> tuple[list[tuple[int, Encoded]], int]:
    rows: list[tuple[int, Encoded]] = []
    too_long = 0
    for i, e in enumerate(examples):
        enc = model.encode(e.request, e.target)
        if len(enc.input_ids) > max_length:
            too_long += 1
            continue
        if model.kind == "vlm":
            enc.extras = {}  # recomputed per batch: image tensors are not kept for a whole run
        rows.append((i, enc))
    return rows, too_long


def run_trainer(
    model: BaseCheckpoint,
    card: TrainingCard,
    settings: TuneSettings,
    *,
    trainer_cls: Any,
    config_cls: Any,
    config_extra: dict[str, Any],
    train_rows: list[tuple[int, Encoded]],
    val_rows: list[tuple[int, Encoded]],
    examples: Sequence[Any],
    callbacks: Sequence[Any],
    train_images: set[str],
    trainer_extra: dict[str, Any] | None = None,
) -> TrainingCard:
    """Train with `trainer_cls` (trl's SFTTrainer) on pre-encoded rows with chartproof's
    collator into `settings.out` (resuming and merging as `settings` says), then save the
    adapter, the optional merged model and the card."""
    out = settings.out
    datasets: Any = importlib.import_module("datasets")

    def rows_dataset(rows: list[tuple[int, Encoded]]) -> Any:
        return datasets.Dataset.from_list(
            [{"input_ids": e.input_ids, "labels": e.labels, "index": i} for i, e in rows]
        )

    pad_id = int(model.tokenizer.pad_token_id)

    def collator(features: list[dict[str, Any]]) -> dict[str, Any]:
        items = []
        for f in features:
            enc = Encoded(input_ids=list(f["input_ids"]), labels=list(f["labels"]))
            if model.kind == "vlm":
                _, enc.extras = model.prompt(examples[int(f["index"])])
            items.append(enc)
        return collate(items, pad_id)

    on_cpu = model.device == "cpu"
    args = config_cls(
        **training_args(card, out, on_cpu=on_cpu, validate=bool(val_rows)), **config_extra
    )
    peft_config = None if _is_peft(model.model) else lora_config(card.lora, model.kind)
    trainer = trainer_cls(
        model=model.model,
        args=args,
        train_dataset=rows_dataset(train_rows),
        eval_dataset=rows_dataset(val_rows) if val_rows else None,
        processing_class=model.processing,
        data_collator=collator,
        peft_config=peft_config,
        callbacks=list(callbacks),
        **(trainer_extra or {}),
    )
    return train_and_finish(
        trainer,
        model,
        card,
        out,
        merge=settings.merge,
        resume=settings.resume,
        train_images=train_images,
    )


def training_args(card: TrainingCard, out: Path, *, on_cpu: bool, validate: bool) -> dict[str, Any]:
    """Trainer arguments every finetune method shares (CPU-safe: no bf16, no checkpointing)."""
    train = card.train
    return {
        "output_dir": str(out / "checkpoints"),
        "max_steps": train.max_steps,
        "per_device_train_batch_size": train.batch_size,
        "per_device_eval_batch_size": train.batch_size,
        "gradient_accumulation_steps": train.grad_accum,
        "learning_rate": train.learning_rate,
        "lr_scheduler_type": "linear",
        "warmup_steps": train.warmup_steps,
        "logging_steps": train.logging_steps,
        "save_strategy": "steps",
        "save_steps": train.save_steps,
        "save_total_limit": 2,
        "eval_strategy": "steps" if validate else "no",
        "eval_steps": train.eval_steps,
        "seed": train.seed,
        "data_seed": train.seed,
        "use_cpu": on_cpu,
        "bf16": not on_cpu and card.train.dtype != "float32" and _bf16(),
        "fp16": False,
        "gradient_checkpointing": False,
        "report_to": [],
        "remove_unused_columns": False,
        "disable_tqdm": True,
        "dataloader_num_workers": 0,
    }


def train_and_finish(
    trainer: Any,
    model: BaseCheckpoint,
    card: TrainingCard,
    out: Path,
    *,
    merge: bool,
    resume: bool,
    train_images: set[str],
) -> TrainingCard:
    """Train (resuming from the newest checkpoint in `out/checkpoints`), save the adapter, the
    optional merged model, the trained image hashes and the card."""
    import torch

    transformers: Any = importlib.import_module("transformers")
    on_cpu = model.device == "cpu"
    last = None
    checkpoints = out / "checkpoints"
    if resume and checkpoints.is_dir():
        last = transformers.trainer_utils.get_last_checkpoint(str(checkpoints))
    if torch.cuda.is_available() and not on_cpu:
        torch.cuda.reset_peak_memory_stats()
    trainer.add_callback(_log_at_saves(card.train.max_steps))
    started = time.monotonic()
    finished = _finished_checkpoint(last, card.train.max_steps)
    if finished is not None:
        # Trainer would take one more step from a checkpoint already at max_steps; a rerun
        # of a finished run must give back that run's adapter instead
        trainer._load_from_checkpoint(last)
        trainer.state = transformers.TrainerState.load_from_json(str(finished))
        metrics: dict[str, Any] = {}
    else:
        metrics = dict(trainer.train(resume_from_checkpoint=last).metrics)
    seconds = time.monotonic() - started
    peak = (
        round(torch.cuda.max_memory_allocated() / 1024**3, 3)
        if torch.cuda.is_available() and not on_cpu
        else peak_rss_gib()
    )
    adapter = out / "adapter"
    trainer.model.save_pretrained(str(adapter), selected_adapters=["default"])
    merged_rel = None
    if merge:
        merged = trainer.model.merge_and_unload()
        merged.save_pretrained(str(out / "merged"))
        model.processing.save_pretrained(str(out / "merged"))
        merged_rel = "merged"
    write_train_images(train_images, out)
    losses = losses_from(list(trainer.state.log_history))
    steps = int(trainer.state.global_step)
    card = card.model_copy(
        update={
            "steps": steps,
            "resumed_from": Path(last).name if last else None,
            "losses": losses,
            "final_train_loss": run_mean_loss(losses, steps, metrics.get("train_loss")),
            "seconds": round(seconds, 2),
            "samples_per_second": metrics.get("train_samples_per_second"),
            "peak_memory_gib": peak,
            "adapter_fingerprint": adapter_fingerprint(adapter),
            "merged": merged_rel,
            "eval_spec": model.eval_spec(adapter.resolve()),
            "merged_eval_spec": (
                model.eval_spec(merged=(out / "merged").resolve()) if merged_rel else ""
            ),
            "base_eval_spec": model.eval_spec(),
        }
    )
    if finished is not None and (out / CARD_FILE).is_file():
        # keep the figures the run that did the training measured
        before = read_card(out)
        keep = ("seconds", "samples_per_second", "peak_memory_gib")
        card = card.model_copy(update={k: getattr(before, k) for k in keep})
    write_card(card, out)
    return card


def run_mean_loss(
    losses: Sequence[LossPoint], steps: int, fallback: float | None = None
) -> float | None:
    """Mean training loss over all `steps` of the run, from the logged losses (each the mean
    since the previous log, so weighted by its span). A resumed run's log history holds the
    checkpoint's logs too, and `_log_at_saves` makes every checkpoint a log point, so this
    equals the uninterrupted run's figure; Trainer's own train_loss covers only the steps of
    the last call. `fallback` when the logs do not reach the last step."""
    total, previous = 0.0, 0
    for point in losses:
        if point.loss is None:
            continue
        total += point.loss * (point.step - previous)
        previous = point.step
    if steps <= 0 or previous != steps:
        return fallback
    return total / steps


def _log_at_saves(max_steps: int) -> Any:
    """A callback that logs the training loss at every checkpoint and at the last step, so
    that no step's loss is held only in memory when a run stops at a checkpoint."""
    transformers: Any = importlib.import_module("transformers")

    class LogAtSaves(transformers.TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
            step = state.global_step
            if step >= max_steps or (args.save_steps and step % int(args.save_steps) == 0):
                control.should_log = True
            return control

    return LogAtSaves()


def _bf16() -> bool:
    import torch

    return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())


def _finished_checkpoint(last: str | None, max_steps: int) -> Path | None:
    """The trainer_state.json of checkpoint `last` when it already reached `max_steps`."""
    if not last:
        return None
    state = Path(last) / "trainer_state.json"
    if not state.is_file():
        return None
    step = int(json.loads(state.read_text(encoding="utf-8")).get("global_step", 0))
    return state if step >= max_steps else None


def _is_peft(model: Any) -> bool:
    return hasattr(model, "peft_config")
