"""What a move does to a Splendor seat, in player words (hints and game reviews)."""

from pathlib import Path

from gemtable.core import i18n
from gemtable.core.explain import Words, explainer
from gemtable.core.i18n import mark, markn

from .heuristics import VALUE_FEATURE_NAMES
from .rules import END_POINTS

WORDS = (
    Words("points", END_POINTS, markn("+{n} point", "+{n} points"), markn("−{n} point", "−{n} points")),
    Words("nobles", 3.0, mark("a noble within reach"), mark("a noble further away"), 0.4),
    Words("cards", END_POINTS, markn("+{n} bonus card", "+{n} bonus cards"),
          markn("−{n} bonus card", "−{n} bonus cards")),
    Words("gold", 5.0, markn("+{n} gold", "+{n} gold"), markn("−{n} gold", "−{n} gold")),
    Words("reserved", 3.0, mark("a card reserved"), mark("a reserved card bought")),
    Words("reach", 10.0, mark("closer to the cards worth points"), mark("further from the cards worth points"), 0.4),
    Words("tokens", 10.0, markn("+{n} gem in hand", "+{n} gems in hand"), markn("−{n} gem in hand", "−{n} gems in hand")),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS, domains=(Path(__file__).with_name("locale"), i18n.CORE_DOMAIN))
