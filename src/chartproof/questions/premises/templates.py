"""Premise templates: for every premise kind, three or more paraphrases with named slots.

Written for chartproof (the structural kinds SP0-SP9 follow RealCQA-V2 §3.2); the text is
data, so another component can list, translate or match them.
"""

from __future__ import annotations

from types import MappingProxyType

from chartproof.types import PremiseKind

__all__ = ["PREMISE_TEMPLATES", "premise_kind"]

_T: dict[str, tuple[PremiseKind, tuple[str, ...]]] = {
    # ------------------------------------------------------------------ structural (SP)
    "SP0": ("structural", (
        "The chart is a {chart_type}.",
        "This figure is drawn as a {chart_type}.",
        "The data are presented in a {chart_type}.",
    )),
    "SP1": ("structural", (
        "The dependent axis is titled {title}.",
        "The value axis carries the label {title}.",
        "{title} is the title of the dependent axis.",
    )),
    "SP2": ("structural", (
        "The independent axis is titled {title}.",
        "The category axis carries the label {title}.",
        "{title} is the title of the independent axis.",
    )),
    "SP3": ("structural", (
        "The plotted values of {title} run from {lo} to {hi}.",
        "The smallest plotted {title} is {lo} and the largest is {hi}.",
        "Values of {title} in the plot span {lo} to {hi}.",
    )),
    "SP4": ("structural", (
        "The independent axis runs from {first} to {last}.",
        "The first tick of the independent axis is {first} and the last is {last}.",
        "Along the independent axis, the ticks go from {first} to {last}.",
    )),
    "SP5": ("structural", (
        "The independent axis is categorical with the labels {ticks}.",
        "The independent axis shows the categories {ticks}.",
        "The ticks of the independent axis are the category labels {ticks}.",
    )),
    "SP5_numeric": ("structural", (
        "The independent axis is numeric, not categorical.",
        "The independent axis shows a continuous numeric scale.",
        "Positions along the independent axis are numbers rather than categories.",
    )),
    "SP6": ("structural", (
        "There is a tick labelled {tick} on the independent axis.",
        "The independent axis has a tick for {tick}.",
        "{tick} appears as a tick label on the independent axis.",
    )),
    "SP7": ("structural", (
        "The dependent axis has tick marks for values of {title}.",
        "Tick marks on the dependent axis measure {title}.",
        "The dependent axis is marked with ticks for {title}.",
    )),
    "SP8": ("structural", (
        "The chart shows {n} data series.",
        "There are {n} data series plotted.",
        "{n} data series are drawn in the chart.",
    )),
    "SP9": ("structural", (
        "The legend lists {labels}.",
        "The entries of the legend are {labels}.",
        "Each series has its own legend entry, and they read {labels}.",
    )),
    "SP9_none": ("structural", (
        "The chart has no legend.",
        "No legend is drawn in this figure.",
        "There is no legend in the chart.",
    )),
    # ------------------------------------------------------------------ data (DP)
    "DP_value": ("data", (
        "The value of {series} at {x} is {value}.",
        "At {x}, {series} equals {value}.",
        "{series} takes the value {value} at {x}.",
    )),
    "DP_values": ("data", (
        "From first to last, the values of {series} are {items}.",
        "Read in order, {series} shows {items}.",
        "The plotted values of {series}, in axis order, are {items}.",
    )),
    "DP_box": ("data", (
        "The {stat} of the box at {x} is {value}.",
        "At {x}, the box shows a {stat} of {value}.",
        "The box for {x} has its {stat} at {value}.",
    )),
    "DP_color": ("data", (
        "{key} is drawn in {color}.",
        "The colour of {key} is {color}.",
        "{color} is the colour used for {key}.",
    )),
    "DP_n_colors": ("data", (
        "The {marks} use {n} colours.",
        "{n} colours are used for the {marks}.",
        "There are {n} different colours among the {marks}.",
    )),
    "DP_label_at": ("data", (
        "The {k} {mark} from the {side} is labelled {label}.",
        "Counting from the {side}, the {k} {mark} belongs to {label}.",
        "{label} is the {k} {mark} from the {side}.",
    )),
    "DP_argmax": ("data", (
        "The highest {series} is at {x}.",
        "{x} has the largest value of {series}.",
        "{series} peaks at {x}.",
    )),
    "DP_argmin": ("data", (
        "The lowest {series} is at {x}.",
        "{x} has the smallest value of {series}.",
        "{series} reaches its minimum at {x}.",
    )),
    "DP_argmax_among": ("data", (
        "Among {among}, the highest {series} is at {x}.",
        "Of {among}, {x} has the largest value of {series}.",
        "Restricted to {among}, {series} peaks at {x}.",
    )),
    "DP_argmin_among": ("data", (
        "Among {among}, the lowest {series} is at {x}.",
        "Of {among}, {x} has the smallest value of {series}.",
        "Restricted to {among}, {series} reaches its minimum at {x}.",
    )),
    "DP_max_value": ("data", (
        "The highest value of {series} is {value}.",
        "{series} reaches a maximum of {value}.",
        "The largest {series} shown is {value}.",
    )),
    "DP_min_value": ("data", (
        "The lowest value of {series} is {value}.",
        "{series} reaches a minimum of {value}.",
        "The smallest {series} shown is {value}.",
    )),
    "DP_top_series": ("data", (
        "At {x}, {series} has the highest value of all series.",
        "{series} is the largest series at {x}.",
        "No series exceeds {series} at {x}.",
    )),
    "DP_bottom_series": ("data", (
        "At {x}, {series} has the lowest value of all series.",
        "{series} is the smallest series at {x}.",
        "Every other series is above {series} at {x}.",
    )),
    "DP_box_argmax": ("data", (
        "The highest {stat} belongs to the box for {x}.",
        "{x} has the largest {stat} of all boxes.",
        "No box has a higher {stat} than the one for {x}.",
    )),
    "DP_box_argmin": ("data", (
        "The lowest {stat} belongs to the box for {x}.",
        "{x} has the smallest {stat} of all boxes.",
        "No box has a lower {stat} than the one for {x}.",
    )),
    "DP_count_items": ("data", (
        "The chart shows {n} {what}.",
        "There are {n} {what} in the chart.",
        "{n} {what} are displayed in the chart.",
    )),
    "DP_kth_value": ("data", (
        "The {k} largest value of {series} is {value}.",
        "Ranked from the top, the {k} value of {series} is {value}.",
        "{value} is the {k} largest {series}.",
    )),
    # ------------------------------------------------------------------ reasoning (RP)
    "RP_less": ("reasoning", (
        "{a} is less than {b}.",
        "{a} is smaller than {b}.",
        "{b} exceeds {a}.",
    )),
    "RP_greater": ("reasoning", (
        "{a} is greater than {b}.",
        "{a} exceeds {b}.",
        "{b} is smaller than {a}.",
    )),
    "RP_equal": ("reasoning", (
        "{a} equals {b}.",
        "{a} and {b} are the same.",
        "{a} is equal to {b}.",
    )),
    "RP_larger": ("reasoning", (
        "{x} has a larger {series} than {x2}.",
        "{series} is higher at {x} than at {x2}.",
        "Between {x} and {x2}, {x} shows more {series}.",
    )),
    "RP_kth": ("reasoning", (
        "Counting from the {end}, {x} ranks {k} by {series}.",
        "{x} has the {k} {end} {series}.",
        "Ranked from the {end}, {x} comes {k} for {series}.",
    )),
    "RP_order": ("reasoning", (
        "Ordered by {series} from {direction}, the labels are {items}.",
        "Sorted from {direction} by {series}: {items}.",
        "Ordering the labels by {series} from {direction} gives {items}.",
    )),
    "RP_order_series": ("reasoning", (
        "At {x}, the series ordered from {direction} are {items}.",
        "Sorted from {direction}, the series at {x} read {items}.",
        "Ordering the series at {x} from {direction} gives {items}.",
    )),
    "RP_members": ("reasoning", (
        "{series} is {cond} exactly at {items}.",
        "The {x_title} values with {series} {cond} are {items}.",
        "Only {items} have {series} {cond}.",
    )),
    "RP_count": ("reasoning", (
        "{series} is {cond} at {n} {x_title} values.",
        "Exactly {n} {x_title} values have {series} {cond}.",
        "The number of {x_title} values with {series} {cond} is {n}.",
    )),
    "RP_first": ("reasoning", (
        "{series} is {cond} for the first time at {x}.",
        "The first {x_title} with {series} {cond} is {x}.",
        "Before {x}, {series} is never {cond}, and at {x} it is.",
    )),
    "RP_forall_sum": ("reasoning", (
        "At every {x_title}, {a} plus {b} is greater than {c}.",
        "For all {x_title} values, {a} and {b} together exceed {c}.",
        "{a} combined with {b} is above {c} at each {x_title}.",
    )),
    "RP_sum_at": ("reasoning", (
        "At {x}, {a} plus {b} is greater than {c}.",
        "At {x}, {a} and {b} together exceed {c}.",
        "{a} combined with {b} is above {c} at {x}.",
    )),
    "RP_sum_not_at": ("reasoning", (
        "At {x}, {a} plus {b} is not greater than {c}.",
        "At {x}, {a} and {b} together do not exceed {c}.",
        "{a} combined with {b} is not above {c} at {x}.",
    )),
    "RP_monotone": ("reasoning", (
        "{series} {verb} at every step along the {x_title} axis.",
        "Each value of {series} is {comparative} than the one before.",
        "{series} {verb} monotonically over the {x_title}.",
    )),
    "RP_not_monotone": ("reasoning", (
        "{series} does not {verb0} at every step along the {x_title} axis.",
        "Not every value of {series} is {comparative} than the one before.",
        "{series} does not {verb0} monotonically over the {x_title}.",
    )),
    "RP_step": ("reasoning", (
        "{series} {verb} from {x1} to {x2}.",
        "Between {x1} and {x2}, {series} {verb}.",
        "Going from {x1} to {x2}, {series} {verb}.",
    )),
    "RP_trend": ("reasoning", (
        "From {start} to {end}, {series} is {trend}.",
        "The trend of {series} between {start} and {end} is {trend}.",
        "Between {start} and {end}, {series} follows a {trend} trend.",
    )),
    "RP_largest_change": ("reasoning", (
        "{series} {verb} the most from {x1} to {x2}.",
        "The largest {noun} of {series} from one {x_title} to the next is from {x1} to {x2}.",
        "No step of {series} {verb} more than the one from {x1} to {x2}.",
    )),
    "RP_cross": ("reasoning", (
        "The lines of {a} and {b} cross.",
        "{a} and {b} intersect somewhere on the chart.",
        "The {a} and {b} lines swap order at some point.",
    )),
    "RP_no_cross": ("reasoning", (
        "The lines of {a} and {b} do not cross.",
        "{a} and {b} never intersect on the chart.",
        "The {a} and {b} lines keep the same order throughout.",
    )),
    "RP_above": ("reasoning", (
        "{a} stays above {b} at every {x_title}.",
        "At each {x_title}, {a} is higher than {b}.",
        "{b} never reaches {a} at any {x_title}.",
    )),
    "RP_band": ("reasoning", (
        "{series} has {band} correlation.",
        "The correlation of {series} is {band}.",
        "The points of {series} show {band} correlation.",
    )),
    "RP_equal_iqr": ("reasoning", (
        "{x} and {x2} have an equal interquartile range.",
        "The interquartile range at {x} matches that at {x2}.",
        "Equal interquartile ranges appear at {x} and {x2}.",
    )),
    "RP_no_equal_iqr": ("reasoning", (
        "No two {x_title} values have an equal interquartile range.",
        "The interquartile ranges of the boxes all differ.",
        "No pair of boxes shares the same interquartile range.",
    )),
    "RP_best": ("reasoning", (
        "Of {items}, {label} has the {word} {quantity}.",
        "Comparing {items}, the {word} {quantity} belongs to {label}.",
        "Among {items}, none has a {comparative} {quantity} than {label}.",
    )),
    # ------------------------------------------------------------------ math (MP)
    "MP_arith": ("math", (
        "{a} {op} {b} equals {value}.",
        "Computing {a} {op} {b} gives {value}.",
        "The result of {a} {op} {b} is {value}.",
    )),
    "MP_sum": ("math", (
        "The values {items} add up to {value}.",
        "The sum of {items} is {value}.",
        "Adding {items} gives {value}.",
    )),
    "MP_mean": ("math", (
        "The mean of the {n} values {items} is {value}.",
        "Averaging the {n} values {items} gives {value}.",
        "{value} is the average of the {n} values {items}.",
    )),
    "MP_median": ("math", (
        "Given the set {items} with {n} elements, {value} is the middle value in ascending "
        "order.",
        "Sorted in ascending order, the {n} values {items} have {value} in the middle.",
        "In the set {items} of {n} elements, the median is {value}.",
    )),
    "MP_range": ("math", (
        "The largest minus the smallest of {items} is {value}.",
        "The values {items} span a range of {value}.",
        "Subtracting the smallest of {items} from the largest gives {value}.",
    )),
    "MP_iqr": ("math", (
        "The interquartile range of {x} is {value}.",
        "At {x}, the upper quartile minus the lower quartile is {value}.",
        "The box for {x} spans {value} between its quartiles.",
    )),
    "MP_stack": ("math", (
        "The segments of the {x} bar add up to {value}.",
        "The stacked bar for {x} totals {value}.",
        "Summing all segments at {x} gives {value}.",
    )),
    "MP_widest_gap": ("math", (
        "Apart from {x1} and {x2}, the largest difference in {series} between two {x_title} "
        "values is {value}.",
        "Leaving out the pair {x1} and {x2}, no two {x_title} values differ in {series} by "
        "more than {value}.",
        "Excluding {x1} with {x2}, the widest gap in {series} is {value}.",
    )),
    "MP_sum_where": ("math", (
        "The {series} values {cond} add up to {value}.",
        "Adding the {series} values {cond} gives {value}.",
        "The sum of the {series} values {cond} is {value}.",
    )),
    "MP_mean_axis": ("math", (
        "The mean of the {axis} values of {series} is {value}.",
        "Averaging the {axis} coordinates of {series} gives {value}.",
        "The {axis} values of {series} have a mean of {value}.",
    )),
    "MP_codev": ("math", (
        "For {series}, the sum of the products of the x and y deviations from their means is "
        "{value}.",
        "Multiplying the x and y deviations of {series} and adding them gives {value}.",
        "The deviations of {series} from the mean point have a product sum of {value}.",
    )),
    "MP_pearson": ("math", (
        "The Pearson correlation coefficient of {series} is {value}.",
        "Pearson's r for {series} equals {value}.",
        "{series} has a Pearson correlation of {value}.",
    )),
}  # fmt: skip

PREMISE_TEMPLATES = MappingProxyType({name: tpl for name, (_, tpl) in _T.items()})
"""Template name → paraphrases (at least three each)."""

_KINDS = {name: kind for name, (kind, _) in _T.items()}


def premise_kind(template: str) -> PremiseKind:
    """The premise kind of a template (KeyError naming the templates if unknown)."""
    try:
        return _KINDS[template]
    except KeyError:
        raise KeyError(f"no premise template {template!r}; known: {sorted(_KINDS)}") from None
