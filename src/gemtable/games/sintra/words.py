"""What a move does to a Sintra seat, in player words (hints and game reviews)."""

from gemtable.core.explain import Words, explainer

from .heuristics import VALUE_FEATURE_NAMES

WORDS = (
    Words("score", 50.0, "+{n} point{s}", "−{n} point{s}"),
    Words("broken", 18.0, "{n} point{s} of broken glass scored", "{n} more point{s} of broken glass"),
    Words("fields", 16.0, "+{n} window field{s} glazed", "−{n} window field{s}"),
    Words("side_bonus", 40.0, "+{n} point{s} of palace bonus", "−{n} point{s} of palace bonus"),
    Words("outlook", 20.0, "strips closer to completion", "strips further from completion", 1.0),
    Words("strip_panes", 40.0, "+{n} pane{s} on your strips", "{n} pane{s} off your strips"),
    Words("start_marker", 1.0, "you start the next round", "you no longer start the next round"),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS)
