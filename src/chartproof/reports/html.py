"""A tiny escaping-by-default HTML builder for self-contained reports.

Every string is escaped unless it is `Html` (markup this module built); model outputs can
therefore never inject markup, whatever they contain.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Sequence

__all__ = ["Html", "document", "el", "esc", "img_png", "join", "page", "table"]


class Html(str):
    """Trusted markup: built by this module, never from raw input."""

    __slots__ = ()


# Unicode bidirectional controls (embeddings, overrides, isolates, marks): in model output
# they can make shown text read differently from what it is ("Trojan Source").
_BIDI = {c: f"[U+{c:04X}]" for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                     *range(0x2066, 0x206A))}  # fmt: skip


def esc(value: object) -> Html:
    """Escape anything that is not already `Html`; bidi controls become visible "[U+202E]"
    marks, so no text is shown in an order other than the one it has."""
    if isinstance(value, Html):
        return value
    if value is None:
        return Html("")
    return Html(html.escape(str(value).translate(_BIDI), quote=True))


def join(parts: Iterable[object], sep: str = "") -> Html:
    """Concatenate escaped parts."""
    return Html(esc(sep).join(esc(p) for p in parts))


def el(tag: str, *children: object, **attrs: object) -> Html:
    """An element; `cls` becomes `class`, attribute values are escaped, None drops one."""
    parts = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = "class" if key == "cls" else key.replace("_", "-")
        parts.append(f' {name}="{esc(value)}"' if value is not True else f" {name}")
    return Html(f"<{tag}{''.join(parts)}>{join(children)}</{tag}>")


def img_png(png: bytes, alt: str, cls: str | None = None) -> Html:
    """An inline PNG (data URL) so the report stays one self-contained file."""
    data = base64.b64encode(png).decode("ascii")
    c = f' class="{esc(cls)}"' if cls else ""
    return Html(f'<img{c} alt="{esc(alt)}" src="data:image/png;base64,{data}">')


def table(
    headers: Sequence[object],
    rows: Iterable[Sequence[object]],
    *,
    cls: str = "grid",
    caption: str | None = None,
) -> Html:
    """A table; cells may be `Html` (kept) or anything else (escaped).

    Every row has one cell per header: a row of another length is a ValueError, since a
    browser would shift its cells under the wrong headers without a word."""
    head = el("tr", *(el("th", h) for h in headers))
    body_rows = [list(row) for row in rows]
    for i, row in enumerate(body_rows):
        if len(row) != len(headers):
            raise ValueError(
                f"table row {i} has {len(row)} cells for {len(headers)} headers "
                f"({[str(h) for h in headers]})"
            )
    body = join(el("tr", *(el("td", c) for c in row)) for row in body_rows)
    cap = el("caption", caption) if caption else Html("")
    return el("table", cap, el("thead", head), el("tbody", body), cls=cls)


_CSS = """
:root { --fg:#1d2330; --muted:#5b6475; --line:#d8dde6; --bg:#ffffff; --accent:#2458c6;
        --ok:#17803d; --bad:#b42318; --soft:#f4f6fa; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.5 -apple-system, "Segoe UI", "DejaVu Sans", Arial, sans-serif;
       color:var(--fg); background:var(--bg); }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h1.run { font-size: 20px; margin-top: 48px; padding-top: 12px; border-top: 4px solid var(--accent); }
h2 { font-size: 18px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 6px; }
p.lead { color: var(--muted); margin: 0 0 16px; }
.note { color: var(--muted); font-size: 12.5px; }
.warn { border-left: 4px solid var(--bad); background: #fdf1f0; padding: 8px 12px; }
.cards { display:flex; flex-wrap:wrap; gap:12px; margin: 12px 0; }
.card { border:1px solid var(--line); border-radius:8px; padding:10px 14px; min-width:150px;
        background: var(--soft); }
.card .v { font-size: 22px; font-weight: 600; }
.card .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
table.grid { border-collapse: collapse; margin: 8px 0 12px; font-variant-numeric: tabular-nums; }
table.grid caption { text-align:left; color:var(--muted); font-size:12.5px; padding-bottom:4px; }
table.grid th, table.grid td { border: 1px solid var(--line); padding: 4px 9px; text-align: right; }
table.grid th:first-child, table.grid td:first-child { text-align: left; }
table.grid.text th, table.grid.text td { text-align: left; }
table.grid thead th { background: var(--soft); }
.gallery { display:grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap:14px; }
.item { border:1px solid var(--line); border-radius:8px; padding:10px; overflow:hidden; }
.item img { width:100%; height:auto; border:1px solid var(--line); border-radius:4px; }
.item.wide { grid-column: 1 / -1; display:grid; grid-template-columns: minmax(240px, 340px) 1fr;
             gap: 14px; align-items: start; }
table.steps { width: 100%; }
table.steps th, table.steps td { text-align: left; vertical-align: top; }
table.steps td:nth-child(2) { width: 55%; }
details > summary { cursor: pointer; margin: 12px 0; color: var(--accent); font-weight: 600; }
.item .q { font-weight:600; margin:6px 0 2px; }
.item pre { white-space: pre-wrap; word-break: break-word; background: var(--soft);
            padding: 6px 8px; border-radius: 4px; margin: 4px 0; font-size: 12.5px; }
.ok { color: var(--ok); font-weight: 600; } .bad { color: var(--bad); font-weight: 600; }
.tag { display:inline-block; font-size:11px; padding:1px 6px; border-radius:10px;
       background: var(--soft); border:1px solid var(--line); margin-right:4px; color: var(--muted); }
img.plot { max-width: 100%; height: auto; }
.scroll { max-width: 100%; overflow-x: auto; }
.scroll table.grid th:first-child, .scroll table.grid td:first-child { position: sticky; left: 0;
  background: var(--bg); max-width: 260px; }
.scroll table.grid thead th:first-child { background: var(--soft); }
nav.toc { columns: 2; font-size: 13px; border: 1px solid var(--line); border-radius: 8px;
          padding: 8px 14px; margin: 10px 0; background: var(--soft); }
nav.toc ol { margin: 4px 0; padding-left: 20px; }
a.viewer { display:inline-block; margin: 6px 0 0; font-weight: 600; color: var(--accent); }
"""


def page(title: str, *body: object) -> str:
    """A complete HTML document with the report's stylesheet inlined."""
    return document(title, _CSS, el("body", el("main", *body)))


def document(title: str, css: str, body: Html) -> str:
    """A complete HTML document: UTF-8, a responsive viewport, `css` inlined, `body`."""
    head = el(
        "head",
        Html('<meta charset="utf-8">'),
        Html('<meta name="viewport" content="width=device-width, initial-scale=1">'),
        el("title", title),
        Html(f"<style>{css}</style>"),
    )
    return "<!DOCTYPE html>\n" + el("html", head, body, lang="en") + "\n"
