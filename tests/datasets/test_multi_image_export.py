"""Multi-image samples through the Parquet and Hugging Face exports: the `more_images`
column (a sequence of `Image` cells) holds a question's other charts in order, and every
way back (load_parquet, `hf:` on a saved export, samples_from_hf, `datasets` reading the
Parquet file) restores the same samples with every image's bytes in order. Files of the
one-image layout ("samples/2") still load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from PIL import Image

from chartproof.datasets import (
    EXPORT_COLUMNS,
    load_dataset,
    load_parquet,
    samples_from_hf,
    save_parquet,
    to_hf_dataset,
)
from chartproof.types import Answer, ImageRef, Sample

COLOURS = {"a.png": (220, 30, 30), "b.png": (20, 180, 40), "c.png": (20, 40, 210)}
ORDER = ("c.png", "a.png", "b.png")


@pytest.fixture
def multi(tmp_path: Path) -> tuple[Path, list[Sample]]:
    root = tmp_path / "multi"
    (root / "charts").mkdir(parents=True)
    for name, colour in COLOURS.items():
        Image.new("RGB", (16, 12), colour).save(root / "charts" / name)
    samples = [
        Sample(
            id="three",
            images=[ImageRef(path=f"charts/{n}") for n in ORDER],
            question="Which chart shows the highest value?",
            answer=Answer.of_text("chart 2"),
        ),
        Sample(
            id="one",
            image=ImageRef(path="charts/a.png"),
            question="What is the value?",
            answer=Answer.number(4.0),
        ),
    ]
    return root, samples


def _colour(image: Any) -> tuple[int, ...]:
    return tuple(image.convert("RGB").getpixel((0, 0)))


def _colours_on_disk(root: Path, sample: Sample) -> list[tuple[int, ...]]:
    out = []
    for ref in sample.images:
        with Image.open(root / ref.path) as im:
            out.append(_colour(im))
    return out


def test_parquet_round_trip_keeps_every_image_in_order(
    multi: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    root, samples = multi
    path = save_parquet(samples, tmp_path / "m.parquet", embed_images=True, root=root)
    table = pq.read_table(path)
    assert table.column_names == list(EXPORT_COLUMNS)
    more = table.column("more_images").to_pylist()
    assert [m["path"] for m in more[0]] == ["charts/a.png", "charts/b.png"] and more[1] == []
    assert more[0][1]["bytes"] == (root / "charts" / "b.png").read_bytes()
    result = load_parquet(path, image_dir=tmp_path / "unpacked")
    assert result.samples == samples and result.errors == []
    three = result.samples[0]
    assert _colours_on_disk(tmp_path / "unpacked", three) == [COLOURS[n] for n in ORDER]
    # without embedded bytes the paths are checked against the folder, every one of them
    plain = save_parquet(samples, root / "plain.parquet")
    assert load_parquet(plain, check_images=True).samples == samples
    (root / "charts" / "b.png").unlink()
    broken = load_parquet(plain, check_images=True)
    assert [(e.sample_id, e.field) for e in broken.errors] == [("three", "more_images.1.path")]


def test_hf_export_round_trip_keeps_every_image_in_order(
    multi: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    datasets = pytest.importorskip("datasets")
    root, samples = multi
    ds = to_hf_dataset(samples, root)
    assert ds.column_names == list(EXPORT_COLUMNS)
    assert type(ds.features["more_images"].feature).__name__ == "Image"
    first = ds[0]
    assert [_colour(im) for im in [first["image"], *first["more_images"]]] == [
        COLOURS[n] for n in ORDER
    ]
    assert ds[1]["more_images"] == []
    assert samples_from_hf(ds) == samples
    # a saved export loads back through `hf:` with the images written to the cache
    ds.save_to_disk(str(tmp_path / "hf"))
    cache = tmp_path / "cache"
    loaded = load_dataset(f"hf:{tmp_path / 'hf'}?images={cache}")
    assert loaded.errors == []
    three, one = loaded.samples
    assert [s.id for s in loaded.samples] == ["three", "one"] and len(three.images) == 3
    assert _colours_on_disk(cache, three) == [COLOURS[n] for n in ORDER]
    assert three.question == samples[0].question and one.more_images == ()
    # `datasets` reads chartproof's Parquet file with the same features
    path = save_parquet(samples, tmp_path / "m.parquet", embed_images=True, root=root)
    from_parquet = datasets.Dataset.from_parquet(str(path))
    assert from_parquet.features == ds.features
    assert [_colour(im) for im in from_parquet[0]["more_images"]] == [
        COLOURS["a.png"],
        COLOURS["b.png"],
    ]
    assert samples_from_hf(from_parquet) == samples


def test_hf_export_cell_without_bytes_is_a_row_error(
    multi: tuple[Path, list[Sample]], tmp_path: Path
) -> None:
    import pyarrow as pa

    root, samples = multi
    path = save_parquet(samples, tmp_path / "x" / "m.parquet", embed_images=True, root=root)
    table = pq.read_table(path)
    more = table.column("more_images").to_pylist()
    more[0][0]["bytes"] = None
    at = table.schema.get_field_index("more_images")
    table = table.set_column(
        at, table.schema.field(at), pa.array(more, table.schema.field(at).type)
    )
    pq.write_table(table, path)
    loaded = load_dataset(f"hf:{path}?images={tmp_path / 'cache'}")
    assert [s.id for s in loaded.samples] == ["one"]
    assert [(e.sample_id, e.field) for e in loaded.errors] == [("three", "more_images.0")]
    assert "holds no bytes" in loaded.errors[0].message


def test_one_image_layout_still_loads(multi: tuple[Path, list[Sample]], tmp_path: Path) -> None:
    root, samples = multi
    one = samples[1:]
    path = save_parquet(one, tmp_path / "new.parquet", embed_images=True, root=root)
    table = pq.read_table(path).drop_columns(["more_images", "more_images_json"])
    meta = dict(table.schema.metadata)
    meta[b"chartproof"] = b"samples/2"
    pq.write_table(table.replace_schema_metadata(meta), tmp_path / "old.parquet")
    result = load_parquet(tmp_path / "old.parquet", image_dir=tmp_path / "img")
    assert result.samples == one and result.errors == []
    hf = load_dataset(f"hf:{tmp_path / 'old.parquet'}?images={tmp_path / 'cache'}")
    assert [s.id for s in hf.samples] == ["one"] and hf.errors == []


def test_one_chart_pipelines_get_one_warning_line(multi: tuple[Path, list[Sample]]) -> None:
    from chartproof.datasets import LoadResult

    _, samples = multi
    many = [samples[0].model_copy(update={"id": f"m{i}"}) for i in range(5)]
    assert LoadResult(samples=samples[1:]).first_chart_only("derender") is None
    assert LoadResult(samples=samples).first_chart_only("derender") == (
        "1 of 2 samples show several charts ('three'); derender reads only the first chart of each"
    )
    line = LoadResult(samples=many + samples[1:]).first_chart_only("the audit")
    assert line == (
        "5 of 6 samples show several charts ('m0', 'm1', 'm2' and 2 more); "
        "the audit reads only the first chart of each"
    )
