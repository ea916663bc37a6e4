"""River Valley Glassworks' words as messages (:mod:`gemtable.core.i18n`): colours, shapes,
pieces, river tiles and the lists the log, the prompts and the refusals are built from.

Every English rendering here is exactly the English the engine wrote before messages (the
tests compare them); other languages come from ``locale/<lang>.po``.  A piece is a colour
and a shape ("a white triangle"); German declines the article with the shape's gender and
case, so each shape has its own message for each way a piece is named (``PIECE``,
``A_PIECE``, ``THE_PIECE``, ``PAIR``), with the colour as a field, rather than an article
glued in front of a translated noun.

Colours and shapes come from ``data.toml``; a name the catalogue does not know (an owner
replaced a placeholder shape, say) is shown in English in every language.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from gemtable.core.i18n import CORE_DOMAIN, Message, msg, msgp

from .data import DATA

DOMAINS = (Path(__file__).resolve().parent / "locale", CORE_DOMAIN)
"""This game's catalogues, then the kernel's (what ``Game.domains`` gives)."""


def seat(p: int) -> str:
    """The seat placeholder a log line names a player by (filled by ``format_text``)."""
    return "{P%d}" % p


def joined(parts: Sequence[Any], sep: str = ", ") -> Message:
    """``parts`` (messages or plain text) with ``sep`` between them, the same in every
    language; not a translatable text itself."""
    names = [f"x{i}" for i in range(len(parts))]
    return {"m": sep.join("{%s}" % k for k in names), "p": dict(zip(names, parts))}


_COLOUR = {
    "white": msgp("glass colour", "white"),
    "purple": msgp("glass colour", "purple"),
    "light blue": msgp("glass colour", "light blue"),
    "dark blue": msgp("glass colour", "dark blue"),
    "light green": msgp("glass colour", "light green"),
    "dark green": msgp("glass colour", "dark green"),
    "yellow": msgp("glass colour", "yellow"),
    "orange": msgp("glass colour", "orange"),
    "black": msgp("glass colour", "black"),
}

# one tuple per shape: (name, plural, piece, a piece, an piece, the piece, a pair of two colours)
_SHAPE = {
    "triangle": (msgp("shape", "triangle"), msgp("shapes", "triangles"), msgp("piece", "{colour} triangle"),
                 msgp("piece", "a {colour} triangle"), msgp("piece", "an {colour} triangle"),
                 msgp("piece", "the {colour} triangle"), msgp("pair", "{first} and {second} triangle")),
    "heart": (msgp("shape", "heart"), msgp("shapes", "hearts"), msgp("piece", "{colour} heart"),
              msgp("piece", "a {colour} heart"), msgp("piece", "an {colour} heart"),
              msgp("piece", "the {colour} heart"), msgp("pair", "{first} and {second} heart")),
    "circle": (msgp("shape", "circle"), msgp("shapes", "circles"), msgp("piece", "{colour} circle"),
               msgp("piece", "a {colour} circle"), msgp("piece", "an {colour} circle"),
               msgp("piece", "the {colour} circle"), msgp("pair", "{first} and {second} circle")),
    "square": (msgp("shape", "square"), msgp("shapes", "squares"), msgp("piece", "{colour} square"),
               msgp("piece", "a {colour} square"), msgp("piece", "an {colour} square"),
               msgp("piece", "the {colour} square"), msgp("pair", "{first} and {second} square")),
    "star": (msgp("shape", "star"), msgp("shapes", "stars"), msgp("piece", "{colour} star"),
             msgp("piece", "a {colour} star"), msgp("piece", "an {colour} star"),
             msgp("piece", "the {colour} star"), msgp("pair", "{first} and {second} star")),
    "moon": (msgp("shape", "moon"), msgp("shapes", "moons"), msgp("piece", "{colour} moon"),
             msgp("piece", "a {colour} moon"), msgp("piece", "an {colour} moon"),
             msgp("piece", "the {colour} moon"), msgp("pair", "{first} and {second} moon")),
}


def _fallback(name: str) -> tuple[Message, ...]:
    """The forms of a shape the catalogue does not know: English in every language."""
    return ({"m": name}, {"m": name + "s"}, {"m": "{colour} " + name}, {"m": "a {colour} " + name},
            {"m": "an {colour} " + name}, {"m": "the {colour} " + name},
            {"m": "{first} and {second} " + name})


COLOUR = tuple(_COLOUR.get(name, {"m": name}) for name in DATA.colours)
"""Colour index -> its name ("white", "light blue")."""
_FORMS = tuple(_SHAPE.get(name) or _fallback(name) for name in DATA.shapes)
SHAPE = tuple(f[0] for f in _FORMS)
"""Shape index -> its name ("triangle")."""
SHAPES = tuple(f[1] for f in _FORMS)
"""Shape index -> its plural ("triangles")."""
TILE = tuple(msg("{shape} tile", shape=f[0]) for f in _FORMS)
"""Shape index -> the river tile of that shape ("triangle tile"; English adds "the")."""
THE_TILE = tuple(msgp("tile", "the {tile}", tile=t) for t in TILE)
"""Shape index -> "the triangle tile" where a tile is named on its own (in a list)."""


def _with(form: Message, **params: Any) -> Message:
    return form | {"p": params}


def _vowel(colour: int) -> bool:
    return DATA.colours[colour][:1].lower() in "aeiou"


def piece(code: int) -> Message:
    """A piece by name: "white triangle"."""
    c, s = divmod(code, len(DATA.shapes))
    return _with(_FORMS[s][2], colour=COLOUR[c])


def a_piece(code: int) -> Message:
    """A piece with the indefinite article: "a white triangle", "an orange moon"."""
    c, s = divmod(code, len(DATA.shapes))
    return _with(_FORMS[s][4 if _vowel(c) else 3], colour=COLOUR[c])


def the_piece(code: int) -> Message:
    """A piece with the definite article: "the white triangle"."""
    c, s = divmod(code, len(DATA.shapes))
    return _with(_FORMS[s][5], colour=COLOUR[c])


def pair(c1: int, c2: int, s: int) -> Message:
    """Two pieces of shape ``s`` placed as one: "two white triangles", "a white and an
    orange triangle"."""
    if c1 == c2:
        return msg("two {colour} {shapes}", colour=COLOUR[c1], shapes=SHAPES[s])

    def article(c: int) -> Message:
        return (msgp("pair", "an {colour}", colour=COLOUR[c]) if _vowel(c)
                else msgp("pair", "a {colour}", colour=COLOUR[c]))

    return _with(_FORMS[s][6], first=article(c1), second=article(c2))


def pieces(codes: Sequence[int]) -> Message:
    """Pieces by name, separated by commas."""
    return joined([piece(x) for x in codes])


def colours(indices: Sequence[int]) -> Message:
    """Colour names, separated by commas."""
    return joined([COLOUR[x] for x in indices])


def either(parts: Sequence[Any]) -> Message:
    """"a", "a or b", "a or b or c" in the reader's language."""
    out: Any = parts[-1]
    for part in reversed(parts[:-1]):
        out = msg("{first} or {second}", first=part, second=out)
    return out if isinstance(out, dict) else joined([out])


COLOUR_BY_NAME = dict(zip(DATA.colours, COLOUR))
SHAPE_BY_NAME = dict(zip(DATA.shapes, SHAPE))
CODE_BY_NAME = {f"{DATA.colours[code // len(DATA.shapes)]} {DATA.shapes[code % len(DATA.shapes)]}": code
                for code in range(len(DATA.colours) * len(DATA.shapes))}
"""A piece's English name in a view ("light green heart") -> its code."""
