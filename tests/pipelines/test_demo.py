"""The demo pipeline end to end on a tiny setting: generate → eval → derender → families →
report, with the offline reader."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from chartproof.pipelines.demo import demo


@pytest.mark.slow
def test_tiny_demo_runs_every_step(tmp_path: Path) -> None:
    pytest.importorskip("rapidocr")
    said: list[str] = []
    result = demo(
        tmp_path / "demo",
        n=2,
        per_chart=1,
        variants=(),
        protocols=("direct",),
        derender_charts=2,
        counterfactuals=1,
        audit_charts=0,
        say=said.append,
    )
    assert [p.name for p in result.runs] == ["direct", "families"]
    assert result.derender is not None
    derendered = [
        json.loads(line)
        for line in (result.derender / "run" / "results.jsonl").read_text().splitlines()
    ]
    assert len(derendered) == 2 and all(r["prediction"] == "ok" for r in derendered)
    families = json.loads((result.runs[1] / "summary.json").read_text())
    assert families["counts"]["results"] > 0 and families["families"]
    html = result.report.read_text(encoding="utf-8")
    assert "Counterfactual families" in html and "builtin:reader · direct (families)" in html
    assert any("redraws faithful" in line for line in said)


def _audit_lines(run: Path) -> list[str]:
    """The audit's results without the fields that say how they were obtained."""
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    for row in rows:
        for volatile in ("latency_s", "cached", "calls"):
            row.pop(volatile, None)
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


@pytest.mark.slow
@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_the_audit_beside_the_reader_gives_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    """On a pool of workers the demo's bias audit runs in a process of its own beside the
    reader's stages (forked, or spawned when this process runs other threads); its results
    are those of the audit run after them in one process."""
    pytest.importorskip("rapidocr")
    pytest.importorskip("transformers")
    from chartproof.pipelines import demo as demo_module
    from chartproof.testing.tiny_lm import build_tiny_llama

    model = f"text:{build_tiny_llama(tmp_path / 'tiny-lm')}"
    monkeypatch.setattr(demo_module, "_audit_start_method", lambda: start)
    tiny = dict(n=2, per_chart=1, variants=(), protocols=("direct",), derender_charts=0)
    lines = {}
    for executor in ("local:1", "local:2"):
        said: list[str] = []
        bars: dict[str, list[tuple[int, int]]] = {}

        @contextmanager
        def bar(
            label: str, bars: dict[str, list[tuple[int, int]]] = bars
        ) -> Iterator[Callable[[int, int], None]]:
            yield lambda done, total: bars.setdefault(label, []).append((done, total))

        result = demo(
            tmp_path / executor.replace(":", "-"),
            audit_charts=2,
            audit_model=model,
            executor=executor,
            say=said.append,
            progress=bar,
            **tiny,  # type: ignore[arg-type]
        )
        assert result.audit is not None and result.audit.is_file()
        assert any("beside the reader" in line for line in said) == (executor == "local:2")
        # the audit's progress: on its own bar after the reader's stages (beside the reader,
        # only when it was still running then), ending at its total
        audit_bar = bars.get("bias audit")
        assert audit_bar or executor == "local:2", bars.keys()
        if audit_bar:
            assert audit_bar[-1][0] == audit_bar[-1][1] > 0, audit_bar
        assert bars["generate chartqax"][-1] == (2, 2)
        lines[executor] = _audit_lines(result.audit.parent)
    assert lines["local:1"] == lines["local:2"] and len(lines["local:1"]) >= 8


@pytest.mark.slow
def test_a_failed_background_audit_names_its_error(tmp_path: Path) -> None:
    """An audit that fails in its own process raises in the demo with the child's traceback."""
    pytest.importorskip("rapidocr")
    with pytest.raises(RuntimeError, match=r"bias audit failed:(.|\n)*unknown backend kind"):
        demo(
            tmp_path / "demo",
            n=2,
            per_chart=1,
            variants=(),
            protocols=("direct",),
            derender_charts=0,
            audit_charts=1,
            audit_model="nosuchkind:model",
            executor="local:2",
        )


@pytest.fixture
def no_isolation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A machine without bubblewrap (or unshare): PATH holds neither, and the sandbox's cached
    probes are cleared so they look again (and again after the test)."""
    from chartproof.sandbox import runner

    def clear() -> None:
        for value in vars(runner).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()

    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    clear()
    yield
    monkeypatch.undo()
    clear()


@pytest.mark.slow
def test_without_isolation_the_redraw_is_skipped_and_both_reports_written(
    tmp_path: Path, no_isolation: None
) -> None:
    """No OS isolation: the derender stage is skipped with one line saying why, the bias
    audit running beside the reader finishes, and both reports are written."""
    pytest.importorskip("rapidocr")
    pytest.importorskip("transformers")
    from chartproof.sandbox import isolation_available
    from chartproof.testing.tiny_lm import build_tiny_llama

    assert not isolation_available()
    said: list[str] = []
    result = demo(
        tmp_path / "demo",
        n=2,
        per_chart=1,
        variants=(),
        protocols=("direct",),
        derender_charts=2,
        audit_charts=1,
        audit_model=f"text:{build_tiny_llama(tmp_path / 'tiny-lm')}",
        executor="local:2",
        say=said.append,
    )
    skipped = [line for line in said if "skipped" in line]
    assert len(skipped) == 1 and "redrawing charts as code" in skipped[0], said
    assert "bubblewrap" in skipped[0]
    assert result.derender is None and [p.name for p in result.runs] == ["direct"]
    assert result.report.is_file()
    assert result.audit is not None and result.audit.is_file()
