"""Settings records of `finetune sft` and `finetune dpo`: what `finetune_sft`/`finetune_dpo`
and `chartproof finetune sft|dpo` are asked to train, built the same way by both (unknown
fields are errors); `TuneSettings` holds what the two share."""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any, Literal, TypeVar

from pydantic import Field, field_validator

from chartproof.pipelines.finetune._base import LoRASettings, TrainSettings
from chartproof.pipelines.finetune._data import TARGET_FORMAT
from chartproof.pipelines.settings import settings_of
from chartproof.types import Record

__all__ = ["DPOSettings", "PairMode", "SFTSettings", "TuneSettings", "tune_settings"]

PairMode = Literal["textual", "visual"]
"""Which preference the pairs teach: the answer given the chart, or the chart given the answer."""

T = TypeVar("T", bound="TuneSettings")


def _as_text(value: object) -> object:
    """A path-like dataset or pairs file as the text the card records (`str(path)`)."""
    return str(value) if isinstance(value, PurePath) else value


def _default(cls: type[Record]) -> Any:
    """None means the record's defaults (as the functions' `lora=None`/`train=None` did)."""

    def validate(value: object) -> object:
        return cls() if value is None else value

    return validate


class TuneSettings(Record):
    """What every fine-tuning run is asked to do: the base, its data, where it writes, the
    prompt and target of its examples, the adapter and the training loop."""

    data: str
    """The dataset (SFT: with explanations; DPO: the one the pairs came from)."""
    base: str
    """Base model: ``smollm2`` / ``text:PATH`` (a causal LM reading the chart as text) or a
    local VLM folder (``hf:PATH`` or a folder with a processor config)."""
    out: Path
    """Output folder (adapter, training card, checkpoints); a rerun resumes there."""
    prompt: str = "chartqax@1"
    """Prompt id the requests are built with (what `chartproof eval` sends)."""
    target_format: str = TARGET_FORMAT
    """Target template with {answer} and {explanation}."""
    lora: LoRASettings = LoRASettings()
    """The LoRA adapter trained (None: the defaults)."""
    train: TrainSettings = TrainSettings()
    """Optimiser and loop settings (None: the defaults)."""
    merge: bool = False
    """Also write the merged model to `out/merged`."""
    resume: bool = True
    """Resume from the newest checkpoint in `out/checkpoints` (False starts over)."""

    _text = field_validator("data", mode="before")(_as_text)
    _lora = field_validator("lora", mode="before")(_default(LoRASettings))
    _train = field_validator("train", mode="before")(_default(TrainSettings))


class SFTSettings(TuneSettings):
    """What `finetune_sft` and `chartproof finetune sft` are asked to train."""

    train_split: str = "train"
    """`split` value of the samples that train."""
    val_split: str = "val"
    """`split` value of the samples that validate."""
    val_fraction: float = Field(default=0.1, ge=0.0, le=1.0)
    """Charts held out for validation when the data has no train split."""
    limit: int | None = Field(default=None, ge=1)
    """Only the first `limit` training samples."""


class DPOSettings(TuneSettings):
    """What `finetune_dpo` and `chartproof finetune dpo` are asked to train."""

    pairs: str
    """The `chartproof pairs` JSONL file of `data`."""
    mode: PairMode = "textual"
    """textual (the answer given the chart) or visual (the chart given the answer)."""
    adapter: str | None = None
    """Start from this (SFT) adapter folder; its frozen copy is the reference."""
    beta: float = 0.1
    """DPO beta."""
    budget: int | None = Field(default=None, ge=1)
    """Most pairs to train on (the least similar are kept)."""
    ceiling: float | None = 0.98
    """Pairs at least this similar are dropped (None keeps every pair)."""
    resolution: int | None = Field(default=None, ge=1)
    """Image side for SSIM (default: the VLM's input size)."""
    per_original: int | None = Field(default=None, ge=1)
    """Most pairs kept per original question."""

    _pairs = field_validator("pairs", mode="before")(_as_text)


def tune_settings(cls: type[T], named: dict[str, object], fields: dict[str, Any]) -> T:
    """The `cls` record of a call `fn(*named.values(), **fields)`: the first positional
    argument may be the record itself (the others and `fields` then change it); a None
    positional argument is one not given."""
    (first, value), *rest = named.items()
    given = value if isinstance(value, cls) else None
    values = {first: None if given is not None else value, **dict(rest)}
    return settings_of(cls, given, {**fields, **{k: v for k, v in values.items() if v is not None}})
