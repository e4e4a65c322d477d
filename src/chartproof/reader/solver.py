"""The reader's solver: map a question onto chartproof's question programs, run the program on
the recovered table and explain the executed steps (faithful by construction); premises get
a checked true/false verdict. Questions it cannot map are answered "unknown", saying why."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from chartproof.charts.kinds import chart_kind
from chartproof.numeric import format_number, parse_number
from chartproof.questions import (
    ChartView,
    Program,
    ProgramResult,
    execute,
    explain,
)
from chartproof.questions.cues import PATTERNS
from chartproof.questions.labels import norm
from chartproof.questions.matching import (
    cue_readings,
    match_question,
    step_matches,
    template_matches,
)
from chartproof.questions.ops.steps import recall, refers_to_steps
from chartproof.questions.program import ArgValue, get_program, program_for
from chartproof.questions.trace import Op, Tracer
from chartproof.reader._colours import human_colour_name, lightness_of
from chartproof.reader._intents import intents
from chartproof.reader._kinds import (
    Asked,
    QuestionKind,
    asked,
    choice_index,
    claim_questions,
    nearest_option,
    options_in_text,
    question_kind,
)
from chartproof.reader._premises import Verdict, judge_premise
from chartproof.reader._steps import numbered, resolve_steps
from chartproof.reader.perception.records import ChartReading
from chartproof.types import ChartType, DataTable

__all__ = [
    "UNKNOWN",
    "Solution",
    "judge",
    "narrative",
    "reply",
    "solve",
    "unread",
    "view_of",
    "view_of_table",
]

UNKNOWN = "unknown"
"""The answer given when a question cannot be mapped onto a program."""


@dataclass(frozen=True)
class Solution:
    """The solver's answer to one question (or verdict on one premise)."""

    answer: str
    """The answer text; `UNKNOWN` when the question could not be mapped."""
    explanation: str
    """At most four sentences: what was read, what was computed, the answer."""
    program: str | None = None
    """The question program that produced the answer, None otherwise."""
    args: Mapping[str, ArgValue] = field(default_factory=dict)
    """Its arguments."""
    truth: bool | None = None
    """Premise verdict, for true/false statements."""
    lead: str = ""
    """Words the question asked the reply to begin with ("My answer is")."""
    ops: tuple[Op, ...] = field(default=(), repr=False, compare=False)
    """The operations the answer was computed by (none for a premise or a guess)."""

    @property
    def known(self) -> bool:
        """Whether the question was mapped and answered."""
        return self.answer != UNKNOWN


def view_of_table(
    table: DataTable,
    chart_type: ChartType = "vbar",
    *,
    colors: Mapping[str, str] | None = None,
    x_title: str | None = None,
    y_title: str | None = None,
    title: str | None = None,
    legend: bool | None = None,
    value_labels: bool = True,
) -> ChartView:
    """A question-program view of a table (gold table mode, or a recovered table).

    `value_labels` says whether the values are printed (explanations then say "is
    labelled") or read off the axis ("reaches"); missing labels get positional names so the
    rest of the chart stays usable.
    """
    table = _named_rows(_numeric_columns(table))
    series_col: str | None = None
    y: tuple[str, ...] | None = None
    kind = chart_kind(chart_type)
    if kind.long_format and "series" in table.names and table.col("series").kind != "number":
        series_col = "series"
        y = tuple(n for n in table.names[1:] if n != "series")[:1]
    elif kind.data == "boxes":
        y = tuple(c.name for c in table.columns[1:] if c.kind == "number")[:5]
    view = ChartView.from_table(
        table,
        chart_type=chart_type,
        y=y,
        series=series_col,
        colors=colors,
        x_title=x_title,
        y_title=y_title,
        value_labels=value_labels,
        legend=legend,
    )
    return replace(view, title=title) if title else view


def _numeric_columns(table: DataTable) -> DataTable:
    """Real tables print "-" or "n/a" for missing values: a label column whose cells mostly
    read as numbers becomes a number column with those cells missing."""
    from chartproof.types import Cell, Column

    cols = list(table.columns)
    data = [list(r) for r in table.rows]
    changed = False
    for j, c in enumerate(cols[1:], start=1):
        if c.kind == "number":
            continue
        cells = [r[j] for r in data]
        nums = [None if v is None else parse_number(str(v).rstrip("*")) for v in cells]
        filled = [v for v in cells if v not in (None, "")]
        if filled and sum(n is not None for n in nums) >= 0.5 * len(filled):
            cols[j] = Column(name=c.name, kind="number", unit=c.unit)
            for r, n in zip(data, nums, strict=True):
                r[j] = n
            changed = True
    if not changed:
        return table
    rows: tuple[tuple[Cell, ...], ...] = tuple(tuple(r) for r in data)
    return DataTable(columns=tuple(cols), rows=rows)


def _named_rows(table: DataTable) -> DataTable:
    if all(r[0] not in (None, "") for r in table.rows) or table.columns[0].kind == "number":
        return table
    rows = tuple(
        (r[0] if r[0] not in (None, "") else f"#{i + 1}", *r[1:]) for i, r in enumerate(table.rows)
    )
    col = table.columns[0].model_copy(update={"kind": "category"})
    return DataTable(columns=(col, *table.columns[1:]), rows=rows)


def view_of(reading: ChartReading) -> ChartView:
    """The question-program view of what perception recovered."""
    colors = _distinct_names(reading.series_colors)
    return view_of_table(
        reading.table,
        reading.chart_type,
        colors=colors,
        x_title=reading.x_title,
        y_title=reading.y_title,
        title=reading.title,
        legend=bool(reading.legend),
        # Explanations must say how a value was obtained: printed, or read off the axis.
        value_labels=bool(reading.evidence)
        and all(e.source == "value_label" for e in reading.evidence),
    )


def _distinct_names(hexes: Mapping[str, str]) -> dict[str, str]:
    """Series colour names as people say them; series sharing a basic name are told apart
    as "dark …" and "light …" by lightness (Pew draws two blues)."""
    names = {k: human_colour_name(v) for k, v in hexes.items()}
    by_name: dict[str, list[str]] = {}
    for k, n in names.items():
        by_name.setdefault(n, []).append(k)
    for n, keys in by_name.items():
        if len(keys) < 2 or " " in n:
            continue
        keys.sort(key=lambda k: lightness_of(hexes[k]))
        names[keys[0]] = f"dark {n}"
        names[keys[-1]] = f"light {n}"
    return names


def _from_result(result: ProgramResult) -> Solution:
    return Solution(
        answer=result.answer.text(),
        explanation=explain(result.ops),
        program=result.program.name,
        args=dict(result.args),
        ops=result.ops,
    )


def _execute(
    program: Program, args: Mapping[str, ArgValue], view: ChartView
) -> ProgramResult | None:
    """Run a program; on a chart read from pixels, a program that finds two values too
    close to tell apart still answers from the values the reader has. Its sub-questions
    (`quantity` arguments) are answered as the solver answers any question (`_ask`), that
    retry included, so such a program is not run again."""
    result = execute(program, args, view, ask=_ask)
    if result is None and not view.value_labels and "quantity" not in program.slots.values():
        result = execute(program, args, replace(view, value_labels=True), ask=_ask)
    return result


def _unknown(reason: str) -> Solution:
    return Solution(answer=UNKNOWN, explanation=reason)


_TYPO = re.compile(r"\b(more|less|greater|higher|lower|larger|bigger|smaller|fewer) then\b", re.I)
"""Comparisons written with "then" for "than" (common in ChartQA's human questions)."""


_BARE_CMP = re.compile(
    r"\b(more|less|greater|higher|lower|larger|bigger|smaller|fewer) than\b", re.I
)
_ASKS = re.compile(r"\b(how|what|which|who|whom|when|where|why|number of|count|list)\b", re.I)


def solve(
    question: str,
    view: ChartView,
    earlier: Sequence[tuple[str, str]] = (),
    steps: Sequence[int] | None = None,
    *,
    choices: Sequence[str] | None = None,
    guess: bool = True,
) -> Solution:
    """Answer a question about the chart `view` shows, in the form the question asks for.

    Format instructions are set apart first (`asked`: "answer 'Yes' or 'No'", "True or
    False: ...", "Begin your answer with ..."). Labels earlier chain steps found are
    written into the question ("the year from step 3"; `steps` numbers the `earlier`
    pairs). Then tries, in order: steps that combine earlier answers, an exact template of
    a question program, a fuzzy template match, then keyword intents; the first program that
    runs and answers in the type the question asks for gives the answer and its explanation.
    Yes/no questions and claims get "Yes"/"No" ("True"/"False" when asked so) from a checked
    comparison; with `choices` (option texts in display order, or options lettered or
    numbered in the question) the answer is one of the options. When nothing can be checked
    the reply is a guess that says so, unless `guess` is False: then "unknown", with why.
    """
    form = asked(question.replace("\ufffd", "'"))
    q = _TYPO.sub(r"\1 than", " ".join(form.core.split()))
    options = list(choices) if choices else []
    if not options:
        stem, found = options_in_text(form.core.replace("\ufffd", "'"))
        if found:
            q, options = _TYPO.sub(r"\1 than", " ".join(stem.split())), found
    solution: Solution | None = None
    by_step: dict[int, tuple[str, str]] = {}
    if earlier:
        by_step = numbered(q, earlier, steps)
        q = resolve_steps(q, by_step, view)
    kind = question_kind(q)
    if form.claim or form.form in ("yes_no", "true_false"):
        kind = "yes_no"
    if options and all(norm(o) in ("yes", "no", "true", "false") for o in options):
        kind = "yes_no"
    if refers_to_steps(q):
        solution = _direct(q, view, by_step) or _unknown(
            "The question combines earlier answers the request does not include, or in a way "
            "no step question declares, or they are not numbers."
        )
    elif form.claim:
        exact = _exact(form.whole, view)  # a program's own template ("Is it the case ...")
        solution = exact if exact is not None and exact.answer in ("Yes", "No") else None
        solution = solution or _claim(q, view)
    else:
        claim = None
        if kind == "open" and _BARE_CMP.search(q) and not _ASKS.search(q):
            # "Scientists understand GM foods fairly well more than ...?": a claim to check
            # written without its "Is" (when it checks as one).
            claim = _yes_no(f"Is {q[0].lower()}{q[1:]}", view)
        if claim is not None and claim.known:
            solution = claim
        else:
            solution = _yes_no(q, view) if kind == "yes_no" else _typed(q, view, kind)
    if options:
        solution = _choose(solution, options, view, guess=guess)
    elif kind == "yes_no" and solution.answer not in ("Yes", "No") and guess:
        solution = _guess_no(solution)
    return _in_form(solution, form, options)


def unread(question: str, reason: str, *, choices: Sequence[str] | None = None) -> Solution | None:
    """The reply to a question on a chart that could not be read (`reason`): for options or
    a yes/no form, a guess that says so; None for any other question (the failure stands)."""
    form = asked(question.replace("\ufffd", "'"))
    options = list(choices or ()) or options_in_text(form.core)[1]
    failed = _unknown(f"The chart could not be read ({reason.rstrip('.')}).")
    if options:
        return _in_form(_choose(failed, options, None), form, options)
    if form.claim or form.form in ("yes_no", "true_false") or question_kind(form.core) == "yes_no":
        return _in_form(_guess_no(failed), form, options)
    return None


def _judged(verdict: Verdict, conclusion: str) -> Solution:
    """A premise judge's verdict as a yes/no solution whose explanation ends in `conclusion`."""
    return Solution(
        answer="Yes" if verdict.truth else "No",
        explanation=f"{verdict.reason[0].upper()}{verdict.reason[1:]}, so {conclusion}.",
        program=verdict.template,
        truth=verdict.truth,
    )


def _claim(statement: str, view: ChartView) -> Solution:
    """A statement checked as a premise where it is one, else as the yes/no questions it
    reads as (`claim_questions`)."""
    verdict = judge_premise(statement, view, 0.02)
    if verdict is not None:
        return _judged(verdict, "the claim is " + ("true" if verdict.truth else "false"))
    first: Solution | None = None
    for question in claim_questions(statement):
        sol = _yes_no(question, view)
        if sol.known:
            return sol
        first = first or sol
    return first or _unknown("The claim names nothing the reader can check on this chart.")


def _guess_no(solution: Solution) -> Solution:
    """ "No" to a yes/no question nothing could check: a claim the recovered table does not
    support is not confirmed; the explanation says it is a guess and why."""
    why = solution.explanation.rstrip(".")
    return Solution(
        answer="No",
        explanation=f"{why}. The claim could not be confirmed from the recovered table, so "
        "the answer No is a guess.",
        program="guess",
    )


def _in_form(solution: Solution, form: Asked, options: Sequence[str]) -> Solution:
    """The solution in the form the instructions ask for: "True"/"False" for "Yes"/"No", an
    option's letter, and the lead words the reply must begin with."""
    answer = solution.answer
    if form.form == "true_false" and answer in ("Yes", "No"):
        answer = "True" if answer == "Yes" else "False"
    elif form.form == "letter" and answer in options:
        answer = chr(65 + options.index(answer))
    if answer == solution.answer and not form.lead:
        return solution
    return replace(solution, answer=answer, lead=form.lead)


def _cued(q: str, view: ChartView) -> Iterator[Solution]:
    """The answers of the programs whose own patterns (`questions.cues.PATTERNS`) read the
    question."""
    for name, args, _ in cue_readings(q, view, ranks=PATTERNS):
        result = _execute(get_program(name), args, view)
        if result is not None:
            yield _from_result(result)


def _candidates(q: str, view: ChartView, *, cued: bool = True) -> Iterator[Solution]:
    """Every answer the question programs give, most likely reading of the question first
    (without the programs' own patterns when `cued` is False: the caller ran them)."""
    # Programs' own patterns first: they are specific ("have 24 value", "missed").
    if cued:
        yield from _cued(q, view)
    for cand in template_matches(q, view):
        result = _execute(cand.program, cand.args, view)
        if result is not None:
            yield _from_result(result)
    direct = _direct(q, view)
    if direct is not None:
        yield direct
    for intent in intents(q, view):
        try:
            program = program_for(intent.program, intent.args)
        except KeyError:
            continue
        result = _execute(program, intent.args, view)
        if result is not None:
            yield _from_result(result)


def _no_program(view: ChartView) -> Solution:
    return _unknown(
        "The question does not match any question program the reader can run on this "
        f"chart's {len(view.x_labels)} labels and {len(view.series)} series."
    )


def _fits(answer: str, kind: QuestionKind, view: ChartView) -> bool:
    """Whether an answer has the type the question asks for (a label question is not
    answered with a bare number unless that number is one of the chart's labels)."""
    if kind == "yes_no":
        return answer in ("Yes", "No")
    if kind == "label":
        if parse_number(answer) is None:
            return answer not in ("Yes", "No")
        return any(norm(answer) == norm(x) for x in view.x_labels)
    if kind == "number":
        return answer not in ("Yes", "No")
    return True


def _exact(q: str, view: ChartView) -> Solution | None:
    """The answer of the question program whose template the question is."""
    exact = match_question(q, view)
    if exact is not None:
        result = _execute(exact.program, exact.args, view)
        if result is not None:
            return _from_result(result)
    return None


def _typed(q: str, view: ChartView, kind: QuestionKind) -> Solution:
    exact = _exact(q, view)
    if exact is not None:
        return exact  # a template's program answers in its own type
    first: Solution | None = None
    for sol in _candidates(q, view):
        if _fits(sol.answer, kind, view):
            return sol
        first = first or sol
    if first is not None:
        return _unknown(
            f"The programs that fit the question answer {first.answer!r}, which is not the "
            f"{'label' if kind == 'label' else 'number'} the question asks for."
        )
    return _no_program(view)


def _ask(q: str, view: ChartView) -> tuple[Op, ...] | None:
    """A sub-question a program asks (`Tracer.ask`: a side of "Is A greater than B?")
    answered as the solver answers any question: the operations of its answer."""
    return _typed(q, view, question_kind(q)).ops or None


def _yes_no(q: str, view: ChartView) -> Solution:
    """Yes or No from the first check that applies: a question program's own yes/no
    answer (its template, then its own pattern: FigureQA's shapes, claims about a cell, a
    colour or two quantities), then any program answering yes or no, then a premise."""
    exact = _exact(q, view)
    if exact is not None and exact.answer in ("Yes", "No"):
        return replace(exact, truth=exact.answer == "Yes")
    cued = next((sol for sol in _cued(q, view) if sol.answer in ("Yes", "No")), None)
    if cued is not None:
        return replace(cued, truth=cued.answer == "Yes")
    for sol in _candidates(q, view, cued=False):
        if sol.answer in ("Yes", "No"):
            return sol
    verdict = judge_premise(q.rstrip("?"), view, 0.02)
    if verdict is not None:
        return _judged(verdict, "the answer is " + ("yes" if verdict.truth else "no"))
    return _unknown(
        "The yes/no question names no comparison the reader can check on this chart's "
        f"{len(view.x_labels)} labels and {len(view.series)} series."
    )


_CANNOT = re.compile(
    r"\b(?:cannot|can't|can not|unable to) (?:be )?(?:determined|tell|say|answer)|"
    r"\b(?:not|no) (?:enough )?(?:information|data|answer)\b|\bnone of the (?:above|options)\b|"
    r"\bunknown\b|\bnot (?:given|shown|stated)\b",
    re.I,
)


def _choose(
    solution: Solution, options: Sequence[str], view: ChartView | None, *, guess: bool = True
) -> Solution:
    """The option the solution's answer stands for: equal, nearest by value or most alike
    (`choice_index`); else the one option a check confirms as a claim; else, for an answer
    computed but offered by no option, the option nearest it by value or by label; else an
    option saying the chart cannot tell, or the first option, as a guess that says why.
    `guess` False answers "unknown" where a guess would be needed."""
    if solution.known:
        i = choice_index(solution.answer, options)
        if i is not None:
            return _option(solution, options, i, f"{solution.explanation} That is option")
    # Options that are statements about the chart: the one a check confirms.
    confirmed = []
    for i, option in enumerate(options if view is not None else ()):
        claim = option.strip().rstrip(".")
        if question_kind(claim) != "yes_no" and not claim.lower().startswith(("the ", "it ")):
            continue
        verdict = judge_premise(claim, view, 0.02) if view is not None else None
        if verdict is not None and verdict.truth:
            confirmed.append((i, verdict.reason))
    if len(confirmed) == 1:
        i, reason = confirmed[0]
        return _option(solution, options, i, f"{reason[0].upper()}{reason[1:]}, which is option")
    if not guess:
        why = (
            solution.explanation
            if not solution.known
            else (
                f"The computed answer {solution.answer!r} matches none of the {len(options)} options."
            )
        )
        return _unknown(why)
    if solution.known:
        i, how = nearest_option(solution.answer, options)
        if i is not None:
            return _option(
                solution,
                options,
                i,
                f"{solution.explanation} No option is {solution.answer}; the nearest {how} is "
                "option",
            )
    cannot = [i for i, o in enumerate(options) if _CANNOT.search(o)]
    i = cannot[0] if len(cannot) == 1 else 0
    why = (
        solution.explanation.rstrip(".")
        if not solution.known
        else (f"No option is near the computed answer {solution.answer!r}")
    )
    what = "the option saying the chart cannot tell" if cannot else "a guess"
    return Solution(
        answer=options[i],
        explanation=f"{why}. Option {chr(65 + i)} ({options[i]}) is {what}.",
        program="guess",
    )


def _option(solution: Solution, options: Sequence[str], i: int, text: str) -> Solution:
    return replace(
        solution,
        answer=options[i],
        explanation=f"{text} {chr(65 + i)} ({options[i]}).",
        program=solution.program or "choice_check",
    )


def _direct(
    q: str, view: ChartView, earlier: Mapping[int, tuple[str, str]] | None = None
) -> Solution | None:
    """Sub-questions of chains that no single program asks, by the step question the
    operation that writes them declares (k-th largest value, an ordering, one statistic of a
    box), run on a `Tracer`. With `earlier` answers the step combines them ("What is the
    answer to step 2 minus the answer to step 3?"): they are recorded first as the chain's
    steps (`recall`) and, being given numbers, read as exact."""
    for step, args in step_matches(q, view):
        views = (view,) if view.value_labels else (view, replace(view, value_labels=True))
        for seen in views if earlier is None else (replace(view, value_labels=True),):
            tr = Tracer(seen)
            recall(tr, earlier or {})
            op = step.run(tr, args)
            answer = op.answer() if op is not None else None
            if answer is not None:
                return Solution(
                    answer=answer.text(),
                    explanation=explain(tr.ops),
                    program=step.op,
                    args=args,
                    ops=tuple(tr.ops),
                )
    return None


def judge(statement: str, view: ChartView, *, rel: float = 0.0005) -> Solution:
    """True or false for a premise statement about the chart (unknown when no checkable
    premise template fits)."""
    verdict = judge_premise(" ".join(statement.split()), view, rel)
    if verdict is None:
        return _unknown("The statement does not match a premise template the reader can check.")
    word = "True" if verdict.truth else "False"
    reason = verdict.reason[0].upper() + verdict.reason[1:]
    return Solution(
        answer=word,
        explanation=f"{reason}, so the statement is {word.lower()}.",
        program=verdict.template,
        truth=verdict.truth,
    )


def reply(solution: Solution, output: str) -> str:
    """The solution written the way a prompt's output kind asks for."""
    answer = solution.answer
    if output == "answer" and solution.lead:
        return f"{solution.lead} {answer}."
    if output == "answer_explanation":
        body = answer.rstrip(".") if answer != UNKNOWN else UNKNOWN
        return f"The answer is: {body}. Explanation: {solution.explanation}"
    if output == "cot":
        return f"{solution.explanation}\nFinal answer: {answer}"
    if output == "truth":
        return answer if solution.truth is not None else f"Unknown. {solution.explanation}"
    if output == "narrative":
        return solution.explanation
    return answer


def narrative(view: ChartView) -> str:
    """A short factual description of the chart from its table (chart narrative prompts)."""
    from chartproof.questions.ops.structure import CHART_TYPE_NAMES

    kind = CHART_TYPE_NAMES.get(view.chart_type, "chart")
    about = f" titled {view.title}" if view.title else ""
    parts = [
        f"The {kind}{about} shows {', '.join(view.series) or 'its values'} across "
        f"{len(view.x_labels)} {view.x_label} values, from {view.x_labels[0]} to "
        f"{view.x_labels[-1]}."
        if view.x_labels
        else f"The {kind}{about} shows {', '.join(view.series)}."
    ]
    for series in view.series[:3]:
        pairs = [
            (x, v)
            for x, v in zip(view.x_labels, view.values.get(series, ()), strict=False)
            if v is not None
        ]
        if len(pairs) < 2:
            continue
        hi = max(pairs, key=lambda p: p[1])
        lo = min(pairs, key=lambda p: p[1])
        parts.append(
            f"{series} is highest at {hi[0]} ({format_number(hi[1])}) and lowest at "
            f"{lo[0]} ({format_number(lo[1])})."
        )
    return " ".join(parts[:4])
