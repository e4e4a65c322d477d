"""ChartQA human-style questions on small hand-made tables, answers computed by hand: series
named by their colour family, computed counts, missing values, gaps between two series'
extremes, row totals, "the 1st bar", "more then"; and the colour names a reader gives."""

from __future__ import annotations

import pytest

from chartproof.questions import ChartView
from chartproof.questions.colours import colour_in_question, same_colour, series_of_colour_word
from chartproof.questions.labels import find_mentions
from chartproof.reader import solve, view_of_table
from chartproof.reader._colours import human_colour_name
from chartproof.types import DataTable

VIEWS = DataTable.from_csv(
    "Year,Unfavorable,Favorable\n2005,35,43\n2010,36,49\n2015,54,38\n2018,24,88\n"
)
STACK = DataTable.from_csv(
    "Group,Often,Sometimes\nHispanics,15,18\nBlacks,41,24\nWhites,14,26\nAll adults,18,25\n"
)
POLL = DataTable.from_csv("Response,Share\nHigher,55\nAbout the same,27\nLower,15\nDK,3\n")


@pytest.fixture
def views() -> ChartView:
    # Pew's olive and orange, named as a reader names them.
    return view_of_table(VIEWS, "line", colors={"Unfavorable": "orange", "Favorable": "green"})


@pytest.fixture
def stack() -> ChartView:
    return view_of_table(
        STACK, "stacked_bar", colors={"Often": "dark blue", "Sometimes": "light blue"}
    )


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # "favorable" names Favorable, not the longer Unfavorable it also resembles.
        ("Is the value of Favorable 38 in 2015?", "Yes"),
        ("What's the highest value of the green graph?", "88"),
        ("What's the lowest value of the orange line?", "24"),
        ("What does the green line represent?", "Favorable"),
        # max(Favorable) 88 - max(Unfavorable) 54
        ("Deduct the most unfavorable view from the most favorable view?", "34"),
        ("Is Favorable in 2010 more then Unfavorable in 2010?", "Yes"),
        ("How many green points have 38 value?", "1"),
        ("35, 54, 24 which data is missed?", "36"),
        ("In how many years is the total of the two views above 90?", "2"),
    ],
)
def test_line_questions(views: ChartView, question: str, answer: str) -> None:
    got = solve(question, views)
    assert got.answer == answer, got.explanation


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's the highest value in the dark blue bar?", "41"),
        ("What is the smallest value of the light blue bars?", "18"),
        # totals 33, 65, 40, 43: over 40 are 65 and 43
        ("How many groups have net rates over 40%?", "2"),
        ("How many navy blue bars have 15 value?", "1"),
    ],
)
def test_stacked_questions(stack: ChartView, question: str, answer: str) -> None:
    got = solve(question, stack)
    assert got.answer == answer, got.explanation


def test_nth_bar_counts_in_display_order() -> None:
    view = view_of_table(POLL, "hbar")
    assert solve("What's the value of the 1st bar?", view).answer == "55"
    assert solve("What is the value of the last bar?", view).answer == "3"
    assert solve("What's the occurrences of bar with value 27?", view).answer == "1"


def test_missing_value_needs_one_series_holding_the_list() -> None:
    view = view_of_table(POLL, "hbar")
    # 55, 27 and 15 leave two values out (3 and none else would be ambiguous): 3 is it.
    assert solve("55, 27, 15 which value is missing?", view).answer == "3"
    # 55 and 99: no series holds both, so this rule does not answer.
    assert solve("55, 99 which value is missing?", view).program != "missing_value"


@pytest.mark.parametrize(
    ("hex_colour", "name"),
    [
        ("#949d48", "green"),  # Pew's olive line
        ("#ea9e2c", "orange"),
        ("#1f497d", "blue"),
        ("#c3ca8b", "green"),
        ("#bbbbbb", "gray"),
        ("#f6edd6", "white"),
        ("#9e7e23", "brown"),
        # chartproof's own palette colours keep the palette's names
        ("#1f77b4", "blue"),
        ("#55a868", "sage green"),
        ("#0072b2", "dark blue"),
    ],
)
def test_human_colour_names(hex_colour: str, name: str) -> None:
    assert human_colour_name(hex_colour) == name


def test_colour_phrases_match_series_by_family_and_shade() -> None:
    colours = {"Often": "dark blue", "Sometimes": "light blue", "NET": "gray"}
    assert colour_in_question("How many navy blue bars have 24 value?") == "navy blue"
    assert series_of_colour_word("navy blue", colours) == "Often"
    assert series_of_colour_word("light blue", colours) == "Sometimes"
    assert series_of_colour_word("grey", colours) == "NET"
    assert series_of_colour_word("blue", colours) is None  # two blues, no shade said
    assert series_of_colour_word("red", colours) is None
    assert same_colour("graph green", "olive") and not same_colour("green", "blue")


def test_a_closer_match_of_the_same_words_wins() -> None:
    options = ["Unfavorable", "Favorable"]
    assert find_mentions("the value of favorable in 2015", options) == ["Favorable"]
    assert find_mentions("favorable and unfavorable views", options) == options[::-1]


def test_total_excluding_a_label() -> None:
    table = DataTable.from_csv(
        "Area,Total programs,Children's programs\nUrban,1276,882\nSuburban,1555,1104\n"
        "Town,1487,1118\nRural,1623,1180\nNational average,1453,1037\n"
    )
    view = view_of_table(table, "grouped_bar")
    got = solve("What is the total number of programs excluding the national average?", view)
    assert got.answer == "5941", got.explanation  # 1276 + 1555 + 1487 + 1623


def test_colour_of_the_mark_showing_a_value() -> None:
    table = DataTable.from_csv("Channel,Share\nAgents,39\nDirect,35\nBanks,22\nBrokers,4\n")
    colours = {"Agents": "blue", "Direct": "dark blue", "Banks": "gray", "Brokers": "red"}
    view = view_of_table(table, "pie", colors=colours)
    assert solve("Is the color of the segment with 22% value gray?", view).answer == "Yes"
    assert solve("Is the color of the segment with 39% value gray?", view).answer == "No"


def test_claims_written_without_is_and_sharing_one_series() -> None:
    table = DataTable.from_csv(
        "Entity,Very well,Fairly well\nGM foods,19,44\nClimate change,28,40\n"
    )
    view = view_of_table(table, "stacked_bar")
    # 44 against 40 in "Fairly well" (not 28 in "Very well"): yes, and the reverse no.
    assert solve("GM foods in fairly well more then Climate change?", view).answer == "Yes"
    assert solve("Climate change in fairly well more than GM foods?", view).answer == "No"


def test_which_series_holds_the_extreme_over_years(views: ChartView) -> None:
    got = solve("Which answer response has the highest value on this graph?", views)
    assert got.answer == "Favorable", got.explanation  # 88 in 2018
    assert solve("Which year has the highest value of Favorable?", views).answer == "2018"


def test_a_bare_number_after_with_is_not_a_value_to_count() -> None:
    table = DataTable.from_csv("Age,Share\n18-29,40\n30-49,18\n50+,18\n")
    view = view_of_table(table, "vbar")
    assert solve("How many age groups have 18% ?", view).answer == "2"
    got = solve("How many people with 18 and over are there in 30-49?", view)
    assert got.program != "count_equal"
