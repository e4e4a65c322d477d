"""Multiple-choice scoring: chance level and chance-corrected accuracy, per sample, so that
every breakdown (by chart type, gold position, perturbation) gets them for free.

With k options a uniform guess is right with probability 1/k. A sample's chance-corrected
score is (acc − 1/k) / (1 − 1/k): 1 when right, −1/(k − 1) when wrong, so its mean over a
set is the classical correction-for-guessing formula score (R − W/(k − 1)) / N, which is 0
in expectation for a guesser and 1 for a perfect model whatever mix of k the set holds.
The mean of the per-sample `chance` is the accuracy a uniform guesser expects on the set —
the baseline reported beside accuracy.
"""

from __future__ import annotations

from collections.abc import Sequence

from chartproof.answers import matches
from chartproof.metrics.registry import Metric, scorer
from chartproof.types import Answer, Sample

__all__ = [
    "CHOICE_METRICS",
    "chance_corrected",
    "chance_level",
    "choice_answer_scores",
    "choice_scores",
]

CHOICE_METRICS = ("choice_accuracy", "chance_corrected_accuracy", "chance")
"""Per-sample scores a multiple-choice sample adds to the accuracy family: its accuracy
again (so the mean runs over the multiple-choice samples only, beside their chance), the
chance-corrected score and the chance level. Other samples leave them out."""


def chance_level(n_options: int) -> float:
    """Probability that a uniform guess among `n_options` is right (ValueError below 2)."""
    if n_options < 2:
        raise ValueError(f"a multiple-choice question needs two or more options, got {n_options}")
    return 1.0 / n_options


def chance_corrected(accuracy: float, chance: float) -> float:
    """(accuracy − chance) / (1 − chance): 0 at chance, 1 when always right."""
    if not 0.0 <= chance < 1.0:
        raise ValueError(f"chance must be in [0, 1), got {chance}")
    return (accuracy - chance) / (1.0 - chance)


def choice_scores(accuracy: float, choices: Sequence[str]) -> dict[str, float | None]:
    """The multiple-choice scores of one sample (`accuracy` 0 for a failed call): accuracy,
    chance-corrected accuracy and the sample's chance level; {} for a sample without
    options."""
    if not choices:
        return {}
    chance = chance_level(len(choices))
    return {
        "choice_accuracy": accuracy,
        "chance_corrected_accuracy": chance_corrected(accuracy, chance),
        "chance": chance,
    }


@scorer(
    kind="sample",
    name="choice",
    protocols=("direct",),
    metrics=[
        Metric(
            "choice_accuracy",
            "multiple-choice accuracy",
            headline={"direct": 0.1},
            on_failure="recorded",
            description="accuracy over the multiple-choice samples only",
        ),
        Metric(
            "chance",
            "chance",
            headline={"direct": 0.2},
            on_failure="recorded",
            description="accuracy a uniform guess among the options expects (1/k)",
        ),
        Metric(
            "chance_corrected_accuracy",
            "chance-corrected accuracy",
            headline={"direct": 0.3},
            on_failure="recorded",
            description="(accuracy - 1/k) / (1 - 1/k): 0 for a guesser, 1 when always right",
        ),
    ],
)
def choice_answer_scores(
    prediction: str, gold: Answer, *, sample: Sample
) -> dict[str, float | None]:
    """The multiple-choice scores of a sample with options (right when the answer is the
    gold option, `chartproof.answers.matches`); nothing for a sample without options."""
    return choice_scores(float(matches(prediction, gold)), sample.choices)
