"""Draw a Splendor view in the terminal with Rich."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from gemtable.core import i18n
from gemtable.core.i18n import msg

from .rules import TOKEN_WORDS

DOMAINS = (Path(__file__).with_name("locale"), i18n.CORE_DOMAIN)
COLOUR = dict(zip(("white", "blue", "green", "red", "black", "gold"), TOKEN_WORDS))

STYLE = {"white": "bold white", "blue": "bold blue", "green": "bold green", "red": "bold red",
         "black": "bold bright_black", "gold": "bold yellow"}
SHORT = {"white": "W", "blue": "U", "green": "G", "red": "R", "black": "K", "gold": "*"}


def _gems(counts: dict[str, int], zero: bool = False) -> Text:
    t = Text()
    for name, k in counts.items():
        if k or zero:
            t.append(f"{SHORT[name]}{k} ", style=STYLE[name])
    return t


def _say(message: Any, lang: str) -> str:
    return i18n.render(message, lang, DOMAINS)


def _card(card: dict[str, Any] | None, lang: str = "en") -> Text:
    if card is None:
        return Text(_say(msg("(empty)"), lang), style="dim")
    if card.get("hidden"):
        return Text(_say(msg("[L{level} hidden]", level=card["level"]), lang), style="dim")
    t = Text()
    t.append(f"{card['points'] or ' '} ", style="bold magenta")
    t.append(f"{_say(COLOUR[card['bonus']], lang):<5} ", style=STYLE[card["bonus"]])
    t.append_text(_gems(card["cost"]))
    t.append(f"#{card['id']}", style="dim")
    return t


def _noble(nb: dict[str, Any], lang: str = "en") -> Text:
    """A noble as the move list names it: points, then the bonuses it requires."""
    t = Text(_say(msg("{points}pt", points=nb["points"]), lang) + " (", style="bold magenta")
    for i, (name, k) in enumerate(nb["needs"].items()):
        t.append(_say(msg("{n} {colour}", n=k, colour=COLOUR[name]), lang), style=STYLE[name])
        t.append(", " if i < len(nb["needs"]) - 1 else ")", style="bold magenta")
    return t


def render_text(view: dict[str, Any], player: int | None = None, lang: str = "en"):
    """The table as Rich renderables, its words in ``lang``."""
    names = view.get("names") or [_say(msg("Seat {number}", number=i + 1), lang) for i in range(view["players"])]
    nobles = Text(_say(msg("Nobles: "), lang))
    for i, nb in enumerate(view["nobles"]):
        nobles.append_text(_noble(nb, lang))
        if i < len(view["nobles"]) - 1:
            nobles.append("  ·  ", style="dim")
    board = Table(title=_say(msg("Development cards"), lang), show_header=True, header_style="bold")
    board.add_column(_say(msg("Level"), lang))
    board.add_column(_say(msg("Deck"), lang))
    for i in range(4):
        board.add_column(_say(msg("Slot {number}", number=i + 1), lang))
    for lv in (2, 1, 0):
        board.add_row(_say(msg("L{level}", level=lv + 1), lang), str(view["decks"][lv]),
                      *[_card(c, lang) for c in view["board"][lv]])
    seats = Table(title=_say(msg("Players"), lang), header_style="bold")
    for col in (msg("Seat"), msg("Points"), msg("Cards"), msg("Bonuses"), msg("Tokens"), msg("Reserved"),
                msg("Nobles")):
        seats.add_column(_say(col, lang))
    for p, seat in enumerate(view["seats"]):
        marker = "▶ " if p in view["to_move"] else "  "
        reserved = Text()
        for c in seat["reserved"]:
            reserved.append_text(_card(c, lang))
            reserved.append("\n")
        seats.add_row(
            marker + names[p] + (_say(msg(" (you)"), lang) if p == player else ""),
            str(seat["points"]),
            str(seat["cards"]),
            _gems(seat["bonuses"]),
            _gems(seat["tokens"]),
            reserved,
            str(len(seat["nobles"])),
        )
    bank = Text(_say(msg("Bank: "), lang))
    bank.append_text(_gems(view["bank"], zero=True))
    status = _say(msg("Round {number}", number=view["round"]), lang)
    if view["last_round"]:
        status += _say(msg("  — last round!"), lang)
    return Panel(Group(Text(status, style="bold"), nobles, board, bank, seats), title="Splendor")
