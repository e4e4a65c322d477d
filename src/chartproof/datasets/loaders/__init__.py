"""Loaders that turn datasets on disk into `Sample`s, one module per layout, each registered
by name with `@register_loader` (plus a layout detector) so the CLI can say
`--data chartqa:/path` (or just a path, whose format is then detected)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from chartproof.datasets.errors import LoadResult

# importing a loader module registers its loaders (detection follows each detector's order)
from chartproof.datasets.loaders import native  # noqa: F401  (chartproof, parquet)
from chartproof.datasets.loaders._fields import FieldMap
from chartproof.datasets.loaders._registry import (
    DETECTORS,
    LOADERS,
    Loader,
    detect_folder,
    register_loader,
)
from chartproof.datasets.loaders.chartbench import load_chartbench
from chartproof.datasets.loaders.chartbias import load_chartbias
from chartproof.datasets.loaders.chartqa import load_chartqa
from chartproof.datasets.loaders.chartqapro import load_chartqapro
from chartproof.datasets.loaders.chartqax import load_chartqax
from chartproof.datasets.loaders.chartx import load_chartx
from chartproof.datasets.loaders.charxiv import load_charxiv
from chartproof.datasets.loaders.csv_questions import load_csv
from chartproof.datasets.loaders.dvqa import load_dvqa
from chartproof.datasets.loaders.evochart import load_evochart
from chartproof.datasets.loaders.figureqa import load_figureqa
from chartproof.datasets.loaders.generic import load_json, load_jsonl, load_shared
from chartproof.datasets.loaders.hf_folder import load_hf_folder
from chartproof.datasets.loaders.opencqa import load_opencqa
from chartproof.datasets.loaders.plotqa import load_plotqa
from chartproof.datasets.loaders.realcqa import load_realcqa

__all__ = [
    "DETECTORS",
    "LOADERS",
    "FieldMap",
    "Loader",
    "detect_format",
    "load_chartbench",
    "load_chartbias",
    "load_chartqa",
    "load_chartqapro",
    "load_chartqax",
    "load_chartx",
    "load_charxiv",
    "load_csv",
    "load_dataset",
    "load_dvqa",
    "load_evochart",
    "load_figureqa",
    "load_hf_folder",
    "load_json",
    "load_jsonl",
    "load_opencqa",
    "load_plotqa",
    "load_realcqa",
    "load_shared",
    "parse_data_spec",
    "register_loader",
]


def parse_data_spec(spec: str | Path) -> tuple[str | None, Path, dict[str, str]]:
    """Split "name:path?key=value&key=value" into the loader name (None when absent),
    the path and loader options, e.g. "jsonl:data.jsonl?question=query&answer=label"."""
    text = str(spec)
    name: str | None = None
    head, sep, rest = text.partition(":")
    if sep and head in LOADERS:
        name, text = head, rest
    path_text, _, query = text.partition("?")
    options: dict[str, str] = {}
    for part in filter(None, query.split("&")):
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise ValueError(f"data option {part!r} in {str(spec)!r} is not key=value")
        options[key] = value
    return name, Path(path_text), options


def _chartproof_parquet(path: Path) -> bool:
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).schema_arrow.metadata or {}
    return meta.get(b"chartproof") is not None


def detect_format(path: Path) -> str:
    """Guess the loader of a path from its layout (the registered detectors, in order):
    samples.jsonl → native; the ChartQA, FigureQA, PlotQA, DVQA, ChartBias, RealCQA, OpenCQA,
    CharXiv, ChartBench and ChartX release layouts; a Hugging Face folder (state.json,
    dataset_dict.json or Parquet files) → `hf`; a .parquet file → `parquet`
    when chartproof wrote it, else `hf`; .jsonl → `shared`; .csv → `csv`. ChartQA-Pro,
    ChartQA-X and EvoChart folders look like any hub folder: name their loader."""
    path = Path(path)
    if path.is_dir():
        found = detect_folder(path)
        if found is not None:
            return found
    elif path.suffix == ".parquet" and path.is_file():
        return "parquet" if _chartproof_parquet(path) else "hf"
    elif path.suffix == ".arrow":
        return "hf"
    elif path.name == "samples.jsonl":
        return "chartproof"
    elif path.suffix == ".jsonl":
        return "shared"
    elif path.suffix == ".csv":
        return "csv"
    if not path.exists():
        raise FileNotFoundError(
            f"no dataset at {path}: no such file or folder; check the path (a dataset folder, "
            "a .jsonl, .csv or .parquet file, or LOADER:PATH such as chartqa:DIR)"
        )
    raise ValueError(
        f"cannot tell the format of {path}; name a loader, e.g. 'jsonl:{path}' "
        f"(loaders: {sorted(LOADERS)})"
    )


def load_dataset(spec: str | Path, *, strict: bool = False, **options: Any) -> LoadResult:
    """Load a dataset named by a data spec ("chartqa:/path?split=val", a path).

    Options in the spec and keyword options are passed to the loader. A loader that takes
    `fields` (the record loaders: jsonl, json, csv, hf) gets the field options (`question`,
    `groups`, ...) parsed once into a `FieldMap`; its own options (hf's `split`) come first.
    An option the loader does not take raises ValueError listing those it does.
    """
    name, path, spec_options = parse_data_spec(spec)
    name = name or detect_format(path)
    loader = LOADERS.get(name)
    if loader is None:
        raise ValueError(f"no loader called {name!r}; loaders: {sorted(LOADERS)}")
    merged = {**spec_options, **options}
    params = inspect.signature(loader).parameters
    own = [
        p.name
        for p in params.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in ("strict", "fields")
    ]
    field_keys = [k for k in FieldMap.options() if k not in own] if "fields" in params else []
    takes_fields = {"fields"} if "fields" in params else set()
    unknown = sorted(set(merged) - set(own) - set(field_keys) - takes_fields)
    if unknown:
        raise ValueError(f"loader {name!r} takes no option {unknown}; it takes {own + field_keys}")
    if "check_images" in merged and isinstance(merged["check_images"], str):
        merged["check_images"] = merged["check_images"].lower() not in ("0", "false", "no")
    if takes_fields:
        base = merged.get("fields")
        if base is not None and not isinstance(base, FieldMap):
            raise ValueError(f"loader {name!r}: fields must be a FieldMap, got {base!r:.60}")
        given = {k: merged.pop(k) for k in field_keys if k in merged}
        merged["fields"] = FieldMap.parse(given, base)
    return loader(path, strict=strict, **merged)
