"""A new audit statistic, a new audit report section and a new audit task are one
definition each: added here, in the test file alone, they reach the run, the summary (typed)
and the report."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from chartproof.metrics.bias_summary import AUDIT_STATISTICS, AuditSummary, audit_statistic
from chartproof.pipelines.audit import audit
from chartproof.pipelines.audit.settings import AuditContext, PairUnit
from chartproof.pipelines.audit.tasks import AUDIT_TASKS, AuditPlan, AuditTask, setting_names
from chartproof.reports import report
from chartproof.reports.bias import AUDIT_SECTIONS, AuditPage, audit_section
from chartproof.reports.html import Html, el
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest, SampleResult

NARRATIVE = "Values rise over the years. <opinion>Good news.</opinion>"  # 7 words


def model(request: ModelRequest) -> str:
    return NARRATIVE if request.prompt.startswith("audit_narrative") else "Cannot tell."


class Words(BaseModel):
    """Narrative length of one attribute."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    n: int
    """Pairs read."""
    mean_words: float | None
    """Mean words per narrative."""


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from chartproof.pipelines.generate import generate

    out = tmp_path_factory.mktemp("bias") / "data"
    return generate("bias", 3, out, seed=3, per_chart=1, premises=False).folder


@pytest.fixture
def narrative_words() -> Iterator[None]:
    @audit_statistic(
        "narrative_words", protocol="audit.narrative", section=Words, title="Narrative length"
    )
    def narrative_words(results: Sequence[SampleResult], groups: tuple[str, str]) -> Words:
        words = [
            len(str(st["output"]).split())
            for r in results
            for st in r.steps
            if isinstance(st, dict) and "output" in st
        ]
        return Words(n=len(results), mean_words=sum(words) / len(words) if words else None)

    yield
    AUDIT_STATISTICS.unregister("narrative_words")


def test_a_statistic_added_in_one_file(suite: Path, tmp_path: Path, narrative_words: None) -> None:
    rec = audit(suite, out=tmp_path / "run", backend=ScriptedBackend(model, name="scripted:m"),
                attributes=["age", "gender"], settings=("narrative",), embedder=None,
                cache=False)  # fmt: skip
    # 3 charts, two narratives of 7 words each per pair
    assert rec.summary["narrative_words"] == {
        "age": {"n": 3, "mean_words": 7.0},
        "gender": {"n": 3, "mean_words": 7.0},
    }
    typed = AuditSummary.read(rec.summary).statistic("narrative_words")
    assert typed is not None and isinstance(typed["age"], Words) and typed["age"].n == 3
    html = report(tmp_path / "run").read_text(encoding="utf-8")
    table = html.split("Narrative length")[1]
    assert "mean_words" in table and "7.000" in table and "Mean words per narrative." in table
    # the statistic reads its own protocol only: a run without it has no such key
    rec = audit(suite, out=tmp_path / "sel", backend=ScriptedBackend(model, name="scripted:m"),
                attributes=["age"], settings=("hallucination",), embedder=None, cache=False,
                causal=False)  # fmt: skip
    assert "narrative_words" not in rec.summary and "narrative" not in rec.summary
    assert "Narrative length" not in report(tmp_path / "sel").read_text(encoding="utf-8")


@pytest.fixture
def longest() -> Iterator[None]:
    @audit_section("longest", order=25)
    def longest(page: AuditPage) -> Html:
        steps = [st for r in page.results for st in r.steps if isinstance(st, dict)]
        most = max((len(str(st.get("output", "")).split()) for st in steps), default=0)
        return el("h3", f"Longest output: {most} words over {page.summary.charts} charts")

    yield
    AUDIT_SECTIONS.unregister("longest")


def test_a_report_section_added_in_one_file(suite: Path, tmp_path: Path, longest: None) -> None:
    audit(suite, out=tmp_path / "run", backend=ScriptedBackend(model, name="scripted:m"),
          attributes=["age"], settings=("narrative", "hallucination"), embedder=None,
          cache=False, causal=False)  # fmt: skip
    html = report(tmp_path / "run").read_text(encoding="utf-8")
    # at its order: after the narrative shift (20), before group hallucination (30)
    at = html.index("Longest output: 7 words over 3 charts")
    assert html.index("Narrative shift (Table 2)") < at < html.index("Group hallucination")


def _echo(units: Sequence[PairUnit], ctx: AuditContext, protocol: str) -> list[SampleResult]:
    """Asks the model to repeat the chart id: a task of its own with its own protocol."""
    requests = [
        ctx.request("audit_narrative", u.chart, f"{u.id}/echo", analysis="", group="you")
        for u in units
    ]
    replies = ctx.ask(requests)
    return [
        SampleResult(sample_id=u.id, protocol=protocol, model=ctx.model,
                     output=replies[r.id].text, groups={"attribute": u.attribute.name},
                     scores={"words": float(len(replies[r.id].text.split()))})
        for u, r in zip(units, requests, strict=True)
    ]  # fmt: skip


@pytest.fixture
def echo_task() -> Iterator[None]:
    AUDIT_TASKS.register("audit.echo", AuditTask("audit.echo", ("echo",), AuditPlan.pairs, _echo))

    @audit_statistic("echo", protocol="audit.echo", section=Words, title="Echo length")
    def echo(results: Sequence[SampleResult], groups: tuple[str, str]) -> Words:
        words = [r.scores["words"] or 0.0 for r in results]
        return Words(n=len(results), mean_words=sum(words) / len(words) if words else None)

    yield
    AUDIT_TASKS.unregister("audit.echo")
    AUDIT_STATISTICS.unregister("echo")


def test_a_task_added_in_one_file(suite: Path, tmp_path: Path, echo_task: None) -> None:
    assert "echo" in setting_names()
    backend = ScriptedBackend(model, name="scripted:m")
    rec = audit(suite, out=tmp_path / "run", backend=backend, attributes=["age"],
                settings=("echo",), embedder=None, cache=False)  # fmt: skip
    assert backend.calls == 3 and rec.config["settings"] == ["echo"]
    assert rec.summary["echo"] == {"age": {"n": 3, "mean_words": 7.0}}
    assert "Echo length" in report(tmp_path / "run").read_text(encoding="utf-8")
    # rerun: resumed, nothing asked again
    again = ScriptedBackend(model, name="scripted:m")
    audit(suite, out=tmp_path / "run", backend=again, attributes=["age"], settings=("echo",),
          embedder=None, cache=False)  # fmt: skip
    assert again.calls == 0


def test_an_unknown_setting_names_the_known_ones(suite: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown audit settings \['echo'\]; choose from"):
        audit(suite, out=tmp_path / "x", backend=ScriptedBackend(model), settings=("echo",))
