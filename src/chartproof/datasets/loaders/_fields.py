"""The field map of the record loaders (`jsonl`, `json`, `csv`, `hf`): which key of a raw
record holds each part of a sample, parsed once from a data spec's options
(`jsonl:f.jsonl?question=query&answer=label&groups=a,b`) or from keyword arguments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

__all__ = ["FieldMap"]

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off", ""})


class FieldMap(BaseModel):
    """Which key of a raw record holds each part of a sample ("" = the source has none).

    Any key may be a dotted path into nested values (`question=conversations.0.value`).
    Built from loader options by `FieldMap.parse`: an option that names no field is an
    error listing the ones there are.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = "id"
    """Key of the sample id; rows without one get "<dataset>-<line>"."""
    image: str = "image"
    """Key of the image path, relative to the dataset folder; a list of paths makes a
    multi-image sample (the images in order)."""
    question: str = "question"
    """Key of the question text."""
    answer: str = "answer"
    """Key of the gold answer (typed by `type_answer`)."""
    table: str = "table"
    """Key of the data table: CSV text, {"columns": [...], "rows": [...]}, a list of rows
    with the header first, or null."""
    chart_type: str = "chart_type"
    """Key of the chart type label."""
    question_type: str = "question_type"
    """Key of the question type label."""
    split: str = "split"
    """Key of the split name."""
    groups: tuple[str, ...] = ()
    """Extra keys whose short string values become group labels for breakdowns (a tuple,
    or comma-separated text as a data spec writes it: `groups=source,level`)."""
    choices: tuple[str, ...] = ("choices",)
    """Key of a multiple-choice question's options (a list, a letter → text mapping, a
    JSON list, lettered lines or "a|b|c"), or several keys holding one option each (CSV
    files with columns A, B, C, D: `choices=A,B,C,D`); absent or empty keys mean an open
    question."""
    explanation: str = "explanation"
    """Key of the reference explanation."""
    options_in_question: bool = False
    """Read lettered options written inside the question text ("... (A) 12 (B) 15") when
    the record has no choices field; the question keeps only its stem. A data spec writes
    true/false (also yes/no, 1/0, on/off)."""

    @field_validator("groups", "choices", mode="before")
    @classmethod
    def _key_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(k.strip() for k in value.split(",") if k.strip())
        return value

    @field_validator("options_in_question", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = value.strip().lower()
            if word in _TRUE | _FALSE:
                return word in _TRUE
            raise ValueError(f"expected true or false, got {value!r}")
        return value

    @classmethod
    def options(cls) -> tuple[str, ...]:
        """The option names a field map takes, in declaration order."""
        return tuple(cls.model_fields)

    @classmethod
    def parse(cls, options: Mapping[str, Any], base: FieldMap | None = None) -> FieldMap:
        """The field map of loader options (data-spec text or Python values) over `base`
        (default: the defaults). ValueError in one line naming the first bad option: one
        that is no field, or a value of the wrong kind."""
        if not options and base is not None:
            return base
        unknown = sorted(set(options) - set(cls.model_fields))
        if unknown:
            raise ValueError(
                f"no field option {unknown[0]!r}; field options: {', '.join(cls.options())}"
            )
        data = base.model_dump() if base is not None else {}
        try:
            return cls.model_validate({**data, **options})
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "fields"
            message = str(err["msg"]).removeprefix("Value error, ")
            raise ValueError(
                f"field option {where}={options.get(str(err['loc'][0]))!r}: {message}"
            ) from None

    def used(self) -> set[str]:
        """Keys consumed by named sample fields (the others go to `Sample.source`)."""
        keys = {self.id, self.image, self.question, self.answer, self.table}
        keys |= {self.chart_type, self.question_type, self.split, self.explanation}
        keys |= set(self.choices)
        return keys - {""}
