"""Premise sequences: the claims of a question in reasoning order (structure, then each
operation's data, reasoning and math premises), rendered with seeded paraphrases and with
every true premise shuffled among its three false ones."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from chartproof.questions.premises.claims import Claim
from chartproof.questions.premises.data import DATA_BUILDERS
from chartproof.questions.premises.maths import MATH_BUILDERS
from chartproof.questions.premises.reasoning import REASONING_BUILDERS
from chartproof.questions.premises.structural import x_tick_claim
from chartproof.questions.premises.templates import PREMISE_TEMPLATES
from chartproof.questions.trace import Op
from chartproof.questions.view import ChartView
from chartproof.types import Premise

__all__ = [
    "QUESTION_STRUCTURE",
    "op_claims",
    "premise_rows",
    "question_claims",
    "render_premises",
]

BUILDERS = {**DATA_BUILDERS, **REASONING_BUILDERS, **MATH_BUILDERS}

QUESTION_STRUCTURE = ("SP0", "SP1", "SP2", "SP8", "SP9")
"""Structural kinds that open every question's sequence (SP6 follows for each x label the
question names)."""

_LABEL_ARGS = ("x", "x2", "start", "end")


def op_claims(view: ChartView, ops: Sequence[Op]) -> list[Claim]:
    """The data, reasoning and math claims of executed operations, in operation order."""
    out: list[Claim] = []
    for op in ops:
        build = BUILDERS.get(op.op)
        if build is not None:
            out.extend(build(view, op, ops))
    return out


def question_claims(view: ChartView, ops: Sequence[Op], structural: Iterable[Claim]) -> list[Claim]:
    """A question's claims: chart structure, the ticks it names, then its operations (a
    structural fact the question itself asks about comes last, as its conclusion)."""
    from_ops = op_claims(view, ops)
    own = {c.slot for c in from_ops}
    claims = [c for c in structural if c.slot in QUESTION_STRUCTURE and c.slot not in own]
    ticks: list[str] = []
    for op in ops:
        for key in _LABEL_ARGS:
            v = op.args.get(key)
            if isinstance(v, str) and v not in ticks and len(ticks) < 2:
                ticks.append(v)
    for t in ticks:
        made = x_tick_claim(view, t)
        if made is not None and made.slot not in own:
            claims.append(made)
    return claims + from_ops


def premise_rows(claims: Iterable[Claim], rng: random.Random, prefix: str) -> list[dict[str, Any]]:
    """Premises as plain dicts with the fields of `Premise`: per claim its true statement
    among its three false ones (order and paraphrases drawn from `rng`); ids are
    `<prefix>/p<index>`. The fast path for bulk export (JSONL)."""
    out: list[dict[str, Any]] = []
    draw = rng.random
    for c in claims:
        # the true statement takes a random place among the three false ones
        at = int(draw() * 4)
        stmts = [(f, False) for f in c.false]
        stmts.insert(at, (c.true, True))
        for st, truth in stmts:
            paraphrases = PREMISE_TEMPLATES[st.template]
            p = int(draw() * len(paraphrases))
            text = paraphrases[p].format_map(st.slots)
            out.append(
                {
                    "id": f"{prefix}/p{len(out)}",
                    "kind": c.kind,
                    "text": text[:1].upper() + text[1:],
                    "truth": truth,
                    "template": st.template,
                    "paraphrase": p,
                    "slot": c.slot,
                    "logic": st.logic,
                }
            )
    return out


def render_premises(claims: Iterable[Claim], rng: random.Random, prefix: str) -> list[Premise]:
    """`premise_rows` as `Premise` records."""
    # built from checked parts, so validation is skipped: it would dominate the cost
    return [Premise.model_construct(**row) for row in premise_rows(claims, rng, prefix)]
