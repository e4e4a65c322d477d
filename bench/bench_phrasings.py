"""Robustness of the built-in reader (`builtin:reader`) to phrasings it was never tuned on.

Rewrites the shared data's questions (../shared/data: ChartQA rows with a gold table,
FigureQA) into other forms and answers every form through `ReaderBackend.generate`, the
path an evaluation takes:

- ``original``: the question as written;
- ``format``: a format instruction appended ("NOTE: You only need to answer 'Yes' or 'No'.",
  "Begin your answer with 'My answer is'.", "Answer with a single word or phrase.");
- ``lettered``: open questions with 3 or 4 options lettered inside the text ("A. 12 B. 15
  C. 20 D. 9", one per line, or "(A) ..."); distractors come from the chart's gold table,
  else from other answers of the same kind; the gold's letter is seeded-random;
- ``claim``: yes/no claims built from the gold, true and false variants: a gold table cell
  ("Is the value of X in Y equal to 12?", "Is it the case that ...", "True or False: ...")
  and FigureQA's questions turned into statements ("True or False: Olive is the maximum.").

Each row of the report gives the reader's accuracy beside chance and the best constant
answer on the same items (always "Yes" or always "No"; always the same letter; the most
common gold answer), and, for multiple choice, the share of replies that name no option.
Every random choice is seeded by the row's id, so the rewritten set is the same on every run.

Held-out split: 30 % of the charts, by a hash of the image's path, are kept out of
development (`--split dev`, the default, never shows them); report final figures with
``--split held-out``. Readings are cached on disk (`chartproof.reader.readings`), so a second
run only answers.

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_phrasings.py               # dev split
    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_phrasings.py --split held-out --json out.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from chartproof.metrics.accuracy import relaxed_accuracy
from chartproof.models.parsing import extract_answer, extract_choice, extract_truth
from chartproof.models.prompts import build_request
from chartproof.numeric import format_number, parse_number
from chartproof.reader.backend import ReaderBackend
from chartproof.types import Answer, DataTable

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
HELD_OUT_PERCENT = 30

YES_NO_NOTES = (
    "NOTE: You only need to answer 'Yes' or 'No'.",
    "Answer 'Yes' or 'No'.",
    "Please answer yes or no.",
    "Begin your answer with 'My answer is'.",
)
OPEN_NOTES = (
    "Answer with a single word or phrase.",
    "Begin your answer with 'My answer is'.",
    "Answer the question using a single word or phrase.",
    "Give only the final answer.",
)
MC_NOTES = ("", "Answer with the option's letter from the given choices directly.", "")


@dataclass(frozen=True)
class Item:
    """One question in one phrasing."""

    id: str
    source: str  # chartqa | figureqa
    phrasing: str  # original | format | lettered | claim
    kind: str  # open | yes_no | mc
    question: str
    gold: str
    image: str
    options: tuple[str, ...] = ()
    gold_index: int = -1


def held_out(source: str, image: str) -> bool:
    """Whether a chart is in the held-out split (30 % of charts, by a hash of its path)."""
    digest = hashlib.sha256(f"{source}/{image}".encode()).hexdigest()
    return int(digest[:8], 16) % 100 < HELD_OUT_PERCENT


def _rng(*key: str) -> random.Random:
    return random.Random(int(hashlib.sha256("|".join(key).encode()).hexdigest()[:12], 16))


def _is_yes_no(answer: str) -> bool:
    return answer.strip().lower() in ("yes", "no")


def _number(text: str) -> float | None:
    return parse_number(text.strip().rstrip("%").strip())


def _cells(table: DataTable) -> list[tuple[str, str, float]]:
    """(row label, column name, value) of every number cell of a gold table."""
    out = []
    for row in table.rows:
        label = row[0]
        if label in (None, ""):
            continue
        for col, cell in zip(table.columns[1:], row[1:], strict=False):
            if isinstance(cell, int | float) and not isinstance(cell, bool):
                out.append((str(label), col.name, float(cell)))
    return out


def _table(raw: object) -> DataTable | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return DataTable.from_csv(raw)
    except ValueError:
        return None


def _far(a: float, b: float) -> bool:
    return abs(a - b) > 0.1 * max(abs(a), abs(b), 1e-9)


def _distractors(
    gold: str, table: DataTable | None, pool: Sequence[str], rng: random.Random, k: int
) -> list[str]:
    """`k` wrong options: numbers of the chart's table (else nudged copies of the gold) for
    a number gold, the table's labels (else other answers) for a text gold."""
    x = _number(gold)
    out: list[str] = []
    if x is not None:
        seen = [x]
        values = [v for _l, _c, v in _cells(table)] if table is not None else []
        values += [v for a in pool if (v := _number(a)) is not None]
        rng.shuffle(values)
        for v in values:
            if len(out) == k:
                break
            if all(_far(v, s) for s in seen):
                seen.append(v)
                out.append(format_number(v) + ("%" if gold.strip().endswith("%") else ""))
        factors = [0.5, 1.5, 2.0, 0.75, 1.25, 3.0, 0.25]
        rng.shuffle(factors)
        for f in factors:
            if len(out) == k:
                break
            v = round(x * f, 2) if x else f * 10
            if all(_far(v, s) for s in seen):
                seen.append(v)
                out.append(format_number(v))
        return out
    names: list[str] = []
    if table is not None:
        names = [str(r[0]) for r in table.rows if r[0] not in (None, "")]
        names += [c.name for c in table.columns[1:]]
    others = [a for a in pool if _number(a) is None and not _is_yes_no(a)]
    rng.shuffle(names)
    rng.shuffle(others)
    for name in names + others:
        if len(out) == k:
            break
        if name.strip().lower() != gold.strip().lower() and name not in out:
            out.append(name)
    return out


def _lettered(q: str, options: Sequence[str], rng: random.Random) -> str:
    style = rng.randrange(3)
    letters = [chr(65 + i) for i in range(len(options))]
    if style == 0:
        body = " ".join(f"{x}. {o}" for x, o in zip(letters, options, strict=True))
        text = f"{q} {body}"
    elif style == 1:
        body = "\n".join(f"{x}) {o}" for x, o in zip(letters, options, strict=True))
        text = f"{q}\n{body}"
    else:
        body = " ".join(f"({x}) {o}" for x, o in zip(letters, options, strict=True))
        text = f"{q} Options: {body}"
    note = rng.choice(MC_NOTES)
    return f"{text}\n{note}" if note else text


def _statement(question: str, subject: str) -> str | None:
    """A FigureQA question as a statement: "Is Olive the maximum?" -> "Olive is the
    maximum", "Does Olive have ..." -> "Olive has ...", "Does Olive intersect X?" ->
    "Olive intersects X"; None when the subject is not right after the verb."""
    q = question.strip().rstrip("?").strip()
    for verb, says in (("Is ", "is"), ("Does ", "does")):
        if q.startswith(verb + subject + " "):
            rest = q[len(verb + subject) + 1 :]
            if says == "does":
                head, _, tail = rest.partition(" ")
                head = "has" if head == "have" else head + "s"
                rest = f"{head} {tail}".strip()
                return f"{subject} {rest}"
            return f"{subject} is {rest}"
    return None


def _claims(row: dict[str, object], table: DataTable | None) -> Iterable[tuple[str, str]]:
    """(claim question, gold) pairs: a true and a false claim about one gold table cell,
    and FigureQA's question as a statement."""
    rid = str(row["id"])
    rng = _rng(rid, "claim")
    subject = row.get("color1_name")
    if isinstance(subject, str) and subject:
        said = _statement(str(row["question"]), subject)
        if said is not None:
            gold = str(row["answer"])
            yield f"Is it the case that {said}?", gold
            yield f"True or False: {said}.", "True" if gold.lower() == "yes" else "False"
        return
    if table is None:
        return
    cells = _cells(table)
    if not cells:
        return
    label, column, value = rng.choice(cells)
    wrong = [v for _l, _c, v in cells if _far(v, value)]
    false_value = rng.choice(wrong) if wrong else value * rng.choice((0.5, 1.5))
    single = len(table.columns) == 2
    thing = f"{label}" if single else f"{column} in {label}"
    for v, truth in ((value, True), (false_value, False)):
        shown = format_number(round(v, 2))
        form = rng.randrange(3)
        if form == 0:
            yield (
                f"Is the value of {thing} equal to {shown}? {rng.choice(YES_NO_NOTES)}",
                "Yes" if truth else "No",
            )
        elif form == 1:
            yield f"Is it the case that the value of {thing} is {shown}?", "Yes" if truth else "No"
        else:
            yield f"True or False: the value of {thing} is {shown}.", str(truth)


def build_items(rows: Sequence[dict[str, object]]) -> list[Item]:
    """Every row in every phrasing it has."""
    pool = [str(r["answer"]) for r in rows]
    items: list[Item] = []
    for row in rows:
        rid, source, q, gold = (str(row[k]) for k in ("id", "source", "question", "answer"))
        image = str(row["path"])
        table = _table(row.get("table"))
        kind = "yes_no" if _is_yes_no(gold) else "open"
        rng = _rng(rid, "phrasing")
        base = Item(rid, source, "original", kind, q, gold, image)
        items.append(base)
        note = rng.choice(YES_NO_NOTES if kind == "yes_no" else OPEN_NOTES)
        sep = rng.choice((" ", "", "\n"))
        items.append(_with(base, "format", question=f"{q.rstrip()}{sep}{note}"))
        if kind == "open":
            k = rng.choice((2, 3))
            wrong = _distractors(gold, table, pool, rng, k)
            if len(wrong) == k:
                at = rng.randrange(k + 1)
                options = [*wrong[:at], gold, *wrong[at:]]
                items.append(
                    _with(
                        base,
                        "lettered",
                        kind="mc",
                        question=_lettered(q, options, rng),
                        options=tuple(options),
                        gold_index=at,
                    )
                )
        for i, (claim, truth) in enumerate(_claims(row, table)):
            items.append(
                _with(base, "claim", id=f"{rid}~{i}", kind="yes_no", question=claim, gold=truth)
            )
    return items


def _with(item: Item, phrasing: str, **changes: object) -> Item:
    fields = {**asdict(item), "phrasing": phrasing, **changes}
    fields["options"] = tuple(fields["options"])  # type: ignore[arg-type]
    return Item(**fields)  # type: ignore[arg-type]


def load_rows(split: str) -> list[dict[str, object]]:
    """ChartQA rows with a gold table and FigureQA rows, in the split asked for."""
    rows = []
    for source in ("chartqa", "figureqa"):
        folder = DATA / source
        with open(folder / f"{source}.jsonl", encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                if source == "chartqa" and not row.get("table"):
                    continue
                hidden = held_out(source, row["image"])
                if split != "all" and hidden != (split == "held-out"):
                    continue
                row["source"] = source
                row["path"] = str(folder / row["image"])
                rows.append(row)
    return rows


def score(item: Item, reply: str) -> tuple[float, bool]:
    """(right, names no option / no yes-no) for one reply."""
    if item.kind == "mc":
        i = extract_choice(reply, item.options)
        return float(i == item.gold_index), i is None
    if item.kind == "yes_no":
        truth = extract_truth(reply)
        want = item.gold.lower() in ("yes", "true")
        return float(truth is not None and truth == want), truth is None
    answer = extract_answer(reply) or reply
    answer = re.sub(r"^my answer is[:\s]*", "", answer.strip(), flags=re.I)
    return relaxed_accuracy(answer, Answer.of_text(item.gold)), False


def baselines(items: Sequence[Item]) -> tuple[float | None, float]:
    """(chance, best constant answer) on a group of items."""
    if not items:
        return None, 0.0
    kind = items[0].kind
    if kind == "yes_no":
        yes = sum(i.gold.lower() in ("yes", "true") for i in items) / len(items)
        return 0.5, max(yes, 1 - yes)
    if kind == "mc":
        chance = sum(1 / len(i.options) for i in items) / len(items)
        letters = Counter(i.gold_index for i in items)
        return chance, max(letters.values()) / len(items)
    common = Counter(i.gold for i in items).most_common(1)[0][0]
    const = sum(relaxed_accuracy(common, Answer.of_text(i.gold)) for i in items) / len(items)
    return None, const


def run(items: Sequence[Item], backend: ReaderBackend) -> list[dict[str, object]]:
    """Answer every item through the backend; one record each."""
    out = []
    started = time.process_time()
    for n, item in enumerate(items, start=1):
        req = build_request("short", item.image, item.question, request_id=item.id)
        resp = backend.generate([req])[0]
        reply = resp.text if resp.error is None else ""
        right, unnamed = score(item, reply)
        out.append({**asdict(item), "reply": reply, "right": right, "unnamed": unnamed})
        if n % 200 == 0:
            print(f"  {n}/{len(items)} answered, {time.process_time() - started:.0f} s CPU")
    return out


def report(records: Sequence[dict[str, object]], items: Sequence[Item]) -> list[dict[str, object]]:
    """Print and return one line per (source, phrasing, kind)."""
    groups: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for n, r in enumerate(records):
        groups[(str(r["source"]), str(r["phrasing"]), str(r["kind"]))].append(n)
        groups[("all", str(r["phrasing"]), str(r["kind"]))].append(n)
    lines = []
    print(
        f"{'source':9} {'phrasing':9} {'kind':7} {'n':>5} {'reader':>7} {'chance':>7} "
        f"{'const':>7} {'no-opt':>7}"
    )
    for key in sorted(groups):
        idx = groups[key]
        acc = sum(float(records[i]["right"]) for i in idx) / len(idx)  # type: ignore[arg-type]
        unnamed = sum(bool(records[i]["unnamed"]) for i in idx) / len(idx)
        chance, const = baselines([items[i] for i in idx])
        ch = f"{100 * chance:6.1f}%" if chance is not None else "      -"
        print(
            f"{key[0]:9} {key[1]:9} {key[2]:7} {len(idx):5d} {100 * acc:6.1f}% {ch} "
            f"{100 * const:6.1f}% {100 * unnamed:6.1f}%"
        )
        lines.append(
            {
                "source": key[0],
                "phrasing": key[1],
                "kind": key[2],
                "n": len(idx),
                "accuracy": acc,
                "chance": chance,
                "constant": const,
                "no_option": unnamed,
            }
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "held-out", "all"), default="dev")
    ap.add_argument("--source", choices=("chartqa", "figureqa", "both"), default="both")
    ap.add_argument("--json", type=Path, help="write the figures and every reply here")
    ap.add_argument("--show", type=int, default=0, help="print N wrong replies per phrasing")
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"no shared data at {DATA}", file=sys.stderr)
        return 2
    rows = load_rows(args.split)
    if args.source != "both":
        rows = [r for r in rows if r["source"] == args.source]
    items = build_items(rows)
    charts = len({r["path"] for r in rows})
    print(f"{args.split} split: {len(rows)} rows on {charts} charts, {len(items)} phrasings")
    started = time.process_time()
    records = run(items, ReaderBackend())
    print(f"answered in {time.process_time() - started:.1f} s CPU")
    lines = report(records, items)
    if args.show:
        shown: Counter[str] = Counter()
        for r in records:
            key = f"{r['phrasing']}/{r['kind']}"
            if not r["right"] and shown[key] < args.show:
                shown[key] += 1
                q = str(r["question"]).replace("\n", " | ")
                print(f"[{key}] {q!r} gold={r['gold']!r} reply={str(r['reply'])[:80]!r}")
    if args.json:
        args.json.write_text(json.dumps({"lines": lines, "records": records}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
