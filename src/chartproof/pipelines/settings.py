"""Settings records of the run commands, built the same way by the CLI and the Python API: a
function takes its record, or the record's fields as keywords, without restating them.

`settings_of(Record, given, fields)` validates the keywords (an unknown one is an error that
names it) into the record, or changes a given record; `@fields_of(Record)` shows the record's
fields in the function's signature (`help()`, `inspect.signature`) in place of `**fields`,
with the record's defaults, so the two cannot drift apart.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from chartproof.types import Record

__all__ = ["cache_setting", "fields_of", "settings_of"]

S = TypeVar("S", bound=Record)
F = TypeVar("F", bound=Callable[..., Any])


def settings_of(cls: type[S], given: S | None, fields: Mapping[str, Any]) -> S:
    """The `cls` record: `given` with `fields` changed (validated again), or the record the
    keywords `fields` make; a keyword the record does not have is refused, named."""
    if given is None:
        return cls.model_validate(dict(fields))
    if not fields:
        return given
    return cls.model_validate({**dict(given), **fields})


def fields_of(cls: type[Record]) -> Callable[[F], F]:
    """Show `cls`'s fields as keyword-only parameters of the decorated function in place of its
    `**fields`. A field the function names itself keeps its place; its None default there
    shows as the record's default (a required field as required: it is, unless the first
    argument is the record itself)."""
    fields = cls.model_fields

    def default(name: str) -> Any:
        info = fields[name]
        if info.is_required():
            return inspect.Parameter.empty
        return info.get_default(call_default_factory=True)

    def decorate(fn: F) -> F:
        own = inspect.signature(fn)
        params = [
            p.replace(default=default(p.name)) if p.name in fields and p.default is None else p
            for p in own.parameters.values()
            if p.kind is not p.VAR_KEYWORD
        ]
        named = {p.name for p in params}
        params += [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=default(name),
                annotation=info.annotation,
            )
            for name, info in fields.items()
            if name not in named
        ]
        fn.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
        return fn

    return decorate


def cache_setting(value: object) -> object:
    """A `cache` setting as the records hold it: True/False as given, any path-like a Path
    (a file named "1" or "true" is a file, not a switch)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str | Path):
        return Path(value)
    return value
