"""Fixtures of the reader tests: one OCR engine per session, a handful of small rendered
charts with known tables, and their readings (OCR is the slow part: each image once)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from chartproof.types import ChartSpec, Column, DataTable, Encoding, Style

SHARED_CHARTQA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "chartqa"


def _table(x: str, labels: list[str], series: dict[str, list[float]]) -> DataTable:
    kind = "time" if all(lab.isdigit() for lab in labels) else "category"
    cols = (Column(name=x, kind=kind), *(Column(name=s) for s in series))
    rows = tuple((lab, *(series[s][i] for s in series)) for i, lab in enumerate(labels))
    return DataTable(columns=cols, rows=rows)


def _spec(cid: str, kind: str, table: DataTable, **style: object) -> ChartSpec:
    return ChartSpec(
        id=cid,
        chart_type=kind,  # type: ignore[arg-type]
        table=table,
        encoding=Encoding(x=table.names[0], y=tuple(table.names[1:])),
        style=Style(width=5.0, height=3.6, **style),  # type: ignore[arg-type]
    )


SPECS: dict[str, ChartSpec] = {
    "vbar": _spec(
        "vbar",
        "vbar",
        _table(
            "Fruit", ["Apple", "Banana", "Cherry", "Durian"], {"Sales": [12.5, 30.0, 22.0, 7.0]}
        ),
        y_title="Sales (t)",
        title="Fruit sales",
    ),
    "hbar": _spec(
        "hbar",
        "hbar",
        _table("Country", ["France", "Japan", "Brazil"], {"Exports": [340.0, 125.0, 610.0]}),
        value_labels=True,
    ),
    "grouped": _spec(
        "grouped",
        "grouped_bar",
        _table(
            "Year", ["2019", "2020", "2021"], {"North": [4.0, 6.5, 5.0], "South": [7.0, 3.0, 8.0]}
        ),
        x_title="Year",
    ),
    "stacked": _spec(
        "stacked",
        "stacked_bar",
        _table(
            "Region",
            ["East", "West", "Central"],
            {"Online": [20.0, 35.0, 15.0], "Retail": [40.0, 25.0, 30.0]},
        ),
    ),
    "line": _spec(
        "line",
        "line",
        _table(
            "Year",
            ["2015", "2016", "2017", "2018", "2019"],
            {"Coal": [52.0, 48.0, 45.0, 41.0, 37.0], "Wind": [8.0, 12.0, 17.0, 21.0, 26.0]},
        ),
        legend_loc="outside right",
    ),
    "pie": _spec(
        "pie",
        "pie",
        _table("Source", ["Gas", "Coal", "Hydro", "Solar"], {"Share": [40.0, 30.0, 20.0, 10.0]}),
        value_labels=True,
    ),
}
"""Small charts with known tables, one per chart family the reader must recover."""


@pytest.fixture(scope="session")
def engine() -> object:
    """The process-wide OCR engine (skips the module when rapidocr is not installed)."""
    pytest.importorskip(
        "rapidocr", reason="the reader's OCR needs: pip install 'chartproof[reader]'"
    )
    pytest.importorskip("cv2", reason="the reader needs: pip install 'chartproof[reader]'")
    from chartproof.reader.perception import get_engine

    return get_engine()


@pytest.fixture(scope="session")
def chart_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PNG files of `SPECS`, rendered once."""
    from chartproof.charts import render

    folder = tmp_path_factory.mktemp("charts")
    for name, spec in SPECS.items():
        (folder / f"{name}.png").write_bytes(render(spec).png)
    return folder


@pytest.fixture(scope="session")
def read_png(engine: object) -> Callable[[Path], object]:
    """Read a chart image once per session (cached by path)."""
    from chartproof.reader.perception import read_chart
    from chartproof.reader.perception.image import load_image

    cache: dict[Path, object] = {}

    def read(path: Path) -> object:
        if path not in cache:
            image = load_image(path)
            cache[path] = read_chart(image, engine.read(image))  # type: ignore[attr-defined]
        return cache[path]

    return read


def png_bytes(array: np.ndarray) -> bytes:
    """An RGB array as PNG bytes."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format="PNG")
    return buf.getvalue()


def classifier_network(
    path: Path,
    features: int,
    classes: int,
    meta: dict[str, str] | None = None,
    columns: int = 2,
) -> np.ndarray:
    """Write a recogniser's output layer alone as an ONNX model: features (1, `columns`,
    `features`) -> MatMul -> Add -> Identity -> Softmax over `classes`, with `meta` as model
    properties (rapidocr's models hold their dictionary under "character"). Returns the
    weights with the bias as their last row."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = rng.standard_normal((features, classes)).astype(np.float32)
    b = rng.standard_normal(classes).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["logits"]),
            helper.make_node("Add", ["logits", "b"], ["biased"]),
            helper.make_node("Identity", ["biased"], ["same"]),
            helper.make_node("Softmax", ["same"], ["probs"], axis=-1),
        ],
        "net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, columns, features])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, columns, None])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    if meta:
        helper.set_model_props(model, meta)
    onnx.save(model, str(path))
    return np.concatenate([w, b[None, :]])
