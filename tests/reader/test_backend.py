"""`builtin:reader` as a backend: registry spec, reply formats, gold-table mode, one reading
per image, and clean per-request errors for corrupt, empty, huge and non-chart images."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from chartproof.models import build_request, load_backend
from chartproof.models.base import Backend
from chartproof.models.registry import SpecError
from chartproof.reader import ReaderBackend, ReaderSettings
from chartproof.types import ModelRequest

from .conftest import SPECS, png_bytes


def _png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares a size but holds no pixel data (a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"") + chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def backend() -> ReaderBackend:
    b = load_backend("builtin:reader")
    assert isinstance(b, ReaderBackend)
    return b


def test_registry_spec_and_options() -> None:
    plain = load_backend("builtin:reader")
    gold = load_backend("builtin:reader?table=gold")
    assert isinstance(plain, Backend) and plain.name == "builtin:reader"
    assert gold.name == "builtin:reader?table=gold"
    assert isinstance(gold, ReaderBackend) and gold.settings.table == "gold"
    with pytest.raises(SpecError, match="bad option"):
        load_backend("builtin:reader?tabel=gold")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.png", b"", "empty"),
        ("corrupt.png", b"\x89PNG\r\n\x1a\n" + b"\x00garbage" * 20, "corrupt or truncated"),
        ("huge.png", _png_declaring(20000, 20000), "declares"),
        ("text.png", b"this is not an image at all", "not a readable image"),
    ],
)
def test_bad_images_fail_cleanly(
    backend: ReaderBackend, tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    req = build_request("chartqax", path, "What is the highest value?", request_id=f"bad-{name}")
    (resp,) = backend.generate([req])
    assert resp.request_id == f"bad-{name}"
    assert resp.error is not None and message in resp.error and name in resp.error
    assert resp.text == ""


@pytest.mark.parametrize(
    ("name", "pixels"),
    [
        ("noise.png", (np.random.default_rng(0).random((120, 160, 3)) * 255).astype(np.uint8)),
        ("blank.png", np.full((120, 160, 3), 255, dtype=np.uint8)),
    ],
)
def test_non_chart_images_fail_cleanly(
    backend: ReaderBackend, engine: object, tmp_path: Path, name: str, pixels: np.ndarray
) -> None:
    path = tmp_path / name
    path.write_bytes(png_bytes(pixels))
    (resp,) = backend.generate([build_request("short", path, "What is the value?", request_id="x")])
    assert resp.error is not None and "no chart found" in resp.error
    # A yes/no question or options still get a reply in their form, saying it is a guess.
    for question, choices, answer in (
        ("Is the value of A equal to 3? Answer 'Yes' or 'No'.", (), "No"),
        ("True or False: A is the maximum.", (), "False"),
        ("What is the value? A. 3 B. cannot be determined", (), "cannot be determined"),
        ("What is the value?", ("4", "5"), "4"),
    ):
        req = build_request("cot", path, question, request_id="y", choices=choices)
        (resp,) = backend.generate([req])
        assert resp.error is None and resp.parsed is not None, resp.error
        assert resp.parsed.answer == answer and "could not be read" in resp.text
    abstains = ReaderBackend(ReaderSettings(abstain=True))
    req = build_request("short", path, "Is A the maximum? Answer yes or no.", request_id="z")
    assert abstains.generate([req])[0].error is not None


def test_one_bad_request_does_not_stop_the_batch(
    backend: ReaderBackend, chart_dir: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    reqs = [
        build_request("short", empty, "What is the value?", request_id="a"),
        build_request(
            "short", chart_dir / "vbar.png", "What is the value of Sales in Banana?", request_id="b"
        ),
    ]
    a, b = backend.generate(reqs)
    assert a.error is not None and b.error is None
    # Unlabelled bars: the value is read on the axis, to a tenth of its tick step.
    assert b.parsed is not None and float(b.parsed.answer or "nan") == pytest.approx(30, abs=0.3)


def test_chartqax_reply_and_reading_cached_per_image(
    chart_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import chartproof.reader.backend as module

    calls: list[str] = []
    real = module._read

    def counted(path: str) -> object:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(module, "_read", counted)
    backend = ReaderBackend()
    chart = chart_dir / "grouped.png"
    reqs = [
        build_request("chartqax", chart, "What is the value of South in 2021?", request_id="q1"),
        build_request("chartqax", chart, "Which Year has the highest North?", request_id="q2"),
        build_request("premise", chart, "The chart shows 2 data series.", request_id="q3"),
    ]
    r1, r2, r3 = backend.generate(reqs)
    assert len(calls) == 1
    assert re.match(r"^The answer is: [\d.]+\. Explanation: \S", r1.text)
    assert r1.parsed is not None and float(r1.parsed.answer or "nan") == pytest.approx(8, abs=0.05)
    # No value is printed on this chart: the explanation must not claim a label was read.
    assert "labelled" not in r1.text and "reaches" in r1.text
    assert r2.parsed is not None and r2.parsed.answer == "2020"
    assert r3.parsed is not None and r3.parsed.truth is True


def _gold_request(question: str, table: str | None, rid: str) -> ModelRequest:
    meta = {"chart_type": "stacked_bar"}
    if table is not None:
        meta["table"] = table
    return build_request("short", None, question, request_id=rid, metadata=meta)


def test_gold_table_mode_skips_perception() -> None:
    backend = ReaderBackend(ReaderSettings(table="gold"))
    csv = SPECS["stacked"].table.to_csv()
    ok, missing = backend.generate(
        [
            _gold_request("What is the total of all segments in West?", csv, "g1"),
            _gold_request("What is the total of all segments in West?", None, "g2"),
        ]
    )
    assert ok.parsed is not None and ok.parsed.answer == "60"
    assert missing.error is not None and "metadata['table']" in missing.error


def test_missing_ocr_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from chartproof.models.registry import MissingDependencyError

    monkeypatch.setitem(sys.modules, "rapidocr", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'chartproof\[reader\]'"):
        load_backend("builtin:reader")
    # Gold-table mode reads no image, so it needs no OCR.
    assert load_backend("builtin:reader?table=gold").name == "builtin:reader?table=gold"


def test_with_table_question_text_is_stripped_in_gold_mode() -> None:
    backend = ReaderBackend(ReaderSettings(table="gold"))
    csv = SPECS["stacked"].table.to_csv()
    question = f"What is the total of all segments in East?\n\nThe chart's data table (CSV):\n{csv}"
    (resp,) = backend.generate([_gold_request(question, csv, "g3")])
    assert resp.parsed is not None and resp.parsed.answer == "60"


def test_printed_values_are_cited_as_labels(chart_dir: Path) -> None:
    (resp,) = ReaderBackend().generate(
        [
            build_request(
                "chartqax",
                chart_dir / "hbar.png",
                "What is the value of Exports in Japan?",
                request_id="h",
            )
        ]
    )
    assert resp.parsed is not None and resp.parsed.answer == "125"
    assert "labelled 125" in resp.text


def test_cache_identity_tracks_mode_and_reader_code() -> None:
    image, gold = ReaderBackend(), ReaderBackend(ReaderSettings(table="gold"))
    assert image.identity.kind == gold.identity.kind == "builtin"
    assert image.identity.model != gold.identity.model
    version, _, code = image.identity.revision.partition("+")
    assert version and len(code) == 12 and int(code, 16) >= 0


def test_cache_identity_tracks_the_question_programs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader answers through `chartproof.questions` (programs, step questions): a
    change there changes its revision, so cached replies do not outlive it; the readings'
    revision (perception and OCR only) stays."""
    from chartproof.reader import backend

    questions = tmp_path / "chartproof" / "questions"
    questions.mkdir(parents=True)
    (questions / "ops.py").write_text("A = 1\n", encoding="utf-8")
    reader = Path(backend.__file__).resolve().parent
    before = backend._sources_hash(reader, questions)
    (questions / "ops.py").write_text("A = 2\n", encoding="utf-8")
    assert backend._sources_hash(reader, questions) != before
    assert backend._sources_hash(reader) == backend._sources_hash(reader)
    perception = backend.reader_revision()
    backend._code_hash.cache_clear()
    monkeypatch.setattr(backend, "__file__", str(tmp_path / "chartproof" / "reader" / "b.py"))
    (tmp_path / "chartproof" / "reader").mkdir()
    first = backend._code_hash()
    backend._code_hash.cache_clear()
    (questions / "ops.py").write_text("A = 3\n", encoding="utf-8")
    assert backend._code_hash() != first
    backend._code_hash.cache_clear()
    assert backend.reader_revision() == perception


def test_choices_in_the_metadata_get_one_of_the_options() -> None:
    backend = ReaderBackend(ReaderSettings(table="gold"))
    csv = SPECS["stacked"].table.to_csv()  # West: Online 35 + Retail 25 = 60
    meta: dict[str, object] = {"chart_type": "stacked_bar", "table": csv}
    mc = build_request(
        "short",
        None,
        "What is the total of all segments in West?",
        request_id="mc1",
        metadata={**meta, "choices": ["45", "60", "70"]},
    )
    yes_no = build_request(
        "short",
        None,
        "Is the total of all segments in West greater than 50?",
        request_id="mc2",
        metadata=meta,
    )
    r1, r2 = backend.generate([mc, yes_no])
    assert r1.text == "60"
    assert r2.text in ("Yes", "No") and r2.text == "Yes"


def test_readings_persist_on_disk_across_backends(
    chart_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A second backend (another worker process, a later run) reuses the first one's reading
    from disk; a corrupt entry is read again; `disk_cache=false` never touches the store."""
    import chartproof.reader.backend as module
    from chartproof.reader.readings import READINGS_ENV

    monkeypatch.setenv(READINGS_ENV, str(tmp_path / "readings"))
    calls: list[str] = []
    real = module._read

    def counted(path: str) -> object:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(module, "_read", counted)
    chart = chart_dir / "grouped.png"
    question = "What is the value of South in 2021?"
    first = ReaderBackend().generate([build_request("chartqax", chart, question, request_id="a")])
    second = ReaderBackend().generate([build_request("chartqax", chart, question, request_id="b")])
    assert len(calls) == 1
    assert first[0].text == second[0].text
    stored = list((tmp_path / "readings").rglob("*.json"))
    assert len(stored) == 1 and stored[0].parent.parent.name == module._perception_hash()

    stored[0].write_text("{not json", encoding="utf-8")
    third = ReaderBackend().generate([build_request("chartqax", chart, question, request_id="c")])
    assert len(calls) == 2 and third[0].text == first[0].text

    off = ReaderBackend(ReaderSettings(disk_cache=False))
    off.generate([build_request("chartqax", chart, question, request_id="d")])
    assert len(calls) == 3


def test_reading_failures_are_stored_too(tmp_path: Path) -> None:
    from chartproof.reader.readings import ReadingStore

    store = ReadingStore(tmp_path, "rev1")
    sha = "ab" * 32
    assert store.get(sha) is None
    store.put(sha, "no chart found")
    assert store.get(sha) == "no chart found"
    assert ReadingStore(tmp_path, "rev2").get(sha) is None  # another reader revision
    with pytest.raises(ValueError, match="SHA-256"):
        store.get("../../etc/passwd")
