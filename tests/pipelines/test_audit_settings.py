"""`AuditSettings`: the record `audit()` and `chartproof audit` build; the record and its
keywords run the same audit, unknown or bad fields are refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chartproof.pipelines.audit import AuditSettings, audit
from chartproof.testing import ScriptedBackend
from chartproof.types import ModelRequest


def fair(request: ModelRequest) -> str:
    return "Values move over the years. <opinion>Mixed.</opinion>"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from chartproof.pipelines.generate import generate

    out = tmp_path_factory.mktemp("bias") / "data"
    return generate("bias", 2, out, seed=3, per_chart=1, premises=False).folder


def test_the_record_and_its_keywords_run_the_same_audit(suite: Path, tmp_path: Path) -> None:
    kw = dict(attributes=("age",), settings=("narrative",), embedder=None, cache=False)
    by_kw = audit(suite, out=tmp_path / "kw", backend=ScriptedBackend(fair, name="s:f"), **kw)  # type: ignore[arg-type]
    record = AuditSettings(data=suite, out=tmp_path / "rec", **kw)  # type: ignore[arg-type]
    by_record = audit(record, backend=ScriptedBackend(fair, name="s:f"))
    assert by_record.config == by_kw.config
    assert by_record.summary["narrative"] == by_kw.summary["narrative"]
    # the config written is the one older runs wrote: no key for options at their default
    on_disk = json.loads((tmp_path / "rec" / "run.json").read_text())["config"]
    assert sorted(on_disk) == sorted([
        "pipeline", "data", "model", "attributes", "settings", "mitigate", "causal", "limit",
        "cue_questions", "ocr", "max_tokens", "embedder", "prompts",
    ])  # fmt: skip


def test_the_identity_holds_the_audits_own_prompts_only(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chartproof.models import prompts as builtin

    kw = dict(attributes=("age",), settings=("narrative",), embedder=None, cache=False)
    first = audit(suite, out=tmp_path / "a", backend=ScriptedBackend(fair, name="s:f"), **kw)  # type: ignore[arg-type]
    assert first.config["prompts"] == [
        "audit_cue@1", "audit_cue_narrative@1", "audit_evidence@1", "audit_facts@1",
        "audit_narrative@1", "audit_paired@1", "audit_rewrite@1", "audit_select@1",
    ]  # fmt: skip
    # a prompt another pipeline adds to the built-ins leaves the audit's identity alone, so
    # the run resumes (asking nothing again) instead of being refused as another run
    extra = builtin.PromptTemplate(
        name="other_pipeline", version=1, output="answer", text="Q: {question}"
    )
    monkeypatch.setattr(builtin, "_DEFAULT", builtin.PromptSet((*builtin.BUILTIN_PROMPTS, extra)))
    assert "other_pipeline@1" in builtin.default_prompts().ids()
    asked: list[str] = []

    def counting(request: ModelRequest) -> str:
        asked.append(request.id)
        return fair(request)

    again = audit(suite, out=tmp_path / "a", backend=ScriptedBackend(counting, name="s:f"), **kw)  # type: ignore[arg-type]
    assert again.config == first.config
    assert asked == []


def test_a_subset_mitigation_is_recorded_and_said(suite: Path, tmp_path: Path) -> None:
    from chartproof.reports import report

    rec = audit(suite, out=tmp_path / "m", backend=ScriptedBackend(fair, name="s:f"),
                attributes=("age", "gender"), settings=("narrative",), mitigate=True,
                mitigation_pairs=1, embedder=None, cache=False)  # fmt: skip
    assert rec.config["mitigation_pairs"] == 1
    assert rec.summary["mitigation"]["age"]["n"] == 1
    assert rec.summary["mitigation"]["gender"]["n"] == 0
    html = report(tmp_path / "m").read_text(encoding="utf-8")
    assert "MITIGATION ON A SUBSET: the first 1 eligible chart–attribute pairs only (n = 1" in html


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"choise": "generate"}, "choise"),
        ({"choice": "vote"}, "unknown choice 'vote'"),
        ({"settings": ("narative",)}, r"unknown audit settings \['narative'\]"),
        ({"settings": ()}, "nothing to audit"),
        ({"mitigation_pairs": 0}, "mitigation_pairs"),
    ],
)
def test_bad_settings_are_named(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AuditSettings(data="x", **fields)  # type: ignore[arg-type]


def test_a_record_and_keywords_together_are_refused(tmp_path: Path) -> None:
    record = AuditSettings(data=tmp_path)
    with pytest.raises(TypeError, match="not both"):
        audit(record, limit=2)
    with pytest.raises(TypeError, match="not both"):
        audit(record, embedder="default")
