"""What a move does to a Mille Fiori seat, in player words (hints and game reviews)."""

from gemtable.core.explain import Words, explainer

from .heuristics import VALUE_FEATURE_NAMES

WORDS = (
    Words("score", 200.0, "+{n} point{s}", "−{n} point{s}"),
    Words("bonus_outlook", 20.0, "bonus spaces within reach", "bonus spaces further away", 2.0),
    Words("ship", 20.0, "ship +{n} on the sea track", "ship −{n} on the sea track"),
    Words("trade_stake", 20.0, "a bigger stake in the trade columns", "a smaller stake in the trade columns", 2.0),
    Words("harbor_stake", 20.0, "+{n} fleet point{s} waiting", "−{n} fleet point{s} waiting", 2.0),
    Words("pyramid_stake", 20.0, "+{n} support point{s} owed in the pyramid", "−{n} support point{s} owed", 2.0),
    Words("workshop_group", 10.0, "a larger workshop group", "a smaller workshop group"),
    Words("diamonds_placed", 27.0, "+{n} diamond{s} placed", "−{n} diamond{s} placed"),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS)
