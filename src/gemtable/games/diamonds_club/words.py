"""What a move does to a Diamonds Club seat, in player words (hints and game reviews)."""

from gemtable.core.explain import Words, explainer

from .heuristics import COIN_SCALE, GEM_SCALE, POINTS_SCALE, VALUE_FEATURE_NAMES

WORDS = (
    Words("points", POINTS_SCALE, "+{n} point{s}", "−{n} point{s}"),
    Words("mandatory_missing", 3.0, "a mandatory space left open", "a mandatory space covered"),
    Words("park", 14.0, "+{n} park space{s} covered", "−{n} park space{s} covered"),
    Words("gems", GEM_SCALE, "+{n} gem{s}", "−{n} gem{s}"),
    Words("animals_towards_set", 3.0, "an animal towards the next set", "an animal set completed"),
    Words("loose_equipment", 3.0, "equipment towards the next set", "an equipment set completed"),
    Words("coins", COIN_SCALE, "+{n} coin{s}", "{n} coin{s} spent"),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS)
