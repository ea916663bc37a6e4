"""Diamonds Club's words as messages (:mod:`gemtable.core.i18n`): goods, tiles, boards,
payments and the phrases the log, the prompts and the refusals are built from.

Every English rendering here is exactly the English the engine wrote before messages (the
tests compare them); other languages come from ``locale/<lang>.po``.  German needs the
article with the noun (its gender and case change the article), so a noun that English
writes with "a"/"an" has a message of its own for each place it is used in (``msgp``
with a context), rather than an article glued in front of a translated noun.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from gemtable.core.i18n import CORE_DOMAIN, Message, msg, msgn, msgp

from .data import ANIMAL, ANY_TRACK, HAT, MINE, PIT, SHIP, DATA

D = DATA


def seat(p: int) -> str:
    """The seat placeholder a log line names a player by (filled by ``format_text``)."""
    return "{P%d}" % p


def joined(parts: Sequence[Any], sep: str) -> Message:
    """``parts`` (messages or plain text) with ``sep`` between them, the same in every
    language (" + " between goods, ", " between gems); not a translatable text itself."""
    names = [f"x{i}" for i in range(len(parts))]
    return {"m": sep.join("{%s}" % k for k in names), "p": dict(zip(names, parts))}


def listed(parts: Sequence[Any]) -> Message:
    """"a", "a and b", "a, b and c" in the reader's language."""
    if len(parts) == 1:
        return joined(parts, "")
    if len(parts) == 2:
        return msg("{first} and {second}", first=parts[0], second=parts[1])
    return msg("{first}, {second} and {third}", first=joined(parts[:-2], ", "), second=parts[-2], third=parts[-1])


def chained(parts: Sequence[Any]) -> Message:
    """"a and b and c" (English joins every pair with "and")."""
    out: Any = parts[-1]
    for part in reversed(parts[:-1]):
        out = msg("{first} and {second}", first=part, second=out)
    return out if isinstance(out, dict) else joined([out], "")


# -- nouns ----------------------------------------------------------------------------
PIT_NAME = (msg("blue pit"), msg("yellow pit"), msg("green pit"), msg("red pit"))
A_PIT = (msg("a blue pit"), msg("a yellow pit"), msg("a green pit"), msg("a red pit"))
GEMS_OF = (msg("{count} blue gems"), msg("{count} yellow gems"), msg("{count} green gems"), msg("{count} red gems"))
COLOUR_COUNT = (msg("{n} blue"), msg("{n} yellow"), msg("{n} green"), msg("{n} red"))
ANIMAL_NAME = (msg("pond"), msg("deer park"), msg("aviary"))
A_ANIMAL = (msgp("placed", "a pond"), msgp("placed", "a deer park"), msgp("placed", "an aviary"))
TRACK_NAME = (msgp("track", "forest"), msgp("track", "tech"), msgp("track", "money"))
TRACK_STEP = (msg("forest track step"), msg("technology track step"), msg("money track step"),
              msg("any track step"))
# tiles: the four buildings, then the forest
TILE_NAME = (msg("fountain"), msg("orangery"), msg("pavilion"), msg("rose garden"), msg("forest"))
A_TILE = (msgp("built", "a fountain"), msgp("built", "an orangery"), msgp("built", "a pavilion"),
          msgp("built", "a rose garden"), msgp("built", "a forest"))
A_PILE = (msgp("pile", "a fountain"), msgp("pile", "an orangery"), msgp("pile", "a pavilion"),
          msgp("pile", "a rose garden"))
THREE_OF = (msg("three fountains ({vp})"), msg("three orangerys ({vp})"), msg("three pavilions ({vp})"),
            msg("three rose gardens ({vp})"))
BOARD_NAME = {"fountain": TILE_NAME[0], "orangery": TILE_NAME[1], "pavilion": TILE_NAME[2],
              "rose_garden": TILE_NAME[3], "any_tile": msg("any tile"), "forest_2": msg("forest 2"),
              "forest_3": msg("forest 3")}
PHASE_NAME = {"buy": msgp("phase", "buy"), "purchase gems": msgp("phase", "purchase gems"),
              "build": msgp("phase", "build"), "over": msgp("phase", "over")}


def _value(kind: str, val: int) -> Message:
    return msg("mining rights {value}", value=val) if kind == "mine" else msg("ship {value}", value=val)


def good(kind: int, val: int) -> Message:
    """One good of a market space ("red pit", "mining rights 4", "2 top hats")."""
    if kind == PIT:
        return PIT_NAME[val]
    if kind == MINE:
        return _value("mine", val)
    if kind == SHIP:
        return _value("ship", val)
    if kind == HAT:
        return msgn("{n} top hat", "{n} top hats", n=val)
    if kind == ANIMAL:
        return ANIMAL_NAME[val]
    return TRACK_STEP[val if val != ANY_TRACK else 3]


def goods(items) -> Message:
    """Every good of one market space, joined by " + "."""
    return joined([good(k, v) for k, v in items], " + ")


def equipment(c: int, m: int, s: int) -> list[Message]:
    """The parts of an equipment set: a pit of colour ``c`` (-1: none), mining rights ``m``
    and a ship ``s`` (0: none)."""
    return (([PIT_NAME[c]] if c >= 0 else []) + ([_value("mine", m)] if m else [])
            + ([_value("ship", s)] if s else []))


def space_name(i: int, cols: int) -> Message:
    r, c = divmod(i, cols)
    return msg("strip {strip}, row {row}", strip=c + 1, row=r + 1)


def payment(v) -> Message:
    """Gems paid: "1 blue, 2 diamonds"."""
    parts: list[Any] = [COLOUR_COUNT[k] | {"p": {"n": v[k]}} for k in range(4) if v[k]]
    if v[4]:
        parts.append(msgn("{n} diamond", "{n} diamonds", n=v[4]))
    return joined(parts, ", ")


def board_cost(b: int, extra: int = 0) -> Message:
    """A price board's price: "2 blue + 1 red + 2 any" (and " + 1 surcharge")."""
    board = D.boards[b]
    parts: list[Any] = [COLOUR_COUNT[c] | {"p": {"n": k}} for c, k in enumerate(board.gems) if k]
    if board.pair:
        parts.append(msg("2 of one colour"))
    if board.any:
        parts.append(msg("{n} any", n=board.any))
    if extra:
        parts.append(msg("{n} surcharge", n=extra))
    return joined(parts, " + ")


def mandatory_warning(missing: Sequence[int], over: bool, ending: bool) -> Message:
    """Why a seat scores 0 (``over``) or will unless it builds the ``missing`` mandatory
    buildings (their indices) this round (``ending``) or before the near end."""
    names = listed([TILE_NAME[b] for b in missing])
    several = len(missing) > 1
    spaces = msg("the {names} spaces", names=names) if several else msg("the {names} space", names=names)
    if over:
        if several:
            return msg("scores 0: {spaces} were never covered", spaces=spaces)
        return msg("scores 0: {spaces} was never covered", spaces=spaces)
    when = msg("this round, the last one") if ending else msg("before the end, which is near")
    if several:
        return msg("scores 0 unless {spaces} are built {when}", spaces=spaces, when=when)
    return msg("scores 0 unless {spaces} is built {when}", spaces=spaces, when=when)


DOMAINS = (Path(__file__).resolve().parent / "locale", CORE_DOMAIN)
"""This game's catalogues, then the kernel's (what ``Game.domains`` gives)."""

COLOUR = {"blue": msgp("colour", "blue"), "yellow": msgp("colour", "yellow"), "green": msgp("colour", "green"),
          "red": msgp("colour", "red"), "dark": msgp("strip", "dark"), "light": msgp("strip", "light")}
ANIMAL_SHORT = {"pond": ANIMAL_NAME[0], "deer": msgp("short", "deer"), "aviary": ANIMAL_NAME[2]}
TILE_BY_NAME = {"fountain": TILE_NAME[0], "orangery": TILE_NAME[1], "pavilion": TILE_NAME[2],
                "rose_garden": TILE_NAME[3], "forest": TILE_NAME[4]}
