"""`chartproof finetune sft|dpo|compare`: LoRA fine-tuning on ChartQA-X targets and ChartCF
counterfactual pairs, and the before/after evaluation on held-out data."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from chartproof.cli._app import App, app, examples
from chartproof.cli._options import Quiet, UseCache, comma_list
from chartproof.cli._progress import console, progress_bar

if TYPE_CHECKING:
    from chartproof.pipelines.finetune import DPOSettings, LoRASettings, TrainSettings

finetune_app = App(
    help="LoRA fine-tuning: ChartQA-X SFT, ChartCF preference optimisation, before/after eval.",
    no_args_is_help=True,
)
app.add_typer(finetune_app, name="finetune")

_BASE_HELP = (
    "Base model: smollm2 or text:PATH (a causal LM reading the chart as text), or a local VLM "
    "folder (hf:PATH or a folder with a processor config)."
)


def _lora(r: int, alpha: int | None, dropout: float, targets: str) -> LoRASettings:
    from chartproof.pipelines.finetune import LoRASettings

    return LoRASettings(
        r=r,
        alpha=alpha or 2 * r,
        dropout=dropout,
        target_modules=tuple(comma_list(targets)),
    )


def _train(**kwargs: object) -> TrainSettings:
    from chartproof.pipelines.finetune import TrainSettings

    return TrainSettings.model_validate(kwargs)


BaseSpec = Annotated[str, typer.Option("--base", "-b", help=_BASE_HELP)]
TuneOut = Annotated[Path, typer.Option("--out", "-o", help="Output folder (rerun to resume).")]
Steps = Annotated[int, typer.Option(help="Optimiser steps.", min=1)]
Batch = Annotated[int, typer.Option(help="Examples per device step.", min=1)]
Accum = Annotated[int, typer.Option(help="Gradient accumulation steps.", min=1)]
LR = Annotated[float, typer.Option("--lr", help="Peak learning rate.")]
Rank = Annotated[int, typer.Option("--lora-r", help="LoRA rank.", min=1)]
Alpha = Annotated[int | None, typer.Option("--lora-alpha", help="LoRA alpha (default 2r).")]
Dropout = Annotated[float, typer.Option("--lora-dropout", help="LoRA dropout.")]
Targets = Annotated[
    str, typer.Option("--lora-targets", help="Comma-separated module names that get adapters.")
]
Seed = Annotated[int, typer.Option(help="Seed (same seed, same adapter).")]
Device = Annotated[str, typer.Option(help="cpu, cuda or auto.")]
DType = Annotated[
    str, typer.Option(help="auto (bfloat16 on a GPU, float32 on CPU), float32 or bfloat16.")
]
SaveSteps = Annotated[int, typer.Option(help="Checkpoint every N steps.", min=1)]
MaxLen = Annotated[int, typer.Option(help="Longest example in tokens (longer ones dropped).")]
Merge = Annotated[bool, typer.Option(help="Also write the merged model to OUT/merged.")]
Resume = Annotated[bool, typer.Option(help="Resume from the newest checkpoint in OUT.")]
DryRun = Annotated[bool, typer.Option(help="Print the plan and a memory estimate; train nothing.")]
_PLAN_FIELDS = {"prompt", "target_format", "train_split", "val_split", "val_fraction", "limit"}
"""The `SFTSettings` fields `plan_sft` takes besides data, base, lora and train."""
_TARGETS = "q_proj,k_proj,v_proj,o_proj"
# pipelines.finetune.TARGET_FORMAT, written again so the CLI does not import the pipeline to start.
_TARGET_FORMAT = "Answer: {answer}. Explanation: {explanation}"


@finetune_app.command(
    "sft",
    epilog=examples(
        "chartproof finetune sft -d data/qax --base smollm2 -o ft/sft",
        "chartproof finetune sft -d data/qax --base smollm2 -o ft/sft --dry-run",
    ),
)
def sft(
    data: Annotated[str, typer.Option("--data", "-d", help="Dataset with explanations.")],
    base: BaseSpec,
    out: TuneOut,
    prompt: Annotated[
        str, typer.Option(help="Prompt id the examples are built with.")
    ] = "chartqax@1",
    target_format: Annotated[
        str, typer.Option(help="Target template with {answer} and {explanation}.")
    ] = _TARGET_FORMAT,
    train_split: Annotated[str, typer.Option(help="split value that trains.")] = "train",
    val_split: Annotated[str, typer.Option(help="split value that validates.")] = "val",
    val_fraction: Annotated[
        float, typer.Option(help="Charts held out when the data has no train split.")
    ] = 0.1,
    limit: Annotated[
        int | None, typer.Option(help="Only the first LIMIT training samples.")
    ] = None,
    max_steps: Steps = 200,
    batch_size: Batch = 4,
    grad_accum: Accum = 1,
    lr: LR = 2e-4,
    lora_r: Rank = 8,
    lora_alpha: Alpha = None,
    lora_dropout: Dropout = 0.05,
    lora_targets: Targets = _TARGETS,
    seed: Seed = 0,
    device: Device = "auto",
    dtype: DType = "auto",
    save_steps: SaveSteps = 50,
    max_length: MaxLen = 1024,
    merge: Merge = False,
    resume: Resume = True,
    dry_run: DryRun = False,
    quiet: Quiet = False,
) -> None:
    """ChartQA-X LoRA SFT: the loss covers "Answer: ... Explanation: ..." only."""
    from chartproof.pipelines.finetune import finetune_sft, plan_sft

    lora = _lora(lora_r, lora_alpha, lora_dropout, lora_targets)
    train = _train(
        max_steps=max_steps,
        batch_size=batch_size,
        grad_accum=grad_accum,
        learning_rate=lr,
        seed=seed,
        device=device,
        dtype=dtype,
        save_steps=save_steps,
        eval_steps=save_steps,
        max_length=max_length,
    )
    from chartproof.pipelines.finetune import SFTSettings

    settings = SFTSettings(
        data=data,
        base=base,
        out=out,
        prompt=prompt,
        target_format=target_format,
        lora=lora,
        train=train,
        train_split=train_split,
        val_split=val_split,
        val_fraction=val_fraction,
        limit=limit,
        merge=merge,
        resume=resume,
    )
    if dry_run:
        plan = plan_sft(
            data,
            base,
            lora=lora,
            train=train,
            **settings.model_dump(include=_PLAN_FIELDS),
        )
        for line in plan.lines():
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        return
    with _training("sft", base, data, out, train, lora, quiet) as callbacks:
        result = finetune_sft(settings, callbacks=callbacks)
    _done(result.card, result.out)


@finetune_app.command(
    "dpo",
    epilog=examples(
        "chartproof finetune dpo --pairs pairs.jsonl -d data/qax --base ft/sft -o ft/dpo",
    ),
)
def dpo(
    pairs: Annotated[Path, typer.Option("--pairs", "-p", help="`chartproof pairs` JSONL file.")],
    data: Annotated[str, typer.Option("--data", "-d", help="The dataset the pairs came from.")],
    base: BaseSpec,
    out: TuneOut,
    mode: Annotated[
        str, typer.Option(help="textual (answer given chart) or visual (chart given answer).")
    ] = "textual",
    adapter: Annotated[
        str | None, typer.Option(help="Start from this (SFT) adapter; it is also the reference.")
    ] = None,
    prompt: Annotated[str, typer.Option(help="Prompt id of the pairs' requests.")] = "chartqax@1",
    target_format: Annotated[str, typer.Option(help="Completion template.")] = _TARGET_FORMAT,
    beta: Annotated[float, typer.Option(help="DPO beta.")] = 0.1,
    budget: Annotated[int | None, typer.Option(help="Most pairs to train on.")] = None,
    ceiling: Annotated[float, typer.Option(help="Drop pairs at least this similar.")] = 0.98,
    resolution: Annotated[
        int | None, typer.Option(help="Image side for SSIM (default: the VLM's input size).")
    ] = None,
    max_steps: Steps = 100,
    batch_size: Batch = 2,
    grad_accum: Accum = 1,
    lr: LR = 5e-5,
    lora_r: Rank = 8,
    lora_alpha: Alpha = None,
    lora_dropout: Dropout = 0.05,
    lora_targets: Targets = _TARGETS,
    seed: Seed = 0,
    device: Device = "auto",
    dtype: DType = "auto",
    save_steps: SaveSteps = 50,
    max_length: MaxLen = 1024,
    merge: Merge = False,
    resume: Resume = True,
    dry_run: DryRun = False,
    quiet: Quiet = False,
) -> None:
    """ChartCF preference optimisation on counterfactual pairs (similarity-selected)."""
    if mode not in ("textual", "visual"):
        raise typer.BadParameter("must be textual or visual", param_hint="--mode")
    lora = _lora(lora_r, lora_alpha, lora_dropout, lora_targets)
    train = _train(
        max_steps=max_steps,
        batch_size=batch_size,
        grad_accum=grad_accum,
        learning_rate=lr,
        seed=seed,
        device=device,
        dtype=dtype,
        save_steps=save_steps,
        max_length=max_length,
    )
    from chartproof.pipelines.finetune import DPOSettings, finetune_dpo

    settings = DPOSettings(
        pairs=pairs,
        data=data,
        base=base,
        out=out,
        mode=mode,
        adapter=adapter,
        prompt=prompt,
        target_format=target_format,
        beta=beta,
        budget=budget,
        ceiling=ceiling,
        resolution=resolution,
        lora=lora,
        train=train,
        merge=merge,
        resume=resume,
    )
    if dry_run:
        _dpo_plan(settings)
        return
    with _training(f"dpo ({mode}, beta {beta})", base, data, out, train, lora, quiet) as callbacks:
        result = finetune_dpo(settings, callbacks=callbacks)
    _done(result.card, result.out)


def _dpo_plan(settings: DPOSettings) -> None:
    """The `--dry-run` of `finetune dpo`: the similarity selection and a memory estimate."""
    from chartproof.pipelines.finetune._base import base_kind, estimate_memory
    from chartproof.pipelines.finetune.dpo import load_pairs, select_pairs

    base, mode, budget, ceiling = settings.base, settings.mode, settings.budget, settings.ceiling
    lora, train = settings.lora, settings.train
    kind, _, folder = base_kind(base)
    rows, root = load_pairs(settings.pairs, settings.data)
    kept, dropped = select_pairs(
        rows,
        root,
        by="spec" if kind == "text" else "image",
        budget=budget,
        ceiling=ceiling,
        resolution=settings.resolution or 512,
        per_original=settings.per_original,
    )
    batch = train.batch_size
    m = estimate_memory(folder, lora, batch_size=2 * batch, seq_len=512)
    for line in (
        f"base: {base} ({'text over table' if kind == 'text' else 'VLM'}); mode: {mode}",
        f"pairs: {len(rows)} candidates, {dropped} at or above similarity {ceiling}, "
        f"{len(kept)} kept (budget {budget})",
        f"steps: {train.max_steps}, batch {batch} pairs (= {2 * batch} sequences)",
        f"memory estimate: {m.total_gib:.2f} GiB (weights {m.weights_gib:.2f}, activations "
        f"{m.activations_gib:.2f}, a reference pass adds no weights: the adapter is switched off)",
    ):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


@contextmanager
def _training(
    method: str,
    base: str,
    data: str,
    out: Path,
    train: TrainSettings,
    lora: LoRASettings,
    quiet: bool,
) -> Iterator[list[Any]]:
    """The trainer callbacks that print the header line (what will train) and drive a bar
    of optimiser steps with rate and time left; none with --quiet."""
    from chartproof.pipelines.finetune._base import progress_callback

    examples: list[int] = []

    def header() -> str:
        n = f"{examples[0]} examples, " if examples else ""
        return (
            f"finetune {method}: {base} on {data} → {out}; {n}batch {train.batch_size} × "
            f"accumulation {train.grad_accum}, lr {train.learning_rate:g}, LoRA r {lora.r} "
            f"alpha {lora.alpha}, device {train.device}, dtype {train.dtype}, seed {train.seed}"
        )

    with progress_bar(
        f"finetune {method.split()[0]}", not quiet, header=header, unit="steps"
    ) as hook:
        yield [] if hook is None else [progress_callback(hook, examples=examples.append)]


def _done(card: object, out: Path) -> None:
    steps = getattr(card, "steps", 0)
    loss = getattr(card, "final_train_loss", None)
    rate = getattr(card, "samples_per_second", None)
    console.print(
        f"trained {steps} steps (mean loss {loss if loss is None else round(loss, 4)}, "
        f"{rate} samples/s); adapter and card in [bold]{out}[/bold]"
    )
    console.print(f"evaluate with: --model '{getattr(card, 'eval_spec', '')}'", markup=False)


@finetune_app.command(
    "compare",
    epilog=examples(
        "chartproof finetune compare --tuned ft/sft -d data/heldout -o runs/cmp",
    ),
)
def compare(
    tuned: Annotated[Path, typer.Option("--tuned", "-t", help="A finetune output folder.")],
    data: Annotated[str, typer.Option("--data", "-d", help="Held-out dataset.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for both runs and the table.")],
    max_tokens: Annotated[int, typer.Option(help="Largest reply in tokens.", min=1)] = 256,
    metrics: Annotated[str | None, typer.Option(help="Explanation metrics: roscoe,ngram.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first LIMIT samples.")] = None,
    base_model: Annotated[
        str | None, typer.Option(help="Compare against this spec instead of the card's base.")
    ] = None,
    merged: Annotated[
        bool, typer.Option(help="Score the merged checkpoint (--merge) instead of the adapter.")
    ] = False,
    cache: UseCache = True,
) -> None:
    """Evaluate base and tuned on held-out data and print them side by side."""
    from chartproof.pipelines.finetune.compare import CompareSettings, compare_tuned

    settings = CompareSettings(
        tuned=tuned,
        data=data,
        out=out,
        max_tokens=max_tokens,
        metrics=tuple(comma_list(metrics)),
        limit=limit,
        cache=cache,
        base_spec=base_model,
        merged=merged,
    )
    result = compare_tuned(settings)
    console.print(result.markdown, markup=False, highlight=False, soft_wrap=True)
    console.print(f"report: {out / 'report.html'}")
