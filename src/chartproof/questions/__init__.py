"""Question programs, reasoning chains, premises and reference explanations.

Every question chartproof generates is backed by a program that runs on the chart's table:
`make_questions(spec, seed=..., per_chart=...)` returns `QuestionItem`s with the answer, the
ChartR chain, the VPP premise sequence, the explanation and the executed trace.
"""

from chartproof.questions.chains import chain_dag, check_chain
from chartproof.questions.explain import explain
from chartproof.questions.items import QuestionItem, make_item, make_questions, premise_sequences
from chartproof.questions.program import (
    Args,
    ArgValue,
    Program,
    ProgramResult,
    execute,
    get_program,
    list_programs,
)
from chartproof.questions.trace import TraceOp
from chartproof.questions.view import ChartView, chart_view

__all__ = [
    "ArgValue",
    "Args",
    "ChartView",
    "Program",
    "ProgramResult",
    "QuestionItem",
    "TraceOp",
    "chain_dag",
    "chart_view",
    "check_chain",
    "execute",
    "explain",
    "get_program",
    "list_programs",
    "make_item",
    "make_questions",
    "premise_sequences",
]
