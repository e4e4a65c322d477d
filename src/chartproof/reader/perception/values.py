"""Printed value labels: match numeric tokens to the marks they annotate, then reconcile
each printed value with the value read from the mark's geometry."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from chartproof.ocr import parse_label_number
from chartproof.reader.perception.geometry import Frame
from chartproof.reader.perception.records import OcrToken

__all__ = ["Anchor", "Reconciled", "match_labels", "reconcile"]


@dataclass(frozen=True)
class Anchor:
    """Where a mark's value label is expected, in the canonical frame."""

    key: Hashable
    """Identifies the mark (row, series)."""
    u: float
    """The mark's centre along u."""
    v: float
    """The mark's value end along v (or its centre for stacked segments)."""
    half_u: float
    """How far along u a label centre may sit from `u`."""
    below: float
    """How far towards the baseline from `v` the label may reach."""
    above: float
    """How far beyond `v` the label's near edge may start."""
    floor: float = -float("inf")
    """Lowest v a label centre may have: category labels below the axis are not values."""


def match_labels(
    tokens: Sequence[OcrToken], anchors: Sequence[Anchor], frame: Frame
) -> dict[Hashable, OcrToken]:
    """Numeric tokens assigned to anchors, nearest pairs first, each token used once.

    A token qualifies for an anchor when its centre lies within `half_u` across and its
    extent along v overlaps [v - below, v + above].
    """
    pairs: list[tuple[float, int, int]] = []
    spans = [frame.span(t.box) for t in tokens]
    for ti, (t, s) in enumerate(zip(tokens, spans, strict=True)):
        if parse_label_number(t.text) is None:
            continue
        for ai, a in enumerate(anchors):
            du = abs(s.uc - a.u)
            if du > a.half_u or s.v0 > a.v + a.above or s.v1 < a.v - a.below:
                continue
            if s.vc < a.floor:
                continue
            dv = min(abs(s.v0 - a.v), abs(s.v1 - a.v), abs(s.vc - a.v))
            pairs.append((du + dv, ti, ai))
    out: dict[Hashable, OcrToken] = {}
    used_t: set[int] = set()
    for _, ti, ai in sorted(pairs):
        key = anchors[ai].key
        if ti in used_t or key in out:
            continue
        out[key] = tokens[ti]
        used_t.add(ti)
    return out


@dataclass(frozen=True)
class Reconciled:
    """A cell value with where it came from."""

    value: float
    """The value kept."""
    source: str
    """"value_label" or "geometry"."""
    confidence: float
    """Trust in the value, 0..1."""


def reconcile(label: float | None, geometry: float | None, axis_range: float) -> Reconciled | None:
    """Prefer a printed value that agrees with the geometry; a printed value far from the
    geometry is an OCR misread (a lost decimal point), so the geometry wins then."""
    if label is None and geometry is None:
        return None
    if label is None:
        assert geometry is not None
        return Reconciled(geometry, "geometry", 0.75)
    if geometry is None:
        return Reconciled(label, "value_label", 0.8)
    scale = max(abs(geometry), 0.03 * axis_range, 1e-9)
    if abs(label - geometry) <= 0.25 * scale:
        return Reconciled(label, "value_label", 0.95)
    return Reconciled(geometry, "geometry", 0.5)
