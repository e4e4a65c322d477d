"""Fixtures for dataset IO tests: small realistic samples with real PNG files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from chartproof.types import (
    Answer,
    ChartSpec,
    Column,
    DataTable,
    Encoding,
    ImageRef,
    Premise,
    Sample,
    Step,
    Transform,
)

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"

MakeSample = Callable[..., Sample]
WritePng = Callable[..., Path]


def _write_png(path: Path, color: tuple[int, int, int] = (200, 30, 30), size: int = 8) -> Path:
    """A tiny real PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (size, size), color).save(path)
    return path


@pytest.fixture
def write_png() -> WritePng:
    """Writes a tiny real PNG at a path."""
    return _write_png


@pytest.fixture
def shared_data() -> Path:
    """The shared real-data folder; the test is skipped when a clone has none."""
    if not SHARED.is_dir():
        pytest.skip(f"shared real data not found at {SHARED} (only present next to the repo)")
    return SHARED


@pytest.fixture
def make_sample() -> MakeSample:
    """Factory of samples with a table, spec, chain, premises and a transform."""

    def make(i: int = 0, *, image: str | None = None, answer: Answer | None = None) -> Sample:
        table = DataTable(
            columns=(Column(name="Year", kind="time"), Column(name="Sales", unit="million USD")),
            rows=(("2019", 1.5 + i), ("2020", 3.25), ("2021", None)),
        )
        spec = ChartSpec(
            id=f"chart-{i}",
            chart_type="vbar",
            table=table,
            encoding=Encoding(x="Year", y=("Sales",)),
        )
        return Sample(
            id=f"s-{i}",
            image=ImageRef(path=image or f"images/{i}.png"),
            question=f"What were sales in 2019 (chart {i})?",
            answer=answer or Answer.number(1.5 + i, unit="million USD"),
            table=table,
            spec=spec,
            chart_type="vbar",
            question_type="VE",
            task_type="VE",
            chain=(
                Step(id=0, question="Which bar is 2019?", answer=Answer.of_text("2019"), task_type="PR"),
                Step(id=1, question="Its value?", depends_on=(0,), answer=Answer.number(1.5), task_type="VE"),
            ),
            premises=(
                Premise(
                    id="p0", kind="data", text="The 2019 bar is 1.5.", truth=True,
                    template="value_at", slot="value:2019", logic={"op": "eq", "args": ["2019", 1.5]},
                ),
            ),
            groups={"domain": "retail"},
            transforms=(Transform(kind="perturbation", name="blur", params={"sigma": 1.5}, level=1),),
            source={"dataset": "test", "nested": {"a": [1, 2.5, None, True]}},
        )  # fmt: skip

    return make


@pytest.fixture
def dataset(tmp_path: Path, make_sample: MakeSample) -> tuple[Path, list[Sample]]:
    """A native dataset folder of five samples whose images exist."""
    folder = tmp_path / "ds"
    samples = [make_sample(i) for i in range(5)]
    for i, s in enumerate(samples):
        _write_png(folder / s.image.path, color=(10 * i, 100, 150))
    return folder, samples
