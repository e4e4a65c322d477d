"""FigureQA's yes/no questions as programs (family "figureqa", drawn only when asked by
name): "Is X the maximum?" (minimum, low median, high median), "Is X the smoothest?"
(roughest), "Does X have the highest value?" (lowest; area under the curve), "Does X
intersect Y?", "Is X greater than Y?" on curves. X is a series of a chart with several, else
a label of its one series, so each question has a program per kind of thing it names. Their
cues read FigureQA's own wording (the templates' words, fuzzily matched names)."""

from __future__ import annotations

import itertools
import random
import re
from typing import ClassVar, cast

from chartproof.questions import ops
from chartproof.questions.cues import PATTERN, Cue, reads
from chartproof.questions.labels import best_label, norm_question
from chartproof.questions.ops.figure import RANKS, entities, extreme_scores, rank_scores
from chartproof.questions.program import Args, ArgValue, Program, register, slot_kinds
from chartproof.questions.programs._pick import CATEGORY, LINES, pick_series
from chartproof.questions.trace import Op, Tracer
from chartproof.questions.view import ChartView
from chartproof.types import TaskType

__all__ = ["BIGGER", "COMPARISON", "FAMILY", "FigureProgram"]

FAMILY = "figureqa"

_RANK = re.compile(r"^is (.+?) the (maximum|minimum|low median|high median|smoothest|roughest)$")
_HAS = re.compile(
    r"^does (.+?) have the (highest|lowest|maximum|minimum) (value|area under the curve)$"
)
_CROSS = re.compile(
    r"^(?:does|do|did|is|are) (.+?) (?:and (.+?) )?(intersect|cross|crossed|meet)\b"
    r"(?: (?:each other|with)?)? ?(.*?)$"
)
COMPARISON = re.compile(
    r"^(?:is|are|was|were|does|do|did) ((?:the )?.+?) (?:is |are )?(less|greater|smaller|"
    r"larger|higher|lower|more|bigger|fewer) than ((?:the )?.+?)$"
)
"""A yes/no comparison of two things ("is a greater than b"), normalised text: a, the
relation word, b (each with its own "the": "the median of green bars")."""
BIGGER = ("greater", "larger", "higher", "more", "bigger")
"""Relation words of COMPARISON that mean "greater"."""


def _name(phrase: str, options: list[str]) -> str | None:
    return best_label(phrase, options, 0.8)


class FigureProgram(Program):
    """A FigureQA question about one thing: a label of a one-series chart (`entity` "x") or
    a series of a chart with several ("series")."""

    family = FAMILY
    task_type: ClassVar[TaskType | None] = "VC"
    question_type = "reasoning"
    chart_types = CATEGORY
    entity = "series"

    def applies(self, view: ChartView) -> bool:
        several = len(view.series) > 1
        return several == (self.entity == "series") and super().applies(view)

    def scores(self, view: ChartView) -> dict[str, float]:
        raise NotImplementedError

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        score = self.scores(view)
        ranked = sorted(score.values())
        # an answer a reader can tell: no two things score alike
        if len(ranked) < 2 or any(not view.distinct(a, b) for a, b in itertools.pairwise(ranked)):
            return None
        return {"name": rng.choice(sorted(score))}


def _rank_cue(what: str) -> Cue:
    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        m = _RANK.match(norm_question(question))
        name = _name(m.group(1), list(entities(view))) if m and m.group(2) == what else None
        return None if name is None else {"name": name}

    return reads(cue, PATTERN, f"FigureQA: is it the {what}")


def _has_cue(top: bool, area: bool) -> Cue:
    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        m = _HAS.match(norm_question(question))
        if m is None or (m.group(2) in ("highest", "maximum")) != top:
            return None
        if (m.group(3) != "value") != area:
            return None
        name = _name(m.group(1), list(entities(view)))
        return None if name is None else {"name": name}

    return reads(
        cue,
        PATTERN,
        "FigureQA: has the " + ("highest" if top else "lowest") + (" area" if area else " value"),
    )


def _declare(base: type[FigureProgram], **attrs: object) -> None:
    """Register a program class named after its program ("figure_max_value_label" ->
    FigureMaxValueLabel), kept as a module attribute so its instances pickle."""
    cls_name = "".join(w.title() for w in str(attrs["name"]).split("_"))
    cls = type(cls_name, (base,), {"__doc__": base.__doc__, "__module__": __name__, **attrs})
    globals()[cls_name] = register(cast(type[Program], cls))


class _Rank(FigureProgram):
    """Whether a thing holds a rank: maximum, minimum, low or high median by value (a
    series: its mean), smoothest or roughest curve."""

    what = "maximum"

    def scores(self, view: ChartView) -> dict[str, float]:
        return rank_scores(view, self.what)

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.rank_is(tr, str(args["name"]), self.what)


class _Has(FigureProgram):
    """Whether a thing has the highest (lowest) value or area under the curve."""

    top = True
    area = False

    def scores(self, view: ChartView) -> dict[str, float]:
        return extreme_scores(view, self.top, self.area)

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.has_extreme(tr, str(args["name"]), self.top, self.area)


_RANK_WORDS = {
    "maximum": ("largest", "greatest"),
    "minimum": ("smallest", "least"),
    "low median": ("lower of the middle values", "lower median"),
    "high median": ("higher of the middle values", "upper median"),
    "smoothest": ("least bumpy curve", "smoothest curve"),
    "roughest": ("bumpiest curve", "roughest curve"),
}

for _what in RANKS:
    for _entity in ("x", "series") if _what not in ("smoothest", "roughest") else ("series",):
        _w1, _w2 = _RANK_WORDS[_what]
        _declare(
            _Rank,
            name=f"figure_{_what.replace(' ', '_')}" + ("_label" if _entity == "x" else ""),
            what=_what,
            entity=_entity,
            templates=(f"Is {{name}} the {_what}?", f"Is {{name}} the {_w1}?",
                       f"Is it {{name}} that is the {_w2}?"),
            slots=slot_kinds(name=_entity),
            cues=(_rank_cue(_what),),
        )  # fmt: skip

for _top, _area in itertools.product((True, False), (False, True)):
    _word = ("highest", "maximum") if _top else ("lowest", "minimum")
    _what = "area under the curve" if _area else "value"
    for _entity in ("x", "series"):
        _base = f"figure_{'max' if _top else 'min'}_{'area' if _area else 'value'}"
        _declare(
            _Has,
            name=_base + ("_label" if _entity == "x" else ""),
            top=_top,
            area=_area,
            entity=_entity,
            templates=(f"Does {{name}} have the {_word[0]} {_what}?",
                       f"Does {{name}} have the {_word[1]} {_what}?",
                       f"Is the {_what} of {{name}} the {_word[0]} of all?"),
            slots=slot_kinds(name=_entity),
            cues=(_has_cue(_top, _area),),
        )  # fmt: skip


# ---------------------------------------------------------------- two curves


def _pair(
    first: str, second: str | None, view: ChartView
) -> tuple[str, str] | None:  # the two series a crossing question names
    a = _name(re.sub(r"\b(graph|line|curve|the)\b", " ", first).strip(), list(view.series))
    b = _name(
        re.sub(r"\b(graph|line|curve|the|each other)\b", " ", second or "").strip(),
        list(view.series),
    )
    return None if a is None or b is None or a == b else (a, b)


def _cross_cue(after: bool) -> Cue:
    """ "Does Olive intersect Teal?", "Do A and B cross after 2015?"."""

    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        q = norm_question(question)
        m = _CROSS.match(q)
        if not m or len(view.series) < 2:
            return None
        first, second, rest = m.group(1), m.group(2), m.group(4)
        if second is None:
            parts = re.split(r" and ", first, maxsplit=1)
            if len(parts) == 2:
                first, second = parts
            else:
                if re.match(r"(.+?) (?:with )?(.+)$", rest or "") is None and not rest:
                    return None
                second = rest or None
        pair = _pair(first, second, view)
        if pair is None:
            return None
        found = re.search(r"\b(after|since|from) (\S+)", rest or q)
        at = best_label(found.group(2), list(view.x_labels), 0.8) if found else None
        if at is not None and at != view.x_labels[0]:
            return {"series": pair[0], "series2": pair[1], "x": at} if after else None
        return None if after else {"series": pair[0], "series2": pair[1]}

    return reads(
        cue, PATTERN, "FigureQA: do two curves cross" + (" after a point" if after else "")
    )


class _Cross(FigureProgram):
    """Whether two curves intersect (after a label)."""

    task_type = "TI"
    min_series = 2

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng, 2)
        if ss is None:
            return None
        args: dict[str, ArgValue] = {"series": ss[0], "series2": ss[1]}
        if "x" in self.slots:
            if view.n < 4 or not view.x_unique:
                return None
            args["x"] = rng.choice(view.x_labels[1:-2])
        return args

    def run(self, tr: Tracer, args: Args) -> Op | None:
        start = str(args["x"]) if "x" in args else None
        return ops.crossing(tr, str(args["series"]), str(args["series2"]), start)


_declare(
    _Cross, name="figure_intersect", slots=slot_kinds(series="series", series2="series"),
    templates=("Does {series} intersect {series2}?", "Do {series} and {series2} intersect?",
               "Does {series} cross {series2}?"),
    cues=(_cross_cue(after=False),),
)  # fmt: skip
_declare(
    _Cross, name="figure_intersect_after",
    slots=slot_kinds(series="series", series2="series", x="x"),
    templates=("Does {series} intersect {series2} after {x}?",
               "Do {series} and {series2} cross after {x}?",
               "Does {series} cross {series2} after {x}?"),
    cues=(_cross_cue(after=True),),
)  # fmt: skip


def _beyond_cue(bigger: bool) -> Cue:
    """ "Is Olive greater than Teal?" on curves: strictly above (below) at every point."""

    def cue(question: str, view: ChartView) -> dict[str, ArgValue] | None:
        m = COMPARISON.match(norm_question(question))
        if not m or (m.group(2) in BIGGER) != bigger:
            return None
        a, b = (_name(re.sub(r"^the ", "", m.group(i)), list(view.series)) for i in (1, 3))
        return None if a is None or b is None or a == b else {"series": a, "series2": b}

    return reads(cue, PATTERN, "FigureQA: " + ("above" if bigger else "below") + " at every point")


class _Beyond(FigureProgram):
    """Whether one curve lies strictly above (below) another at every point."""

    chart_types = LINES
    min_series = 2
    bigger = True

    def sample(self, view: ChartView, rng: random.Random) -> dict[str, ArgValue] | None:
        ss = pick_series(view, rng, 2)
        if ss is None:
            return None
        pairs = zip(view.values[ss[0]], view.values[ss[1]], strict=False)
        if any(a is None or b is None or not view.distinct(a, b) for a, b in pairs):
            return None
        return {"series": ss[0], "series2": ss[1]}

    def run(self, tr: Tracer, args: Args) -> Op | None:
        return ops.lies_beyond(tr, str(args["series"]), str(args["series2"]), self.bigger)


for _bigger, _words in (
    (True, ("greater", "higher", "above")),
    (False, ("less", "lower", "below")),
):
    _declare(
        _Beyond, name=f"figure_curve_{_words[0]}",
        bigger=_bigger, slots=slot_kinds(series="series", series2="series"),
        templates=(f"Is {{series}} {_words[0]} than {{series2}}?",
                   f"Is {{series}} {_words[1]} than {{series2}}?",
                   f"Does {{series}} lie {_words[2]} {{series2}} everywhere?"),
        cues=(_beyond_cue(_bigger),),
    )  # fmt: skip
