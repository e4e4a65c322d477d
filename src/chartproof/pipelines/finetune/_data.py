"""Training examples from chartproof samples: ChartQA-X "Answer: ... Explanation: ..." targets,
the train/validation split, the data fingerprint, and the held-out check for evaluation."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chartproof.datasets import resolve_image
from chartproof.models.chart_text import chart_metadata
from chartproof.models.images import image_part
from chartproof.models.prompts import PromptSet, build_request, default_prompts
from chartproof.types import GenerationConfig, ModelRequest, Sample

__all__ = [
    "TARGET_FORMAT",
    "SFTExample",
    "SplitReport",
    "chart_request",
    "data_fingerprint",
    "format_target",
    "sft_examples",
    "split_samples",
]

TARGET_FORMAT = "Answer: {answer}. Explanation: {explanation}"
"""ChartQA-X §5.1's fine-tuning target (the loss covers all of it, prompt tokens masked)."""


def format_target(template: str, answer: str, explanation: str | None) -> str:
    """The target text: `template` with the answer (trailing full stop dropped, as the template
    adds one) and the explanation filled in."""
    return template.format(answer=answer.rstrip(". "), explanation=(explanation or "").strip())


@dataclass(frozen=True)
class SFTExample:
    """One supervised example: the eval request for a sample and the text it should produce."""

    sample_id: str
    """The sample trained on."""
    request: ModelRequest
    """Exactly what `chartproof eval` would send for the sample (image, prompt, chart text)."""
    target: str
    """The assistant's reply to learn."""
    image_sha256: str
    """Content hash of the chart image (to prove evaluation data was never trained on)."""


def chart_request(
    sample: Sample,
    root: Path,
    *,
    prompt: str,
    prompts: PromptSet | None = None,
    request_id: str | None = None,
    image: Sample | None = None,
    config: GenerationConfig | None = None,
) -> ModelRequest:
    """The request `eval`'s direct protocol builds for `sample` (its charts as images, in
    order, and as text); `image` swaps in another sample's chart (visual preference pairs)."""
    chart = image or sample
    return build_request(
        prompt,
        [image_part(resolve_image(root, ref)) for ref in chart.images],
        sample.question,
        request_id=request_id or f"{sample.id}/direct",
        config=config,
        prompts=prompts or default_prompts(),
        metadata={"sample_id": sample.id, **chart_metadata(chart)},
    )


@dataclass(frozen=True)
class SplitReport:
    """How the samples were divided (recorded on the training card)."""

    rule: str
    """In words: which `split` values were used, or the hash rule when none was given."""
    train: int
    """Training samples."""
    validation: int
    """Validation samples."""


def _chart_of(s: Sample) -> str:
    """The unit of the hold-out: a counterfactual family, else the chart."""
    if s.family_id:
        return s.family_id
    return s.spec.id if s.spec is not None else (s.image.sha256 or s.image.path)


def split_samples(
    samples: Sequence[Sample],
    *,
    train_split: str = "train",
    val_split: str = "val",
    val_fraction: float = 0.1,
) -> tuple[list[Sample], list[Sample], SplitReport]:
    """Train and validation samples from the dataset's `split` field.

    Samples whose split is `train_split` train and those whose split is `val_split` (or
    "validation"/"dev") validate. A dataset with no `train_split` sample (chartproof's
    generated suites are all "test") trains on every sample and holds out `val_fraction` of
    its *charts* by a hash of the chart, so no chart is in both.
    """
    val_names = {val_split, "validation", "dev"}
    train = [s for s in samples if s.split == train_split]
    if train:
        val = [s for s in samples if s.split in val_names]
        rule = f"split == {train_split!r} trains, split in {sorted(val_names)} validates"
        return train, val, SplitReport(rule=rule, train=len(train), validation=len(val))
    cut = int(val_fraction * 10_000)
    train, val = [], []
    for s in samples:
        h = int(hashlib.sha256(_chart_of(s).encode()).hexdigest()[:8], 16) % 10_000
        (val if h < cut else train).append(s)
    rule = (
        f"no sample has split {train_split!r}: all samples, {val_fraction:.0%} of charts "
        "held out for validation by sha256(chart) mod 10000"
    )
    return train, val, SplitReport(rule=rule, train=len(train), validation=len(val))


def sft_examples(
    samples: Iterable[Sample],
    root: Path,
    *,
    prompt: str = "chartqax@1",
    target_format: str = TARGET_FORMAT,
    prompts: PromptSet | None = None,
) -> tuple[list[SFTExample], int]:
    """Examples for the samples that have a reference explanation (when the target uses
    one), and how many were skipped for lacking it."""
    needs_explanation = "{explanation}" in target_format
    out: list[SFTExample] = []
    skipped = 0
    for s in samples:
        if needs_explanation and not (s.explanation or "").strip():
            skipped += 1
            continue
        if s.more_images:  # the leakage check and the collators track one chart a sample
            raise ValueError(
                f"sample {s.id!r} shows {len(s.images)} charts; fine-tuning takes one-chart samples"
            )
        request = chart_request(s, root, prompt=prompt, prompts=prompts)
        target = format_target(target_format, s.answer.text(), s.explanation)
        sha = s.image.sha256 or request_image_sha(request)
        out.append(SFTExample(sample_id=s.id, request=request, target=target, image_sha256=sha))
    return out, skipped


def request_image_sha(request: ModelRequest) -> str:
    """The content hash of the request's first image ("" when it has none)."""
    from chartproof.types import ImagePart

    for m in request.messages:
        for p in m.content:
            if isinstance(p, ImagePart):
                return p.sha256
    return ""


def data_fingerprint(rows: Iterable[tuple[str, ...]]) -> str:
    """ "sha256:<hex>" of the training rows (prompt id, sample id, image hash, targets),
    independent of their order."""
    h = hashlib.sha256()
    for row in sorted(rows):
        h.update(json.dumps(row, ensure_ascii=False).encode("utf-8"))
        h.update(b"\n")
    return "sha256:" + h.hexdigest()
