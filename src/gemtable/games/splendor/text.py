"""Draw a Splendor view in the terminal with Rich."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

STYLE = {"white": "bold white", "blue": "bold blue", "green": "bold green", "red": "bold red",
         "black": "bold bright_black", "gold": "bold yellow"}
SHORT = {"white": "W", "blue": "U", "green": "G", "red": "R", "black": "K", "gold": "*"}


def _gems(counts: dict[str, int], zero: bool = False) -> Text:
    t = Text()
    for name, k in counts.items():
        if k or zero:
            t.append(f"{SHORT[name]}{k} ", style=STYLE[name])
    return t


def _card(card: dict[str, Any] | None) -> Text:
    if card is None:
        return Text("(empty)", style="dim")
    if card.get("hidden"):
        return Text(f"[L{card['level']} hidden]", style="dim")
    t = Text()
    t.append(f"{card['points'] or ' '} ", style="bold magenta")
    t.append(f"{card['bonus']:<5} ", style=STYLE[card["bonus"]])
    t.append_text(_gems(card["cost"]))
    t.append(f"#{card['id']}", style="dim")
    return t


def _noble(nb: dict[str, Any]) -> Text:
    """A noble as the move list names it: points, then the bonuses it requires."""
    t = Text(f"{nb['points']}pt (", style="bold magenta")
    for i, (name, k) in enumerate(nb["needs"].items()):
        t.append(f"{k} {name}", style=STYLE[name])
        t.append(", " if i < len(nb["needs"]) - 1 else ")", style="bold magenta")
    return t


def render_text(view: dict[str, Any], player: int | None = None):
    names = view.get("names") or [f"Seat {i + 1}" for i in range(view["players"])]
    nobles = Text("Nobles: ")
    for i, nb in enumerate(view["nobles"]):
        nobles.append_text(_noble(nb))
        if i < len(view["nobles"]) - 1:
            nobles.append("  ·  ", style="dim")
    board = Table(title="Development cards", show_header=True, header_style="bold")
    board.add_column("Level")
    board.add_column("Deck")
    for i in range(4):
        board.add_column(f"Slot {i + 1}")
    for lv in (2, 1, 0):
        board.add_row(f"L{lv + 1}", str(view["decks"][lv]), *[_card(c) for c in view["board"][lv]])
    seats = Table(title="Players", header_style="bold")
    for col in ("Seat", "Points", "Cards", "Bonuses", "Tokens", "Reserved", "Nobles"):
        seats.add_column(col)
    for p, seat in enumerate(view["seats"]):
        marker = "▶ " if p in view["to_move"] else "  "
        reserved = Text()
        for c in seat["reserved"]:
            reserved.append_text(_card(c))
            reserved.append("\n")
        seats.add_row(
            marker + names[p] + (" (you)" if p == player else ""),
            str(seat["points"]),
            str(seat["cards"]),
            _gems(seat["bonuses"]),
            _gems(seat["tokens"]),
            reserved,
            str(len(seat["nobles"])),
        )
    bank = Text("Bank: ")
    bank.append_text(_gems(view["bank"], zero=True))
    status = f"Round {view['round']}" + ("  — last round!" if view["last_round"] else "")
    return Panel(Group(Text(status, style="bold"), nobles, board, bank, seats), title="Splendor")
