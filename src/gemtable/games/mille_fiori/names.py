"""The words of the Mille Fiori board as messages: areas, symbols, spaces and cards.

The data file names symbols and spaces in English (``data.py`` builds ``space_name`` such
as ``nobles base 2 (lion)``); here each becomes a message that renders that same English
and any language of the game's catalogue.
"""

from __future__ import annotations

import re

from gemtable.core.i18n import Message, msg, msgp

from .data import AREAS

AREA_WORD = {
    "workshops": msgp("area", "workshops"), "houses": msgp("area", "houses"),
    "nobles": msgp("area", "nobles"), "commoners": msgp("area", "commoners"),
    "trade": msgp("area", "trade"), "harbor": msgp("area", "harbor"),
}
"""An area named on its own ("a workshops card", "the trade area")."""

SYMBOL = {
    "quartz": msgp("symbol", "quartz"), "ash": msgp("symbol", "ash"), "lime": msgp("symbol", "lime"),
    "pigments": msgp("symbol", "pigments"), "key": msgp("symbol", "key"), "coin": msgp("symbol", "coin"),
    "lion": msgp("symbol", "lion"), "cross": msgp("symbol", "cross"), "shell": msgp("symbol", "shell"),
    "fish": msgp("symbol", "fish"), "crab": msgp("symbol", "crab"), "glassware": msgp("symbol", "glassware"),
    "carafe": msgp("symbol", "carafe"), "jewelry": msgp("symbol", "jewelry"), "swan": msgp("symbol", "swan"),
    "ship": msgp("symbol", "ship"),
}
"""The symbols printed on cards and spaces (names from data.toml)."""

LEVEL = {"base": msgp("pyramid level", "base"), "middle": msgp("pyramid level", "middle"),
         "top": msgp("pyramid level", "top")}


def word(table: dict[str, Message], name: str) -> Message | str:
    """``name``'s message, or the name itself for a word the catalogue does not know (a
    data file with other symbols still reads, in English)."""
    return table.get(name, name)


_SPACE = (
    (re.compile(r"workshop (\d+) \((\w+)\)$"),
     lambda m: msg("workshop {number} ({symbol})", number=int(m[1]), symbol=word(SYMBOL, m[2]))),
    (re.compile(r"house (\d+) \(value (\d+)\)$"),
     lambda m: msg("house {number} (value {value})", number=int(m[1]), value=int(m[2]))),
    (re.compile(r"(nobles|commoners) (base|middle|top) (\d+) \((\w+)\)$"),
     lambda m: msg("{pyramid} {level} {number} ({symbol})", pyramid=AREA_WORD[m[1]], level=LEVEL[m[2]],
                   number=int(m[3]), symbol=word(SYMBOL, m[4]))),
    (re.compile(r"trade row (\d+) \((\w+)\)$"),
     lambda m: msg("trade row {number} ({symbol})", number=int(m[1]), symbol=word(SYMBOL, m[2]))),
    (re.compile(r"fleet (\d+) ship (\d+)$"),
     lambda m: msg("fleet {fleet} ship {number}", fleet=int(m[1]), number=int(m[2]))),
)


def space_word(name: str) -> Message | str:
    """A board space's English name (``Data.space_name``) as a message."""
    for pattern, build in _SPACE:
        m = pattern.match(name)
        if m:
            return build(m)
    return name


def card_word(area: int, symbol: str, wheel: int) -> Message:
    """A card by its area, symbol and wheel number ("workshops quartz card (wheel 3)")."""
    return msg("{area} {symbol} card (wheel {wheel})", area=AREA_WORD[AREAS[area]],
               symbol=word(SYMBOL, symbol), wheel=wheel)
