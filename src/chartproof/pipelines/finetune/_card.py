"""The training card every `finetune` run writes next to its adapter: what was trained on what,
how, and with which losses — enough to reproduce the run and to prove held-out evaluation."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, JsonValue

from chartproof import __version__
from chartproof.pipelines.finetune._base import LoRASettings, MemoryEstimate, TrainSettings
from chartproof.types import Record

__all__ = ["CARD_FILE", "TRAIN_IMAGES_FILE", "LossPoint", "TrainingCard", "read_card"]

CARD_FILE = "training_card.json"
"""The card's file name inside the output folder."""
TRAIN_IMAGES_FILE = "train_images.txt"
"""Content hashes of every chart image trained on, one a line (the held-out check reads it)."""


class LossPoint(Record):
    """One logged loss."""

    step: int
    """Optimiser step."""
    loss: float | None = None
    """Training loss averaged since the last log."""
    eval_loss: float | None = None
    """Validation loss at this step."""
    extra: dict[str, float] = Field(default_factory=dict)
    """Other logged figures (DPO: rewards/margins, rewards/accuracies, ...)."""


class TrainingCard(Record):
    """What a fine-tuning run did."""

    method: Literal["sft", "dpo-textual", "dpo-visual"]
    """SFT, DPO on textual pairs (trl DPOTrainer) or on visual pairs (chartproof's loss)."""
    base: str
    """The base as given (``smollm2``, a folder)."""
    base_path: str
    """Its checkpoint folder."""
    base_fingerprint: str
    """Content fingerprint of the base checkpoint."""
    model_kind: Literal["text", "vlm"]
    """text over table (a causal LM reading the chart's table) or a VLM reading the image."""
    data: str
    """The dataset (and pairs file) trained on."""
    data_fingerprint: str
    """Hash of the training rows (prompt, sample, image, targets)."""
    prompt: str
    """Prompt id the examples were built with (the one to evaluate with)."""
    target_format: str
    """Target template, e.g. "Answer: {answer}. Explanation: {explanation}"."""
    split: str
    """How train and validation were chosen."""
    n_train: int
    """Training examples (or pairs)."""
    n_validation: int
    """Validation examples."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Examples left out, by reason."""
    lora: LoRASettings
    """Adapter configuration."""
    train: TrainSettings
    """Loop settings."""
    method_options: dict[str, JsonValue] = Field(default_factory=dict)
    """DPO beta, selection budget and ceiling, ..."""
    steps: int = 0
    """Optimiser steps completed."""
    resumed_from: str | None = None
    """Checkpoint the run resumed from."""
    losses: list[LossPoint] = Field(default_factory=list)
    """Logged losses, in step order."""
    final_train_loss: float | None = None
    """Mean training loss of the run (Trainer's train_loss)."""
    seconds: float = 0.0
    """Wall time of training."""
    samples_per_second: float | None = None
    """Training examples processed per second."""
    peak_memory_gib: float | None = None
    """Peak resident memory (CPU) or peak allocated GPU memory."""
    memory_estimate: MemoryEstimate | None = None
    """The dry-run estimate, for comparison."""
    adapter: str = "adapter"
    """Adapter folder, relative to the card."""
    adapter_fingerprint: str = ""
    """Hash of the adapter's config and weights."""
    merged: str | None = None
    """Merged model folder, relative to the card, when asked for."""
    eval_spec: str = ""
    """`chartproof eval --model` spec of the tuned model."""
    merged_eval_spec: str = ""
    """The same for the merged checkpoint (``--merge``), "" without one."""
    base_eval_spec: str = ""
    """The same for the base model."""
    chartproof: str = __version__
    """chartproof version."""


def write_card(card: TrainingCard, out: Path) -> Path:
    """Write the card as JSON (atomically)."""
    path = out / CARD_FILE
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(card.model_dump_json(indent=2), encoding="utf-8")
    tmp.replace(path)
    return path


def read_card(folder: str | Path) -> TrainingCard:
    """The card of a finetune output folder (ValueError naming the file when unreadable)."""
    path = Path(folder) / CARD_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no training card (is this a finetune output folder?)")
    try:
        return TrainingCard.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{path}: not a training card: {e}") from None


def losses_from(log_history: list[dict[str, Any]]) -> list[LossPoint]:
    """Trainer's `state.log_history` as loss points (one per logged step)."""
    by_step: dict[int, LossPoint] = {}
    for entry in log_history:
        step = int(entry.get("step", 0))
        point = by_step.setdefault(step, LossPoint(step=step))
        updates: dict[str, Any] = {}
        extra = dict(point.extra)
        for key, value in entry.items():
            if not isinstance(value, int | float) or key in ("step", "epoch"):
                continue
            if key == "loss":
                updates["loss"] = float(value)
            elif key == "eval_loss":
                updates["eval_loss"] = float(value)
            elif "/" in key or key.startswith("eval_"):
                extra[key] = float(value)
        by_step[step] = point.model_copy(update={**updates, "extra": extra})
    return [
        by_step[k]
        for k in sorted(by_step)
        if by_step[k].loss is not None or by_step[k].eval_loss is not None or by_step[k].extra
    ]


def write_train_images(hashes: set[str], out: Path) -> None:
    """The sorted image hashes trained on."""
    (out / TRAIN_IMAGES_FILE).write_text(
        "".join(f"{h}\n" for h in sorted(hashes) if h), encoding="utf-8"
    )
