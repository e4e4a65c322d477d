"""Named colours and palettes: every colour chartproof draws has a human name, so questions can
ask "which series is drawn in orange?" and explanations can say "the green bar"."""

from __future__ import annotations

__all__ = ["NAMED_COLORS", "PALETTES", "color_name", "hex_to_rgb"]

NAMED_COLORS: dict[str, str] = {
    # matplotlib tab10
    "#1f77b4": "blue",
    "#ff7f0e": "orange",
    "#2ca02c": "green",
    "#d62728": "red",
    "#9467bd": "purple",
    "#8c564b": "brown",
    "#e377c2": "pink",
    "#7f7f7f": "gray",
    "#bcbd22": "olive",
    "#17becf": "cyan",
    # Okabe-Ito (colour-blind safe)
    "#000000": "black",
    "#e69f00": "amber",
    "#56b4e9": "sky blue",
    "#009e73": "teal green",
    "#f0e442": "yellow",
    "#0072b2": "dark blue",
    "#d55e00": "vermilion",
    "#cc79a7": "mauve",
    # muted / report-style
    "#4c72b0": "steel blue",
    "#dd8452": "light orange",
    "#55a868": "sage green",
    "#c44e52": "brick red",
    "#8172b3": "lavender",
    "#937860": "taupe",
    "#da8bc3": "orchid",
    "#8c8c8c": "silver",
    "#ccb974": "khaki",
    "#64b5cd": "light blue",
    # dark
    "#1b1b6e": "navy",
    "#8b0000": "dark red",
    "#006400": "dark green",
    "#4b0082": "indigo",
    "#b8860b": "dark gold",
    "#008080": "teal",
    "#8b4513": "saddle brown",
    "#556b2f": "dark olive",
}
"""Hex colour (lower case #rrggbb) → its name."""

PALETTES: dict[str, tuple[str, ...]] = {
    "tab10": (
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    ),
    "okabe_ito": ("#0072b2", "#e69f00", "#009e73", "#d55e00", "#56b4e9", "#cc79a7", "#f0e442", "#000000"),
    "muted": (
        "#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3",
        "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd",
    ),
    "dark": ("#1b1b6e", "#8b0000", "#006400", "#b8860b", "#4b0082", "#008080", "#8b4513", "#556b2f"),
}  # fmt: skip
"""Named palettes; every colour in them has an entry in `NAMED_COLORS`."""


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    """ "#1f77b4" → (31, 119, 180)."""
    h = color.strip().lstrip("#")
    if len(h) != 6:
        raise ValueError(f"not a #rrggbb colour: {color!r}")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def color_name(color: str) -> str:
    """The name of a colour: exact when it is a named colour, else the nearest named one."""
    key = color.strip().lower()
    if key in NAMED_COLORS:
        return NAMED_COLORS[key]
    r, g, b = hex_to_rgb(key)
    best = min(
        NAMED_COLORS,
        key=lambda h: sum((p - q) ** 2 for p, q in zip(hex_to_rgb(h), (r, g, b), strict=True)),
    )
    return NAMED_COLORS[best]
