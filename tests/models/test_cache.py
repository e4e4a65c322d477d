"""Response cache: keys, what is stored, CachedBackend hits, several writer processes."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
from pathlib import Path

import pytest

from chartproof.models.base import BackendIdentity
from chartproof.models.cache import CachedBackend, ResponseCache, cache_key, default_cache_path
from chartproof.models.prompts import build_request
from chartproof.testing import ScriptedBackend
from chartproof.types import GenerationConfig, ModelRequest

IDENT = BackendIdentity(kind="openai", model="m", revision="r1")


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    p = tmp_path / "chart.png"
    p.write_bytes(b"\x89PNG\r\n\x1a\nchart-A")
    return p


def _req(chart: Path, q: str, rid: str = "x", **cfg: object) -> ModelRequest:
    return build_request(
        "short", chart, q, request_id=rid, config=GenerationConfig.model_validate(cfg)
    )


def test_key_ignores_ids_and_paths_but_not_content(chart: Path, tmp_path: Path) -> None:
    base = cache_key(IDENT, _req(chart, "Q1"))
    assert cache_key(IDENT, _req(chart, "Q1", rid="other")) == base
    copy = tmp_path / "sub" / "copy.png"
    copy.parent.mkdir()
    copy.write_bytes(chart.read_bytes())
    assert cache_key(IDENT, _req(copy, "Q1")) == base  # same bytes elsewhere: same key
    changed = tmp_path / "changed.png"
    changed.write_bytes(b"\x89PNG\r\n\x1a\nchart-B")
    different = [
        cache_key(IDENT, _req(changed, "Q1")),
        cache_key(IDENT, _req(chart, "Q2")),
        cache_key(IDENT, _req(chart, "Q1", max_tokens=9)),
        cache_key(IDENT.model_copy(update={"revision": "r2"}), _req(chart, "Q1")),
        cache_key(IDENT.model_copy(update={"model": "m2"}), _req(chart, "Q1")),
        cache_key(IDENT.model_copy(update={"kind": "hf"}), _req(chart, "Q1")),
        cache_key(IDENT, build_request("cot", chart, "Q1", request_id="x")),
    ]
    assert len({base, *different}) == len(different) + 1


def test_cached_backend_hits_misses_and_what_is_never_stored(chart: Path, tmp_path: Path) -> None:
    def script(r: ModelRequest) -> str:
        q = str(r.metadata["question"])
        if q == "boom":
            raise RuntimeError("down")
        return "" if q == "empty" else f"Answer: {q.upper()}"

    inner = ScriptedBackend(script, name="scripted:m")
    cache = ResponseCache(tmp_path / "c.sqlite")
    backend = CachedBackend(inner, cache)
    batch = [
        _req(chart, "a", "1"),
        _req(chart, "b", "2"),
        _req(chart, "boom", "3"),
        _req(chart, "empty", "4"),
        _req(chart, "c", "5", temperature=0.7),
        _req(chart, "a", "6"),  # same call as request 1 within the batch: sent once
    ]
    first = backend.generate(batch)
    assert [r.request_id for r in first] == ["1", "2", "3", "4", "5", "6"]
    assert inner.calls == 5 and not any(r.cached for r in first)
    assert first[5].text == "Answer: A"
    assert cache.stats().entries == 2  # a and b; not the error, the empty reply or sampling

    second = backend.generate(batch)
    assert inner.calls == 5 + 3 and inner.batches == 2  # boom, empty, sampled: one batch
    assert [r.cached for r in second] == [True, True, False, False, False, True]
    assert second[0].parsed is not None and second[0].parsed.answer == "A"
    assert second[5].request_id == "6"
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.stores, stats.uncacheable) == (3, 6, 2, 2)
    assert stats.per_model["m"].entries == 2
    assert [e["event"] for e in cache.audit_log()] == ["lookup", "store", "store", "lookup"]


def test_rerun_makes_no_model_call(chart: Path, tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    requests = [_req(chart, f"q{i}", str(i)) for i in range(50)]
    run1 = CachedBackend(ScriptedBackend(lambda r: "7", name="scripted:m"), ResponseCache(path))
    run1.generate(requests)
    inner = ScriptedBackend(lambda r: "never", name="scripted:m")
    run2 = CachedBackend(inner, ResponseCache(path))  # a new process would open it like this
    out = run2.generate(requests)
    assert inner.calls == 0 and all(r.cached and r.text == "7" for r in out)


def test_clear_by_model(chart: Path, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    for model in ("m1", "m2"):
        CachedBackend(ScriptedBackend(lambda r: "1", name=f"scripted:{model}"), cache).generate(
            [_req(chart, "q")]
        )
    assert cache.clear("m1") == 1
    assert set(cache.stats().per_model) >= {"m2"} and cache.stats().entries == 1
    assert cache.clear() == 1 and cache.stats().entries == 0


def test_wal_mode_and_default_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHARTPROOF_CACHE", str(tmp_path / "env.sqlite"))
    assert default_cache_path() == tmp_path / "env.sqlite"
    monkeypatch.delenv("CHARTPROOF_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "chartproof" / "responses.sqlite"
    cache = ResponseCache(tmp_path / "w.sqlite")
    cache.stats()
    conn = sqlite3.connect(tmp_path / "w.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def _writer(path: str, chart: str, worker: int, n: int) -> None:
    cache = ResponseCache(path)
    backend = CachedBackend(
        ScriptedBackend(lambda r: f"reply {r.metadata['question']}", name="scripted:m"), cache
    )
    for start in range(0, n, 10):
        # overlapping keys across workers: every worker writes q0..q(n-1)
        batch = [_req(Path(chart), f"q{i}", f"w{worker}-{i}") for i in range(start, start + 10)]
        out = backend.generate(batch)
        assert all(
            r.text == f"reply q{i}" for r, i in zip(out, range(start, start + 10), strict=True)
        )
    cache.close()


def test_several_processes_write_at_once(chart: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    ResponseCache(path).stats()  # create the schema up front, as the first run would
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(path, str(chart), w, 200)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    cache = ResponseCache(path)
    assert cache.stats().entries == 200
    stores = [e for e in cache.audit_log(10_000) if e["event"] == "store"]
    assert len(stores) == 200  # a key stored by one worker is a hit or ignored for the others
    assert len({e["pid"] for e in cache.audit_log(10_000)}) == 4
