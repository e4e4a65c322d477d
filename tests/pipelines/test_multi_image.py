"""Multi-image samples end to end: a question over three charts goes through `chartproof
eval` with the OpenAI backend (the loopback server records every image it received, in
order), with the tiny HF VLM (the processor gets the images in order), into the report
gallery; the built-in reader says it reads one chart; one-chart files read as before."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chartproof.datasets import load_samples, save_samples
from chartproof.models.prompts import build_request
from chartproof.types import Answer, ImageRef, Sample

COLOURS = {"a.png": (220, 30, 30), "b.png": (20, 180, 40), "c.png": (20, 40, 210)}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    from PIL import Image

    root = tmp_path / "multi"
    (root / "charts").mkdir(parents=True)
    for name, colour in COLOURS.items():
        Image.new("RGB", (64, 48), colour).save(root / "charts" / name)
    samples = [
        Sample(
            id="three",
            images=[ImageRef(path=f"charts/{n}") for n in ("c.png", "a.png", "b.png")],
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
    save_samples(samples, root)
    return root


def _eval(*args: str) -> tuple[int, str]:
    from chartproof.cli import _register
    from chartproof.cli._app import app

    _register()
    res = CliRunner().invoke(app, ["eval", *args, "-q", "--no-cache"])
    return res.exit_code, res.output


def test_serialised_backward_compatibly(dataset: Path) -> None:
    lines = [json.loads(x) for x in (dataset / "samples.jsonl").read_text().splitlines()]
    assert [p["path"] for p in lines[0]["more_images"]] == ["charts/a.png", "charts/b.png"]
    assert lines[0]["image"]["path"] == "charts/c.png"
    assert "more_images" not in lines[1]  # a one-chart sample is written as before
    loaded = load_samples(dataset)
    three, one = loaded.samples
    assert [i.path for i in three.images] == ["charts/c.png", "charts/a.png", "charts/b.png"]
    assert three.image.path == "charts/c.png" and one.images == (one.image,)
    (dataset / "charts" / "b.png").unlink()
    broken = load_samples(dataset)
    assert [s.id for s in broken.samples] == ["one"]
    assert broken.n_bad == 1 and "b.png" in broken.errors[0].message


def test_openai_backend_sends_every_image_in_order(dataset: Path, tmp_path: Path) -> None:
    pytest.importorskip("aiohttp", reason="the loopback server needs aiohttp (dev extra)")
    from chartproof.testing.loopback import LoopbackServer

    received: dict[str, list[str]] = {}

    def reply(key: str, body: Mapping[str, Any]) -> str:
        user = [m for m in body["messages"] if m["role"] == "user"][-1]
        kinds = [p["type"] for p in user["content"]]
        assert kinds[-1] == "text" and set(kinds[:-1]) <= {"image_url"}  # images, then text
        received[key] = [p["image_url"]["url"] for p in user["content"][:-1]]
        return "chart 2"

    out = tmp_path / "run"
    with LoopbackServer(reply=reply) as server:
        code, output = _eval(
            "--data", str(dataset), "--model", f"openai:vlm@{server.base_url}", "--out", str(out)
        )  # fmt: skip
    assert code == 0, output
    by_sample = {k.split("/")[0]: v for k, v in received.items()}
    expected = [
        base64.b64encode((dataset / "charts" / n).read_bytes()).decode()
        for n in ("c.png", "a.png", "b.png")
    ]
    assert [u.split(",", 1)[1] for u in by_sample["three"]] == expected
    assert all(u.startswith("data:image/png;base64,") for u in by_sample["three"])
    assert len(by_sample["one"]) == 1
    html = (out / "report.html").read_text(encoding="utf-8")
    alts = re.findall(r'alt="(chart [^"]*)"', html)
    assert [a for a in alts if "three" in a] == [f"chart {i} of 3 of three" for i in (1, 2, 3)]
    assert "chart of one" in alts


def test_builtin_reader_says_it_reads_one_chart(dataset: Path) -> None:
    from chartproof.models.registry import load_backend

    root = dataset / "charts"
    request = build_request(
        "short", [root / "c.png", root / "a.png"], "Which is highest?", request_id="two"
    )
    assert [p.path for m in request.messages for p in m.content if hasattr(p, "sha256")] == [
        str(root / "c.png"),
        str(root / "a.png"),
    ]
    backend = load_backend("builtin:reader")
    try:
        (response,) = backend.generate([request])
    finally:
        backend.close()
    assert response.error is not None and "shows 2 charts" in response.error


@pytest.mark.slow
def test_hf_vlm_gets_every_image_in_order(dataset: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import AutoProcessor

    from chartproof.models.hf import chat_inputs, conversation
    from chartproof.testing.tiny_vlm import build_tiny_idefics3

    folder = build_tiny_idefics3(tmp_path / "ckpt")
    root = dataset / "charts"
    request = build_request(
        "short", [root / n for n in ("c.png", "a.png", "b.png")], "Which?", request_id="x"
    )
    processor = AutoProcessor.from_pretrained(folder, local_files_only=True)
    inputs = chat_inputs(processor, [conversation(request)])
    pixels = inputs["pixel_values"][0]  # (images, channels, height, width), normalised
    assert pixels.shape[0] == 3
    dominant = [int(img.mean(dim=(1, 2)).argmax()) for img in pixels]
    assert dominant == [2, 0, 1]  # blue, red, green: the order the sample lists them
    text = processor.batch_decode(inputs["input_ids"])[0]
    assert text.count("<image>") >= 3
    out = tmp_path / "run"
    code, output = _eval(
        "--data", str(dataset), "--model", f"hf:{folder}?device=cpu&dtype=float32",
        "--out", str(out), "--no-report",
    )  # fmt: skip
    assert code == 0, output
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert {r["sample_id"] for r in rows} == {"three", "one"}
    assert all(r.get("error") is None for r in rows), rows


def test_export_keeps_multi_image_samples(dataset: Path, tmp_path: Path) -> None:
    from chartproof.cli import _register
    from chartproof.cli._app import app
    from chartproof.datasets import load_parquet

    _register()
    out = tmp_path / "o.parquet"
    res = CliRunner().invoke(app, ["export", "--data", str(dataset), "--out", str(out)])
    assert res.exit_code == 0, res.output
    back = load_parquet(out, image_dir=tmp_path / "img")
    assert back.samples == load_samples(dataset).samples and back.errors == []
    three = back.samples[0]
    assert [(tmp_path / "img" / i.path).read_bytes() for i in three.images] == [
        (dataset / i.path).read_bytes() for i in three.images
    ]


def test_finetune_request_carries_every_chart_and_explain_refuses(dataset: Path) -> None:
    from chartproof.pipelines.explain_select import _start
    from chartproof.pipelines.finetune._data import chart_request, sft_examples

    three, one = load_samples(dataset).samples
    request = chart_request(three, dataset, prompt="short")
    paths = [p.path for m in request.messages for p in m.content if hasattr(p, "sha256")]
    assert paths == [str((dataset / i.path).resolve()) for i in three.images]
    with pytest.raises(ValueError, match="shows 3 charts; fine-tuning takes one-chart"):
        sft_examples([one, three], dataset, prompt="short", target_format="{answer}")
    state = _start(three, dataset)
    assert state.image is None and "shows 3 charts" in str(state.error)
    assert _start(one, dataset).image is not None


def test_hashes_and_fingerprint_cover_every_image(dataset: Path) -> None:
    import hashlib

    from PIL import Image

    from chartproof.datasets import dataset_fingerprint, hash_image, with_image_hashes

    three, one = load_samples(dataset).samples
    hashed = with_image_hashes([three, one], dataset)
    assert [i.sha256 for i in hashed[0].images] == [
        hash_image(dataset / i.path) for i in three.images
    ]
    # a one-image sample's entry is what it was before multi-image samples existed
    digest = hash_image(dataset / one.image.path)
    entry = json.dumps([one.id, one.question, digest, one.answer.model_dump_json()])
    expected = "sha256:" + hashlib.sha256(entry.encode() + b"\n").hexdigest()
    assert dataset_fingerprint([one], dataset) == expected
    before = dataset_fingerprint([three], dataset)
    Image.new("RGB", (64, 48), (1, 2, 3)).save(dataset / "charts" / "b.png")  # the third chart
    assert dataset_fingerprint([three], dataset) != before


def test_the_audit_says_it_reads_the_first_chart_only(
    dataset: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from chartproof.pipelines.audit import audit
    from chartproof.testing import ScriptedBackend

    def narrate(request: Any) -> str:
        return "Values rise. <opinion>Fine.</opinion>"

    with caplog.at_level("WARNING"):
        audit(dataset, out=tmp_path / "audit", backend=ScriptedBackend(narrate, name="s:n"),
              attributes=("age",), settings=("narrative",), embedder=None, ocr=False,
              cache=False)  # fmt: skip
    assert (
        "1 of 2 samples show several charts ('three'); the audit reads only the first chart of each"
    ) in caplog.text
