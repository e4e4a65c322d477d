"""Answer options of multiple-choice questions as real datasets store them — a list, a
{"A": ..., "B": ...} mapping, a JSON or "|"-separated string, one column per option, or
lettered lines inside the question text — and the strict resolution of a gold answer
("B", "(b)", "Option B", or the option's own text) to one option."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pydantic import JsonValue

from chartproof.types import Answer

__all__ = ["choice_answer", "read_choices", "split_options"]

_GOLD_LETTER = re.compile(
    r"^(?:(?:the\s+)?(?:correct\s+)?(?:option|choice|answer)\s*[:：]?\s*)?"
    r"[(\[]?(?P<x>[A-Za-z])[)\]]?[.:)]?$",
    re.I,
)
_LABELLED = re.compile(r"^[(\[]?(?P<x>[A-Za-z])[)\].:]\s*(?P<text>\S.*?)\s*$")
_LINE_OPTION = re.compile(r"^\s*[(\[]?(?P<x>[A-Z])[)\].:]\s+(?P<text>\S.*?)\s*$")
_INLINE_OPTION = re.compile(
    r"(?:(?<=\s)|^)[(\[](?P<x>[A-Z])[)\]]\s*|(?:(?<=\s)|^)(?P<y>[A-Z])\)\s+"
)
_OPTIONS_HEADING = re.compile(r"(?:\b(?:options|choices|answer choices)\s*[:：]?\s*)$", re.I)


def _option_text(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        return value.strip()
    raise ValueError(f"answer option {value!r} is not text or a number")


def _sequential(letters: Sequence[str]) -> bool:
    return list(letters) == [chr(ord("A") + i) for i in range(len(letters))]


def split_options(question: str) -> tuple[str, tuple[str, ...]] | None:
    """(stem, options) of a question that lists its options as lettered lines ("A. 12",
    "(B) 15") or inline ("(A) 12 (B) 15", "A) 12 B) 15"), letters A, B, ... in order;
    None when it lists fewer than two."""
    lines = question.split("\n")
    found: list[tuple[int, str, str]] = []
    for i, line in enumerate(lines):
        m = _LINE_OPTION.match(line)
        if m and (not found or found[-1][0] == i - 1 or not lines[i - 1].strip()):
            found.append((i, m.group("x"), m.group("text")))
        elif found and line.strip():
            break
    if len(found) >= 2 and _sequential([f[1] for f in found]):
        stem = "\n".join(lines[: found[0][0]]).strip()
        return _OPTIONS_HEADING.sub("", stem).strip(), tuple(f[2] for f in found)
    marks = list(_INLINE_OPTION.finditer(question))
    letters = [m.group("x") or m.group("y") for m in marks]
    if len(marks) >= 2 and _sequential(letters):
        stem = question[: marks[0].start()].strip()
        options = []
        for m, nxt in zip(marks, [*marks[1:], None], strict=True):
            end = nxt.start() if nxt is not None else len(question)
            options.append(question[m.end() : end].strip().rstrip(",;"))
        if all(options):
            return _OPTIONS_HEADING.sub("", stem).strip(), tuple(options)
    return None


def read_choices(value: JsonValue) -> tuple[str, ...] | None:
    """The options a record's choices field holds, in display order; None when it holds
    none (missing, null, empty). ValueError names what cannot be read as options."""
    if value is None:
        return None
    if isinstance(value, list):
        options = tuple(_option_text(v) for v in value)
    elif isinstance(value, dict):
        options = tuple(_option_text(v) for v in value.values())
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if text.startswith("["):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"choices {text[:60]!r} are not a JSON list ({exc.msg})") from None
            return read_choices(parsed)
        lettered = split_options(text)
        if lettered is not None and not lettered[0]:
            options = lettered[1]
        elif "|" in text:
            options = tuple(p.strip() for p in text.split("|"))
        elif "\n" in text:
            options = tuple(p.strip() for p in text.split("\n") if p.strip())
        else:
            raise ValueError(
                f"cannot split choices {text[:60]!r}: give a list, lettered lines or A|B|C"
            )
    else:
        raise ValueError(f"choices must be a list, a mapping or text, got {value!r}")
    if not options:
        return None
    if any(not o for o in options):
        raise ValueError(f"empty answer option in {list(options)}")
    return options


def choice_answer(raw: str, choices: Sequence[str]) -> Answer:
    """The gold answer of a multiple-choice question as an option: `raw` is the option's
    text (case-insensitive), its letter ("B", "(b)", "B.", "Option B"), or both when they
    agree ("B. Spain").

    The text is tried first, so options that are themselves letters stay right. ValueError
    names the answer and the options when it names none of them.
    """
    text = raw.strip()
    key = text.casefold().rstrip(".")
    for option in choices:
        if option.strip().casefold().rstrip(".") == key:
            return Answer.option(option)
    m = _GOLD_LETTER.match(text)
    if m:
        index = ord(m.group("x").upper()) - ord("A")
        if 0 <= index < len(choices):
            return Answer.option(choices[index])
    both = _LABELLED.match(text)
    if both:
        index = ord(both.group("x").upper()) - ord("A")
        named = both.group("text").casefold().rstrip(".")
        if 0 <= index < len(choices) and choices[index].strip().casefold().rstrip(".") == named:
            return Answer.option(choices[index])
    raise ValueError(
        f"answer {raw!r} is neither a letter nor the text of an option {list(choices)}"
    )
