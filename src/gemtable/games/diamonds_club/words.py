"""What a move does to a Diamonds Club seat, in player words (hints and game reviews)."""

from gemtable.core.explain import Words, explainer
from gemtable.core.i18n import mark, markn

from .heuristics import COIN_SCALE, GEM_SCALE, POINTS_SCALE, VALUE_FEATURE_NAMES
from .labels import DOMAINS

WORDS = (
    Words("points", POINTS_SCALE, markn("+{n} point", "+{n} points"), markn("−{n} point", "−{n} points")),
    Words("mandatory_missing", 3.0, mark("a mandatory space left open"), mark("a mandatory space covered")),
    Words("park", 14.0, markn("+{n} park space covered", "+{n} park spaces covered"),
          markn("−{n} park space covered", "−{n} park spaces covered")),
    Words("gems", GEM_SCALE, markn("+{n} gem", "+{n} gems"), markn("−{n} gem", "−{n} gems")),
    Words("animals_towards_set", 3.0, mark("an animal towards the next set"), mark("an animal set completed")),
    Words("loose_equipment", 3.0, mark("equipment towards the next set"), mark("an equipment set completed")),
    Words("coins", COIN_SCALE, markn("+{n} coin", "+{n} coins"), markn("{n} coin spent", "{n} coins spent")),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS, domains=DOMAINS)
