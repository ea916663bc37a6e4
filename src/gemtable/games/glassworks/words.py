"""What a move does to a Glassworks seat, in player words (hints and game reviews)."""

from gemtable.core.explain import Words, explainer

from .heuristics import VALUE_FEATURE_NAMES

WORDS = (
    Words("score", 50.0, "+{n} point{s}", "−{n} point{s}"),
    Words("overflow", 50.0, "{n} point{s} lost to overflow", "{n} point{s} of overflow saved", 3.0),
    Words("rows", 50.0, "+{n} row point{s}", "−{n} row point{s}"),
    Words("columns", 50.0, "+{n} column point{s}", "−{n} column point{s}"),
    Words("row_potential", 50.0, "rows ready to grow", "fewer rows ready to grow"),
    Words("satchel", 5.0, "+{n} piece{s} in the satchel", "{n} piece{s} used from the satchel"),
    Words("free_columns", 7.0, "+{n} free column{s}", "a new colour started"),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS)
