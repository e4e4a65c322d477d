"""N-gram metrics: COCO tokenisation and BLEU-4/METEOR/ROUGE-L/CIDEr-D pinned to values of
pycocoevalcap (case tables), plus a live side-by-side run when Java and pycocoevalcap exist."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chartproof.metrics.ngram import (
    NGRAM_METRICS,
    bleu,
    cider_d,
    lcs_length,
    ngram_scores,
    ptb_tokenize,
    rouge_l,
)

CASES = Path(__file__).parent / "cases"
PTB = json.loads((CASES / "ngram_ptb.json").read_text())["cases"]
COCO = json.loads((CASES / "ngram_coco.json").read_text())["corpora"]
OPENCQA = Path(__file__).resolve().parents[3] / "shared" / "data" / "opencqa-val"


def _has_coco() -> bool:
    try:
        import pycocoevalcap  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None


needs_coco = pytest.mark.skipif(not _has_coco(), reason="needs Java and pycocoevalcap")


@pytest.mark.parametrize("case", PTB, ids=[c["text"][:30] for c in PTB])
def test_ptb_tokenizer_matches_stanford(case: dict[str, str]) -> None:
    assert ptb_tokenize([case["text"]]) == [case["tokens"]]


@needs_coco
def test_ptb_case_table_is_what_the_jar_says() -> None:
    from chartproof.metrics.ngram import java_ptb_tokenize

    texts = [c["text"] for c in PTB if c["text"]]
    expected = [c["tokens"] for c in PTB if c["text"]]
    assert java_ptb_tokenize(texts) == expected


@pytest.mark.parametrize("name", sorted(COCO))
def test_scores_match_pycocoevalcap_table(name: str) -> None:
    corpus = COCO[name]
    cands = [s["candidate"] for s in corpus["samples"]]
    refs = [s["references"] for s in corpus["samples"]]
    metrics = [m for m in NGRAM_METRICS if m != "meteor"]  # METEOR: see the slow test below
    report = ngram_scores(cands, refs, metrics=metrics)
    for metric in metrics:
        assert report.corpus[metric] == pytest.approx(corpus["corpus"][metric], abs=1e-12)
        assert report.per_sample[metric] == pytest.approx(corpus["per_sample"][metric], abs=1e-12)


@needs_coco
@pytest.mark.slow
def test_meteor_matches_pycocoevalcap_table() -> None:
    # one jar start (~12 s: it loads its paraphrase tables) for both corpora; per-sample
    # METEOR does not depend on the other samples
    samples = [s for name in sorted(COCO) for s in COCO[name]["samples"]]
    expected = [v for name in sorted(COCO) for v in COCO[name]["per_sample"]["meteor"]]
    report = ngram_scores(
        [s["candidate"] for s in samples], [s["references"] for s in samples], metrics=["meteor"]
    )
    assert report.per_sample["meteor"] == pytest.approx(expected, abs=1e-12)


def test_single_metric_functions_agree_with_report() -> None:
    corpus = COCO["chart_explanations"]
    cands = [s["candidate"] for s in corpus["samples"]]
    refs = [s["references"] for s in corpus["samples"]]
    corpus_bleu, per_sentence = bleu(cands, refs)
    assert corpus_bleu[3] == pytest.approx(corpus["corpus"]["bleu4"], abs=1e-12)
    assert per_sentence[:, 3].tolist() == pytest.approx(corpus["per_sample"]["bleu4"], abs=1e-12)
    assert rouge_l(cands, refs).tolist() == pytest.approx(corpus["per_sample"]["rouge_l"])
    assert cider_d(cands, refs).tolist() == pytest.approx(corpus["per_sample"]["cider_d"])


def test_identical_texts_hand_values() -> None:
    # one sample: identical candidate and reference -> BLEU 1, ROUGE-L 1; CIDEr-D is 0
    # because with one sample every n-gram has idf log(1) - log(1) = 0
    report = ngram_scores(
        ["the bar is tall"], [["the bar is tall"]], metrics=["bleu4", "rouge_l", "cider_d"]
    )
    assert report.corpus["bleu4"] == pytest.approx(1.0)
    assert report.corpus["rouge_l"] == pytest.approx(1.0)
    assert report.corpus["cider_d"] == 0.0


def test_bare_string_reference_is_one_reference() -> None:
    a = ngram_scores(["a tall bar"], ["the tall bar"], metrics=["rouge_l"])
    b = ngram_scores(["a tall bar"], [["the tall bar"]], metrics=["rouge_l"])
    assert a.corpus == b.corpus
    # LCS 2 of 3 tokens both ways: P = R = 2/3, F = 2/3
    assert a.corpus["rouge_l"] == pytest.approx(2 / 3)


def test_bad_inputs_name_the_culprit() -> None:
    with pytest.raises(ValueError, match="2 candidates but 1"):
        ngram_scores(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="sample 0"):
        ngram_scores(["a"], [[]])
    with pytest.raises(ValueError, match="unknown n-gram metrics"):
        ngram_scores(["a"], ["a"], metrics=["bleu5"])  # type: ignore[list-item]


def test_meteor_not_computed_without_java(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    report = ngram_scores(["a tall bar"], ["the tall bar"], metrics=["meteor", "rouge_l"])
    assert report.corpus["meteor"] is None
    assert "Java" in report.notes["meteor"]
    assert "meteor" not in report.per_sample
    assert report.scores()[0].note is not None


def _dp_lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1 if x == y else max(table[i - 1][j], table[i][j - 1])
            )
    return table[len(a)][len(b)]


@given(
    st.lists(st.sampled_from("abcde"), max_size=40),
    st.lists(st.sampled_from("abcdef"), max_size=40),
)
def test_bit_parallel_lcs_equals_dynamic_programming(a: list[str], b: list[str]) -> None:
    assert lcs_length(a, b) == _dp_lcs(a, b)


@needs_coco
@pytest.mark.skipif(not OPENCQA.exists(), reason="needs ../shared/data/opencqa-val")
def test_side_by_side_with_pycocoevalcap_on_opencqa() -> None:
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    rows = [json.loads(line) for line in (OPENCQA / "opencqa-val.jsonl").open()][:150]
    rng = random.Random(7)
    refs = [r["answer"] for r in rows]
    cands = [" ".join(w for w in t.split() if rng.random() > 0.25) for t in refs]
    tok = PTBTokenizer()
    gts: Any = tok.tokenize({i: [{"caption": r}] for i, r in enumerate(refs)})
    res: Any = tok.tokenize({i: [{"caption": c}] for i, c in enumerate(cands)})
    report = ngram_scores(cands, [[r] for r in refs], metrics=["bleu4", "rouge_l", "cider_d"])
    assert report.corpus["bleu4"] == Bleu(4).compute_score(gts, res, verbose=0)[0][3]
    assert report.corpus["rouge_l"] == pytest.approx(Rouge().compute_score(gts, res)[0], abs=1e-12)
    assert report.corpus["cider_d"] == pytest.approx(Cider().compute_score(gts, res)[0], abs=1e-12)


# pycocoevalcap writes one call's texts to one file, a line each; the lexer reads past a
# line's end to decide whether a final initial ends a sentence
_NEXT_LINE = [
    (["behind Gen Z.", "The end"], ["behind gen z", "the end"]),
    (["behind Gen Z.", "And then"], ["behind gen z.", "and then"]),
    (["behind Gen Z.", "the end"], ["behind gen z.", "the end"]),
]


@pytest.mark.parametrize(("texts", "tokens"), _NEXT_LINE)
def test_ptb_reads_into_the_next_line_like_the_jar(texts: list[str], tokens: list[str]) -> None:
    assert ptb_tokenize(texts) == tokens


@needs_coco
def test_next_line_cases_are_what_the_jar_says() -> None:
    from chartproof.metrics.ngram import java_ptb_tokenize

    for texts, tokens in _NEXT_LINE:
        assert java_ptb_tokenize(texts) == tokens
