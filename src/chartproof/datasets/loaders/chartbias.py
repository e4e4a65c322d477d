"""Loader for ChartBias (seed 003), in either of two layouts:

- the official release (github.com/vis-nlp/ChartBias): `ChartSelected/<Polarity>/vst_*.png`
  (Negative, Neutral, Positive, Volatile) and `CountriesSelected/{High,Middle,Low}_Income.csv`;
- a derived folder: one JSONL of charts (`id, image, polarity`, optional `chart_type`,
  `title`, `eligibility`, `source`) and `high_income.csv`, `middle_income.csv`,
  `low_income.csv`.

The charts carry no question and no gold answer; they become `Sample`s with an empty
question, an empty text answer and `source["audit_only"] = True`, so `chartproof audit`
reads them like any other samples while `eval` refuses them (nothing to score).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path

from pydantic import JsonValue, ValidationError

from chartproof.datasets.errors import LoadResult, RowError, RowLog, validation_message
from chartproof.datasets.images import check_image
from chartproof.datasets.loaders._records import iter_jsonl_records, one_data_file
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Answer, ImageRef, Sample

__all__ = [
    "AUDIT_ONLY",
    "INCOME_FILES",
    "OFFICIAL_COUNTRIES",
    "POLARITIES",
    "income_lists",
    "is_official_chartbias",
    "load_chartbias",
]

POLARITIES = ("positive", "neutral", "negative", "volatile")
"""Polarity labels a ChartBias row may carry."""

INCOME_FILES = {
    "High-income": "high_income.csv",
    "Middle-income": "middle_income.csv",
    "Low-income": "low_income.csv",
}
"""Income group → file of the country list (one name a line after a header line)."""

OFFICIAL_CHARTS = "ChartSelected"
"""The official release's chart folder (one subfolder per polarity)."""

OFFICIAL_COUNTRIES = {
    "High-income": "CountriesSelected/High_Income.csv",
    "Middle-income": "CountriesSelected/Middle_Income.csv",
    "Low-income": "CountriesSelected/Low_Income.csv",
}
"""Income group → the official release's country list."""

_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")

AUDIT_ONLY = "audit_only"
"""`Sample.source` key marking samples that have no question to evaluate."""


def income_lists(folder: str | Path) -> dict[str, tuple[str, ...]]:
    """Income group → country names from the folder's CSV lists (groups whose file is absent
    are left out)."""
    root = Path(folder)
    out: dict[str, tuple[str, ...]] = {}
    for group, name in INCOME_FILES.items():
        p = root / name
        if not p.is_file():
            p = root / OFFICIAL_COUNTRIES[group]
        if not p.is_file():
            continue
        with p.open(encoding="utf-8", newline="") as f:
            rows = [r[0].strip() for r in csv.reader(f) if r and r[0].strip()]
        out[group] = tuple(rows[1:])  # the first line is the list's header
    return out


def _row(
    record: Mapping[str, JsonValue], line: int, file: Path, root: Path, log: RowLog,
    seen: dict[str, int], check_images: bool,
) -> Sample | None:  # fmt: skip
    def fail(message: str, key: str | None, sid: str | None) -> None:
        log.error(RowError(file=str(file), line=line, field=key, sample_id=sid, message=message))

    sid = record.get("id")
    if not isinstance(sid, str) or not sid:
        fail("id is missing or not a string", "id", None)
        return None
    if sid in seen:
        fail(f"duplicate sample id, first used on line {seen[sid]}", "id", sid)
        return None
    image = record.get("image")
    if not isinstance(image, str) or not image:
        fail("image is missing", "image", sid)
        return None
    polarity = record.get("polarity")
    if polarity is not None and polarity not in POLARITIES:
        fail(f"polarity {polarity!r} is not one of {list(POLARITIES)}", "polarity", sid)
        return None
    eligibility = record.get("eligibility")
    if eligibility is not None and not (
        isinstance(eligibility, dict) and all(isinstance(v, bool) for v in eligibility.values())
    ):
        fail("eligibility must map attribute names to true/false", "eligibility", sid)
        return None
    try:
        ref = ImageRef(path=image)
        if check_images:
            check_image(root, ref)
    except (ValidationError, OSError, ValueError) as exc:
        fail(
            validation_message(exc)[1] if isinstance(exc, ValidationError) else str(exc),
            "image",
            sid,
        )
        return None
    chart_type = record.get("chart_type")
    groups = {"polarity": polarity} if isinstance(polarity, str) else {}
    source: dict[str, JsonValue] = {"dataset": "chartbias", AUDIT_ONLY: True}
    source.update({k: v for k, v in record.items() if k not in ("id", "image", "chart_type")})
    seen[sid] = line
    return Sample(
        id=sid,
        image=ref,
        question="",
        answer=Answer.of_text(""),
        chart_type=chart_type if isinstance(chart_type, str) and chart_type else None,
        groups=groups,
        source=source,
    )


def _official_records(root: Path, log: RowLog) -> list[tuple[int, dict[str, JsonValue]]]:
    """One record per chart of `ChartSelected/<Polarity>/`, in file-name order; a subfolder
    that is no polarity is a row error naming it."""
    out: list[tuple[int, dict[str, JsonValue]]] = []
    for folder in sorted(p for p in (root / OFFICIAL_CHARTS).iterdir() if p.is_dir()):
        polarity = folder.name.lower()
        if polarity not in POLARITIES:
            message = f"folder {folder.name!r} is not a polarity {list(POLARITIES)}"
            log.error(RowError(file=str(folder), line=0, field="polarity", message=message))
            continue
        for image in sorted(folder.iterdir()):
            if image.suffix.lower() not in _IMAGE_SUFFIXES or image.name.startswith("."):
                continue
            record: dict[str, JsonValue] = {
                "id": f"chartbias-{image.stem}",
                "image": image.relative_to(root).as_posix(),
                "polarity": polarity,
                "source": "VisText",
            }
            out.append((len(out) + 1, record))
    return out


def is_official_chartbias(path: Path) -> bool:
    """Whether `path` is the official release's folder (it holds `ChartSelected/`)."""
    return (Path(path) / OFFICIAL_CHARTS).is_dir()


@register_loader(
    "chartbias",
    detect=lambda p: (p / "chartbias.jsonl").is_file() or is_official_chartbias(p),
    order=18,
)
def load_chartbias(path: Path, *, strict: bool = False, check_images: bool = True) -> LoadResult:
    """Load a ChartBias folder: the official release (`ChartSelected/<Polarity>/*.png`, ids
    "chartbias-<file stem>") or a derived folder / its JSONL file; bad rows are reported with
    file, line and field. Polarity becomes the `polarity` group label; `eligibility`
    (attribute → bool) overrides the audit's text-based eligibility for that chart."""
    if is_official_chartbias(Path(path)):
        root = Path(path)
        log = RowLog([], strict=strict)
        seen: dict[str, int] = {}
        where = root / OFFICIAL_CHARTS
        samples = [
            s
            for line, record in _official_records(root, log)
            if (s := _row(record, line, where, root, log, seen, check_images)) is not None
        ]
        return LoadResult(samples=samples, errors=log.errors, root=root)
    file = one_data_file(Path(path), ".jsonl", "no ChartBias data")
    root = file.parent
    log = RowLog([], strict=strict)
    seen = {}
    samples = [
        s
        for line, record in iter_jsonl_records(file, log)
        if (s := _row(record, line, file, root, log, seen, check_images)) is not None
    ]
    return LoadResult(samples=samples, errors=log.errors, root=root)
