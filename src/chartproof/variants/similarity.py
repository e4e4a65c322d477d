"""How alike two charts are (ChartCF): SSIM between images, a structural similarity between
specs, and the choice of the counterfactuals least like their original under a budget.

SSIM follows Wang et al. (2004): grey levels (ITU-R BT.601 luma), an 11×11 Gaussian window
with sigma 1.5 (truncated at 3.5 sigma), K1 = 0.01, K2 = 0.03, dynamic range 255, population
statistics, and the mean of the SSIM map over the pixels the window fits inside (the same
choices as `skimage.metrics.structural_similarity(..., gaussian_weights=True,
use_sample_covariance=False)`, which the tests check against).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from chartproof.types import ChartSpec
from chartproof.variants.images import RGB, ImageInput, to_rgb

__all__ = [
    "grey",
    "image_similarity",
    "select_least_similar",
    "spec_similarity",
    "ssim",
]

K = TypeVar("K", bound=Hashable)

_SIGMA = 1.5
_TRUNCATE = 3.5
_K1, _K2 = 0.01, 0.03


def grey(image: RGB) -> NDArray[np.float64]:
    """BT.601 luma of an RGB image as float64 in [0, 255]."""
    rgb = image.astype(np.float64)
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def ssim(x: NDArray[np.floating], y: NDArray[np.floating], data_range: float = 255.0) -> float:
    """Mean SSIM of two equally sized 2-D grey images (see the module docstring).

    Raises ValueError when the shapes differ or are smaller than the 11×11 window.
    """
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError(f"ssim needs two 2-D images of one shape, got {x.shape} and {y.shape}")
    radius = int(_TRUNCATE * _SIGMA + 0.5)
    if min(x.shape) < 2 * radius + 1:
        raise ValueError(
            f"images of shape {x.shape} are smaller than the {2 * radius + 1} px window"
        )
    from scipy.ndimage import gaussian_filter

    def blur(a: NDArray[np.float64]) -> NDArray[np.float64]:
        out: NDArray[np.float64] = gaussian_filter(
            a, sigma=_SIGMA, truncate=_TRUNCATE, mode="reflect"
        )
        return out

    a, b = x.astype(np.float64), y.astype(np.float64)
    mu_a, mu_b = blur(a), blur(b)
    var_a = blur(a * a) - mu_a * mu_a
    var_b = blur(b * b) - mu_b * mu_b
    cov = blur(a * b) - mu_a * mu_b
    c1, c2 = (_K1 * data_range) ** 2, (_K2 * data_range) ** 2
    num = (2 * mu_a * mu_b + c1) * (2 * cov + c2)
    den = (mu_a * mu_a + mu_b * mu_b + c1) * (var_a + var_b + c2)
    s = num / den
    return float(s[radius:-radius, radius:-radius].mean(dtype=np.float64))


def image_similarity(a: ImageInput, b: ImageInput, *, max_side: int | None = 512) -> float:
    """SSIM of two chart images: `b` is resized to `a`'s size when they differ, and both are
    downscaled so their longer side is at most `max_side` (None keeps full size)."""
    ra, rb = to_rgb(a), to_rgb(b)
    if rb.shape != ra.shape:
        rb = _resize(rb, ra.shape[1], ra.shape[0])
    h, w = ra.shape[:2]
    if max_side is not None and max(h, w) > max_side:
        f = max_side / max(h, w)
        nw, nh = max(11, round(w * f)), max(11, round(h * f))
        ra, rb = _resize(ra, nw, nh), _resize(rb, nw, nh)
    return ssim(grey(ra), grey(rb))


def _resize(image: RGB, width: int, height: int) -> RGB:
    pil = Image.fromarray(image, "RGB").resize((width, height), Image.Resampling.BILINEAR)
    return np.asarray(pil, dtype=np.uint8).copy()


def spec_similarity(a: ChartSpec, b: ChartSpec) -> float:
    """Structural similarity of two charts' data, in [0, 1]: the mean of

    - label overlap: Jaccard index of the x labels;
    - order agreement: share of pairs of common labels in the same relative order;
    - value closeness: 1 − mean |a − b| / range over the cells both tables share (same x
      label, same value column), the range taken over both tables' values (1 when equal);
    - value columns: Jaccard index of the value-column names;

    times 0.5 when the chart types differ.
    """
    xa, xb = a.table.labels(a.encoding.x), b.table.labels(b.encoding.x)
    labels = _jaccard(xa, xb)
    order = _order_agreement(xa, xb)
    columns = _jaccard(a.encoding.y, b.encoding.y)
    values = _value_closeness(a, b)
    score = (labels + order + values + columns) / 4
    return score * (0.5 if a.chart_type != b.chart_type else 1.0)


def _jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def _order_agreement(a: Sequence[str], b: Sequence[str]) -> float:
    pos_b = {v: i for i, v in enumerate(b)}
    common = [v for v in dict.fromkeys(a) if v in pos_b]
    pairs = [(i, j) for i in range(len(common)) for j in range(i + 1, len(common))]
    if not pairs:
        return 1.0
    kept = sum(1 for i, j in pairs if pos_b[common[i]] < pos_b[common[j]])
    return kept / len(pairs)


def _value_closeness(a: ChartSpec, b: ChartSpec) -> float:
    def cells(spec: ChartSpec) -> dict[tuple[str, str], float]:
        xs = spec.table.labels(spec.encoding.x)
        out: dict[tuple[str, str], float] = {}
        for col in spec.encoding.y:
            for x, v in zip(xs, spec.table.numbers(col), strict=True):
                if v is not None:
                    out.setdefault((x, col), v)
        return out

    ca, cb = cells(a), cells(b)
    common = [k for k in ca if k in cb]
    if not common:
        return 0.0 if (ca or cb) else 1.0
    everything = [*ca.values(), *cb.values()]
    span = max(everything) - min(everything)
    if span == 0:
        return 1.0
    gap = sum(abs(ca[k] - cb[k]) for k in common) / len(common)
    return max(0.0, 1.0 - gap / span)


def select_least_similar(
    scored: Iterable[tuple[K, float]],
    budget: int,
    *,
    ceiling: float | None = None,
    floor: float | None = None,
    groups: dict[K, Hashable] | None = None,
    per_group: int | None = None,
) -> list[K]:
    """The keys of at most `budget` items with the lowest similarity to their original.

    `ceiling` drops items at least that similar (near-duplicates whose differences are too
    subtle to learn from: ChartCF's filter of overly hard samples); `floor` drops items less
    similar than it. With `groups` (key → original id) and `per_group`, at most `per_group`
    items are taken per original. Ties break by key order of appearance, so the choice is
    deterministic.
    """
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    items = [
        (s, i, k)
        for i, (k, s) in enumerate(scored)
        if (ceiling is None or s < ceiling) and (floor is None or s >= floor)
    ]
    items.sort(key=lambda t: (t[0], t[1]))
    taken: list[K] = []
    per: dict[Hashable, int] = {}
    for _, _, key in items:
        if len(taken) >= budget:
            break
        if groups is not None and per_group is not None:
            g = groups.get(key)
            if per.get(g, 0) >= per_group:
                continue
            per[g] = per.get(g, 0) + 1
        taken.append(key)
    return taken
