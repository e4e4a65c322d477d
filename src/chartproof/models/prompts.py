"""Named, versioned prompt templates and the one function that turns them into model requests.

Every model gets the same text for the same prompt id (``name@version``); users may add or
override templates from a TOML/JSON file, and a changed text must carry a new version.
"""

from __future__ import annotations

import json
import os
import string
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal, TypeAlias

from pydantic import Field, JsonValue, ValidationError

from chartproof.models.images import image_part
from chartproof.types import (
    GenerationConfig,
    ImagePart,
    Message,
    ModelRequest,
    Record,
    TextPart,
)

__all__ = [
    "BUILTIN_PROMPTS",
    "OutputKind",
    "PromptSet",
    "PromptTemplate",
    "build_request",
    "default_prompts",
    "load_prompts",
    "render_earlier",
    "render_options",
]

OutputKind: TypeAlias = Literal[
    "answer",
    "answer_explanation",
    "cot",
    "truth",
    "narrative",
    "explanation",
    "verdict",
    "code",
    "choice",
]
"""What a prompt asks the model to write, and so how its output is parsed: a short answer,
"The answer is: ... Explanation: ...", reasoning then a final-answer line, a true/false
verdict, free description, an explanation of a given answer, a judge's Correct/Incorrect
verdict on an explanation, a program (its code is taken from the reply's fenced block), or
the letter of one multiple-choice option (mapped back to that option's text)."""


class PromptTemplate(Record):
    """One named, versioned prompt.

    `text` is a Python format string over named fields: ``{question}`` (also available as
    ``{statement}``), ``{earlier}`` (the rendered earlier steps of a chain) and any extra
    field the caller passes.
    """

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    """Short name, e.g. "short"."""
    version: int = Field(ge=1)
    """Version; bump it whenever the text changes."""
    text: str = Field(min_length=1)
    """The user message, as a format string."""
    output: OutputKind
    """How the reply is parsed."""
    system: str | None = None
    """Optional system message (the built-ins use none: not every chat template has one)."""
    description: str = ""
    """What the prompt is for."""

    @property
    def id(self) -> str:
        """The prompt id recorded on requests: ``name@version``."""
        return f"{self.name}@{self.version}"

    def fields(self) -> tuple[str, ...]:
        """Names of the fields the text and system message use, in order of appearance."""
        names: list[str] = []
        for source in (self.system or "", self.text):
            for _, field, _, _ in string.Formatter().parse(source):
                if field is not None and field not in names:
                    if not field.isidentifier():
                        raise ValueError(f"prompt {self.id}: field {{{field}}} is not a plain name")
                    names.append(field)
        return tuple(names)

    def render(self, values: Mapping[str, str]) -> tuple[str | None, str]:
        """The (system, user) texts with `values` filled in; KeyError naming a missing field."""
        missing = [f for f in self.fields() if f not in values]
        if missing:
            raise KeyError(f"prompt {self.id} needs field(s) {missing}; got {sorted(values)}")
        system = self.system.format_map(values) if self.system else None
        return system, self.text.format_map(values).strip()


_ANSWER_RULE = (
    "Reply with the answer only: a single word, a number or a short phrase, with no "
    "explanation and no units unless the question asks for them."
)

BUILTIN_PROMPTS: tuple[PromptTemplate, ...] = (
    PromptTemplate(
        name="short",
        version=1,
        output="answer",
        description="ChartQA-style short answer.",
        text=f"Look at the chart and answer the question. {_ANSWER_RULE}\n\nQuestion: {{question}}",
    ),
    PromptTemplate(
        name="chartqax",
        version=1,
        output="answer_explanation",
        description="ChartQA-X answer with an explanation that cites visual elements.",
        text="Look at the chart and answer the question. Write your reply in exactly this "
        "form:\nThe answer is: <answer>. Explanation: <explanation>\n"
        "The answer is a single word, a number or a short phrase. The explanation has at "
        "most four sentences that give the steps from the chart to the answer, naming the "
        "visual elements used (colours, heights, positions, labels), with no conversational "
        "language.\n\nQuestion: {question}",
    ),
    PromptTemplate(
        name="cot",
        version=1,
        output="cot",
        description="Step-by-step reasoning followed by a final-answer line.",
        text="Look at the chart and answer the question. First reason step by step, quoting "
        "the values you read from the chart. Then write the result on a last line of the "
        "form:\nFinal answer: <answer>\n\nQuestion: {question}",
    ),
    PromptTemplate(
        name="premise",
        version=1,
        output="truth",
        description="Visual premise proving: is a statement about the chart true?",
        text="Look at the chart and decide whether the statement below is true or false for "
        "this chart. Reply with one word: True or False.\n\nStatement: {statement}",
    ),
    PromptTemplate(
        name="chain_step",
        version=1,
        output="answer",
        description="One sub-question of a reasoning chain, with the model's earlier answers.",
        text="Look at the chart and answer the question.{earlier}\n\n"
        + _ANSWER_RULE
        + "\n\nQuestion: {question}",
    ),
    PromptTemplate(
        name="mc",
        version=1,
        output="choice",
        description="Multiple choice: the question with its lettered options; the reply is a "
        "letter, mapped back to the option it names.",
        text="Look at the chart and answer the multiple-choice question. Reply with the "
        "letter of the correct option only.\n\nQuestion: {question}\nOptions:\n{options}",
    ),
    PromptTemplate(
        name="narrative",
        version=1,
        output="narrative",
        description="A short description of the chart (bias audits, captions).",
        text="Describe the chart in one paragraph of three to five sentences: what it shows, "
        "its main trends, its largest and smallest values and any notable comparison. State "
        "only what the chart shows. {question}",
    ),
    PromptTemplate(
        name="explain_candidate",
        version=1,
        output="explanation",
        description="ChartQA-X dataset building: explain how a given gold answer follows from "
        "the chart (and its table when given); the first paragraph is the instruction ROSCOE "
        "puts in the source context.",
        text="Reason the way a person would to reach the answer given below. In no more than "
        "four sentences, lay out the steps that lead from the chart to this answer, one step "
        "after another. Point to the visual elements you rely on, such as colours, bar "
        "heights, positions and labels. Leave out conversational phrases and any commentary "
        "beyond the steps.\n\nQuestion: {question}\nAnswer: {answer}{table}",
    ),
    PromptTemplate(
        name="explain_verify",
        version=1,
        output="verdict",
        description="ChartQA-X dataset building: a verifier judges a candidate explanation of "
        "the gold answer, with the chart, question, answer and table as context.",
        text="You are checking an explanation written for a chart question whose correct "
        "answer is given. Call it correct only if what it says agrees with the chart (and the "
        "data table when one is given) and its steps lead to the given answer. Reply with one "
        "word: Correct or Incorrect.\n\nQuestion: {question}\nAnswer: {answer}{table}\n\n"
        "Explanation to check: {explanation}",
    ),
    PromptTemplate(
        name="judge_answer",
        version=1,
        output="verdict",
        description="Judge scoring (`eval --judge`): a model grades a candidate answer against "
        "the reference answer of a chart question, text only, for open and free-form answers.",
        text="You are grading an answer to a question about a chart. Compare the candidate "
        "answer with the reference answer. Call it correct if it states the same answer: the "
        "same entity, the same number up to rounding or a unit written out, the same yes or "
        "no, the same items of a list; wording, extra explanation and formatting do not "
        "matter. Call it incorrect if it gives another answer, several answers, or none. "
        "Reply with one word: Correct or Incorrect.\n\nQuestion: {question}\n"
        "Reference answer: {reference}\nCandidate answer: {candidate}",
    ),
    PromptTemplate(
        name="derender_code",
        version=1,
        output="code",
        description="Charts from images as code: a matplotlib script that redraws the chart "
        "and writes the data it plots to data.csv; the size fields are filled from the image.",
        text="Write a complete Python script that redraws this chart with matplotlib as "
        "exactly as you can: same chart type, categories, values, colours, labels, title and "
        "axis titles.\nRules: import only matplotlib, numpy, pandas and the standard "
        "library's math, csv and json; do not read any file; save the figure with "
        "plt.savefig('chart.png') at the size of the original ({width}x{height} pixels, so "
        "figsize=({fig_w}, {fig_h}) at dpi=100); also write the plotted data to 'data.csv' "
        "with a header row, the x labels in the first column and one column per series.\n"
        "Reply with the script in one ```python code block.",
    ),
)


_CHARTX_QA_PREFIX = (
    "Given multiple question-answer pairs and the corresponding predictions, evaluate the "
    'correctness of predictions. The output should be only "True" or "False". Note that if '
    "the groundtruth answer is a numeric value with/without the unit, impose 5% error "
    "tolerance to the answer, e.g., the answer of 95 is marked as correct when groundtruth "
    "value is 100 million."
)
_CHARTX_QA_EXAMPLES = (
    ("<question> What was the incremental increase in revenue from 2020 to 2021? "
     "<groundtruth answer> 5 million $ <answer> 20\n</s>", "False"),
    ("<question> What percentage of government spending was allocated to infrastructure in "
     "2020? <groundtruth answer> 10% <answer> 14-4=10\n</s>", "True"),
    ("<question> What is the total production of Wind Energy in the four months from January "
     "to April 2021? <groundtruth answer> 2300 MW <answer> The total production of Wind "
     "Energy in the four months from January to April 2021 is 2450 MW.", "True"),
    ("<question> What is the total of manufactured goods for UK and Germany combined? "
     "<groundtruth answer> 5 <answer> Five", "True"),
)  # fmt: skip


def _chartx_qa_text() -> str:
    """ChartX's QA grading prompt (GPT-acc) as its evaluation assembles it: the instruction,
    four worked examples and the query, joined as LangChain's `FewShotPromptTemplate` joins
    them (UniModal4Reasoning/ChartVLM `eval/metric/gpt_acc.py`, sent to gpt-3.5-turbo; the
    reply holds "True" or "False")."""
    shots = [f"\n    User: {q}\n    AI: {a}\n    " for q, a in _CHARTX_QA_EXAMPLES]
    query = "<question> {question} <groundtruth answer> {reference} <answer> {candidate}"
    return "\n\n".join([_CHARTX_QA_PREFIX, *shots, f"\n    User: {query}\n    AI: "])


BUILTIN_PROMPTS += (
    PromptTemplate(
        name="chartx_qa",
        version=1,
        output="verdict",
        description="ChartX's own QA grading prompt (GPT-acc: True/False with a 5 % numeric "
        "tolerance, four worked examples), from UniModal4Reasoning/ChartVLM "
        "eval/metric/gpt_acc.py; chosen for ChartX samples by `eval --judge`.",
        text=_chartx_qa_text(),
    ),
)


def _charxiv_text(text: str) -> str:
    # the benchmark's text holds braces (JSON examples, LaTeX): escape them, then map its
    # <|...|> markers to this module's fields
    escaped = text.replace("{", "{{").replace("}", "}}")
    for marker, field in (
        ("<|question|>", "{question}"),
        ("<|ground_truth|>", "{reference}"),
        ("<|response|>", "{candidate}"),
        ("<|OVERARCHING_QUESTION|>", "{overarching}"),
    ):
        escaped = escaped.replace(marker, field)
    return escaped


def _charxiv_prompts() -> tuple[PromptTemplate, ...]:
    """CharXiv's grading prompts (`models._charxiv_prompts`): one per reasoning instruction
    category, and one per descriptive rubric holding a single response (the official script
    puts up to five responses of one template into a query)."""
    from chartproof.models import _charxiv_prompts as cx

    out = [
        PromptTemplate(
            name=f"charxiv_reasoning_{k}",
            version=1,
            output="verdict",
            description=f"CharXiv's grading prompt for reasoning questions of instruction "
            f"category {k}; the judge replies JSON with extracted_answer and score.",
            text=_charxiv_text(cx.REASONING_PREFIX + rules),
        )
        for k, rules in cx.REASONING_RULES.items()
    ]
    prefix = cx.DESCRIPTIVE_PREFIX.replace("<|NUM_TRIPLETS|>", "1").replace(
        "<|JSON_KEYS|>", str(["extract_answer_T1", "score_T1"])
    )
    out += [
        PromptTemplate(
            name=f"charxiv_descriptive_{rubric}",
            version=1,
            output="verdict",
            description=f"CharXiv's grading prompt for descriptive questions graded by the "
            f"{rubric} rubric, one response per query; the judge replies JSON with "
            "extract_answer_T1 and score_T1.",
            text=_charxiv_text(prefix + text)
            + "T1:\nResponse 1: {candidate}\nGround Truth 1: {reference}\n\n",
        )
        for rubric, text in cx.DESCRIPTIVE_RUBRICS.items()
    ]
    return tuple(out)


BUILTIN_PROMPTS += _charxiv_prompts()


def render_earlier(earlier: Sequence[tuple[str, str]], steps: Sequence[int] | None = None) -> str:
    """The block of earlier (question, answer) pairs a chain step shows; "" when there are none.

    `steps` numbers the pairs by their step in the chain (1-based), so that a question that
    refers to "the answer to step 6" finds step 6 in the block; by default they count 1, 2, ...
    """
    if not earlier:
        return ""
    numbers = list(steps) if steps is not None else list(range(1, len(earlier) + 1))
    if len(numbers) != len(earlier):
        raise ValueError(f"{len(earlier)} earlier answers but {len(numbers)} step numbers")
    lines = ["Earlier questions about this chart and the answers you gave:"]
    for i, (question, answer) in zip(numbers, earlier, strict=True):
        lines.append(f"{i}. {question.strip()} Your answer: {answer.strip()}")
    lines.append("You may use these answers.")
    return "\n\n" + "\n".join(lines)


def render_options(choices: Sequence[str]) -> str:
    """The lettered option lines a multiple-choice prompt shows: "A. 12\nB. 15"."""
    return "\n".join(f"{chr(ord('A') + i)}. {c.strip()}" for i, c in enumerate(choices))


class PromptSet:
    """A lookup of prompt templates by ``name`` (newest version) or ``name@version``."""

    def __init__(self, templates: Iterable[PromptTemplate]) -> None:
        self._by_id: dict[str, PromptTemplate] = {}
        for t in templates:
            old = self._by_id.get(t.id)
            if old is not None and old != t:
                raise ValueError(
                    f"prompt {t.id} is defined twice with different contents; "
                    "give the new text a new version number or another name"
                )
            self._by_id[t.id] = t

    def get(self, prompt: str) -> PromptTemplate:
        """The template for ``name@version``, or the newest version of ``name``."""
        if "@" in prompt:
            found = self._by_id.get(prompt)
            if found is None:
                raise KeyError(f"unknown prompt {prompt!r}; known: {self.ids()}")
            return found
        versions = [t for t in self._by_id.values() if t.name == prompt]
        if not versions:
            raise KeyError(f"unknown prompt {prompt!r}; known: {self.ids()}")
        return max(versions, key=lambda t: t.version)

    def __contains__(self, prompt: object) -> bool:
        if not isinstance(prompt, str):
            return False
        try:
            self.get(prompt)
        except KeyError:
            return False
        return True

    def ids(self) -> list[str]:
        """Every ``name@version`` held, sorted."""
        return sorted(self._by_id)

    def templates(self) -> list[PromptTemplate]:
        """Every template held, sorted by id."""
        return [self._by_id[i] for i in self.ids()]

    def merged(self, others: Iterable[PromptTemplate]) -> PromptSet:
        """A new set with `others` added (a clash with different text is an error)."""
        return PromptSet([*self._by_id.values(), *others])


_DEFAULT = PromptSet(BUILTIN_PROMPTS)


def default_prompts() -> PromptSet:
    """The built-in templates."""
    return _DEFAULT


def load_prompts(path: str | os.PathLike[str]) -> PromptSet:
    """The built-in templates plus a user file of templates (TOML or JSON).

    The file holds a list ``prompts`` of tables with the `PromptTemplate` fields::

        [[prompts]]
        name = "short"
        version = 2
        output = "answer"
        text = "Answer briefly. Question: {question}"

    Raises ValueError naming the file and the entry on a bad template or a clash with a
    built-in id whose text differs.
    """
    p = Path(path)
    raw = p.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(raw) if p.suffix.lower() == ".toml" else json.loads(raw)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{p}: not valid {p.suffix.lstrip('.') or 'JSON'}: {e}") from None
    entries = data.get("prompts") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ValueError(f"{p}: expected a list 'prompts' of prompt templates")
    templates: list[PromptTemplate] = []
    for i, entry in enumerate(entries):
        try:
            t = PromptTemplate.model_validate(entry)
            t.fields()
        except (ValidationError, ValueError) as e:
            raise ValueError(f"{p}: prompt #{i + 1}: {e}") from None
        templates.append(t)
    try:
        return _DEFAULT.merged(templates)
    except ValueError as e:
        raise ValueError(f"{p}: {e}") from None


def build_request(
    prompt: str,
    image: str | os.PathLike[str] | ImagePart | Sequence[str | os.PathLike[str] | ImagePart] | None,
    question: str = "",
    *,
    request_id: str,
    earlier: Sequence[tuple[str, str]] = (),
    earlier_steps: Sequence[int] | None = None,
    choices: Sequence[str] = (),
    config: GenerationConfig | None = None,
    prompts: PromptSet | None = None,
    metadata: Mapping[str, JsonValue] | None = None,
    **fields: str,
) -> ModelRequest:
    """A `ModelRequest` for one prompt: the chart image then the rendered text, in one user turn.

    `image` is a file (resolved and hashed here) or a ready `ImagePart`, or a list of them for
    a multi-chart question: every image goes first, in order, then the text. `prompt` is a name
    ("short", newest version) or an id ("short@1"); `question` fills
    ``{question}`` and ``{statement}``; `earlier` holds a chain step's (question, answer)
    pairs for its ``depends_on`` steps, numbered by `earlier_steps` (their 1-based step
    numbers) when given; `fields` fill any other placeholder. The request's
    metadata records the output kind, the question and the fields (never a gold answer), so
    built-in models can read them without parsing the prompt.

    `choices` are a multiple-choice question's options in display order: they fill
    ``{options}`` as lettered lines (the `mc` prompt), or, for a prompt without that field,
    follow the question as an "Options:" block, so every prompt shows them; they are
    recorded as ``metadata["choices"]`` (a list of option texts, display order), which the
    parser uses to map a letter or option text back to an option and which built-in models
    read to answer with one.
    """
    template = (prompts or _DEFAULT).get(prompt)
    shown = question
    if choices:
        options = render_options(choices)
        fields = {**fields, "options": options}
        if "options" not in template.fields():
            shown = f"{question.rstrip()}\n\nOptions:\n{options}"
    values: dict[str, str] = {
        "question": shown,
        "statement": shown,
        "earlier": render_earlier(earlier, earlier_steps),
        **fields,
    }
    system, text = template.render(values)
    content: list[TextPart | ImagePart] = []
    images = [image] if isinstance(image, str | os.PathLike | ImagePart) else list(image or ())
    for one in images:
        content.append(one if isinstance(one, ImagePart) else image_part(one))
    content.append(TextPart(text=text))
    messages: list[Message] = []
    if system:
        messages.append(Message(role="system", content=(TextPart(text=system),)))
    messages.append(Message(role="user", content=tuple(content)))
    meta: dict[str, JsonValue] = {
        "output": template.output,
        "question": question,
        **({"earlier": [[q, a] for q, a in earlier]} if earlier else {}),
        **({"earlier_steps": list(earlier_steps)} if earlier and earlier_steps else {}),
        **dict(fields),
        **({"choices": list(choices)} if choices else {}),
        **dict(metadata or {}),
    }
    return ModelRequest(
        id=request_id,
        messages=tuple(messages),
        config=config or GenerationConfig(),
        prompt=template.id,
        metadata=meta,
    )
