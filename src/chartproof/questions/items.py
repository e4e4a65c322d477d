"""Questions for a chart: `make_questions` runs seeded programs on a spec and packs each
answer with its chain, premises, explanation and trace into a `QuestionItem`."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import Field, JsonValue

from chartproof.questions.chains import chain_dag
from chartproof.questions.explain import GENERATOR as EXPLANATION_GENERATOR
from chartproof.questions.explain import explain
from chartproof.questions.premises import (
    Claim,
    premise_rows,
    question_claims,
    question_premises,
    structural_claims,
)
from chartproof.questions.program import Program, ProgramResult, execute, list_programs
from chartproof.questions.trace import TraceOp
from chartproof.questions.view import ChartView
from chartproof.types import (
    Answer,
    ChartSpec,
    ChartType,
    DataTable,
    ImageRef,
    Premise,
    Record,
    Sample,
    Step,
    TaskType,
)

__all__ = [
    "DEFAULT_FAMILIES_EXCLUDED",
    "QuestionItem",
    "has_chain",
    "make_item",
    "make_questions",
    "premise_sequences",
]

DEFAULT_FAMILIES_EXCLUDED = frozenset({"structure", "computed", "figureqa"})
"""Families `make_questions` leaves out unless asked: the dense chart-parsing queries, the
human questions a reader computes over many cells (`programs/computed.py`) and FigureQA's
yes/no questions (`programs/figureqa.py`), added after the suites were fixed, so a suite
draws what it drew before."""

_TRIES_PER_PROGRAM = 3

_CHAIN_TRIES = 12
"""Argument draws per chain program: a chain is ambiguous as soon as one of its steps is,
and a chart of a chain suite should not go without its chain."""


class QuestionItem(Record):
    """One generated question with everything needed to check its answer and reasoning."""

    id: str
    """Stable id: the chart id and the question's index for this seed."""
    chart_id: str
    """Id of the chart spec asked about."""
    chart_type: ChartType
    """Kind of chart."""
    program: str
    """Name of the question program."""
    family: str
    """Program family, e.g. "extraction", "realcqa", "chain", "structure"."""
    args: dict[str, JsonValue] = Field(default_factory=dict)
    """Program arguments; `execute(program, args, chart)` reproduces the answer."""
    question: str
    """Question text (for chains: the final composite question)."""
    paraphrase: int = 0
    """Index of the template the question text was rendered from."""
    answer: Answer
    """Typed gold answer."""
    task_type: TaskType | None = None
    """ChartR task type (None for dense chart-parsing queries)."""
    question_type: str
    """"descriptive", "reasoning" or "structural"."""
    chain: tuple[Step, ...] = ()
    """Sub-questions leading to the answer, in dependency order."""
    premises: tuple[Premise, ...] = ()
    """The ordered VPP premise sequence: every true premise with its three false ones."""
    explanation: str
    """Reference explanation, at most four sentences."""
    trace: tuple[TraceOp, ...] = ()
    """Executed operations; the last one is the answer."""

    def dag(self) -> dict[str, JsonValue]:
        """The reasoning chain as a DAG: nodes (steps and the final question) and edges."""
        return chain_dag(self.chain, self.question, self.answer, self.task_type, self.trace)

    def to_sample(
        self,
        *,
        sample_id: str,
        image: ImageRef,
        spec: ChartSpec | None = None,
        table: DataTable | None = None,
        **fields: object,
    ) -> Sample:
        """A `Sample` carrying this question, its chain, premises and explanation; extra
        `fields` (split, groups, source, ...) pass through."""
        source = dict(fields.pop("source", {}) or {})  # type: ignore[call-overload]
        source.setdefault("question_item", self.id)
        source.setdefault("program_args", self.args)
        if self.explanation:
            source.setdefault("explanation_generator", EXPLANATION_GENERATOR)
        if spec is not None:
            shown = _mathtext_labels(spec)
            if shown:
                # questions and answers name labels as drawn; the source stays findable
                source.setdefault("mathtext", shown)
        return Sample(
            id=sample_id,
            image=image,
            question=self.question,
            answer=self.answer,
            table=table if table is not None else (spec.table if spec is not None else None),
            spec=spec,
            chart_type=self.chart_type,
            question_type=self.question_type,
            task_type=self.task_type,
            program=self.program,
            chain=self.chain,
            premises=self.premises,
            explanation=self.explanation,
            source=source,
            **fields,
        )


def _mathtext_labels(spec: ChartSpec) -> dict[str, str]:
    """Every label of the chart that is mathtext, as {text as drawn: mathtext source}."""
    from chartproof.charts.mathtext import display_text, has_mathtext

    st, table = spec.style, spec.table
    texts = [st.title, st.x_title, st.y_title, *table.names]
    for col in table.columns:
        if col.kind != "number":
            texts.extend(table.labels(col.name))
        if col.unit:
            texts.append(col.unit)
    return {display_text(t): t for t in dict.fromkeys(texts) if t and has_mathtext(t)}


def make_item(
    result: ProgramResult,
    *,
    item_id: str,
    chart_id: str,
    paraphrase: int,
    seed: int = 0,
    structural: list[Claim] | None = None,
    with_premises: bool = True,
) -> QuestionItem:
    """Pack one program execution into a `QuestionItem`; its premises are seeded by the
    item id and `seed`, so they do not depend on what else was generated."""
    prog = result.program
    premises: tuple[Premise, ...] = ()
    if with_premises:
        rng = random.Random(f"{item_id}|{seed}|premises")
        premises = tuple(question_premises(result, rng=rng, prefix=item_id, structural=structural))
    return QuestionItem(
        id=item_id,
        chart_id=chart_id,
        chart_type=result.view.chart_type,
        program=prog.name,
        family=prog.family,
        args=dict(result.args),
        question=result.question(paraphrase),
        paraphrase=paraphrase % len(prog.templates),
        answer=result.answer,
        task_type=prog.task_type,
        question_type=prog.question_type,
        chain=result.chain(),
        premises=premises,
        explanation=explain(result.ops),
        trace=result.trace(),
    )


def _candidates(
    view: ChartView, families: Iterable[str] | None, names: Iterable[str] | None
) -> list[Program]:
    fams = tuple(families) if families is not None else None
    progs = list_programs(families=fams)
    if fams is None:
        progs = tuple(p for p in progs if p.family not in DEFAULT_FAMILIES_EXCLUDED)
    if names is not None:
        wanted = set(names)
        progs = tuple(p for p in progs if p.name in wanted)
    return [p for p in progs if p.applies(view)]


def _drawn(
    spec: ChartSpec,
    view: ChartView,
    *,
    seed: int,
    per_chart: int,
    families: Iterable[str] | None,
    names: Iterable[str] | None,
    chains: int = 0,
) -> Iterator[tuple[str, ProgramResult, int]]:
    """(item id, execution, paraphrase) of the questions `make_questions` asks."""
    seen: set[str] = set()
    if chains > 0:
        # a stream of its own, so the other questions are those asked without chains
        chain_rng = random.Random(f"{spec.id}|{seed}|chains")
        chain_progs = _candidates(view, ("chain",), names)
        chain_rng.shuffle(chain_progs)
        chain_progs.sort(key=lambda p: p.fallback)  # stable: the seeded order otherwise
        yield from _draw(spec, view, chain_progs, chain_rng, seen, chains, _CHAIN_TRIES)
    rng = random.Random(f"{spec.id}|{seed}")
    progs = _candidates(view, families, names)
    if chains > 0 and families is None:
        progs = [p for p in progs if not p.chain]
    rng.shuffle(progs)
    yield from _draw(spec, view, progs, rng, seen, per_chart, _TRIES_PER_PROGRAM)


def _draw(
    spec: ChartSpec,
    view: ChartView,
    progs: list[Program],
    rng: random.Random,
    seen: set[str],
    limit: int,
    tries: int,
) -> Iterator[tuple[str, ProgramResult, int]]:
    """Questions from `progs` in order (one per program, `tries` argument draws each) until
    `seen` holds `limit` questions."""
    for prog in progs:
        if len(seen) >= limit:
            return
        for _ in range(tries):
            args = prog.sample(view, rng)
            if args is None:
                break
            result = execute(prog, args, view)
            if result is None:
                continue
            paraphrase = rng.randrange(len(prog.templates))
            text = result.question(paraphrase)
            if text in seen:
                continue
            yield f"{spec.id}/q{len(seen)}", result, paraphrase
            seen.add(text)
            break


def make_questions(
    spec: ChartSpec,
    *,
    seed: int = 0,
    per_chart: int = 5,
    families: Iterable[str] | None = None,
    names: Iterable[str] | None = None,
    with_premises: bool = True,
    chains: int = 0,
) -> list[QuestionItem]:
    """Up to `per_chart` questions about one chart, deterministic per (spec, seed).

    Programs are drawn in a seeded order among those that apply to the chart type (every
    family but "structure" unless `families` names it; `names` restricts to given programs);
    a program that finds the chart ambiguous is skipped. Duplicate questions are dropped.
    `chains` > 0 asks that many ChartR chains first (as the chartr suite does: one per
    chart) and, unless `families` says otherwise, no further chain among the others.
    """
    view = ChartView.from_spec(spec)
    structural = (
        structural_claims(view, random.Random(f"{spec.id}|{seed}|structure"))
        if with_premises
        else None
    )
    return [
        make_item(
            result,
            item_id=item_id,
            chart_id=spec.id,
            paraphrase=paraphrase,
            seed=seed,
            structural=structural,
            with_premises=with_premises,
        )
        for item_id, result, paraphrase in _drawn(
            spec,
            view,
            seed=seed,
            per_chart=per_chart,
            families=families,
            names=names,
            chains=chains,
        )
    ]


def has_chain(spec: ChartSpec, *, seed: int = 0) -> bool:
    """Whether a ChartR chain can be asked about the chart (`make_questions(chains=1)`
    finds one): the chartr suite redraws charts for which none can."""
    items = make_questions(spec, seed=seed, per_chart=1, chains=1, with_premises=False)
    return bool(items) and bool(items[0].chain)


def premise_sequences(
    spec: ChartSpec,
    *,
    seed: int = 0,
    per_chart: int = 5,
    families: Iterable[str] | None = None,
    chains: int = 0,
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The chart's premise sequences as plain rows, for bulk export: first its structural
    sequence (id `<chart>/sp`), then one per question of `make_questions` (same ids, same
    premises), without building the other parts of the items."""
    view = ChartView.from_spec(spec)
    structure_rng = random.Random(f"{spec.id}|{seed}|structure")
    structural = structural_claims(view, structure_rng)
    yield f"{spec.id}/sp", premise_rows(structural, structure_rng, f"{spec.id}/sp")
    for item_id, result, _ in _drawn(
        spec, view, seed=seed, per_chart=per_chart, families=families, names=None, chains=chains
    ):
        rng = random.Random(f"{item_id}|{seed}|premises")
        claims = question_claims(view, result.ops, structural)
        yield item_id, premise_rows(claims, rng, item_id)
