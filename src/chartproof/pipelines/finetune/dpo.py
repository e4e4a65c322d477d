"""`finetune_dpo`: ChartCF preference optimisation on counterfactual pairs (`chartproof pairs`).

Textual pairs — same (counterfactual) chart and question; chosen: the counterfactual's answer
and explanation, rejected: the original chart's (what a model that ignores the chart says).
Text-over-table models train with trl's DPOTrainer; VLMs with `PairwiseTrainer` below, whose
loss is the same DPO loss. Visual pairs — same question and answer y (the original's); the
original chart I_w is preferred over the counterfactual I_l:

    L = -log σ(β [(log π(y|x,I_w) − log π_ref(y|x,I_w)) − (log π(y|x,I_l) − log π_ref(y|x,I_l))])

π is the model with the LoRA adapter, π_ref the same model with the adapter switched off (or
the starting SFT adapter, kept frozen under the name "ref"); log π(y|·) sums the target's
token log-probabilities (trl's `selective_log_softmax`). Before training, ChartCF's
similarity selection drops pairs whose two charts are too alike to tell apart (SSIM at the
training resolution for VLMs, spec similarity for text-over-table models, which see the data)
and keeps the `budget` least similar.
"""

from __future__ import annotations

import importlib
import json
from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from chartproof.datasets import load_dataset, resolve_image
from chartproof.pipelines.finetune._base import (
    BaseCheckpoint,
    Encoded,
    collate,
    estimate_memory,
    load_base,
    lora_config,
)
from chartproof.pipelines.finetune._card import TrainingCard
from chartproof.pipelines.finetune._data import (
    chart_request,
    data_fingerprint,
    format_target,
)
from chartproof.pipelines.finetune._settings import DPOSettings, PairMode, tune_settings
from chartproof.pipelines.finetune.sft import train_and_finish, training_args
from chartproof.pipelines.settings import fields_of
from chartproof.types import Sample

__all__ = [
    "DPOResult",
    "DPOSettings",
    "PairMode",
    "PreferenceExample",
    "SelectedPair",
    "finetune_dpo",
    "load_pairs",
    "pairwise_trainer_class",
    "preference_examples",
    "select_pairs",
    "sequence_logps",
]


@dataclass(frozen=True)
class SelectedPair:
    """A counterfactual pair that passed the similarity selection."""

    original: Sample
    """The original chart's sample."""
    counterfactual: Sample
    """The edited chart's sample (same question, different answer)."""
    similarity: float
    """How alike the two charts are (1 = indistinguishable)."""


@dataclass(frozen=True)
class PreferenceExample:
    """One preference: a preferred and a dispreferred (request, target)."""

    pair_id: str
    """The counterfactual sample's id."""
    chosen: tuple[Any, str]
    """(request, target) preferred."""
    rejected: tuple[Any, str]
    """(request, target) dispreferred."""


@dataclass(frozen=True)
class DPOResult:
    """What `finetune_dpo` wrote."""

    out: Path
    """The output folder."""
    adapter: Path
    """The trained adapter."""
    card: TrainingCard
    """The training card."""


def load_pairs(pairs: str | Path, data: str | Path) -> tuple[list[tuple[Sample, Sample]], Path]:
    """(original, counterfactual) samples of each row of a `chartproof pairs` file, looked up in
    the dataset `data`; ValueError naming the line of a row whose samples are not there."""
    loaded = load_dataset(data)
    by_id = {s.id: s for s in loaded.samples}
    out: list[tuple[Sample, Sample]] = []
    path = Path(pairs)
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                cf, orig = by_id[row["id"]], by_id[row["original_id"]]
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise ValueError(
                    f"{path}:{n}: not a pair of samples of {data} ({type(e).__name__}: {e}); "
                    "make the pairs with `chartproof pairs --data` on this dataset"
                ) from None
            out.append((orig, cf))
    if not out:
        raise ValueError(f"{path}: no pairs")
    return out, loaded.root


def select_pairs(
    pairs: Sequence[tuple[Sample, Sample]],
    root: Path,
    *,
    by: Literal["image", "spec"],
    budget: int | None,
    ceiling: float | None,
    resolution: int,
    per_original: int | None = None,
) -> tuple[list[SelectedPair], int]:
    """ChartCF's selection: similarity of each pair's two charts, pairs at or above `ceiling`
    dropped, the `budget` least similar kept (at most `per_original` per original question).
    Returns the kept pairs and how many the ceiling dropped."""
    from chartproof.variants.similarity import (
        image_similarity,
        select_least_similar,
        spec_similarity,
    )

    scored: list[tuple[int, float]] = []
    groups: dict[int, Hashable] = {}
    seen: dict[tuple[str, str], float] = {}
    for i, (orig, cf) in enumerate(pairs):
        if by == "spec" and orig.spec is not None and cf.spec is not None:
            sim = spec_similarity(orig.spec, cf.spec)
        else:
            key = (orig.image.path, cf.image.path)
            if key not in seen:
                seen[key] = image_similarity(
                    resolve_image(root, orig.image),
                    resolve_image(root, cf.image),
                    max_side=resolution,
                )
            sim = seen[key]
        scored.append((i, sim))
        groups[i] = orig.id
    keep = select_least_similar(
        scored,
        budget if budget is not None else len(scored),
        ceiling=ceiling,
        groups=groups,
        per_group=per_original,
    )
    dropped = sum(1 for _, s in scored if ceiling is not None and s >= ceiling)
    sims = dict(scored)
    return [SelectedPair(pairs[i][0], pairs[i][1], sims[i]) for i in keep], dropped


def preference_examples(
    selected: Sequence[SelectedPair],
    root: Path,
    *,
    mode: PairMode,
    prompt: str,
    target_format: str,
) -> list[PreferenceExample]:
    """The requests and targets of each pair (see the module docstring for the two modes)."""
    out = []
    for p in selected:
        orig, cf = p.original, p.counterfactual
        orig_target = format_target(target_format, orig.answer.text(), orig.explanation)
        if mode == "textual":
            request = chart_request(cf, root, prompt=prompt)
            cf_target = format_target(target_format, cf.answer.text(), cf.explanation)
            out.append(PreferenceExample(cf.id, (request, cf_target), (request, orig_target)))
        else:
            on_original = chart_request(orig, root, prompt=prompt, request_id=f"{cf.id}/w")
            on_edited = chart_request(orig, root, prompt=prompt, request_id=f"{cf.id}/l", image=cf)
            out.append(
                PreferenceExample(cf.id, (on_original, orig_target), (on_edited, orig_target))
            )
    return out


def sequence_logps(model: Any, items: list[Encoded], pad_id: int) -> Any:
    """Sum of the target tokens' log-probabilities of each sequence (a 1-D tensor)."""
    from trl.trainer.utils import selective_log_softmax

    batch = collate(items, pad_id)
    device = next(model.parameters()).device
    batch = {k: v.to(device) for k, v in batch.items()}
    labels = batch.pop("labels")
    logits = model(**batch, use_cache=False).logits[:, :-1]
    targets = labels[:, 1:]
    mask = targets != -100
    logps = selective_log_softmax(logits.float(), targets.clamp(min=0))
    return (logps * mask).sum(dim=1)


def pairwise_trainer_class() -> Any:
    """A transformers `Trainer` with the DPO loss over (preferred, dispreferred) sequences that
    may differ in their context (the chart) rather than in their target."""
    import torch
    import torch.nn.functional as F
    from transformers import Trainer
    from trl.trainer.utils import use_adapter

    class PairwiseTrainer(Trainer):
        """DPO loss on pre-encoded pairs; the reference is the adapter-free (or "ref") model."""

        def __init__(self, *args: Any, beta: float = 0.1, pad_id: int = 0, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.beta = beta
            self.pad_id = pad_id
            self._stats: dict[str, list[float]] = defaultdict(list)

        def compute_loss(
            self,
            model: Any,
            inputs: dict[str, Any],
            return_outputs: bool = False,
            num_items_in_batch: Any = None,
        ) -> Any:
            items: list[Encoded] = inputs["items"]
            n = len(items) // 2  # the batch is [preferred..., dispreferred...]
            logps = sequence_logps(model, items, self.pad_id)
            unwrapped = self.accelerator.unwrap_model(model)
            ref_name = "ref" if "ref" in getattr(unwrapped, "peft_config", {}) else None
            with torch.no_grad(), use_adapter(unwrapped, adapter_name=ref_name):
                ref = sequence_logps(model, items, self.pad_id)
            chosen, rejected = logps[:n] - ref[:n], logps[n:] - ref[n:]
            margin = chosen - rejected
            loss = -F.logsigmoid(self.beta * margin).mean()  # the formula in the docstring
            mode = "train" if model.training else "eval"
            chosen, rejected, margin = chosen.detach(), rejected.detach(), margin.detach()
            self._stats[f"{mode}:rewards/chosen"].append(float(self.beta * chosen.mean()))
            self._stats[f"{mode}:rewards/rejected"].append(float(self.beta * rejected.mean()))
            self._stats[f"{mode}:rewards/margins"].append(float(self.beta * margin.mean()))
            self._stats[f"{mode}:rewards/accuracies"].append(float((margin > 0).float().mean()))
            return (loss, {"margin": margin}) if return_outputs else loss

        def prediction_step(
            self, model: Any, inputs: Any, prediction_loss_only: bool, ignore_keys: Any = None
        ) -> Any:
            with torch.no_grad():
                loss = self.compute_loss(model, inputs)
            return (loss.detach(), None, None)

        def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
            mode = "eval" if any(k.startswith("eval_") for k in logs) else "train"
            prefix = "eval_" if mode == "eval" else ""
            for key, values in list(self._stats.items()):
                if key.startswith(mode + ":") and values:
                    logs[prefix + key.split(":", 1)[1]] = sum(values) / len(values)
                    self._stats[key] = []
            super().log(logs, start_time)

    return PairwiseTrainer


def _with_adapter(model: BaseCheckpoint, adapter: str | None, *, add_ref: bool) -> bool:
    """Continue training an existing (SFT) adapter, its frozen copy "ref" as the reference
    (trl's DPOTrainer adds that copy itself; `add_ref` adds it for chartproof's trainer)."""
    if adapter is None:
        return False
    peft: Any = importlib.import_module("peft")
    folder = Path(adapter).expanduser()
    if not (folder / "adapter_config.json").is_file():
        raise FileNotFoundError(f"finetune dpo: {folder} is not an adapter folder")
    model.model = peft.PeftModel.from_pretrained(model.model, folder, is_trainable=True)
    if add_ref:
        model.model.load_adapter(folder, adapter_name="ref", is_trainable=False)
        model.model.set_adapter("default")
    return True


@fields_of(DPOSettings)
def finetune_dpo(
    pairs: str | Path | DPOSettings,
    data: str | Path | None = None,
    base: str | None = None,
    out: str | Path | None = None,
    *,
    callbacks: Sequence[Any] = (),
    **fields: Any,
) -> DPOResult:
    """Preference-tune `base` (optionally starting from the SFT `adapter`) on the pairs file
    `pairs` of dataset `data`; writes `out/adapter` and `out/training_card.json`. `pairs` may
    be a `DPOSettings` record (the keywords then change it); every other keyword but the
    trainer `callbacks` is one of its fields."""
    cfg = tune_settings(
        DPOSettings, {"pairs": pairs, "data": data, "base": base, "out": out}, fields
    )
    return _finetune_dpo(cfg, callbacks)


def _finetune_dpo(cfg: DPOSettings, callbacks: Sequence[Any]) -> DPOResult:
    pairs, data, base, mode, adapter = cfg.pairs, cfg.data, cfg.base, cfg.mode, cfg.adapter
    prompt, beta, budget, ceiling = cfg.prompt, cfg.beta, cfg.budget, cfg.ceiling
    lora, train = cfg.lora, cfg.train
    out_dir = cfg.out
    out_dir.mkdir(parents=True, exist_ok=True)
    rows, root = load_pairs(pairs, data)
    transformers: Any = importlib.import_module("transformers")
    transformers.set_seed(train.seed)
    model = load_base(base, device=train.device, dtype=train.dtype)
    side = cfg.resolution or _training_resolution(model)
    selected, dropped = select_pairs(
        rows,
        root,
        by="spec" if model.kind == "text" else "image",
        budget=budget,
        ceiling=ceiling,
        resolution=side,
        per_original=cfg.per_original,
    )
    if not selected:
        raise ValueError(
            f"{pairs}: no pair left after the similarity selection (ceiling {ceiling}, "
            f"budget {budget}; {dropped} of {len(rows)} were at or above the ceiling)"
        )
    examples = preference_examples(
        selected, root, mode=mode, prompt=prompt, target_format=cfg.target_format
    )
    use_trl = mode == "textual" and model.kind == "text"
    continuing = _with_adapter(model, adapter, add_ref=not use_trl)
    method: Any = f"dpo-{mode}"
    fingerprint = data_fingerprint(
        (mode, prompt, e.pair_id, e.chosen[1], e.rejected[1]) for e in examples
    )
    card = TrainingCard(
        method=method,
        base=base,
        base_path=str(model.path),
        base_fingerprint=model.fingerprint(),
        model_kind=model.kind,
        data=f"{data} + {pairs}",
        data_fingerprint=fingerprint,
        prompt=prompt,
        target_format=cfg.target_format,
        split="every selected pair trains (evaluate on another seed)",
        n_train=len(examples),
        n_validation=0,
        skipped={"too_similar": dropped, "over_budget": len(rows) - dropped - len(selected)},
        lora=lora,
        train=train,
        method_options={
            "beta": beta,
            "budget": budget,
            "ceiling": ceiling,
            "similarity": "spec" if model.kind == "text" else f"ssim@{side}px",
            "candidates": len(rows),
            "mean_similarity": sum(p.similarity for p in selected) / len(selected),
            "init_adapter": str(adapter) if adapter else None,
            "trainer": "trl.DPOTrainer" if use_trl else "chartproof PairwiseTrainer",
        },
        memory_estimate=estimate_memory(
            model.path, lora, batch_size=2 * train.batch_size, seq_len=512
        ),
    )
    images = {p.original.image.sha256 or "" for p in selected} | {
        p.counterfactual.image.sha256 or "" for p in selected
    }
    peft_config = None if continuing else lora_config(lora, model.kind)
    trainer = _dpo_trainer(
        model,
        examples,
        card,
        out_dir,
        use_trl=use_trl,
        beta=beta,
        peft_config=peft_config,
        callbacks=callbacks,
    )
    card = train_and_finish(
        trainer, model, card, out_dir, merge=cfg.merge, resume=cfg.resume, train_images=images
    )
    return DPOResult(out=out_dir, adapter=out_dir / card.adapter, card=card)


def _dpo_trainer(
    model: BaseCheckpoint,
    examples: Sequence[Any],
    card: TrainingCard,
    out_dir: Path,
    *,
    use_trl: bool,
    beta: float,
    peft_config: Any,
    callbacks: Sequence[Any],
) -> Any:
    """The trainer of `finetune_dpo`: trl's DPOTrainer for textual pairs on a text model, else
    chartproof's pairwise trainer (the LoRA adapter `peft_config` put on the model first,
    unless it continues one)."""
    on_cpu = model.device == "cpu"
    datasets: Any = importlib.import_module("datasets")
    transformers: Any = importlib.import_module("transformers")
    if use_trl:
        trl: Any = importlib.import_module("trl")
        rows_ds = datasets.Dataset.from_list(
            [
                {
                    "prompt": model.prompt_text(e.chosen[0]),
                    "chosen": e.chosen[1],
                    "rejected": e.rejected[1],
                }
                for e in examples
            ]
        )
        args = trl.DPOConfig(
            **training_args(card, out_dir, on_cpu=on_cpu, validate=False),
            beta=beta,
            max_length=card.train.max_length,
        )
        trainer = trl.DPOTrainer(
            model=model.model,
            args=args,
            train_dataset=rows_ds,
            processing_class=model.processing,
            peft_config=peft_config,
            callbacks=list(callbacks),
        )
    else:
        if peft_config is not None:
            peft: Any = importlib.import_module("peft")
            model.model = peft.get_peft_model(model.model, peft_config)
        # as trl's DPOTrainer does: without dropout the policy equals its reference at step 0
        # (loss ln 2) and the two log-probabilities are comparable
        importlib.import_module("trl.trainer.utils").disable_dropout_in_model(model.model)
        pad_id = int(model.tokenizer.pad_token_id)

        def collator(features: list[dict[str, Any]]) -> dict[str, Any]:
            picked = [examples[int(f["index"])] for f in features]
            items = [model.encode(*e.chosen) for e in picked] + [
                model.encode(*e.rejected) for e in picked
            ]
            return {"items": items}

        args = transformers.TrainingArguments(
            **training_args(card, out_dir, on_cpu=on_cpu, validate=False)
        )
        trainer = pairwise_trainer_class()(
            model=model.model,
            args=args,
            train_dataset=datasets.Dataset.from_list([{"index": i} for i in range(len(examples))]),
            data_collator=collator,
            callbacks=list(callbacks),
            beta=beta,
            pad_id=pad_id,
        )
    return trainer


def _training_resolution(model: BaseCheckpoint) -> int:
    """The longest image side the VLM's processor feeds the model (512 when it does not say)."""
    if model.kind != "vlm":
        return 512
    proc = getattr(model.processing, "image_processor", None)
    for attr in ("max_image_size", "size"):
        value = getattr(proc, attr, None)
        if isinstance(value, dict):
            for key in ("longest_edge", "height", "shortest_edge"):
                if isinstance(value.get(key), int):
                    return int(value[key])
    return 512
