"""Loader for CharXiv (github.com/princeton-nlp/CharXiv): a checkout holding
`data/descriptive_<split>.json` and `data/reasoning_<split>.json` (objects keyed by figure
id), `data/image_metadata_<split>.json`, `images/<figure_id>.jpg` (unzipped from the
authors' images.zip) and `src/constants.py`, whose templates turn a descriptive question id
into its question.

A descriptive record lists up to four question ids (`qids`) with their `answers` and the
subplot they ask about (`subplot_loc`: [0, 0] one plot, [row, column], or a description);
a reasoning record one `query`, its `answer`, `inst_category` (1 text-in-chart, 2
text-in-general, 3 number-in-chart, 4 number-in-general) and `qa_source`. The test split's
answers are withheld (null): those rows are counted errors, not samples.

The templates are read from constants.py with `ast` (never executed); they hold the
question and the authors' answer instructions, kept whole in `source["official_prompt"]`
while `Sample.question` is the question itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pydantic import JsonValue

from chartproof.datasets.errors import LoadResult, RowError, RowLog
from chartproof.datasets.loaders._json import read_json
from chartproof.datasets.loaders._records import FieldMap, RecordContext, record_to_sample
from chartproof.datasets.loaders._registry import register_loader
from chartproof.types import Sample

__all__ = ["CHARXIV_KINDS", "charxiv_templates", "is_charxiv", "load_charxiv"]

CHARXIV_KINDS = ("descriptive", "reasoning")
"""The two question sets, recorded in `source["charxiv_kind"]`."""

_FIELDS = FieldMap(choices=(), explanation="", table="", groups=("charxiv_kind",))


def is_charxiv(path: Path) -> bool:
    """A CharXiv checkout: data/descriptive_*.json or data/reasoning_*.json."""
    data = path / "data"
    return any(data.glob("descriptive_*.json")) or any(data.glob("reasoning_*.json"))


def charxiv_templates(root: Path) -> dict[str, dict[int, str]]:
    """DESCRIPTIVE_RESP_INST and REASONING_RESP_INST of `src/constants.py` (template id →
    text), parsed with `ast.literal_eval`; {} when the file is absent."""
    file = root / "src" / "constants.py"
    if not file.is_file():
        return {}
    tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    out: dict[str, dict[int, str]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in (
            "DESCRIPTIVE_RESP_INST",
            "REASONING_RESP_INST",
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, dict):
                out[target.id] = {int(k): str(v) for k, v in value.items()}
    return out


def _subplot_prefix(qid: int, loc: JsonValue) -> str | None:
    """How the authors name the subplot a descriptive question asks about."""
    if qid in (18, 19):  # layout and number of subplots: about the whole figure
        return ""
    if isinstance(loc, list) and len(loc) == 2:
        if loc[0] == 0:
            return "For the current plot, "
        return f"For the subplot at row {loc[0]} and column {loc[1]}, "
    if isinstance(loc, str) and loc:
        return f"For {loc}, "
    return None


def _number_instruction(answer: str) -> str:
    """The answer-format line CharXiv adds to number-in-general questions (category 4)."""
    _, dot, decimals = answer.partition(".")
    if not dot:
        return "* Your final answer must be an exact integer."
    return f"* Your final answer must be a number with {len(decimals)} decimal places."


def _descriptive_records(
    data: dict[str, JsonValue], templates: dict[int, str], file: Path, log: RowLog
) -> list[tuple[int, dict[str, JsonValue], str]]:
    """(position, record, official prompt) of every descriptive question of a split."""
    out: list[tuple[int, dict[str, JsonValue], str]] = []
    for key, fig in data.items():
        if not isinstance(fig, dict):
            log.error(
                RowError(file=str(file), line=len(out) + 1, message=f"figure {key}: not an object")
            )
            continue
        qids, answers = fig.get("qids"), fig.get("answers")
        if not isinstance(qids, list):
            log.error(
                RowError(
                    file=str(file),
                    line=len(out) + 1,
                    field="qids",
                    message=f"figure {key}: qids is not a list",
                )
            )
            continue
        for i, qid in enumerate(qids):
            pos = len(out) + 1
            answer = answers[i] if isinstance(answers, list) and i < len(answers) else None
            template = templates.get(qid) if isinstance(qid, int) else None
            prefix = _subplot_prefix(qid, fig.get("subplot_loc")) if isinstance(qid, int) else None
            if template is None or prefix is None:
                message = f"figure {key}: no question template for qid {qid!r} at {fig.get('subplot_loc')!r}"
                log.error(RowError(file=str(file), line=pos, field="qids", message=message))
                continue
            prompt = template.format(prefix) if "{}" in template else template
            question = prompt.strip().splitlines()[0].strip()
            record: dict[str, JsonValue] = {
                "id": f"{key}_{i}",
                "figure_id": fig.get("figure_id", key),
                "subq_idx": i,
                "qid": qid,
                "subplot_loc": fig.get("subplot_loc"),
                "num_subplots": fig.get("num_subplots"),
                "question": question,
                "answer": answer,
                "question_type": f"descriptive-{qid}",
            }
            out.append((pos, record, prompt))
    return out


def _reasoning_records(
    data: dict[str, JsonValue], templates: dict[int, str], file: Path, log: RowLog
) -> list[tuple[int, dict[str, JsonValue], str]]:
    out: list[tuple[int, dict[str, JsonValue], str]] = []
    for pos, (key, item) in enumerate(data.items(), start=1):
        if not isinstance(item, dict):
            log.error(RowError(file=str(file), line=pos, message=f"figure {key}: not an object"))
            continue
        query, answer, category = item.get("query"), item.get("answer"), item.get("inst_category")
        template = templates.get(category) if isinstance(category, int) else None
        prompt = ""
        if template is not None and isinstance(query, str):
            if category == 4 and isinstance(answer, str):
                prompt = template.format(query, _number_instruction(answer))
            elif category != 4:
                prompt = template.format(query)
        record: dict[str, JsonValue] = {
            **{k: v for k, v in item.items() if k not in ("query", "answer")},
            "id": str(key),
            "question": query,
            "answer": answer,
            "question_type": f"reasoning-{category}",
        }
        out.append((pos, record, prompt))
    return out


@register_loader("charxiv", detect=is_charxiv, order=30)
def load_charxiv(
    path: Path,
    *,
    strict: bool = False,
    check_images: bool = True,
    split: str = "val",
    kind: str = "descriptive,reasoning",
    images: str = "images",
) -> LoadResult:
    """Load CharXiv from its checkout. `split` is "val" (answers public) or "test" (answers
    withheld: every row is a counted error); `kind` picks "descriptive", "reasoning" or
    both. Images are `<images>/<figure_id>.jpg`. Ids are
    "charxiv-<split>-<kind>-<official key>" (the key: figure id for reasoning,
    "<figure id>_<index>" for descriptive); `source` keeps `charxiv_kind`, `figure_id`,
    `qid` / `inst_category`, the image metadata (`category`, `year`, `paper_id`, ...) and
    the authors' full prompt (`official_prompt`), and the kind is a group label.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"no CharXiv folder at {root}")
    kinds = [k.strip() for k in kind.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(CHARXIV_KINDS))
    if unknown or not kinds:
        raise ValueError(f"CharXiv kinds are {list(CHARXIV_KINDS)}, not {unknown or kind!r}")
    templates = charxiv_templates(root)
    log = RowLog([], strict=strict)
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    meta_file = root / "data" / f"image_metadata_{split}.json"
    metadata = read_json(meta_file) if meta_file.is_file() else {}
    for which in kinds:
        file = root / "data" / f"{which}_{split}.json"
        if not file.is_file():
            raise FileNotFoundError(f"{root}: no data/{file.name} (split {split!r})")
        data = read_json(file)
        if not isinstance(data, dict):
            raise ValueError(f"{file}: expected an object of records keyed by figure id")
        if which == "descriptive":
            if "DESCRIPTIVE_RESP_INST" not in templates:
                raise ValueError(
                    f"{root}: descriptive questions are templates in src/constants.py, which "
                    "is missing; point at the CharXiv checkout (or load kind=reasoning)"
                )
            rows = _descriptive_records(data, templates["DESCRIPTIVE_RESP_INST"], file, log)
        else:
            rows = _reasoning_records(data, templates.get("REASONING_RESP_INST", {}), file, log)
        ctx = RecordContext(
            file=str(file), root=root, dataset="charxiv", log=log,
            check_images=check_images, seen=seen,
        )  # fmt: skip
        for pos, record, prompt in rows:
            figure = record.get("figure_id")
            meta = metadata.get(str(figure)) if isinstance(metadata, dict) else None
            official_key = record["id"]
            record.update(
                {
                    **(meta if isinstance(meta, dict) else {}),
                    "id": f"charxiv-{split}-{which}-{official_key}",
                    "charxiv_id": official_key,
                    "charxiv_kind": which,
                    "image": f"{images}/{figure}.jpg",
                    "split": split,
                }
            )
            if record.get("answer") is None:
                log.error(
                    RowError(
                        file=str(file), line=pos, field="answer", sample_id=str(record["id"]),
                        message="answer is null (CharXiv withholds the test split's answers)",
                    )
                )  # fmt: skip
                continue
            if prompt:
                record["official_prompt"] = prompt
            sample = record_to_sample(record, pos, _FIELDS, ctx)
            if sample is not None:
                samples.append(sample)
    return LoadResult(samples=samples, errors=log.errors, root=root)
