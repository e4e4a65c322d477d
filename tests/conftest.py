"""Test-wide settings: one thread per math library, offline hubs, a private response cache and
OCR runtime plan."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# must be set before numpy/torch start their thread pools
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(autouse=True, scope="session")
def _private_ocr_plan(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The OCR runtime plan is measured once per test session into a file of its own (worker
    processes inherit the variable), never the user's."""
    from chartproof.ocr.runtime import PLAN_ENV

    before = os.environ.get(PLAN_ENV)
    os.environ[PLAN_ENV] = str(tmp_path_factory.mktemp("ocr-plan") / "ocr-plan.json")
    yield
    if before is None:
        os.environ.pop(PLAN_ENV, None)
    else:
        os.environ[PLAN_ENV] = before


@pytest.fixture(autouse=True)
def _private_response_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Never read or write the user's response cache from a test."""
    monkeypatch.setenv("CHARTPROOF_CACHE", str(tmp_path_factory.mktemp("cache") / "r.sqlite"))
    yield


@pytest.fixture(autouse=True)
def _cli_quiets_third_parties_for_one_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLI command run in-process sets the variables that silence other libraries'
    progress bars (`cli._progress.quiet_third_party`); they are put back after each test."""
    from chartproof.cli._progress import _QUIET_ENV

    for key in _QUIET_ENV:
        if key in os.environ:
            monkeypatch.setenv(key, os.environ[key])
        else:
            monkeypatch.delenv(key, raising=False)
