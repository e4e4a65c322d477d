"""ChartCF preference optimisation on tiny models: the chosen/rejected margin grows (textual
pairs through trl's DPOTrainer on a text-over-table Llama; visual pairs through chartproof's
pairwise loss on an Idefics3 VLM), the loss matches its formula, and pairs are selected by
similarity under a budget."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from chartproof.models.chart_text import chart_metadata
from chartproof.pipelines.finetune import LoRASettings, TrainSettings
from chartproof.pipelines.finetune._data import TARGET_FORMAT
from chartproof.pipelines.finetune.dpo import load_pairs, preference_examples, select_pairs
from chartproof.pipelines.generate import generate
from chartproof.pipelines.pairs import export_pairs


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cf")
    generate("chartqax", 2, root, seed=0, counterfactuals=3)
    export_pairs(root, root / "pairs.jsonl")
    return root, root / "pairs.jsonl"


def test_pairs_resolve_to_samples_and_bad_rows_are_named(
    family: tuple[Path, Path], tmp_path: Path
) -> None:
    root, pairs = family
    rows, _ = load_pairs(pairs, root)
    assert rows and all(cf.parent_id == orig.id for orig, cf in rows)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(pairs.read_text().splitlines()[0] + '\n{"id": "nope", "original_id": "x"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:2"):
        load_pairs(bad, root)


def test_similarity_selection_drops_near_duplicates_and_keeps_the_least_similar(
    family: tuple[Path, Path],
) -> None:
    from chartproof.variants.similarity import spec_similarity

    root, pairs = family
    rows, _ = load_pairs(pairs, root)
    sims = sorted(spec_similarity(o.spec, c.spec) for o, c in rows)  # type: ignore[arg-type]
    ceiling = sims[-1]  # the most similar pair(s) go
    kept, dropped = select_pairs(rows, root, by="spec", budget=2, ceiling=ceiling, resolution=64)
    assert dropped == sum(1 for s in sims if s >= ceiling) >= 1
    assert [round(p.similarity, 9) for p in kept] == [round(s, 9) for s in sims[:2]]


def test_textual_and_visual_examples(family: tuple[Path, Path]) -> None:
    root, pairs = family
    rows, _ = load_pairs(pairs, root)
    kept, _ = select_pairs(rows, root, by="spec", budget=None, ceiling=None, resolution=64)
    (t,) = preference_examples(
        kept[:1], root, mode="textual", prompt="chartqax@1", target_format=TARGET_FORMAT
    )
    orig, cf = kept[0].original, kept[0].counterfactual
    assert t.chosen[0] is t.rejected[0]  # same request: the counterfactual chart
    assert t.chosen[0].metadata["chart"] == chart_metadata(cf)["chart"]  # the edited chart
    assert t.chosen[1].startswith(f"Answer: {cf.answer.text().rstrip('. ')}.")
    assert t.rejected[1].startswith(f"Answer: {orig.answer.text().rstrip('. ')}.")
    (v,) = preference_examples(
        kept[:1], root, mode="visual", prompt="chartqax@1", target_format=TARGET_FORMAT
    )
    assert v.chosen[1] == v.rejected[1] == t.rejected[1]  # the original's answer both times
    w, lose = v.chosen[0], v.rejected[0]
    assert w.metadata["chart"] == chart_metadata(orig)["chart"]
    assert lose.metadata["chart"] == chart_metadata(cf)["chart"]  # the chart differs, not the text
    assert [m.content[-1] for m in w.messages] == [m.content[-1] for m in lose.messages]


def _margins(base: Any, adapter: Path | None, examples: list[Any]) -> list[float]:
    """log π(chosen) − log π(rejected) under the base (adapter None) or the tuned model."""
    import torch

    from chartproof.pipelines.finetune.dpo import sequence_logps

    model = base.model
    if adapter is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(base.model, adapter)
    model.eval()
    pad = int(base.tokenizer.pad_token_id)
    with torch.no_grad():
        w = sequence_logps(model, [base.encode(*e.chosen) for e in examples], pad)
        lo = sequence_logps(model, [base.encode(*e.rejected) for e in examples], pad)
    return [float(x) for x in (w - lo)]


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "mode"), [("text", "textual"), ("vlm", "visual")])
def test_dpo_margin_grows(kind: str, mode: str, family: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("trl")
    from chartproof.pipelines.finetune._base import load_base
    from chartproof.pipelines.finetune.dpo import finetune_dpo

    if kind == "text":
        from chartproof.testing.tiny_lm import build_tiny_llama

        folder = build_tiny_llama(tmp_path / "ckpt")
    else:
        from chartproof.testing.tiny_vlm import build_tiny_idefics3

        folder = build_tiny_idefics3(tmp_path / "ckpt", hidden_size=64)
    root, pairs = family
    result = finetune_dpo(
        pairs,
        root,
        str(folder),
        tmp_path / "run",
        mode=mode,  # type: ignore[arg-type]
        budget=4,
        ceiling=None,
        beta=0.1,
        lora=LoRASettings(r=8),
        train=TrainSettings(max_steps=20, batch_size=2, learning_rate=1e-2, logging_steps=5),
    )
    card = result.card
    assert card.method == f"dpo-{mode}" and card.n_train == 4
    logged = [p.extra["rewards/margins"] for p in card.losses if "rewards/margins" in p.extra]
    assert logged[-1] > logged[0] > 0
    losses = [p.loss for p in card.losses if p.loss is not None]
    assert losses[0] < math.log(2) + 0.05 and losses[-1] < 0.5 * losses[0]  # starts near ln 2
    rows, _ = load_pairs(pairs, root)
    kept, _ = select_pairs(
        rows, root, by="spec" if kind == "text" else "image", budget=4, ceiling=None, resolution=32
    )
    examples = preference_examples(
        kept,
        root,
        mode=mode,
        prompt="chartqax@1",  # type: ignore[arg-type]
        target_format=TARGET_FORMAT,
    )
    base = load_base(str(folder), device="cpu")
    before = _margins(base, None, examples)
    after = _margins(base, result.adapter, examples)
    assert all(a > b for a, b in zip(after, before, strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["textual", "visual"])
def test_dpo_continues_an_sft_adapter_against_its_frozen_copy(
    mode: str, family: tuple[Path, Path], tmp_path: Path
) -> None:
    pytest.importorskip("trl")
    from chartproof.pipelines.finetune import finetune_sft
    from chartproof.pipelines.finetune.dpo import finetune_dpo
    from chartproof.testing.tiny_lm import build_tiny_llama

    root, pairs = family
    folder = build_tiny_llama(tmp_path / "ckpt")
    settings = TrainSettings(max_steps=3, batch_size=2, learning_rate=1e-2, logging_steps=1)
    sft = finetune_sft(root, str(folder), tmp_path / "sft", val_fraction=0.0, train=settings)
    result = finetune_dpo(
        pairs,
        root,
        str(folder),
        tmp_path / "dpo",
        mode=mode,  # type: ignore[arg-type]
        adapter=str(sft.adapter),
        budget=2,
        ceiling=None,
        train=settings,
    )
    card = result.card
    assert card.method_options["init_adapter"] == str(sft.adapter) and card.steps == 3
    # policy starts equal to its reference: the first logged margin is exactly 0 before any
    # update is applied, so the first loss is ln 2
    first = next(p for p in card.losses if p.loss is not None)
    assert first.loss == pytest.approx(math.log(2), abs=1e-3)
    assert (result.adapter / "adapter_config.json").is_file()
    assert not (result.adapter / "ref").exists()  # only the trained adapter is saved
