"""Option-order variants of multiple-choice samples, so position bias becomes a measured
robustness axis: seeded shuffles (`shuffle_choices`) and the circular rotations that put the
gold option at every position once (`rotate_choices`, MMBench's CircularEval).

Each variant is recorded HELM-style as a perturbation `Transform` (name, level, the new
order as indices into the parent's options, the seed derived from the sample id) and keeps
the image, question and gold option: answers are option texts, so the gold stays right in
any order. Breakdowns by `perturbation` then give accuracy per ordering, and the
`gold_position` label accuracy per gold letter.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from chartproof.seeds import stable_seed
from chartproof.types import Sample, Transform

__all__ = [
    "CHOICE_ORDERS",
    "apply_choice_order",
    "choice_order_variants",
    "rotate_choices",
    "shuffle_choices",
]

SHUFFLE = "shuffle_choices"
ROTATE = "rotate_choices"
CHOICE_ORDERS = (SHUFFLE, ROTATE)
"""Names of the option-order perturbations."""


def _variant(sample: Sample, name: str, level: int, order: Sequence[int], seed: int) -> Sample:
    transform = Transform(
        kind="perturbation",
        name=name,
        params={"order": ",".join(str(i) for i in order)},
        seed=seed,
        level=level,
        answer_preserved=True,
    )
    data = sample.model_dump()
    data.update(
        id=f"{sample.id}~{name}-{level}",
        choices=[sample.choices[i] for i in order],
        parent_id=sample.id,
        transforms=[*data["transforms"], transform.model_dump()],
    )
    # validated again: the gold option must still be among the reordered options
    return Sample.model_validate(data)


def _needs_choices(sample: Sample) -> None:
    if not sample.choices:
        raise ValueError(f"sample {sample.id!r} has no answer options to reorder")


def shuffle_choices(sample: Sample, *, level: int = 1, seed: int = 0) -> Sample:
    """A variant with the options in a seeded random order other than the original.

    The seed is derived from (sample id, name, level, `seed`), so the same call always gives
    the same order; levels 1, 2, ... give independent shuffles. The identity order is drawn
    again (it would measure nothing), which a two-option question turns into a swap.
    """
    _needs_choices(sample)
    derived = stable_seed(sample.id, SHUFFLE, level, seed)
    rng = random.Random(derived)
    k = len(sample.choices)
    order = list(range(k))
    while order == list(range(k)):
        rng.shuffle(order)
    return _variant(sample, SHUFFLE, level, order, derived)


def rotate_choices(sample: Sample, shift: int) -> Sample:
    """A variant with the options rotated by `shift` places (1 .. k−1): option i moves to
    position (i + shift) mod k, so the k − 1 shifts with the original put the gold at every
    position once."""
    _needs_choices(sample)
    k = len(sample.choices)
    if not 1 <= shift < k:
        raise ValueError(f"shift must be 1..{k - 1} for {k} options, got {shift}")
    order = [(i - shift) % k for i in range(k)]
    return _variant(sample, ROTATE, shift, order, 0)


def apply_choice_order(sample: Sample, transform: Transform) -> Sample:
    """Replay a recorded option-order transform on the original sample (the same variant)."""
    if transform.name not in CHOICE_ORDERS:
        raise ValueError(f"{transform.name!r} is not an option-order perturbation")
    order = [int(i) for i in str(transform.params["order"]).split(",")]
    if sorted(order) != list(range(len(sample.choices))):
        raise ValueError(f"order {order} does not fit the {len(sample.choices)} options")
    return _variant(sample, transform.name, transform.level or 1, order, transform.seed)


def choice_order_variants(
    samples: Iterable[Sample], *, shuffles: int = 0, rotations: bool = False, seed: int = 0
) -> list[Sample]:
    """The samples followed, for each multiple-choice one, by `shuffles` seeded shuffles
    and (with `rotations`) its k − 1 circular rotations; other samples pass through alone."""
    out: list[Sample] = []
    for s in samples:
        out.append(s)
        if not s.choices:
            continue
        out.extend(shuffle_choices(s, level=level, seed=seed) for level in range(1, shuffles + 1))
        if rotations:
            out.extend(rotate_choices(s, shift) for shift in range(1, len(s.choices)))
    return out
