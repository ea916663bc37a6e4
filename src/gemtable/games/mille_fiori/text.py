"""Draw a Mille Fiori view in the terminal with Rich: all six areas, the sea track,
bonus-point spaces, the players, the display and the seat's own hand."""

from __future__ import annotations

from typing import Any

from rich.columns import Columns
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .rules import D

SEAT_STYLE = ("bold red", "bold blue", "bold green", "bold yellow")
SEAT_NAME = ("Red", "Blue", "Green", "Yellow")
WS_LETTER = {name: name[0].upper() for name in D.symbols[0]}


def _mark(owner: int) -> Text:
    if owner < 0:
        return Text("·", style="dim")
    return Text(str(owner + 1), style=SEAT_STYLE[owner % 4])


def _workshops(board: list[int]) -> Text:
    """Hex rows; a free space shows its number (as in the action texts), a taken one [seat]."""
    out = Text()
    for row in D.ws_rows:
        col = 0
        for dc, s in row:
            out.append(" " * (dc * 3 - col))
            sym = D.symbols[0][D.space_symbol[s]]
            out.append(WS_LETTER[sym], style="bold magenta" if D.space_symbol[s] == D.doubled_symbol else "cyan")
            if board[s] < 0:
                out.append(f"{s + 1:<3}", style="dim")
            else:
                out.append("[")
                out.append(str(board[s] + 1), style=SEAT_STYLE[board[s] % 4])
                out.append("]")
            col = dc * 3 + 4
        out.append("\n")
    legend = "  ".join(f"{WS_LETTER[n]}={n}" for n in D.symbols[0])
    out.append(f"{legend} (pigments double)\n", style="dim")
    stars = [("".join(_owner_char(board[x]) for x in t)) for t in D.star_triples]
    out.append("star triples: " + " ".join(stars), style="dim")
    return out


def _owner_char(owner: int) -> str:
    return "·" if owner < 0 else str(owner + 1)


def _houses(board: list[int], nxt: int) -> Text:
    out = Text("values: ")
    for i, v in enumerate(D.house_values):
        out.append(f"{v:>3}", style="bold" if i == nxt else "")
    out.append("\nowners: ")
    for o in board:
        out.append("  ")
        out.append_text(_mark(o))
    return out


def _pyramid(board: list[int], index: int, first: int) -> Text:
    rows = D.pyramid_rows[index]
    syms = D.symbols[2 + index]
    width = len(rows[0]) * 9
    out = Text()
    for lv in (2, 1, 0):
        line = Text()
        for s in rows[lv]:
            line.append(f"{syms[D.space_symbol[s]]:>6}:")
            line.append_text(_mark(board[s - first]))
            line.append(" ")
        out.append(f"{D.level_points[lv]}pt", style="dim")
        pad = (width - len(line.plain)) // 2
        out.append(" " * max(0, pad))
        out.append_text(line)
        if lv:
            out.append("\n")
    return out


def _trade_harbor(trade: list[int], harbor: list[int]) -> Table:
    t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    t.add_column("row")
    t.add_column("fleet")
    for c in D.symbols[4]:
        t.add_column(c)
    for r in range(D.trade_rows):
        ships = Text()
        for i in range(D.harbor_per_row):
            ships.append("⛵")
            ships.append_text(_mark(harbor[r * D.harbor_per_row + i]))
            ships.append(" ")
        cells = [_mark(trade[r * D.trade_columns + c]) for c in range(D.trade_columns)]
        t.add_row(str(r + 1), ships, *cells)
    return t


def _sea(ships: list[int]) -> Text:
    out = Text()
    half = (D.sea_end + 1 + 1) // 2
    for lo, hi in ((0, half), (half, D.sea_end + 1)):
        out.append("pos ", style="dim")
        for pos in range(lo, hi):
            out.append(f"{pos:>4}", style="dim")
        out.append("\npts ", style="dim")
        for pos in range(lo, hi):
            pts = D.sea_points[pos]
            label = "S" if pos == 0 else (str(pts) if pts else "-")
            if D.sea_extra[pos]:
                label += "*"
            out.append(f"{label:>4}", style="bold yellow" if D.sea_extra[pos] else "")
        out.append("\n    ")
        for pos in range(lo, hi):
            here = [p for p, x in enumerate(ships) if x == pos]
            cell = Text(" " * max(0, 4 - len(here)))
            for p in here:
                cell.append(str(p + 1), style=SEAT_STYLE[p % 4])
            out.append_text(cell)
        if lo == 0:
            out.append("\n")
    return out


def _bonus(spaces: dict[str, list[int]]) -> Text:
    out = Text()
    for a, (name, owners) in enumerate(spaces.items()):
        out.append(f"{name:>9}: ")
        for v, o in zip(D.bonus[a], owners):
            out.append(f"{v:>2}:")
            out.append_text(_mark(o))
            out.append(" ")
        if a < len(spaces) - 1:
            out.append("\n")
    return out


def _cards(codes: list[str] | None) -> str:
    if not codes:
        return "—"
    return " ".join(codes)


def render_text(view: dict[str, Any], player: int | None = None):
    n = view["players"]
    names = view.get("names") or [f"{SEAT_NAME[i]} ({i + 1})" for i in range(n)]
    board = view["board"]
    seats = Table(title="Players", header_style="bold")
    for col in ("Seat", "Pts", "Bonus", "Diamonds", "Aside", "Ship", "Hand"):
        seats.add_column(col)
    known = Text()
    for p in range(n):
        marker = "▶ " if p in view["to_move"] else "  "
        seats.add_row(
            Text(marker + names[p] + (" (you)" if p == player else ""), style=SEAT_STYLE[p % 4]),
            str(view["scores"][p]),
            str(view["bonus_points"][p]),
            str(view["diamonds"][p]),
            str(view["set_aside"][p]),
            str(view["ships"][p]),
            str(view["hand_sizes"][p]) + ("+pick" if view["picked"][p] else ""),
        )
        if view["known_hands"][p]:
            known.append(f"{names[p]} holds (you passed it): ", style="bold")
            known.append(_cards(view["known_hands"][p]) + "\n")
    status = Text(
        f"Round {view['round']}  ·  pass {view['plays_done'] + 1}/{view['plays_per_round']}  ·  "
        f"start: seat {view['start_player'] + 1}  ·  deck {view['deck']}  ·  draft {view['draft']}",
        style="bold",
    )
    if view["ending"]:
        status.append("  — last diamond placed: the game ends after this pass", style="bold red")
    cards = known
    cards.append("Display: ", style="bold")
    cards.append(_cards(view["display"]) + "\n")
    if view.get("card_in_play"):
        cards.append("In play: ", style="bold")
        cards.append(view["card_in_play"] + (" (extra card)" if view["card_is_extra"] else "") + "\n")
    if view.get("extra_cards_pending"):
        cards.append(f"Extra cards to play: {view['extra_cards_pending']}\n", style="bold yellow")
    if view.get("hand") is not None:
        cards.append("Your hand: ", style="bold")
        cards.append(_cards(view["hand"]))
        if view.get("pick"):
            cards.append(f"   your pick: {view['pick']}")
        cards.append("\n")
    cards.append(view["prompt"], style="italic")
    if view.get("final_scores"):
        cards.append("\nFinal scores: " + ", ".join(f"{names[p]} {s}" for p, s in enumerate(view["final_scores"])),
                     style="bold")
    areas = Group(
        Columns([
            Panel(_workshops(board["workshops"]), title="Workshops", expand=False),
            Panel(_trade_harbor(board["trade"], board["harbor"]), title="Harbor | Trade", expand=False),
        ]),
        Columns([
            Panel(_pyramid(board["nobles"], 0, D.area_start[2]), title="Citizens: nobles", expand=False),
            Panel(_pyramid(board["commoners"], 1, D.area_start[3]), title="Citizens: commoners", expand=False),
        ]),
        Columns([
            Panel(_sea(view["ships"]), title="Sea track (* = extra card)", expand=False),
            Panel(_bonus(view["bonus_spaces"]), title="Bonus-point spaces (end)", expand=False),
        ]),
    )
    return Panel(
        Group(
            status,
            Panel(_houses(board["houses"], view["houses_next"]), title="Houses (filled in order)"),
            areas,
            seats,
            cards,
        ),
        title="Mille Fiori",
    )
