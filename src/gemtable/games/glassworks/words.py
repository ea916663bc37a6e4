"""What a move does to a Glassworks seat, in player words (hints and game reviews)."""

from gemtable.core.explain import Words, explainer
from gemtable.core.i18n import mark, markn

from .heuristics import VALUE_FEATURE_NAMES
from .labels import DOMAINS

WORDS = (
    Words("score", 50.0, markn("+{n} point", "+{n} points"), markn("−{n} point", "−{n} points")),
    Words("overflow", 50.0, markn("{n} point lost to overflow", "{n} points lost to overflow"),
          markn("{n} point of overflow saved", "{n} points of overflow saved"), 3.0),
    Words("rows", 50.0, markn("+{n} row point", "+{n} row points"), markn("−{n} row point", "−{n} row points")),
    Words("columns", 50.0, markn("+{n} column point", "+{n} column points"),
          markn("−{n} column point", "−{n} column points")),
    Words("row_potential", 50.0, mark("rows ready to grow"), mark("fewer rows ready to grow")),
    Words("satchel", 5.0, markn("+{n} piece in the satchel", "+{n} pieces in the satchel"),
          markn("{n} piece used from the satchel", "{n} pieces used from the satchel")),
    Words("free_columns", 7.0, markn("+{n} free column", "+{n} free columns"), mark("a new colour started")),
)
explain = explainer(VALUE_FEATURE_NAMES, WORDS, domains=DOMAINS)
