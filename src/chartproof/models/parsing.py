"""Pull the answer, explanation, true/false verdict and list items out of a model's free text.

Parsers strip the wrapping (prose, markdown, hedges, units after a number, trailing
punctuation) but keep what the model said: "1,234" stays "1,234"; comparing numbers is the
accuracy metric's job (`chartproof.numeric.parse_number`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from chartproof.answers import split_items
from chartproof.numeric import parse_number
from chartproof.types import ParsedOutput

__all__ = [
    "clean_answer",
    "extract_answer",
    "extract_choice",
    "extract_code",
    "extract_explanation",
    "extract_items",
    "extract_truth",
    "extract_verdict",
    "option_letter",
    "parse_output",
    "strip_markup",
]

# ------------------------------------------------------------------ markup

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)(?:```|$)", re.S)
_SPECIAL_TOKENS = re.compile(
    r"<\|[A-Za-z0-9_]+\|>|</s>|<s>|<end_of_utterance>|<eos>|<pad>|<\|endoftext\|>"
)
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(.*?)[ \t]*$", re.M)
_HTML_BREAK = re.compile(r"<br\s*/?>", re.I)
_LATEX_TEXT = re.compile(r"\\text\{([^{}]*)\}")
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")


def strip_markup(text: str) -> str:
    """The text without code fences, bold/italic markers, headings and leaked special tokens."""
    t = _ROLE_PREFIX.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    # each pass only when its marker character occurs: most replies are plain text
    if "<" in t:
        t = _SPECIAL_TOKENS.sub("", t)
        t = _HTML_BREAK.sub("\n", t)
    if "`" in t:
        t = _FENCE.sub(lambda m: m.group(1), t)
    if "#" in t:
        # a heading introduces what follows, as "Answer:" would
        t = _HEADING.sub(lambda m: m.group(1) if m.group(1)[-1:] in ".:?!" else m.group(1) + ":", t)
    if "*" in t or "_" in t:
        for _ in range(3):  # nested emphasis, e.g. ***x***
            new = _EMPHASIS.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(3), t)
            if new == t:
                break
            t = new
    t = t.replace("**", "").replace("`", "")
    if "\\" in t:
        t = _LATEX_TEXT.sub(lambda m: m.group(1), t)
    return t.strip()


# ------------------------------------------------------------------ answer cleaning

_HEDGE = re.compile(
    r"^(?:approximately|approx\.?|about|around|roughly|nearly|almost|close to|circa|ca\.|"
    r"an estimated|estimated|some|just (?:over|under)|~|≈|≃)\s*(?=[-+−$€£¥.]?\d)",
    re.I,
)
_NUMBER = r"[-+−]?[$€£¥]?\d[\d,]*(?:\.\d+)?(?:\s?%)?"
_UNIT_AFTER_NUMBER = re.compile(
    rf"^(?P<num>{_NUMBER})\s*(?P<unit>[A-Za-z°µ$€£][A-Za-z°µ$€£%./\s-]*)$"
)
# "4 countries above 50%" answers "how many": the count; "3 out of 5", "2019 and 2020" stay
_COUNTED_NOUN = re.compile(rf"^(?P<num>{_NUMBER})\s+(?P<word>[A-Za-z]+)\b.*$")
_NUMBER_LINKS = frozenset(
    {"and", "or", "out", "in", "to", "of", "per", "by", "from", "vs", "versus", "x", "than"}
)
_YES_NO_LEAD = re.compile(r"^(?P<word>yes|no)\b(?:\s*[,.!;:\-–—]|\s*$)", re.I)
_BULLET = re.compile(r"^[ \t]*(?:[-*•·+]|\d{1,2}[.)])[ \t]+")
_WRAPPERS = (("(", ")"), ("[", "]"), ('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("«", "»"))
_TRAILING = re.compile(r"(?<!\b[A-Za-z]\.[A-Za-z])[\s.,;:!?]+$")
_LEADING = re.compile(r"^(?:[\s:=,]+|[-–—](?![\d$€£¥.])\s*|(?:the\s+)?answer\s+is\b)", re.I)
_TRAILING_PAREN = re.compile(r"\s+\([^()]*\)$")
_MAX_UNIT_WORDS = 3


def clean_answer(text: str) -> str:
    """An answer without its wrapping: markdown, bullets, quotes, hedges, units after a number.

    "**approximately 1,234 million.**" → "1,234"; "Yes, it is." → "Yes"; "(B)" → "B".
    """
    s = strip_markup(text).strip()
    s = _BULLET.sub("", s, count=1)
    for _ in range(3):
        before = s
        s = _LEADING.sub("", s)
        s = _TRAILING.sub("", s)
        s = _HEDGE.sub("", s)
        for left, right in _WRAPPERS:
            if len(s) >= 2 and s.startswith(left) and s.endswith(right):
                inner = s[1:-1]
                if left not in inner[:1] and right not in inner[-1:]:
                    s = inner.strip()
        if s != before:
            continue
        break
    yes_no = _YES_NO_LEAD.match(s)
    if yes_no:
        return yes_no.group("word")
    s = _TRAILING_PAREN.sub("", s)
    m = _UNIT_AFTER_NUMBER.match(s)
    if m and len(m.group("unit").split()) <= _MAX_UNIT_WORDS:
        s = m.group("num").strip()
    counted = _COUNTED_NOUN.match(s)
    if counted and counted.group("word").lower() not in _NUMBER_LINKS:
        s = counted.group("num").strip()
    return s.strip()


# ------------------------------------------------------------------ segments

_FINAL_MARKER = re.compile(
    r"\b(?:the\s+)?final\s+answer[ \t]*(?:is[ \t]*)?(?:[:：=\-–—][ \t]*)?(?:is[ \t]*)?(?::[ \t]*)?",
    re.I,
)
_ANSWER_MARKER = re.compile(
    r"\b(?:so\s+|thus\s+|therefore\s+|hence\s+)?(?:the\s+)?(?:correct\s+|short\s+|my\s+)?"
    r"answer[ \t]*(?:is[ \t]*[:：]?|[:：=]|[ \t][-–—])[ \t]*",
    re.I,
)
_EXPLANATION_MARKER = re.compile(
    r"(?:^|(?<=[\s.;,)]))(?:explanation|reasoning|rationale|justification)\s*[:：]\s*", re.I
)
_REASON_CUT = re.compile(
    r"(?:,\s*|\s+|\s*[-–—]\s*)(?:because|since|as shown|as seen|as indicated|according to|"
    r"based on|which is|which|given that|due to|as it|as the|as per)\b.*$",
    re.I | re.S,
)
_ABBREVIATIONS = frozenset(
    {"approx", "vs", "etc", "e.g", "i.e", "mr", "mrs", "dr", "st", "no", "ca", "inc", "co", "jr"}
)
_SENTENCE_WORDS = 6
_TAIL = re.compile(
    r"\b(?:is|are|was|were|equals|equal to|amounts to|totals|stands at|reaches|reached)\s+"
    r"(?=(?P<v>[^\s].*)$)",
    re.I,
)
_PARENTHETICAL = re.compile(r"\s*\([^()]*\)")
_ROLE_PREFIX = re.compile(r"^\s*(?:assistant|model|gpt|answer bot)\s*:\s*", re.I)
_MAX_TAIL_WORDS = 4


_JSON_KEYS = {
    "answer": "answer",
    "final_answer": "answer",
    "finalanswer": "answer",
    "explanation": "explanation",
    "reasoning": "explanation",
    "rationale": "explanation",
}


def _json_fields(text: str) -> dict[str, object]:
    """Answer and explanation of a reply written as one JSON object; {} for other replies."""
    if not (text.startswith("{") and text.endswith("}")):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, object] = {}
    for key, value in data.items():
        role = _JSON_KEYS.get(str(key).lower().replace(" ", "_"))
        if role is not None and role not in out and value is not None:
            out[role] = value
    return out


def _first_sentence(text: str) -> str:
    """Text up to the first sentence end (a period, ! or ? followed by space) or line break."""
    line = text.split("\n", 1)[0]
    for m in re.finditer(r"[.!?](?=\s|$)", line):
        i = m.start()
        if line[i] == ".":
            word = re.search(r"([A-Za-z.]+)$", line[:i])
            prev = word.group(1).lower() if word else ""
            if len(prev) == 1 or "." in prev or prev in _ABBREVIATIONS:
                continue
        return line[:i]
    return line


def _sentences(text: str) -> list[str]:
    """Sentences and lines of a text, in order, without empties."""
    out: list[str] = []
    rest = text
    while rest.strip():
        rest = rest.lstrip()
        s = _first_sentence(rest)
        out.append(s.strip())
        rest = rest[len(s) + 1 :]
    return [s for s in out if s]


def _bullets(lines: list[str]) -> list[str]:
    """Leading run of bullet lines as items (empty when the first line is not a bullet)."""
    items: list[str] = []
    for line in lines:
        if not line.strip():
            if items:
                break
            continue
        if not _BULLET.match(line):
            break
        items.append(clean_answer(line))
    return [i for i in items if i]


def _after_marker(text: str, start: int) -> tuple[str, tuple[int, int]]:
    """The answer that follows a marker ending at `start`, and its span in `text`."""
    rest = text[start:]
    stop = _EXPLANATION_MARKER.search(rest)
    segment = rest[: stop.start()] if stop else rest
    line = segment.split("\n", 1)[0]
    if not line.strip():
        lines = segment.split("\n")[1:]
        items = _bullets(lines)
        if items:
            consumed = "\n".join(lines[: len(items) + 1])
            return ", ".join(items), (start, start + len(consumed) + 1)
        nonblank = next((ln for ln in lines if ln.strip()), "")
        offset = segment.find(nonblank) if nonblank else 0
        line = nonblank
        start += offset
    sentence = _first_sentence(line)
    span = (start, start + len(sentence) + 1)
    sentence = _REASON_CUT.sub("", sentence)
    return sentence, span


def _find_answer(text: str, prefer_last: bool) -> tuple[str | None, tuple[int, int] | None]:
    """The answer text and its span, from \\boxed{}, "final answer", "answer:" or "is X"."""
    # cheap substring tests first: the marker regexes are the parser's main cost
    lower = text.lower()
    has_answer = "answer" in lower
    boxed = list(_BOXED.finditer(text)) if "\\boxed" in text else []
    if boxed:
        b = boxed[-1]
        # the box's whole line is the answer line: keep it out of the explanation
        start = text.rfind("\n", 0, b.start()) + 1
        end = text.find("\n", b.end())
        return b.group(1), (start, len(text) if end == -1 else end)
    finals = list(_FINAL_MARKER.finditer(text)) if has_answer and "final" in lower else []
    if finals:
        m = finals[-1]
        value, span = _after_marker(text, m.end())
        return value, (m.start(), span[1])
    answers = (
        [m for m in _ANSWER_MARKER.finditer(text) if text[m.end() : m.end() + 1] != "s"]
        if has_answer
        else []
    )
    if answers:
        m = answers[-1] if prefer_last else answers[0]
        value, span = _after_marker(text, m.end())
        return value, (m.start(), span[1])
    explanation = _EXPLANATION_MARKER.search(text)
    if explanation and explanation.start() > 0:
        head = _first_sentence(text[: explanation.start()].strip())
        return _sentence_value(head) or head, (0, explanation.start())
    lines = text.split("\n")
    items = _bullets(lines)
    if items and all(not ln.strip() or _BULLET.match(ln) for ln in lines):
        return ", ".join(items), (0, len(text))
    sentences = _sentences(text)
    if not sentences:
        return None, None
    chosen = sentences[-1] if prefer_last else sentences[0]
    where = text.find(chosen)
    return _sentence_value(chosen), (where, where + len(chosen))


def _sentence_value(sentence: str) -> str | None:
    """The answer a sentence states: a leading yes/no, the short X of "... is X", or the
    sentence itself when it is short; None for a long sentence without either."""
    if _YES_NO_LEAD.match(sentence):
        return sentence
    plain = _PARENTHETICAL.sub("", _REASON_CUT.sub("", sentence))
    for tail in reversed(list(_TAIL.finditer(plain))):
        if _short_value(tail.group("v")):
            return tail.group("v")
    if len(sentence.split()) <= _SENTENCE_WORDS:
        return sentence
    return None


def _short_value(value: str) -> bool:
    """A value short enough to be an answer: a few words, or a list of few-word items."""
    return all(len(item.split()) <= _MAX_TAIL_WORDS for item in _list_items(value))


def extract_answer(text: str, *, prefer_last: bool = False) -> str | None:
    """The final answer in a model's text, cleaned; None when no answer can be found.

    Looks for, in order: ``\\boxed{...}``, the last "Final answer: ...", an "Answer: ..." /
    "The answer is ..." marker (the first, or the last with `prefer_last`), the text before an
    "Explanation:" marker, a bare bullet list, then a short first (or last) sentence or the
    value of "... is X" in it.
    """
    return _answer(strip_markup(text), prefer_last)[0]


def extract_explanation(text: str, *, prefer_last: bool = False) -> str | None:
    """The explanation: after an "Explanation:" marker, else the text around the answer.

    Returns None when the text holds nothing but the answer.
    """
    t = strip_markup(text)
    return _explanation(t, _answer(t, prefer_last)[1])


def _answer(
    t: str, prefer_last: bool
) -> tuple[str | None, tuple[int, int] | dict[str, object] | None]:
    """The cleaned answer of stripped text, and where it was: a span, or a JSON object's fields."""
    if not t:
        return None, None
    fields = _json_fields(t)
    if fields:
        found = fields.get("answer")
        return (clean_answer(str(found)) or None if found is not None else None), fields
    raw, span = _find_answer(t, prefer_last)
    if raw is None:
        return None, None
    return clean_answer(raw) or None, span


def _starts_a_statement(text: str, marker: re.Match[str]) -> bool:
    """Whether an answer marker after the explanation opens its own line or sentence (a
    trailing "Answer: X"), rather than closing the explanation's own argument ("..., so the
    answer is X.", which belongs to the explanation)."""
    if re.match(r"(?:so|thus|therefore|hence)\b", marker.group(0), re.I):
        return False
    before = text[: marker.start()].rstrip(" \t")
    return not before or before.endswith(("\n", ".", "!", "?", ":", ";"))


def _explanation(t: str, where: tuple[int, int] | dict[str, object] | None) -> str | None:
    if isinstance(where, dict):
        found = where.get("explanation")
        return str(found).strip() or None if found is not None else None
    m = _EXPLANATION_MARKER.search(t)
    if m:
        rest = t[m.end() :]
        final = _FINAL_MARKER.search(rest) or _ANSWER_MARKER.search(rest)
        if (
            final
            and final.start() > 0
            and rest[final.start() :].count("\n") <= 1
            and _starts_a_statement(rest, final)
        ):
            rest = rest[: final.start()]
        out = rest.strip()
        return out or None
    if where is None:
        return None
    rest = (t[: where[0]] + " " + t[where[1] :]).strip()
    rest = re.sub(r"[ \t]+", " ", rest).strip(" \n.:")
    return rest + "." if rest and not rest.endswith((".", "!", "?")) else rest or None


def _list_items(answer: str) -> tuple[str, ...]:
    """Items of a list answer (`chartproof.answers.split_items`), each cleaned of its
    wrapping: "A, B and C" → ("A", "B", "C"); "1,234" stays one item."""
    cleaned = (clean_answer(p) for p in split_items(answer))
    return tuple(p for p in cleaned if p)


def extract_items(text: str) -> tuple[str, ...] | None:
    """The answer as list items; None when there is no answer."""
    answer = extract_answer(text)
    return None if answer is None else _list_items(answer)


# ------------------------------------------------------------------ true / false

_TRUE_WORDS = frozenset({"true", "yes", "correct", "right", "holds", "supported", "valid"})
_FALSE_WORDS = frozenset({"false", "no", "incorrect", "wrong", "untrue", "unsupported", "invalid"})
_NEGATED = re.compile(
    r"\b(?:not|isn't|is not|isn’t)\s+(true|correct|right|valid|supported)\b", re.I
)
_VERDICT_PHRASE = re.compile(
    r"\b(?:statement|premise|claim|it|this|that)\s+(?:is|was)\s+(not\s+)?"
    r"(true|false|correct|incorrect|wrong|right|valid|invalid|accurate|inaccurate)\b",
    re.I,
)
_VERDICT_MARKER = re.compile(
    r"\b(?:final\s+answer|answer|verdict|conclusion|label|result)\s*(?:is\s*)?[:：=\-–—]?\s*",
    re.I,
)


def _word_truth(word: str) -> bool | None:
    w = word.lower()
    if w in _TRUE_WORDS or w == "accurate":
        return True
    if w in _FALSE_WORDS or w == "inaccurate":
        return False
    return None


def _leading_truth(text: str) -> bool | None:
    m = re.match(r"^\W*([A-Za-z]+)", text)
    return _word_truth(m.group(1)) if m else None


def extract_truth(text: str) -> bool | None:
    """A true/false verdict: "True.", "false", "Answer: Yes", "The statement is not true".

    Checks an answer marker, then the first word, then "the statement is (not) X"; last, a
    text that uses words of only one polarity. None when the verdict is missing or mixed.
    """
    t = strip_markup(text)
    if not t:
        return None
    markers = list(_VERDICT_MARKER.finditer(t))
    for m in reversed(markers):
        verdict = _leading_truth(t[m.end() :])
        if verdict is not None:
            return verdict
    verdict = _leading_truth(t)
    if verdict is not None:
        return verdict
    phrases = list(_VERDICT_PHRASE.finditer(t))
    if phrases:
        p = phrases[-1]
        word = _word_truth(p.group(2))
        if word is not None:
            return (not word) if p.group(1) else word
    if _NEGATED.search(t):
        return False
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", t)}
    pos = bool(words & (_TRUE_WORDS - {"right"}))
    neg = bool(words & (_FALSE_WORDS - {"no"}))
    if pos != neg:
        return pos
    return None


_VERDICT_LEAD = frozenset({"correct", "incorrect", "true", "false", "wrong"})
_EXPLANATION_LABEL = re.compile(r"^\s*explanation\s*[:：]\s*", re.I)


def extract_verdict(text: str) -> bool | None:
    """A judge's verdict on an explanation: a leading "Correct" / "Incorrect" (or true, false,
    wrong) decides, whatever the reasoning after it says; otherwise as `extract_truth`.

    "Incorrect - the answer is right but ..." is False, where `extract_truth` would read the
    "answer is right" marker.
    """
    t = strip_markup(text)
    m = re.match(r"^\W*([A-Za-z]+)", t)
    if m and m.group(1).lower() in _VERDICT_LEAD:
        return _word_truth(m.group(1))
    return extract_truth(t)


# ------------------------------------------------------------------ code

_CODE_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.S | re.I)


def extract_code(text: str) -> str | None:
    """The script in a reply: the longest fenced Python block, else the whole reply when it
    looks like a matplotlib script, else None."""
    blocks: list[str] = [str(b).strip() for b in _CODE_FENCE.findall(text) if str(b).strip()]
    if blocks:
        return max(blocks, key=len)
    stripped = text.strip()
    if "import matplotlib" in stripped or "from matplotlib" in stripped:
        return stripped
    return None


# ------------------------------------------------------------------ multiple choice

_OPTION_LEAD = re.compile(
    r"^(?:(?:so|thus|therefore|hence)\s+)?(?:the\s+)?(?:correct\s+|right\s+|best\s+)?"
    r"(?:option|choice|answer|letter)\s*(?:is\s*)?[:：=\-–—]?\s*",
    re.I,
)
_LETTER_LABEL = re.compile(
    r"^(?:\((?P<p>[A-Za-z])\)|\[(?P<b>[A-Za-z])\]|(?P<l>[A-Za-z])(?=[.):：]|$))[.):：]?\s*"
)
_MARKED_LETTER = re.compile(
    r"\b(?:option|choice|answer(?:\s+is)?|letter)\s*[:：=]?\s*\(?(?P<x>[A-Za-z])\)?(?![A-Za-z0-9])",
    re.I,
)
_PAREN_LETTER = re.compile(r"\((?P<x>[A-Za-z])\)")
_OTHER_LABEL = re.compile(r"\((?P<a>[A-Za-z])\)?|(?<!\w)(?P<b>[A-Za-z])\)")
_CONFLICT = -1
_OPTION_SPACE = re.compile(r"[\s\"'“”‘’`*_]+")


def option_letter(index: int) -> str:
    """The display letter of option `index`: 0 → "A", 1 → "B", ..."""
    return chr(ord("A") + index)


def _option_key(text: str) -> str:
    return _OPTION_SPACE.sub(" ", text).strip(" .,;:!?").casefold()


def _same_option(candidate: str, option: str) -> bool:
    a, b = _option_key(candidate), _option_key(option)
    if not a:
        return False
    if a == b:
        return True
    x, y = parse_number(a), parse_number(b)
    return x is not None and y is not None and abs(x - y) <= 1e-9 * max(1.0, abs(y))


def _letter_index(letter: str, n: int) -> int | None:
    i = ord(letter.upper()) - ord("A")
    return i if 0 <= i < n else None


def _mentioned(text: str, choices: Sequence[str]) -> int | None:
    """The one option whose text occurs in `text` as whole words (options inside a longer
    mentioned option do not count); None when none or several do."""
    low = _OPTION_SPACE.sub(" ", text).casefold()
    found: list[int] = []
    for i, option in enumerate(choices):
        key = _option_key(option)
        if key and re.search(rf"(?<![\w.]){re.escape(key)}(?![\w]|\.\d)", low):
            found.append(i)
    keys = {i: _option_key(choices[i]) for i in found}
    outer = [i for i in found if not any(j != i and keys[i] in keys[j] for j in found)]
    return outer[0] if len(outer) == 1 else None


def _choice_in_answer(answer: str, choices: Sequence[str]) -> int | None:
    """The option a short answer names: its text, its letter ("B", "(b)", "B.", "Option B",
    "B) Paris"), or the one option it mentions; `_CONFLICT` when it names two ("B) Paris"
    where B is another option, "(A) and (B)")."""
    s = _OPTION_LEAD.sub("", answer.strip(), count=1).strip()
    for i, option in enumerate(choices):
        if _same_option(s, option):
            return i
    label = _LETTER_LABEL.match(s)
    if label:
        letter = label.group("p") or label.group("b") or label.group("l")
        index = _letter_index(letter, len(choices))
        rest = s[label.end() :].strip()
        if index is not None:
            if not rest:
                return index
            named = [i for i, option in enumerate(choices) if _same_option(rest, option)]
            if named:
                return index if index in named else _CONFLICT
            others = {
                _letter_index(m.group("a") or m.group("b"), len(choices))
                for m in _OTHER_LABEL.finditer(rest)
            }
            return _CONFLICT if others - {index, None} else index
    return _mentioned(s, choices)


def extract_choice(text: str, choices: Sequence[str], *, prefer_last: bool = False) -> int | None:
    """Index of the option a reply picks, or None when it names none or several.

    Reads the reply's answer (as `extract_answer` finds it) as a letter — "B", "(b)", "B.",
    "Option B", "The answer is: C" — or as an option's text (numbers compared by value:
    "12.0" picks option "12"); failing that, an explicit "option C" / "(C)" anywhere in the
    reply, or the one option the whole reply mentions.
    """
    if not choices:
        return None
    t = strip_markup(text)
    if not t:
        return None
    answer = _answer(t, prefer_last)[0]
    if answer:
        found = _choice_in_answer(answer, choices)
        if found is not None:
            return None if found == _CONFLICT else found
    first_line = t.split("\n", 1)[0]
    found = _choice_in_answer(first_line, choices) if len(first_line) <= 80 else None
    if found is not None:
        return None if found == _CONFLICT else found
    for pattern in (_MARKED_LETTER, _PAREN_LETTER):
        letters = {m.group("x").upper() for m in pattern.finditer(t)}
        indices = {i for x in letters if (i := _letter_index(x, len(choices))) is not None}
        if len(indices) == 1:
            return indices.pop()
        if len(indices) > 1:
            return None
    return _mentioned(t, choices)


# ------------------------------------------------------------------ dispatch


def parse_output(text: str, output: str = "answer", *, choices: Sequence[str] = ()) -> ParsedOutput:
    """Parse a reply according to its prompt's output kind (see `prompts.OutputKind`).

    "answer" and "answer_explanation" read the answer, explanation and items; "cot" prefers
    the last answer-like line; "truth" adds the true/false verdict; "verdict" adds a judge's
    Correct/Incorrect (`extract_verdict`); "narrative" keeps the cleaned description as the
    explanation, and "explanation" too, less a leading "Explanation:" label; "code" keeps the
    script (`extract_code`). Unknown kinds parse as "answer". With `choices` (the options
    of a multiple-choice request, in display order) the answer becomes the text of the
    option the reply picks (`extract_choice`) and `choice` its index; "choice" is the
    output kind of the multiple-choice prompt.
    """
    if output == "code":
        return ParsedOutput(code=extract_code(text))
    if output == "narrative":
        described = strip_markup(text)
        return ParsedOutput(explanation=described or None)
    if output == "explanation":
        explained = _EXPLANATION_LABEL.sub("", strip_markup(text), count=1).strip()
        return ParsedOutput(explanation=explained or None)
    t = strip_markup(text)
    answer, where = _answer(t, prefer_last=output == "cot")
    explanation = _explanation(t, where)
    items = _list_items(answer) if answer is not None else None
    truth = extract_truth(t) if output == "truth" else None
    if output == "verdict":
        truth = extract_verdict(t)
    picked = (
        extract_choice(t, choices, prefer_last=output == "cot")
        if choices and output not in ("truth", "verdict")
        else None
    )
    if picked is not None:
        answer = choices[picked]
        items = (answer,)
    return ParsedOutput(
        answer=answer, explanation=explanation, truth=truth, items=items, choice=picked
    )
