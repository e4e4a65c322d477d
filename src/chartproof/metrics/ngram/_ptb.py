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
the jar live in `tests/metrics/cases/ngram_ptb.json`; the known gaps are odd inputs (URLs with
unusual characters, "v2.0", SGML) that chart explanations do not contain.
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
# Words that start a sentence after an acronym or initial ("... the U.S. Then ..."): the lexer
# then ends the sentence, splitting the period off an initial.
_SENTENCE_STARTERS = frozenset(
    """
    also although and as at but by for from he her his however i if in it its many most my
    our she since so some that the their then there these they this those to we what when
    where while who why with yet you
    """.split()  # noqa: SIM905 - a word list reads better than 120 quoted strings
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
  | (?P<number>[-+]?(?:\d+(?:[,.:/]\d+)*|\.\d+)(?:[^\W\d_]\w*)?(?:-\w+)*)
  | (?P<hashtag>\#[^\W\d_]+)
  | (?P<word>(?:[^\W_]|[&@](?=[^\W_]))(?:[^\W_]|[&@]|_(?=[^\W_])|[-/'](?=[^\W_&])|\.(?=[^\W\d_]))*'?)
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
_NT = re.compile(r"^(.*[^\W\d_])(n't)$")
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
    match = _NT.match(word)
    if match:
        return [*_split_word(match.group(1)), "n't"]
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
    """ "ph.d" before a period is the abbreviation "ph.d." (short letter groups joined by dots)."""
    parts = word.split(".")
    return len(parts) > 1 and all(0 < len(p) <= 2 and p.isalpha() for p in parts)


def _starts_sentence(line: str, pos: int) -> bool:
    """Whether the text after `pos` is whitespace and then a capitalised sentence starter."""
    match = re.match(r"\s+([A-Z][a-z]*)\b", line[pos:])
    return match is not None and match.group(1).lower() in _SENTENCE_STARTERS


def ptb_tokenize_line(text: str) -> list[str]:
    """Tokens of one line as pycocoevalcap's tokenizer returns them (lower-cased, COCO
    punctuation removed)."""
    line = text.translate(_CHAR_MAP)
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
                    or (initial and not _starts_sentence(line, pos + 1))
                    or _is_dotted(token)
                ):
                    token += "."
                    pos += 1
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
    return [t for t in out if t not in COCO_PUNCTUATION]


def ptb_tokenize(texts: list[str]) -> list[str]:
    """Tokenise each text (newlines count as spaces, as in pycocoevalcap) into a
    space-joined token string, the form COCO's scorers take."""
    return [" ".join(ptb_tokenize_line(t.replace("\n", " "))) for t in texts]
