"""Operations on quantities a question names in words ("38", "Canada", "the median of the
green bars"): each is answered as a question of its own (`Tracer.ask`) and its operations
are recorded as steps, then compared ("Is A greater than B?", "Is A 3 times B?")."""

from __future__ import annotations

from chartproof.numeric import format_number, parse_number
from chartproof.questions.trace import Ask, Op, Tracer, ref

__all__ = ["compare_quantities", "number_of", "quantity", "times_of", "written_number"]

_ASKED = ("What is the {p}?", "What is the value of {p}?")
"""The questions a quantity's phrase is asked as, in turn, until one answers a number."""


def number_of(op: Op) -> float | None:
    """The number an operation's answer reads as (a number, or a label such as a year)."""
    answer = op.answer()
    return None if answer is None else parse_number(answer.text().rstrip("%"))


def written_number(phrase: str) -> float | None:
    """The number a phrase is as written ("38", "40%"), None for words."""
    return parse_number(phrase.strip().rstrip("%").strip())


def quantity(tr: Tracer, phrase: str) -> Op | None:
    """The number a phrase names: a number as written ("38", "40%"), else the answer to
    "What is the <phrase>?" (then "What is the value of <phrase>?"; the phrase's own "the"
    left out), whose operations are recorded as steps; None when neither answers a number."""
    p = phrase.strip()
    x = written_number(p)
    if x is not None:
        return tr.add("given", None, f"What is {p}?", x, "number", exact=True, args={"text": p})
    from chartproof.questions.matching import answer_ops  # the parser walks the programs

    ask: Ask = tr.ask or answer_ops
    core = p[4:] if p.lower().startswith("the ") else p
    for question in _ASKED:
        found = ask(question.format(p=core), tr.view)
        if found and number_of(found[-1]) is not None:
            return tr.graft(found)
    return None


def _named(op: Op, phrase: str) -> str:
    """A quantity as an explanation names it: its phrase and its number."""
    value = format_number(number_of(op) or 0.0)
    return value if op.op == "given" else f"{phrase} ({value})"


def compare_quantities(
    tr: Tracer, a: Op, b: Op, bigger: bool, phrases: tuple[str, str]
) -> Op | None:
    """Whether quantity `a` is greater (`bigger`) or less than `b` (VC): the numbers as
    answered, strictly."""
    x, y = number_of(a), number_of(b)
    if x is None or y is None:
        return None
    truth = x > y if bigger else x < y
    word = "greater" if bigger else "less"
    return tr.add(
        "compare_quantities",
        "VC",
        f"Is {phrases[0]} {word} than {phrases[1]}?",
        truth,
        "bool",
        depends_on=(a, b),
        args={"a": ref(a), "b": ref(b), "rel": "gt" if bigger else "lt"},
        note=f"{_named(a, phrases[0])} is{'' if truth else ' not'} {word} than "
        f"{_named(b, phrases[1])}",
    )


def times_of(tr: Tracer, a: Op, b: Op, k: float, phrases: tuple[str, str]) -> Op | None:
    """Whether quantity `a` is `k` times `b`, within 5 % of k (VC); None when b is 0."""
    x, y = number_of(a), number_of(b)
    if x is None or y is None or y == 0:
        return None
    ratio = x / y
    truth = abs(ratio - k) <= 0.05 * abs(k)
    return tr.add(
        "times_of",
        "VC",
        f"Is {phrases[0]} {format_number(k)} times {phrases[1]}?",
        truth,
        "bool",
        depends_on=(a, b),
        args={"a": ref(a), "b": ref(b), "k": k},
        note=f"{_named(a, phrases[0])} is {format_number(ratio)} times "
        f"{_named(b, phrases[1])}, {'within' if truth else 'not within'} 5 % of "
        f"{format_number(k)} times",
    )
