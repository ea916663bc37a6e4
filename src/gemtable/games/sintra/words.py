"""What a move does to a Sintra seat, in player words (hints and game reviews)."""

from pathlib import Path

from gemtable.core import i18n
from gemtable.core.explain import Words, explainer
from gemtable.core.i18n import mark, markn

from .heuristics import VALUE_FEATURE_NAMES

WORDS = (
    Words("score", 50.0, markn("+{n} point", "+{n} points"), markn("−{n} point", "−{n} points")),
    Words("broken", 18.0, markn("{n} point of broken glass scored", "{n} points of broken glass scored"),
          markn("{n} more point of broken glass", "{n} more points of broken glass")),
    Words("fields", 16.0, markn("+{n} window field glazed", "+{n} window fields glazed"),
          markn("−{n} window field", "−{n} window fields")),
    Words("side_bonus", 40.0, markn("+{n} point of palace bonus", "+{n} points of palace bonus"),
          markn("−{n} point of palace bonus", "−{n} points of palace bonus")),
    Words("outlook", 20.0, mark("strips closer to completion"), mark("strips further from completion"), 1.0),
    Words("strip_panes", 40.0, markn("+{n} pane on your strips", "+{n} panes on your strips"),
          markn("{n} pane off your strips", "{n} panes off your strips")),
    Words("start_marker", 1.0, mark("you start the next round"), mark("you no longer start the next round")),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS, domains=(Path(__file__).with_name("locale"), i18n.CORE_DOMAIN))
