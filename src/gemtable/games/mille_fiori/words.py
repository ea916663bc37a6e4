"""What a move does to a Mille Fiori seat, in player words (hints and game reviews)."""

from pathlib import Path

from gemtable.core import i18n
from gemtable.core.explain import Words, explainer
from gemtable.core.i18n import mark, markn

from .heuristics import VALUE_FEATURE_NAMES

WORDS = (
    Words("score", 200.0, markn("+{n} point", "+{n} points"), markn("−{n} point", "−{n} points")),
    Words("bonus_outlook", 20.0, mark("bonus spaces within reach"), mark("bonus spaces further away"), 2.0),
    Words("ship", 20.0, mark("ship +{n} on the sea track"), mark("ship −{n} on the sea track")),
    Words("trade_stake", 20.0, mark("a bigger stake in the trade columns"), mark("a smaller stake in the trade columns"),
          2.0),
    Words("harbor_stake", 20.0, markn("+{n} fleet point waiting", "+{n} fleet points waiting"),
          markn("−{n} fleet point waiting", "−{n} fleet points waiting"), 2.0),
    Words("pyramid_stake", 20.0, markn("+{n} support point owed in the pyramid", "+{n} support points owed in the pyramid"),
          markn("−{n} support point owed", "−{n} support points owed"), 2.0),
    Words("workshop_group", 10.0, mark("a larger workshop group"), mark("a smaller workshop group")),
    Words("diamonds_placed", 27.0, markn("+{n} diamond placed", "+{n} diamonds placed"),
          markn("−{n} diamond placed", "−{n} diamonds placed")),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS, domains=(Path(__file__).with_name("locale"), i18n.CORE_DOMAIN))
