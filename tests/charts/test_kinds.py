"""The chart-kind table reproduces the per-type decisions the code used to spell out by name:
the program sets, the reader's redrawable kinds, the script-call order, the titles."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from chartproof.charts.kinds import ChartKind, chart_kind, chart_kinds, kind_titles, kinds_where
from chartproof.pipelines.derender_code import guess_chart_type
from chartproof.questions.programs._pick import (
    BARS,
    BOXES,
    CATEGORY,
    LINES,
    MULTI,
    ORDERED,
    PIES,
    SCATTERS,
    STACKED_BARS,
)
from chartproof.questions.view import CATEGORY_CHARTS
from chartproof.reader._redraw import REDRAWABLE

SHIPPED = ("vbar", "hbar", "grouped_bar", "stacked_bar", "line", "area", "pie", "scatter", "box")


def test_the_shipped_kinds_in_their_order() -> None:
    # the order is the order premises list distractor chart types: it must not change
    assert tuple(k.name for k in chart_kinds()) == SHIPPED
    assert dict(kind_titles()) == {
        "vbar": "vertical bar chart",
        "hbar": "horizontal bar chart",
        "grouped_bar": "grouped bar chart",
        "stacked_bar": "stacked bar chart",
        "line": "line chart",
        "area": "area chart",
        "pie": "pie chart",
        "scatter": "scatter plot",
        "box": "box plot",
    }


def test_capability_sets_are_the_former_name_sets() -> None:
    assert set(BARS) == {"vbar", "hbar", "grouped_bar", "stacked_bar"}
    assert set(LINES) == {"line", "area"}
    assert set(ORDERED) == set(BARS) | set(LINES)
    assert set(CATEGORY) == set(CATEGORY_CHARTS) == set(ORDERED) | {"pie"}
    assert set(MULTI) == {"grouped_bar", "stacked_bar", "line", "area"}
    assert (set(PIES), set(SCATTERS), set(BOXES)) == ({"pie"}, {"scatter"}, {"box"})
    assert set(STACKED_BARS) == {"stacked_bar"}
    assert set(REDRAWABLE) == set(CATEGORY)
    assert {k.name for k in chart_kinds() if not k.axes} == {"pie"}
    assert {k.name for k in chart_kinds() if k.gaps} == {"line", "scatter"}


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("ax.pie(v); ax.bar(x, v)", "pie"),
        ("ax.bxp(stats); ax.plot(x, y)", "box"),
        ("ax.stackplot(x, a, b); ax.scatter(x, y)", "area"),
        ("ax.scatter(x, y); ax.barh(x, v)", "scatter"),
        ("ax.barh(x, v); ax.bar(x, v)", "hbar"),
        ("ax.bar(x, v); ax.plot(x, v)", "vbar"),
        ("ax.plot(x, v)", "line"),
        ("ax.imshow(m)", None),
    ],
)
def test_a_script_reveals_its_kind_in_the_former_order(code: str, kind: str | None) -> None:
    assert guess_chart_type(code) == kind


def test_sets_are_read_when_asked_and_unknown_names_are_named() -> None:
    wide = kinds_where(lambda k: k.mark == "wedge")
    assert "pie" in wide and "vbar" not in wide and 3 not in wide
    with pytest.raises(KeyError, match="unknown chart type 'donut'; known: vbar"):
        chart_kind("donut")


def test_a_name_cannot_be_registered_twice() -> None:
    from chartproof.charts.kinds import register_chart_kind

    again = ChartKind("pie", "pie", chart_kind("pie").draw, "pie", "wedge", "{x}")
    with pytest.raises(ValueError, match="'pie' is already registered"):
        register_chart_kind(again)


def test_kinds_of_other_packages_load_from_their_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    import chartproof.charts.kinds as kinds

    # another package's module: registers its kind when imported
    (tmp_path / "donut_kind.py").write_text(
        "from chartproof.charts.kinds import ChartKind, chart_kind, register_chart_kind\n"
        "pie = chart_kind('pie')\n"
        "register_chart_kind(ChartKind('donut', 'donut chart', pie.draw, 'pie', 'wedge',"
        " 'the {x} ring'))\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = metadata.EntryPoint("donut", "donut_kind", kinds.ENTRY_POINT_GROUP)
    monkeypatch.setattr(
        metadata, "entry_points", lambda group: [entry] if group == kinds.ENTRY_POINT_GROUP else []
    )
    monkeypatch.setattr(kinds.CHART_KINDS, "_loaded", False)  # as in a fresh process
    monkeypatch.delitem(sys.modules, "donut_kind", raising=False)
    try:
        assert "donut" in PIES and chart_kind("donut").title == "donut chart"
    finally:
        kinds.unregister_chart_kind("donut")
    assert "donut" not in PIES
