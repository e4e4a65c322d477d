"""One message for a name that is not among the known ones (a suite, a protocol, a built-in
model, a metric), with the nearest known name suggested, so a typo costs one glance."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["UnknownNameError", "nearest", "unknown_name"]


class UnknownNameError(ValueError, KeyError):
    """A name that is not among the known ones. Both a ValueError (bad input: one line from
    the CLI) and a KeyError (what a lookup by name raised before)."""

    def __str__(self) -> str:
        # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def nearest(value: str, choices: Iterable[str]) -> str | None:
    """The known name closest to `value` (difflib's ratio, at least 0.6), or None."""
    known = list(choices)
    close = difflib.get_close_matches(value, known, n=1, cutoff=0.6)
    if not close:
        close = difflib.get_close_matches(value.lower(), [k.lower() for k in known], n=1)
        close = [k for k in known if close and k.lower() == close[0]][:1]
    return close[0] if close else None


def unknown_name(what: str, value: str, choices: Iterable[str]) -> str:
    """`unknown WHAT 'value' (did you mean 'x'?); choose one of: a, b, c`."""
    known = sorted(set(choices))
    guess = nearest(value, known)
    hint = f" (did you mean {guess!r}?)" if guess is not None else ""
    listed = ", ".join(known) if known else "none registered"
    return f"unknown {what} {value!r}{hint}; choose one of: {listed}"
