"""Fine-tuning (SPEC §8 `finetune`): ChartQA-X LoRA SFT on answer + explanation targets and
ChartCF preference optimisation on counterfactual pairs, for local VLMs and for the
text-over-table LLM backend. torch, transformers, peft and trl load only when a run starts."""

from __future__ import annotations

from chartproof.pipelines.finetune._base import LoRASettings, TrainSettings
from chartproof.pipelines.finetune._card import TrainingCard, read_card
from chartproof.pipelines.finetune._data import TARGET_FORMAT
from chartproof.pipelines.finetune._settings import DPOSettings, SFTSettings, TuneSettings
from chartproof.pipelines.finetune.dpo import DPOResult, finetune_dpo
from chartproof.pipelines.finetune.sft import SFTPlan, SFTResult, finetune_sft, plan_sft

__all__ = [
    "TARGET_FORMAT",
    "DPOResult",
    "DPOSettings",
    "LoRASettings",
    "SFTPlan",
    "SFTResult",
    "SFTSettings",
    "TrainSettings",
    "TrainingCard",
    "TuneSettings",
    "finetune_dpo",
    "finetune_sft",
    "plan_sft",
    "read_card",
]
