"""`finetune compare` evaluates what was trained: a tiny Idefics3 VLM gets a LoRA adapter that
changes its replies, compare scores base and tuned through `hf:PATH` and `hf:PATH?adapter=DIR`
(and the merged checkpoint), and refuses a comparison of a model with itself. Also the fixes
of issue #43 that live in the fine-tune code: a resumed SFT run writes the uninterrupted
run's card, and adapter fingerprints do not depend on the hash seed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from chartproof.pipelines.finetune import LoRASettings, TrainSettings, finetune_sft, read_card
from chartproof.pipelines.finetune._base import adapter_fingerprint
from chartproof.pipelines.finetune.sft import run_mean_loss
from chartproof.pipelines.generate import generate

PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@pytest.fixture(scope="module")
def train_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("qax_train")
    generate("chartqax", 1, root, seed=5)
    return root


@pytest.fixture(scope="module")
def held_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("qax_test")
    generate("chartqax", 1, root, seed=6)
    return root


@pytest.fixture(scope="module")
def tuned_vlm(tmp_path_factory: pytest.TempPathFactory, train_data: Path) -> Path:
    pytest.importorskip("trl")
    from chartproof.testing.tiny_vlm import build_tiny_idefics3

    base = build_tiny_idefics3(tmp_path_factory.mktemp("tiny_vlm") / "ckpt", hidden_size=64)
    out = tmp_path_factory.mktemp("ft")
    # a few large steps: enough to move every greedy reply of the random tiny model
    finetune_sft(
        train_data,
        str(base),
        out,
        target_format="Answer: {answer}.",
        val_fraction=0.0,
        lora=LoRASettings(r=8, alpha=16, dropout=0.0, target_modules=PROJECTIONS),
        train=TrainSettings(
            max_steps=30, batch_size=1, learning_rate=1e-2, save_steps=1000, logging_steps=10
        ),
        merge=True,
    )
    return out


def _predictions(run: Path) -> dict[str, str | None]:
    rows = [json.loads(x) for x in (run / "results.jsonl").read_text().splitlines()]
    return {r["sample_id"]: r.get("prediction") or r.get("response") for r in rows}


@pytest.mark.slow
def test_vlm_card_specs_carry_the_adapter_and_the_merged_folder(tuned_vlm: Path) -> None:
    card = read_card(tuned_vlm)
    adapter = (tuned_vlm / "adapter").resolve()
    assert card.eval_spec == f"{card.base_eval_spec}?adapter={adapter}"
    assert card.base_eval_spec == f"hf:{Path(card.base_path)}"
    assert card.merged_eval_spec == f"hf:{(tuned_vlm / 'merged').resolve()}"


@pytest.mark.slow
def test_compare_scores_base_and_adapter_differently(
    tuned_vlm: Path, held_out: Path, tmp_path: Path
) -> None:
    from chartproof.pipelines.finetune.compare import compare_tuned

    result = compare_tuned(tuned_vlm, held_out, tmp_path / "cmp", max_tokens=8, cache=False)
    base, tuned = _predictions(result.runs["base"]), _predictions(result.runs["tuned"])
    assert base.keys() == tuned.keys() and len(base) == 3
    assert all(base[k] != tuned[k] for k in base), (base, tuned)
    summary = json.loads((result.runs["tuned"] / "summary.json").read_text())
    assert "adapter=" in json.dumps(summary)  # the run says which model it scored
    saved = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    assert saved["tuned"].endswith(f"?adapter={(tuned_vlm / 'adapter').resolve()}")

    merged = compare_tuned(
        tuned_vlm,
        held_out,
        tmp_path / "cmp_merged",
        max_tokens=8,
        cache=False,
        limit=6,
        merged=True,
    )
    # merging is exact up to float rounding: the merged model says what the adapter says
    assert _predictions(merged.runs["tuned"]) == tuned


@pytest.mark.slow
def test_compare_refuses_a_model_against_itself(
    tuned_vlm: Path, held_out: Path, tmp_path: Path
) -> None:
    from chartproof.pipelines.finetune.compare import compare_tuned, weights_identity

    card = read_card(tuned_vlm)
    with pytest.raises(ValueError, match="resolve to the same weights"):
        compare_tuned(tuned_vlm, held_out, tmp_path / "a", base_spec=card.eval_spec)
    # a card written before the fix named the bare base as the tuned model
    old = tmp_path / "old"
    shutil.copytree(tuned_vlm, old, ignore=shutil.ignore_patterns("merged", "checkpoints"))
    raw = json.loads((old / "training_card.json").read_text())
    raw["eval_spec"] = raw["base_eval_spec"]
    (old / "training_card.json").write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="resolve to the same weights"):
        compare_tuned(old, held_out, tmp_path / "b")
    assert not (tmp_path / "b").exists()  # refused before anything ran
    assert weights_identity(card.base_eval_spec) != weights_identity(card.merged_eval_spec)
    assert weights_identity("builtin:reader") is None


def test_hf_adapter_option_names_a_missing_adapter(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from chartproof.models import load_backend

    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match="is not a LoRA adapter folder"):
        load_backend(f"hf:{tmp_path / 'ckpt'}?adapter={tmp_path / 'nope'}")


def test_adapter_fingerprint_ignores_the_saved_order_of_target_modules(tmp_path: Path) -> None:
    # peft keeps target_modules as a set: the saved order follows PYTHONHASHSEED
    fingerprints = []
    for order in (["q_proj", "v_proj", "k_proj"], ["k_proj", "q_proj", "v_proj"]):
        folder = tmp_path / "-".join(order)
        folder.mkdir()
        config = {"r": 4, "target_modules": order, "lora_alpha": 8}
        (folder / "adapter_config.json").write_text(json.dumps(config))
        (folder / "adapter_model.safetensors").write_bytes(b"weights")
        fingerprints.append(adapter_fingerprint(folder))
    assert fingerprints[0] == fingerprints[1]
    (folder / "adapter_model.safetensors").write_bytes(b"other weights")
    assert adapter_fingerprint(folder) != fingerprints[0]


@pytest.mark.parametrize(
    ("points", "steps", "expected"),
    [
        ([(2, 1.0), (4, 0.5)], 4, 0.75),  # equal spans
        ([(2, 1.0), (4, 0.5), (5, 0.2)], 5, (2 * 1.0 + 2 * 0.5 + 0.2) / 5),  # short last span
        ([(2, 1.0)], 4, None),  # logs stop before the last step: the fallback
    ],
)
def test_run_mean_loss_weights_each_log_by_its_span(
    points: list[tuple[int, float]], steps: int, expected: float | None
) -> None:
    from chartproof.pipelines.finetune._card import LossPoint

    losses = [LossPoint(step=s, loss=v) for s, v in points]
    assert run_mean_loss(losses, steps) == (None if expected is None else pytest.approx(expected))


@pytest.mark.slow
def test_resumed_sft_writes_the_uninterrupted_runs_card(train_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from transformers import TrainerCallback

    from chartproof.testing.tiny_lm import build_tiny_llama

    base = build_tiny_llama(tmp_path / "lm")

    class StopAt(TrainerCallback):  # type: ignore[misc]
        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> Any:
            if state.global_step >= 3:
                control.should_training_stop = True
            return control

    # checkpoint at 3 is not a logging step (logs every 2): its loss must not be lost
    settings = TrainSettings(
        max_steps=7, batch_size=2, learning_rate=1e-2, save_steps=3, logging_steps=2
    )

    def run(out: Path, callbacks: tuple[Any, ...] = ()) -> Any:
        return finetune_sft(
            train_data,
            str(base),
            out,
            lora=LoRASettings(r=4, dropout=0.1),
            train=settings,
            val_fraction=0.0,
            callbacks=callbacks,
        ).card

    whole = run(tmp_path / "whole")
    assert run(tmp_path / "split", (StopAt(),)).steps == 3
    resumed = run(tmp_path / "split")
    assert resumed.resumed_from == "checkpoint-3"
    assert [p.step for p in whole.losses if p.loss is not None] == [2, 3, 4, 6, 7]
    assert resumed.losses == whole.losses
    assert resumed.final_train_loss == whole.final_train_loss is not None
    assert resumed.adapter_fingerprint == whole.adapter_fingerprint
