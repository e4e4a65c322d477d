"""Multiple-choice forms of chart questions, with distractors drawn from the same chart:
other labels of the column (or legend) the gold label comes from, other values of the chart's
table for a number, the other polarity for yes/no, other orders for a ranking.

Distractors from the chart itself are the hard kind (a model that reads the wrong bar picks
one); random numbers would be rejected by magnitude alone. The gold option's position is
seeded from the sample id, so a suite's gold letters are balanced but reproducible.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable

from chartproof.seeds import stable_seed
from chartproof.types import Answer, DataTable, Sample

__all__ = ["distractors", "multiple_choice", "with_multiple_choice"]


def _table(sample: Sample) -> DataTable | None:
    if sample.table is not None:
        return sample.table
    return sample.spec.table if sample.spec is not None else None


def _label_pool(sample: Sample, gold: str) -> list[str]:
    """The labels of the group the gold label belongs to: a category column or the legend."""
    table = _table(sample)
    pools: list[list[str]] = []
    if sample.spec is not None:
        pools.append(list(sample.spec.series_names()))
    if table is not None:
        for col in table.columns:
            if col.kind != "number":
                pools.append(list(dict.fromkeys(v for v in table.labels(col.name) if v)))
        pools.append([c.name for c in table.columns if c.kind == "number"])
    key = gold.strip().casefold()
    for pool in pools:
        if any(p.strip().casefold() == key for p in pool):
            return [p for p in pool if p.strip().casefold() != key]
    return []


def _number_pool(sample: Sample, gold: Answer, k: int) -> list[str]:
    """Wrong numbers from the chart, never within the gold's tolerance (a distractor that
    scores as right would be a second right answer).

    A gold read off the chart gets the chart's other values (reading the wrong mark); a
    computed gold (a sum, a difference, an average) gets the chart's values and the sums
    and differences of their pairs, nearest the gold in magnitude first, so the options
    cannot be told apart by size alone; a rank, position or count (by its program's name)
    gets the other whole numbers it could be.
    """
    table = _table(sample)
    if table is None:
        return []
    assert isinstance(gold.value, float)
    target = gold.value
    program = sample.program or ""
    if any(word in program for word in ("rank", "position", "count")):
        # a position or a count: the other whole numbers it could be, nearest first
        low = 0 if "count" in program else 1
        others = [float(i) for i in range(low, max(table.n_rows, int(target)) + 1) if i != target]
        others.sort(key=lambda v: (abs(v - target), v))
        return [Answer.number(v).text() for v in others[: k - 1]]
    values = [
        v
        for col in table.columns
        if col.kind == "number"
        for v in table.numbers(col.name)
        if v is not None and math.isfinite(v)
    ]
    slack = max(gold.tolerance * abs(target), 1e-9)
    candidates: list[float] = list(values)
    if not any(abs(v - target) <= slack for v in values):
        pairs = list(itertools.combinations(values, 2))
        candidates += [a + b for a, b in pairs] + [abs(a - b) for a, b in pairs]
        candidates.sort(key=lambda v: (abs(v - target), v))
    seen = {gold.text()}
    out: list[str] = []
    for v in candidates:
        if abs(v - target) <= slack:
            continue
        text = Answer.number(v, unit=gold.unit).text()
        if text not in seen:
            seen.add(text)
            out.append(text)
        if len(out) == k - 1:
            break
    return out


def distractors(sample: Sample, *, k: int = 4) -> list[str]:
    """Up to k − 1 wrong options for the sample's gold answer, from its own chart (in the
    chart's order); [] when the answer kind allows none (free text without a table)."""
    gold = sample.answer
    if gold.kind == "bool":
        return ["No" if gold.value else "Yes"]
    if gold.kind in ("text", "choice"):
        assert isinstance(gold.value, str)
        return _label_pool(sample, gold.value)[: k - 1]
    if gold.kind == "number":
        return _number_pool(sample, gold, k)
    if gold.kind == "ranked_list":
        assert isinstance(gold.value, tuple)
        items = list(gold.value)
        # permutations are generated lazily: only the first k - 1 wrong orders are made
        wrong: list[str] = []
        for order in itertools.islice(itertools.permutations(items), 1, None):
            if len(wrong) >= k - 1:
                break
            wrong.append(Answer(kind="ranked_list", value=tuple(order)).text())
        return wrong
    return []


def multiple_choice(sample: Sample, *, k: int = 4, seed: int = 0) -> Sample | None:
    """The sample as a multiple-choice question with at most `k` options (the gold and up to
    k − 1 distractors from the same chart), or None when no distractor exists.

    The new sample's id is "<id>~mc", its answer the gold option's text (a "choice"
    answer), `groups["form"]` "multiple_choice", and `source["mc_of"]` the original answer;
    the gold's position is drawn with a seed derived from (sample id, `seed`).
    """
    if k < 2:
        raise ValueError(f"a multiple-choice question needs k >= 2, got {k}")
    if sample.choices:
        return None
    wrong = distractors(sample, k=k)
    if not wrong:
        return None
    gold = sample.answer.text()
    options = [gold, *wrong]
    random.Random(stable_seed(sample.id, "mc", seed)).shuffle(options)
    data = sample.model_dump()
    data.update(
        id=f"{sample.id}~mc",
        answer=Answer.option(gold).model_dump(),
        choices=options,
        groups={**sample.groups, "form": "multiple_choice"},
        source={**sample.source, "mc_of": sample.answer.model_dump(mode="json")},
        # chain and premises belong to the open form of the question
        chain=[],
        premises=[],
    )
    return Sample.model_validate(data)


def with_multiple_choice(samples: Iterable[Sample], *, k: int = 4, seed: int = 0) -> list[Sample]:
    """Every sample followed by its multiple-choice form where one can be made."""
    out: list[Sample] = []
    for s in samples:
        out.append(s)
        mc = multiple_choice(s, k=k, seed=seed)
        if mc is not None:
            out.append(mc)
    return out
