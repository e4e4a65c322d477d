"""`chartproof finetune`: dry-run plans without loading a model, and the held-out check of
`compare` (no torch needed: the checkpoint is a config plus a weights file of known size)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chartproof.pipelines.finetune import LoRASettings, TrainingCard, TrainSettings
from chartproof.pipelines.finetune._card import write_card, write_train_images
from chartproof.pipelines.finetune.compare import held_out_overlap
from chartproof.pipelines.generate import generate
from chartproof.pipelines.pairs import export_pairs


@pytest.fixture(scope="module")
def app():  # type: ignore[no-untyped-def]
    from chartproof.cli import _register
    from chartproof.cli._app import app as typer_app

    _register()
    return typer_app


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("qax")
    generate("chartqax", 1, root, seed=0, counterfactuals=2)
    export_pairs(root, root / "pairs.jsonl")
    return root


@pytest.fixture()
def fake_lm(tmp_path: Path) -> Path:
    folder = tmp_path / "lm"
    folder.mkdir()
    config = {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "vocab_size": 400,
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "model.safetensors").write_bytes(b"\0" * 4000)  # 1,000 float32 parameters
    return folder


def test_sft_dry_run_prints_the_plan_and_memory(app, data: Path, fake_lm: Path) -> None:  # type: ignore[no-untyped-def]
    args = ["finetune", "sft", "--data", str(data), "--base", str(fake_lm), "--out", "x"]
    res = CliRunner().invoke(app, [*args, "--dry-run", "--max-steps", "10", "--val-fraction", "0"])
    assert res.exit_code == 0, res.output
    n = sum(1 for _ in (data / "samples.jsonl").open())
    assert f"data: {n} train, 0 validation" in res.output
    assert "text over table" in res.output and "Answer: " in res.output
    # LoRA r=8 on q/k/v/o of 2 layers of width 64: 8 * (64 + 64) * 4 * 2
    assert "1,000 parameters, 8,192 trainable" in res.output
    assert not Path("x").exists()


def test_dpo_dry_run_reports_the_selection(app, data: Path, fake_lm: Path) -> None:  # type: ignore[no-untyped-def]
    args = ["finetune", "dpo", "--pairs", str(data / "pairs.jsonl"), "--data", str(data)]
    res = CliRunner().invoke(
        app, [*args, "--base", str(fake_lm), "--out", "x", "--dry-run", "--budget", "2"]
    )
    assert res.exit_code == 0, res.output
    total = sum(1 for _ in (data / "pairs.jsonl").open())
    assert f"pairs: {total} candidates" in res.output and "kept (budget 2)" in res.output


def test_missing_base_is_named(app, data: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = CliRunner().invoke(
        app,
        [
            "finetune",
            "sft",
            "--data",
            str(data),
            "--base",
            str(tmp_path / "nope"),
            "--out",
            "x",
            "--dry-run",
        ],
    )
    # one line, no traceback (the CLI's mistake catalogue)
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: ") and "not a local checkpoint folder" in res.output


def test_compare_refuses_data_that_was_trained_on(data: Path, tmp_path: Path) -> None:
    from chartproof.datasets import load_samples
    from chartproof.pipelines.finetune.compare import compare_tuned

    card = TrainingCard(
        method="sft",
        base="b",
        base_path="b",
        base_fingerprint="f",
        model_kind="text",
        data=str(data),
        data_fingerprint="sha256:x",
        prompt="chartqax@1",
        target_format="Answer: {answer}.",
        split="all",
        n_train=1,
        n_validation=0,
        lora=LoRASettings(),
        train=TrainSettings(),
    )
    write_card(card, tmp_path)
    samples = load_samples(data).samples
    write_train_images({"0" * 64}, tmp_path)
    assert held_out_overlap(tmp_path, data) == []
    write_train_images({samples[0].image.sha256 or ""}, tmp_path)
    overlap = held_out_overlap(tmp_path, data)
    assert samples[0].id in overlap
    with pytest.raises(ValueError, match="is not held out"):
        compare_tuned(tmp_path, data, tmp_path / "cmp")


def test_cli_target_format_default_is_the_pipelines() -> None:
    from chartproof.cli import finetune as cli_finetune
    from chartproof.pipelines.finetune import TARGET_FORMAT

    # The CLI writes the default again to keep the pipeline off its import path.
    assert cli_finetune._TARGET_FORMAT == TARGET_FORMAT


@pytest.mark.slow
def test_sft_shows_loading_header_and_steps(app, data: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A training run says what loads and how long it took, then what will train (base,
    data, examples, settings) and the number of steps, then a bar of optimiser steps."""
    import re

    pytest.importorskip("trl")
    from chartproof.testing.tiny_lm import build_tiny_llama

    base = str(build_tiny_llama(tmp_path / "lm"))
    out = tmp_path / "ft"
    args = ["finetune", "sft", "-d", str(data), "--base", base, "-o", str(out), "--max-steps", "3",
            "--save-steps", "3", "--batch-size", "2", "--val-fraction", "0", "--device", "cpu"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())  # lines wrap at the console's width
    n = sum(1 for _ in (data / "samples.jsonl").open())
    assert re.search(rf"loaded {re.escape(base)} in \d+\.\d s", text), text
    header = text.index(f"finetune sft: {base} on {data}")
    assert text.index(f"{n} examples, batch 2 × accumulation 1, lr 0.0002", header)
    assert text.index("seed 0: 3 steps", header) < text.index("finetune sft ", header + 20)
    assert re.search(r"finetune sft .* 3/3", text), text
    assert text.index("trained 3 steps") > header
