"""Reference explanations: at most four sentences, plain (no conversational words), naming
the visual elements read, and stating the answer."""

from __future__ import annotations

import random
import re

from question_factory import category_spec, random_spec

from chartproof.questions import execute, make_questions
from chartproof.types import ChartType

CHART_TYPES: tuple[ChartType, ...] = (
    "vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "scatter", "box",
)  # fmt: skip

CONVERSATIONAL = re.compile(
    r"\b(sure|certainly|i think|i believe|let's|let me|okay|ok|well,|hmm|you|we|our|"
    r"great question|of course|as an ai)\b",
    re.IGNORECASE,
)
VISUAL = re.compile(
    r"\b(bar|bars|segment|segments|line|lines|wedge|wedges|point|points|box|boxes|legend|"
    r"axis|tick|marks|colou?rs?|labelled|tallest|shortest|longest|highest|lowest|top|left|"
    r"blue|orange|green|red|purple|brown|pink|gray|olive|cyan)\b",
    re.IGNORECASE,
)


def _sentences(text: str) -> list[str]:
    # a full stop ends a sentence only when followed by a space and a capital, or the end
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9])", text.strip()) if s]


def test_known_explanation() -> None:
    spec = category_spec("vbar")
    result = execute("diff_two", {"series": "Sales", "x": "2018", "x2": "2021"}, spec)
    assert result is not None
    from chartproof.questions import explain

    assert explain(result.ops) == (
        "The blue bar for 2018 is labelled 12 and the blue bar for 2021 is labelled 20. "
        "20 minus 12 is 8, so the answer is 8."
    )


def test_explanations_are_short_plain_and_visual() -> None:
    rng = random.Random(5)
    count = 0
    bad: list[str] = []
    for i in range(90):
        spec = random_spec(rng, CHART_TYPES[i % len(CHART_TYPES)], spec_id=f"e{i}")
        items = make_questions(spec, seed=i, per_chart=25, with_premises=False)
        items += make_questions(
            spec, seed=i, per_chart=5, families=("structure",), with_premises=False
        )
        for item in items:
            text = item.explanation
            count += 1
            assert 1 <= len(_sentences(text)) <= 4, text
            assert not CONVERSATIONAL.search(text), text
            if not (VISUAL.search(text) or item.family == "structure"):
                bad.append(text)
            assert text.endswith(f"so the answer is {_answer_words(item.answer.text())}."), text
    assert count > 1000
    assert not bad, bad[:5]


def _answer_words(text: str) -> str:
    return {"Yes": "yes", "No": "no"}.get(text, text)
