"""A pure-Python PTB tokenizer that reproduces what the COCO caption evaluation feeds its
scorers: Stanford PTBTokenizer 3.4.1 (`-preserveLines -lowerCase`) minus its punctuation list.

pycocoevalcap runs the Stanford tokenizer in Java and then drops the tokens of its
`PUNCTUATIONS` list. Only the surviving tokens reach BLEU, METEOR, ROUGE-L and CIDEr, so this
module reproduces those surviving tokens rather than every Stanford token: quote direction
(`` vs ''), the extra "." the lexer emits after a sentence-final abbreviation, and ". . ." vs
"..." are all removed afterwards and need no fidelity. What does matter and is reproduced:
contractions ("do n't", "ca n't", "it 's"), the split of "cannot"/"gonna"/..., numbers with
"," and "." kept whole, "%"/"$"/"#" split off, currency and fraction normalisation (€→$, £→#,
½→1/2), brackets as -lrb-/-rrb-/... (lower-cased, so the COCO filter does not remove them),
known abbreviations and acronyms keeping their period ("u.s.", "etc.", "vs."), hyphenated
words kept whole, dashes and ellipses (removed), soft hyphens dropped. Cases verified against
the jar live in `tests/metrics/cases/ngram_ptb.json`. Run side by side with the jar on the
7,146 distinct questions, answers, titles and summaries of the ChartQA and OpenCQA-val
samples it differs on 2 (a title with no-break spaces between numbers and
"estimated.2015-16"); on their 2,320 answers on none. Other known gaps are odd inputs (URLs
with unusual characters, "v2.0", SGML) that chart explanations do not contain.
"""

from __future__ import annotations

import re

__all__ = ["COCO_PUNCTUATION", "ptb_tokenize", "ptb_tokenize_line"]

COCO_PUNCTUATION = frozenset(
    [
        "''",
        "'",
        "``",
        "`",
        "-LRB-",
        "-RRB-",
        "-LCB-",
        "-RCB-",
        ".",
        "?",
        "!",
        ",",
        ":",
        "-",
        "--",
        "...",
        ";",
    ]
)
"""Tokens pycocoevalcap drops after tokenising. Its list holds "-LRB-" in upper case while the
tokenizer runs with -lowerCase, so brackets survive as "-lrb-": reproduced on purpose."""

# Abbreviations the Stanford lexer keeps with their period (its ABBREV1/ABBREV2/ABBREV4
# lists, lower-cased); any other "word." loses the period. Acronyms like "u.s." are matched by
# pattern instead.
_ABBREVIATIONS = frozenset(
    """
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    mr mrs ms dr prof st mt gov sen rep gen col lt sgt capt cmdr adm maj brig rev hon messrs
    mlle mme jr sr inc ltd co corp bros cos plc llc vs etc al fig figs no nos vol vols pp
    ca cf ed eds esp est viz dept assn univ ave blvd rd hwy ft sq op cit pres intl
    ariz calif colo conn del fla ill ind kan kans ky la mass md mich minn miss mo mont neb nev
    okla ore pa penn tenn tex va vt wash wis wisc wyo
    """.split()  # noqa: SIM905 - a word list reads better than 120 quoted strings
)

_CONTRACTION_SPLITS = {
    "cannot": ("can", "not"),
    "gonna": ("gon", "na"),
    "gotta": ("got", "ta"),
    "wanna": ("wan", "na"),
    "lemme": ("lem", "me"),
    "gimme": ("gim", "me"),
    "gimmee": ("gim", "mee"),
    "'tis": ("'t", "is"),
    "'twas": ("'t", "was"),
    "y'all": ("y'", "all"),
    "y'know": ("y'", "know"),
}
_KEEP_APOSTROPHE_WORDS = frozenset(
    [
        "'em",
        "'n'",
        "'cause",
        "'til",
        "'till",
        "c'mon",
        "nat'l",
        "nor'easter",
        "cont'd",
        "li'l",
        "e'er",
        "ev'ry",
        "s'mores",
        "dunkin'",
        "somethin'",
        "ol'",
    ]
)
# Capitalised words after which the lexer ends a sentence at an initial ("World War I. A
# survey" splits the period off "I."). Found by running the jar on "Gen Z. <Word> x" for every
# capitalised word of the ChartQA and OpenCQA texts (3,012 words): these 43 split, the rest
# ("And", "Also", "Those", "By", ...) keep the initial's period.
_SENTENCE_STARTERS = frozenset(
    """
    a about according additionally after an as at but he her here however if in it last many
    more now once one other our she since so some such that the their then there these they
    this we what when while yet you
    """.split()  # noqa: SIM905 - a word list reads better than 43 quoted strings
)

_CHAR_MAP = str.maketrans(
    {
        "\u00ad": None,  # soft hyphen: the lexer deletes it
        "\u00a0": " ",
        "\t": " ",
        "\u2018": "`",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "`",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2032": "'",
        "\u2033": '"',
        "\u2013": " -- ",
        "\u2014": " -- ",
        "\u2015": " -- ",
        "\u2012": " -- ",
        "\u2026": " ... ",
        "\u20ac": " $ ",
        "\u00a3": " # ",
        "\u00a2": " cents ",
        "\u00bd": " 1/2 ",
        "\u00bc": " 1/4 ",
        "\u00be": " 3/4 ",
        "\u2153": " 1/3 ",
        "\u2154": " 2/3 ",
        "\u00b0": " \u00b0 ",
        "\ufffd": " ",
    }
)

_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}

# One token of the input, tried in order. Numbers first so "1,000.5" and "3:2" stay whole.
_TOKEN = re.compile(
    r"""
    (?P<url>(?:https?|ftp)://\S+|www\.[\w.-]+\w|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<acronym>(?:[^\W\d_]\.){2,}(?:-\w+)*(?!\w))
  | (?P<number>[-+]?(?:\d+(?:[,.:/]\d+)*[,.:]\d+(?:[,.:/]\d+)*|[.,:]\d+|\d+(?:\x1f\d{3})+|\d+(?:/\d+)*(?:[^\W\d_]\w*)?)(?:-\w+)*)
  | (?P<hashtag>\#[^\W\d_]+)
  | (?P<word>(?:[^\W_]|[&@](?=[^\W_]))(?:[^\W_]|[&@]|_(?=[^\W_])|[-'](?=[^\W_&])|/(?=[^\W_&]|@)|\.(?=[^\W\d_]))*'?)
  | (?P<aword>'(?:[smd]|re|ve|ll|em|tis|twas|cause|til|till|\d\d|\d0s)(?![\w:])|'n'(?!\w))
  | (?P<dots>\.{2,})
  | (?P<quote>``|''|[`'"])
  | (?P<dashes>-{2,})
  | (?P<punct>[?!]+|_+|[^\w\s])
    """,
    re.VERBOSE,
)

_BARE_CLITICS = frozenset(["'s", "'m", "'d", "'re", "'ve", "'ll", "n't"])
_DECADE = re.compile(r"^'\d(?:\d|0s)$")
_NT = re.compile(r"^(.*[^\W\d_])(n't[^\W\d_]*)$")
# "post-9/11": inside a hyphenated word the lexer splits a slash between digits
_DIGIT_SLASH = re.compile(r"(?<=\d)/(?=\d)")
# Words whose hyphen survives before a space: the 3.4.1 lexer keeps "anti-" (checked against
# the jar; "pre-", "non-", "multi-", "self-" and the like lose theirs).
_KEEP_TRAILING_HYPHEN = frozenset(["anti"])
# Dotted words that keep a final period although they are no single-letter acronym.
_DOTTED_ABBREVIATIONS = frozenset(["ph.d", "ed.d"])
_CLITIC = re.compile(r"^(.+?)('s|'m|'d|'re|'ve|'ll)$")
# Stanford's APOWORD: an apostrophe stays inside "o'clock", "d'etat", "O'Neil" (one letter
# before it) and between vowels ("ma'am"); elsewhere ("gov't") it is a token of its own.
_APOSTROPHE_WORD = re.compile(r"^(?:[a-hj-xz]'[^\W\d_]{2,}|[^\W\d_]*[aeiouy]'[aeiou][^\W\d_]*)$")


def _split_word(word: str) -> list[str]:
    """Split one lexer word (lower-cased) into PTB tokens: contractions and possessives."""
    if word in _CONTRACTION_SPLITS:
        return list(_CONTRACTION_SPLITS[word])
    if word in _KEEP_APOSTROPHE_WORDS or word in _BARE_CLITICS or "'" not in word:
        return [word]
    if _DECADE.match(word):
        return [word]
    if "'n'" in word and not word.startswith("'n'"):
        head, _, tail = word.partition("'n'")
        return [*_split_word(head), "'n'", *(_split_word(tail) if tail else [])]
    if "/" in word:
        # "will/won't": a slashed word is not split by its clitics, only at the apostrophe
        slashed = [p for part in word.split("'") for p in (part, "'")][:-1]
        return [p for p in slashed if p]
    match = _NT.match(word)
    if match:
        return [*_split_word(match.group(1)), match.group(2)]
    match = _CLITIC.match(word)
    if match:
        return [*_split_word(match.group(1)), match.group(2)]
    if word.endswith("'"):
        return [*_split_word(word[:-1]), "'"]
    if word.startswith("'"):
        return ["'", *_split_word(word[1:])]
    if _APOSTROPHE_WORD.match(word):
        return [word]
    pieces: list[str] = []
    for part in word.split("'"):
        pieces.extend([part, "'"])
    return [p for p in pieces[:-1] if p]


def _is_dotted(word: str) -> bool:
    """ "ph.d" before a period is the abbreviation "ph.d."; "sp.a", "m.sc" and "ll.b" are
    not (the jar splits their period off)."""
    return word in _DOTTED_ABBREVIATIONS


def _starts_sentence(line: str, pos: int, after: str = "") -> bool:
    """Whether the text after `pos` is whitespace and then a capitalised sentence starter;
    at the end of the line the lexer reads on into the next line (`after`)."""
    rest = line[pos:] if line[pos:].strip() else line[pos:] + "\n" + after
    match = re.match(r"\s+([A-Z][a-z]*)\b", rest)
    return match is not None and match.group(1).lower() in _SENTENCE_STARTERS


# Kept through the character map, restored in the tokens: a no-break space between digit
# groups ("200\xa0150") is part of one number for the lexer, and a curly apostrophe inside a
# word it keeps whole ("d’etat", `_APOSTROPHE_WORD`) stays curly; elsewhere both normalise.
_NBSP_GROUP = re.compile(r"(?<=\d)\u00a0(?=\d{3}(?!\d))")
_CURLY_INSIDE = re.compile(
    r"(?<![^\W\d_])([a-hj-xzA-HJ-XZ])\u2019(?=[^\W\d_]{2,})|(?<=[aeiouyAEIOUY])\u2019(?=[aeiouAEIOU])"
)
_RESTORE = str.maketrans({"\x1f": "\u00a0", "\u02bc": "\u2019"})


def _protect(text: str) -> str:
    text = _NBSP_GROUP.sub("\x1f", text)
    return _CURLY_INSIDE.sub(lambda m: (m.group(1) or "") + "\u02bc", text)


def ptb_tokenize_line(text: str, after: str = "") -> list[str]:
    """Tokens of one line as pycocoevalcap's tokenizer returns them (lower-cased, COCO
    punctuation removed).

    `after` is the line that follows in the same tokenizer call: pycocoevalcap writes every
    text of a call to one file, one per line, and the lexer looks past the line end to decide
    whether a final initial ("Gen Z.") ends a sentence."""
    line = _protect(text).translate(_CHAR_MAP)
    after = after.translate(_CHAR_MAP)
    out: list[str] = []
    pos = 0
    n = len(line)
    while pos < n:
        if line[pos].isspace():
            pos += 1
            continue
        match = _TOKEN.match(line, pos)
        if match is None:  # pragma: no cover - the last alternative matches any non-space
            raise AssertionError(f"untokenisable text at {pos}: {line[pos : pos + 20]!r}")
        kind = match.lastgroup
        token = match.group().lower()
        pos = match.end()
        if kind == "word":
            if line.startswith(".", pos) and not line.startswith("..", pos) and "'" not in token:
                initial = len(token) == 1 and token.isalpha()
                if (
                    token in _ABBREVIATIONS
                    or (initial and not _starts_sentence(line, pos + 1, after))
                    or _is_dotted(token)
                ):
                    token += "."
                    pos += 1
            elif token in _KEEP_TRAILING_HYPHEN and re.match(r"-(?:\s|$)", line[pos:]):
                token += "-"
                pos += 1
            cut = token.find(".", token.find("/")) if "/" in token else -1
            if cut > 0:  # "support/support.and": a slashed word ends at its first period
                pos -= len(token) - cut
                token = token[:cut]
            if "-" in token and _DIGIT_SLASH.search(token):
                for i, part in enumerate(_DIGIT_SLASH.split(token)):
                    out.extend(["/", *_split_word(part)] if i else _split_word(part))
                continue
            out.extend(_split_word(token))
        elif kind in ("aword", "number"):
            out.extend(_split_word(token))
        elif kind == "punct":
            out.append(_BRACKETS.get(token, token))
        elif kind == "dashes":
            out.append("--")
        elif kind == "dots":
            out.append("..." if len(token) >= 3 else ".")
        elif kind == "quote":
            out.append("''")
        else:
            out.append(token)
    return [t.translate(_RESTORE) for t in out if t not in COCO_PUNCTUATION]


def ptb_tokenize(texts: list[str]) -> list[str]:
    """Tokenise each text (newlines count as spaces, as in pycocoevalcap) into a
    space-joined token string, the form COCO's scorers take. Texts are read as the lines of
    one tokenizer call, in order, as pycocoevalcap does."""
    lines = [t.replace("\n", " ") for t in texts]
    return [
        " ".join(ptb_tokenize_line(t, lines[i + 1] if i + 1 < len(lines) else ""))
        for i, t in enumerate(lines)
    ]
