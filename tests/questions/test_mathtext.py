"""Questions, gold answers and premises read labels as the chart draws them: mathtext is
converted (`chartproof.charts.mathtext`) and its source kept in the sample's metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.charts.mathtext import display_text, has_mathtext

CASES = [
    ("Loss $\\mathcal{L}$", "Loss ℒ"),
    ("$10^{-1}$", "10⁻¹"),
    ("$3\\times10^{-2}$", "3×10⁻²"),
    ("$A_{280}$", "A₂₈₀"),
    ("$\\mathrm{OD}_{600}$", "OD₆₀₀"),
    ("$I_{stim}$", "Iₛₜᵢₘ"),
    ("$\\Delta lacZ$", "ΔlacZ"),
    ("$recA^{-}$", "recA⁻"),
    ("$\\mathrm{PV}^{+}$", "PV⁺"),
    ("Ours ($\\ell_1$)", "Ours (ℓ₁)"),
    ("$\\mu\\Omega$ cm", "μΩ cm"),
    ("Counts per $10^{3}$ s", "Counts per 10³ s"),
    ("$B$ = 5 T", "B = 5 T"),
    ("$x_{bc}$", "x_(bc)"),
    ("20$^\\circ$C", "20°C"),
    ("Revenue ($M)", "Revenue ($M)"),
    ("costs \\$5", "costs $5"),
    ("plain text", "plain text"),
]


@pytest.mark.parametrize(("source", "shown"), CASES)
def test_display_text(source: str, shown: str) -> None:
    assert display_text(source) == shown


def test_matplotlib_agrees_on_what_is_math() -> None:
    mpl = pytest.importorskip("matplotlib")
    del mpl
    from matplotlib.mathtext import MathTextParser

    parser = MathTextParser("path")
    for source, _ in CASES:
        if has_mathtext(source):
            parser.parse(source)  # valid mathtext: it would be drawn as math


@pytest.mark.slow
def test_realcqa_questions_read_as_drawn(tmp_path: Path) -> None:
    from chartproof.datasets import load_samples
    from chartproof.pipelines.generate import generate

    generate("realcqa", 12, tmp_path, per_chart=4, workers=1)
    samples = load_samples(tmp_path).samples
    raw = [s for s in samples if "$" in s.question or "\\" in s.question]
    assert raw == []
    for s in samples:
        texts = [s.answer.text(), *(p.text for p in s.premises), *(st.question for st in s.chain)]
        assert not any(has_mathtext(t) or "\\math" in t for t in texts), (s.id, texts)
    kept = [s for s in samples if s.source.get("mathtext")]
    assert kept, "the mathtext sources are kept as metadata"
    for s in kept:
        shown = s.source["mathtext"]
        assert isinstance(shown, dict)
        assert all(display_text(str(src)) == text for text, src in shown.items())
    # a box plot has no series to count
    assert not any(s.chart_type == "box" and "data series" in s.question for s in samples), [
        s.question for s in samples if s.chart_type == "box"
    ]
    json.dumps([s.source for s in samples])
