"""Pure perception helpers pinned to case tables: label numbers, axis fits, OCR line splits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chartproof.ocr import (
    parse_label_number,
    split_token,
    tokens_from_lines,
)
from chartproof.reader.perception.axes import fit_axis
from chartproof.reader.perception.records import OcrToken

CASES = Path(__file__).parent / "cases"


def _load(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((CASES / name).read_text(encoding="utf-8"))["cases"]
    return data


@pytest.mark.parametrize("case", _load("label_numbers.json"), ids=lambda c: repr(c["text"]))
def test_label_numbers(case: dict[str, Any]) -> None:
    got = parse_label_number(case["text"])
    if case["value"] is None:
        assert got is None
    else:
        assert got == pytest.approx(case["value"])


def _tick(text: str, pos: float, direction: str) -> OcrToken:
    if direction == "y":
        return OcrToken(text=text, box=(10.0, pos - 6, 30.0, pos + 6), score=1.0)
    return OcrToken(text=text, box=(pos - 10, 410.0, pos + 10, 422.0), score=1.0)


@pytest.mark.parametrize("case", _load("axes.json"), ids=lambda c: c["name"])
def test_axis_fit(case: dict[str, Any]) -> None:
    ticks = [_tick(t, p, case["direction"]) for t, p in case["ticks"]]
    fit = fit_axis(ticks, case["direction"])
    assert fit is not None
    assert fit.scale == case["scale"]
    assert fit.value(case["probe"]) == pytest.approx(case["value"], rel=1e-6)
    assert sorted(t.text for t in fit.rejected) == sorted(case["rejected"])


def test_axis_fit_needs_two_agreeing_labels() -> None:
    assert fit_axis([_tick("5", 100, "y")], "y") is None
    assert fit_axis([_tick("a", 100, "y"), _tick("b", 50, "y")], "y") is None


def _quad(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def _chars(
    text: str, x0: float, step: float, height: float = 20
) -> list[tuple[str, float, list[list[float]]]]:
    """Character boxes as the OCR gives them: glyphs about half as wide as tall."""
    out = []
    x = x0
    for ch in text:
        if ch != " ":
            out.append((ch, 1.0, _quad(x, 0, x + step - 1, height)))
        x += step
    return out


def test_numbers_read_as_one_line_are_split() -> None:
    text = "0 5 10"
    toks = tokens_from_lines([(text, 0.99, _quad(0, 0, 60, 20))], [_chars(text, 0, 10)])
    assert [t.text for t in toks] == ["0", "5", "10"]


def test_multi_word_label_stays_whole_and_space_thousands_stay_one_number() -> None:
    lines = [
        ("United Kingdom", 0.98, _quad(0, 0, 140, 20)),
        ("1 427.4", 0.97, _quad(0, 30, 70, 50)),
    ]
    chars = [_chars("United Kingdom", 0, 10), _chars("1 427.4", 0, 10)]
    toks = tokens_from_lines(lines, chars)
    assert [t.text for t in toks] == ["United Kingdom", "1 427.4"]


def test_wide_gaps_split_merged_labels_and_scale_maps_back() -> None:
    text = "Japan Spain"
    chars = _chars("Japan", 0, 10) + _chars("Spain", 300, 10)
    toks = tokens_from_lines([(text, 0.9, _quad(0, 0, 350, 20))], [chars], scale=2.0)
    assert [t.text for t in toks] == ["Japan", "Spain"]
    # "S" is centred at 304.5; the piece starts half a line height before it, halved.
    assert toks[1].box[0] == pytest.approx((304.5 - 10) / 2)


def test_split_token_at_slot_boundaries() -> None:
    text = "NorwayMexico"
    tok = tokens_from_lines([(text, 0.9, _quad(0, 0, 120, 20))], [_chars(text, 0, 10)])[0]
    assert [p.text for p in split_token(tok, [60.0])] == ["Norway", "Mexico"]


def test_punctuation_only_tokens_are_dropped() -> None:
    toks = tokens_from_lines(
        [("_", 0.9, _quad(0, 0, 10, 90)), ("|", 0.8, _quad(0, 0, 3, 10))], None
    )
    assert toks == ()
