"""The one escaping helper of reports: markup is escaped and Unicode bidi controls in model
output are shown as marks instead of reordering the text around them."""

from __future__ import annotations

import pytest

from chartproof.reports.html import Html, esc

CASES = [
    ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("a \"b\" & 'c'", "a &quot;b&quot; &amp; &#x27;c&#x27;"),
    ("42\u202e%01\u202c", "42[U+202E]%01[U+202C]"),  # right-to-left override, pop
    ("x\u2066y\u2069z", "x[U+2066]y[U+2069]z"),  # isolates
    ("\u200f\u200e\u061c", "[U+200F][U+200E][U+061C]"),  # marks
    ("\u202a\u202b\u202d\u2067\u2068", "[U+202A][U+202B][U+202D][U+2067][U+2068]"),
    ("عربي and עברית stay", "عربي and עברית stay"),  # right-to-left letters are text
    (None, ""),
    (3.5, "3.5"),
]


@pytest.mark.parametrize(("raw", "shown"), CASES)
def test_esc(raw: object, shown: str) -> None:
    assert esc(raw) == shown


def test_trusted_markup_passes_through() -> None:
    assert esc(Html("<b>\u202e</b>")) == "<b>\u202e</b>"
