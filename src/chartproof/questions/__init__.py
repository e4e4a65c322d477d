"""Question programs, reasoning chains, premises and reference explanations.

Every question chartproof generates is backed by a program that runs on the chart's table:
`make_questions(spec, seed=..., per_chart=...)` returns `QuestionItem`s with the answer, the
ChartR chain, the VPP premise sequence, the explanation and the executed trace.
"""

from chartproof.questions.chains import chain_dag, check_chain
from chartproof.questions.explain import explain
from chartproof.questions.export import write_premises_jsonl
from chartproof.questions.items import (
    QuestionItem,
    has_chain,
    make_item,
    make_questions,
    premise_sequences,
)
from chartproof.questions.matching import (
    Parse,
    QuestionMatch,
    match_question,
    parse,
    question_templates,
)
from chartproof.questions.premises import evaluate, structural_premises
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
    "Parse",
    "Program",
    "ProgramResult",
    "QuestionItem",
    "QuestionMatch",
    "TraceOp",
    "chain_dag",
    "chart_view",
    "check_chain",
    "evaluate",
    "execute",
    "explain",
    "get_program",
    "has_chain",
    "list_programs",
    "make_item",
    "make_questions",
    "match_question",
    "parse",
    "premise_sequences",
    "question_templates",
    "structural_premises",
    "write_premises_jsonl",
]
