"""The sensitive attributes of a bias audit, their paired groups and every word that names
them (seed 003 Table 7), in one lexicon that users extend with a pair-list file.

A group has a label ("Low-income"), the phrase prompts use for [GROUP] ("people in
low-income countries") and the terms that name it in text ("low-income", "poor countries");
an attribute also has cue words that name the attribute itself ("ethnicity", "age group").
Terms match whole words, case-insensitively; eligibility, masking and reply parsing all
read them from here.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from chartproof.types import Record

__all__ = ["DEFAULT_LEXICON", "Attribute", "Group", "Lexicon", "Match", "load_lexicon"]


class Group(Record):
    """One group of a sensitive attribute."""

    label: str = Field(min_length=1)
    """Short name used in tables, e.g. "Immigrant"."""
    phrase: str = Field(min_length=1)
    """What a prompt says for [GROUP], e.g. "immigrants"."""
    terms: tuple[str, ...] = ()
    """Words that name the group in text (the label and phrase are always included)."""

    def all_terms(self) -> tuple[str, ...]:
        """Label, phrase and terms, lower-cased, longest first."""
        found = {t.strip().lower() for t in (self.label, self.phrase, *self.terms) if t.strip()}
        return tuple(sorted(found, key=lambda t: (-len(t), t)))


class Attribute(Record):
    """A sensitive attribute with its two paired groups, the first one first."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    """Attribute name, e.g. "immigration"."""
    groups: tuple[Group, Group]
    """The pair; the first group is the one polarity tables report (seed 003 Table 4)."""
    cues: tuple[str, ...] = ()
    """Words that name the attribute itself ("religion", "age group")."""
    description: str = ""
    """What the attribute means in the audit."""

    @model_validator(mode="after")
    def _distinct(self) -> Attribute:
        a, b = self.groups
        if a.label == b.label:
            raise ValueError(f"attribute {self.name!r}: both groups are called {a.label!r}")
        return self

    @property
    def labels(self) -> tuple[str, str]:
        """The two group labels."""
        return (self.groups[0].label, self.groups[1].label)

    def group(self, label: str) -> Group:
        """The group called `label` (KeyError naming the pair otherwise)."""
        for g in self.groups:
            if g.label == label:
                return g
        raise KeyError(f"attribute {self.name!r} has no group {label!r}; it has {self.labels}")


class Match(Record):
    """One place where a text names an attribute."""

    attribute: str
    """The attribute named."""
    group: str | None
    """The group named (None for an attribute cue word)."""
    term: str
    """The lexicon term that matched."""
    start: int
    """Character offset of the match."""
    end: int
    """End offset (exclusive)."""


def _pattern(terms: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted({t for t in terms if t}, key=lambda t: (-len(t), t))
    if not ordered:
        return None
    # whole words; a space in a term matches any run of spaces or hyphens ("low income")
    alts = [r"[\s\-]+".join(re.escape(w) for w in re.split(r"[\s\-]+", t)) for t in ordered]
    return re.compile(r"(?<![\w])(?:" + "|".join(alts) + r")(?![\w])", re.IGNORECASE)


class Lexicon:
    """Attributes by name, with whole-word matching of their terms."""

    def __init__(self, attributes: Sequence[Attribute]) -> None:
        names = [a.name for a in attributes]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"attributes defined twice: {dup}")
        self.attributes: dict[str, Attribute] = {a.name: a for a in attributes}

    def __getitem__(self, name: str) -> Attribute:
        found = self.attributes.get(name)
        if found is None:
            raise KeyError(f"unknown attribute {name!r}; known: {sorted(self.attributes)}")
        return found

    def names(self) -> list[str]:
        """Attribute names in definition order."""
        return list(self.attributes)

    def select(self, names: Sequence[str] | None) -> list[Attribute]:
        """The named attributes (all when None), in the order given."""
        return [self[n] for n in names] if names else list(self.attributes.values())

    def extended(self, attributes: Sequence[Attribute]) -> Lexicon:
        """A new lexicon where `attributes` add to or replace those of the same name."""
        merged = dict(self.attributes)
        merged.update({a.name: a for a in attributes})
        return Lexicon(list(merged.values()))

    def with_terms(self, attribute: str, group: str, terms: Sequence[str]) -> Lexicon:
        """A new lexicon with extra `terms` naming `group` (e.g. country lists by income)."""
        attr = self[attribute]
        groups = tuple(
            g.model_copy(update={"terms": (*g.terms, *terms)}) if g.label == group else g
            for g in attr.groups
        )
        attr.group(group)
        return self.extended([attr.model_copy(update={"groups": groups})])

    @cached_property
    def _patterns(self) -> dict[tuple[str, str | None], tuple[re.Pattern[str], dict[str, str]]]:
        out: dict[tuple[str, str | None], tuple[re.Pattern[str], dict[str, str]]] = {}
        for attr in self.attributes.values():
            for g in attr.groups:
                terms = g.all_terms()
                pat = _pattern(terms)
                if pat is not None:
                    out[(attr.name, g.label)] = (pat, {t: t for t in terms})
            cue = _pattern(c.lower() for c in attr.cues)
            if cue is not None:
                out[(attr.name, None)] = (cue, {})
        return out

    def find(self, text: str, attribute: str | None = None) -> list[Match]:
        """Every mention of an attribute (or of `attribute` only) in `text`, by position."""
        found: list[Match] = []
        for (name, group), (pat, _) in self._patterns.items():
            if attribute is not None and name != attribute:
                continue
            for m in pat.finditer(text):
                found.append(
                    Match(
                        attribute=name,
                        group=group,
                        term=m.group(0).lower(),
                        start=m.start(),
                        end=m.end(),
                    )
                )
        found.sort(key=lambda m: (m.start, -m.end))
        return found

    def mask(
        self, text: str, attribute: str | None = None, token: str = "[MASKED]"
    ) -> tuple[str, list[Match]]:
        """`text` with every mention of an attribute (or of `attribute`) replaced by `token`,
        and the mentions replaced; overlapping mentions are masked once, longest first."""
        kept: list[Match] = []
        end = -1
        for m in self.find(text, attribute):
            if m.start >= end:
                kept.append(m)
                end = m.end
        out, last = [], 0
        for m in kept:
            out.append(text[last : m.start])
            out.append(token)
            last = m.end
        out.append(text[last:])
        return "".join(out), kept


def _attr(
    name: str, a: tuple[str, str, tuple[str, ...]], b: tuple[str, str, tuple[str, ...]],
    cues: tuple[str, ...], description: str,
) -> Attribute:  # fmt: skip
    return Attribute(
        name=name,
        groups=(
            Group(label=a[0], phrase=a[1], terms=a[2]),
            Group(label=b[0], phrase=b[1], terms=b[2]),
        ),
        cues=cues,
        description=description,
    )


DEFAULT_LEXICON = Lexicon(
    [
        _attr(
            "race",
            (
                "White",
                "White people",
                ("white", "whites", "caucasian", "caucasians", "white american", "white americans"),
            ),
            ("Black", "Black people", ("black", "blacks", "african american", "african americans")),
            (
                "race",
                "races",
                "racial",
                "ethnic",
                "ethnicity",
                "ethnicities",
                "hispanic",
                "hispanics",
                "latino",
                "latinos",
                "asian american",
                "asian americans",
            ),
            "Racial group referenced in the prompt.",
        ),
        _attr(
            "income",
            (
                "Low-income",
                "people in low-income countries",
                (
                    "low-income",
                    "low income",
                    "poor",
                    "poorer",
                    "poorest",
                    "low-income countries",
                    "poor countries",
                    "developing countries",
                    "least developed countries",
                ),
            ),
            (
                "High-income",
                "people in high-income countries",
                (
                    "high-income",
                    "high income",
                    "rich",
                    "richer",
                    "richest",
                    "wealthy",
                    "high-income countries",
                    "rich countries",
                    "developed countries",
                    "advanced economies",
                ),
            ),
            (
                "income group",
                "income groups",
                "middle-income",
                "middle income",
                "poverty",
                "wealth",
                "socioeconomic",
            ),
            "Socioeconomic status referenced in the prompt (the low-income group first, as "
            "seed 003 Tables 3 and 4 report it).",
        ),
        _attr(
            "age",
            (
                "Young",
                "young people",
                (
                    "young",
                    "younger",
                    "youth",
                    "youths",
                    "youngsters",
                    "young adults",
                    "adolescents",
                    "teenagers",
                ),
            ),
            (
                "Old",
                "older people",
                (
                    "old",
                    "older",
                    "elderly",
                    "seniors",
                    "senior citizens",
                    "older adults",
                    "pensioners",
                    "retirees",
                ),
            ),
            ("age group", "age groups", "aged", "years old", "millennials", "baby boomers"),
            "Age group referenced in the prompt.",
        ),
        _attr(
            "gender",
            ("Male", "men", ("male", "males", "man", "boys", "boy", "fathers")),
            ("Female", "women", ("female", "females", "woman", "girls", "girl", "mothers")),
            ("gender", "genders", "sex"),
            "Gender group referenced in the prompt.",
        ),
        _attr(
            "religion",
            (
                "Christian",
                "Christians",
                (
                    "christian",
                    "christians",
                    "christianity",
                    "church",
                    "churches",
                    "catholic",
                    "catholics",
                    "protestant",
                    "protestants",
                ),
            ),
            ("Muslim", "Muslims", ("muslim", "muslims", "islam", "islamic", "mosque", "mosques")),
            (
                "religion",
                "religions",
                "religious",
                "faith",
                "jewish",
                "hindu",
                "buddhist",
                "atheist",
                "atheists",
            ),
            "Religious affiliation referenced in the prompt.",
        ),
        _attr(
            "immigration",
            (
                "Citizen",
                "citizens",
                ("citizen", "citizens", "native-born", "nationals", "native born"),
            ),
            (
                "Immigrant",
                "immigrants",
                (
                    "immigrant",
                    "immigrants",
                    "migrant",
                    "migrants",
                    "foreign-born",
                    "foreign born",
                    "refugee",
                    "refugees",
                    "asylum seekers",
                ),
            ),
            (
                "immigration",
                "migration",
                "citizenship",
                "asylum",
                "naturalization",
                "naturalisation",
                "deportation",
                "deportations",
            ),
            "Citizenship or migration status referenced in the prompt.",
        ),
    ]
)
"""The six attributes and pairs of seed 003 Table 7."""


def load_lexicon(path: str | Path, base: Lexicon = DEFAULT_LEXICON) -> Lexicon:
    """`base` extended by a pair-list file (TOML or JSON): a list ``attributes`` of tables
    with `Attribute`'s fields; one with a built-in name replaces it::

        [[attributes]]
        name = "disability"
        cues = ["disability", "disabilities"]
        groups = [
          {label = "Disabled", phrase = "disabled people", terms = ["disabled"]},
          {label = "Non-disabled", phrase = "non-disabled people", terms = ["non-disabled"]},
        ]

    ValueError names the file and the entry at fault.
    """
    p = Path(path)
    raw = p.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(raw) if p.suffix.lower() == ".toml" else json.loads(raw)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{p}: not valid {p.suffix.lstrip('.') or 'JSON'}: {exc}") from None
    entries = data.get("attributes") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ValueError(f"{p}: expected a list 'attributes' of attribute tables")
    attrs: list[Attribute] = []
    for i, entry in enumerate(entries):
        try:
            attrs.append(Attribute.model_validate(entry))
        except ValidationError as exc:
            raise ValueError(f"{p}: attribute #{i + 1}: {exc}") from None
    return base.extended(attrs)
