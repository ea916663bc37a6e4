"""What a move does to a Splendor seat, in player words (hints and game reviews)."""

from gemtable.core.explain import Words, explainer

from .heuristics import VALUE_FEATURE_NAMES
from .rules import END_POINTS

WORDS = (
    Words("points", END_POINTS, "+{n} point{s}", "−{n} point{s}"),
    Words("nobles", 3.0, "a noble within reach", "a noble further away", 0.4),
    Words("cards", END_POINTS, "+{n} bonus card{s}", "−{n} bonus card{s}"),
    Words("gold", 5.0, "+{n} gold", "−{n} gold"),
    Words("reserved", 3.0, "a card reserved", "a reserved card bought"),
    Words("reach", 10.0, "closer to the cards worth points", "further from the cards worth points", 0.4),
    Words("tokens", 10.0, "+{n} gem{s} in hand", "−{n} gem{s} in hand"),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS)
