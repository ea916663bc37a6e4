"""Draw a Mille Fiori view in the terminal with Rich: all six areas, the sea track,
bonus-point spaces, the players, the display and the seat's own hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.columns import Columns
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from gemtable.core.i18n import CORE_DOMAIN, SOURCE, Message, msg, msgp, render

from .names import AREA_WORD, SYMBOL, word
from .rules import D

SEAT_STYLE = ("bold red", "bold blue", "bold green", "bold yellow")
SEAT_NAME = (msgp("seat colour", "Red"), msgp("seat colour", "Blue"), msgp("seat colour", "Green"),
             msgp("seat colour", "Yellow"))
DRAFT = {"simultaneous": msgp("draft", "simultaneous"), "tactical": msgp("draft", "tactical")}
DOMAINS = (Path(__file__).resolve().parent / "locale", CORE_DOMAIN)


def tr(message: Message | str, lang: str) -> str:
    return render(message, lang, DOMAINS)
WS_LETTER = {name: name[0].upper() for name in D.symbols[0]}


def _mark(owner: int) -> Text:
    if owner < 0:
        return Text("·", style="dim")
    return Text(str(owner + 1), style=SEAT_STYLE[owner % 4])


def _workshops(board: list[int], lang: str = SOURCE) -> Text:
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
    legend = "  ".join(f"{WS_LETTER[n]}={tr(word(SYMBOL, n), lang)}" for n in D.symbols[0])
    doubled = word(SYMBOL, D.symbols[0][D.doubled_symbol])
    out.append(f"{legend} " + tr(msg("({symbol} double)", symbol=doubled), lang) + "\n", style="dim")
    stars = [("".join(_owner_char(board[x]) for x in t)) for t in D.star_triples]
    out.append(tr(msg("star triples:"), lang) + " " + " ".join(stars), style="dim")
    return out


def _owner_char(owner: int) -> str:
    return "·" if owner < 0 else str(owner + 1)


def _houses(board: list[int], nxt: int, lang: str = SOURCE) -> Text:
    out = Text(tr(msg("values:"), lang) + " ")
    for i, v in enumerate(D.house_values):
        out.append(f"{v:>3}", style="bold" if i == nxt else "")
    out.append("\n" + tr(msg("owners:"), lang) + " ")
    for o in board:
        out.append("  ")
        out.append_text(_mark(o))
    return out


def _pyramid(board: list[int], index: int, first: int, lang: str = SOURCE) -> Text:
    rows = D.pyramid_rows[index]
    syms = D.symbols[2 + index]
    width = len(rows[0]) * 9
    out = Text()
    for lv in (2, 1, 0):
        line = Text()
        for s in rows[lv]:
            line.append(f"{tr(word(SYMBOL, syms[D.space_symbol[s]]), lang):>6}:")
            line.append_text(_mark(board[s - first]))
            line.append(" ")
        out.append(tr(msg("{points}pt", points=D.level_points[lv]), lang), style="dim")
        pad = (width - len(line.plain)) // 2
        out.append(" " * max(0, pad))
        out.append_text(line)
        if lv:
            out.append("\n")
    return out


def _trade_harbor(trade: list[int], harbor: list[int], lang: str = SOURCE) -> Table:
    t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    t.add_column(tr(msgp("trade table", "row"), lang))
    t.add_column(tr(msgp("trade table", "fleet"), lang))
    for c in D.symbols[4]:
        t.add_column(tr(word(SYMBOL, c), lang))
    for r in range(D.trade_rows):
        ships = Text()
        for i in range(D.harbor_per_row):
            ships.append("⛵")
            ships.append_text(_mark(harbor[r * D.harbor_per_row + i]))
            ships.append(" ")
        cells = [_mark(trade[r * D.trade_columns + c]) for c in range(D.trade_columns)]
        t.add_row(str(r + 1), ships, *cells)
    return t


def _sea(ships: list[int], lang: str = SOURCE) -> Text:
    out = Text()
    pos_label = tr(msgp("sea track", "pos"), lang)[:3].ljust(3) + " "
    pts_label = tr(msgp("sea track", "pts"), lang)[:3].ljust(3) + " "
    half = (D.sea_end + 1 + 1) // 2
    for lo, hi in ((0, half), (half, D.sea_end + 1)):
        out.append(pos_label, style="dim")
        for pos in range(lo, hi):
            out.append(f"{pos:>4}", style="dim")
        out.append("\n" + pts_label, style="dim")
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


def _bonus(spaces: dict[str, list[int]], lang: str = SOURCE) -> Text:
    out = Text()
    labels = [tr(word(AREA_WORD, name), lang) for name in spaces]
    width = max([9] + [len(label) for label in labels])
    for a, (label, owners) in enumerate(zip(labels, spaces.values())):
        out.append(f"{label:>{width}}: ")
        for v, o in zip(D.bonus[a], owners):
            out.append(f"{v:>2}:")
            out.append_text(_mark(o))
            out.append(" ")
        if a < len(spaces) - 1:
            out.append("\n")
    return out


def _card(code: str, lang: str = SOURCE) -> str:
    """A card's code (``lion-2``) with its symbol in ``lang``."""
    symbol, _, wheel = code.rpartition("-")
    if lang == SOURCE or not symbol:
        return code
    return f"{tr(word(SYMBOL, symbol), lang)}-{wheel}"


def _cards(codes: list[str] | None, lang: str = SOURCE) -> str:
    if not codes:
        return "—"
    return " ".join(_card(c, lang) for c in codes)


def render_text(view: dict[str, Any], player: int | None = None, lang: str = SOURCE):
    """A Rich renderable of the table as ``player`` sees it, its words in ``lang``."""
    n = view["players"]
    names = view.get("names") or [f"{tr(SEAT_NAME[i], lang)} ({i + 1})" for i in range(n)]
    board = view["board"]
    seats = Table(title=tr(msg("Players"), lang), header_style="bold")
    for col in (msgp("players table", "Seat"), msgp("players table", "Pts"), msgp("players table", "Bonus"),
                msgp("players table", "Diamonds"), msgp("players table", "Aside"),
                msgp("players table", "Ship"), msgp("players table", "Hand")):
        seats.add_column(tr(col, lang))
    you = " " + tr(msg("(you)"), lang)
    picked = tr(msg("+pick"), lang)
    known = Text()
    for p in range(n):
        marker = "▶ " if p in view["to_move"] else "  "
        seats.add_row(
            Text(marker + names[p] + (you if p == player else ""), style=SEAT_STYLE[p % 4]),
            str(view["scores"][p]),
            str(view["bonus_points"][p]),
            str(view["diamonds"][p]),
            str(view["set_aside"][p]),
            str(view["ships"][p]),
            str(view["hand_sizes"][p]) + (picked if view["picked"][p] else ""),
        )
        if view["known_hands"][p]:
            known.append(tr(msg("{name} holds (you passed it):", name=names[p]), lang) + " ", style="bold")
            known.append(_cards(view["known_hands"][p], lang) + "\n")
    status = Text(
        tr(msg("Round {round}  ·  pass {pass_}/{passes}  ·  start: seat {seat}  ·  deck {deck}  ·  draft {draft}",
               round=view["round"], pass_=view["plays_done"] + 1, passes=view["plays_per_round"],
               seat=view["start_player"] + 1, deck=view["deck"], draft=word(DRAFT, view["draft"])), lang),
        style="bold",
    )
    if view["ending"]:
        status.append("  — " + tr(msg("last diamond placed: the game ends after this pass"), lang), style="bold red")
    cards = known
    cards.append(tr(msg("Display:"), lang) + " ", style="bold")
    cards.append(_cards(view["display"], lang) + "\n")
    if view.get("card_in_play"):
        cards.append(tr(msg("In play:"), lang) + " ", style="bold")
        cards.append(_card(view["card_in_play"], lang) + (" " + tr(msg("(extra card)"), lang) if view["card_is_extra"] else "")
                     + "\n")
    if view.get("extra_cards_pending"):
        cards.append(tr(msg("Extra cards to play: {count}", count=view["extra_cards_pending"]), lang) + "\n",
                     style="bold yellow")
    if view.get("hand") is not None:
        cards.append(tr(msg("Your hand:"), lang) + " ", style="bold")
        cards.append(_cards(view["hand"], lang))
        if view.get("pick"):
            cards.append("   " + tr(msg("your pick: {card}", card=_card(view["pick"], lang)), lang))
        cards.append("\n")
    cards.append(view["prompt"] if lang == SOURCE else tr(view.get("prompt_message", view["prompt"]), lang),
                 style="italic")
    if view.get("final_scores"):
        cards.append("\n" + tr(msg("Final scores: {scores}", scores=[f"{names[p]} {s}" for p, s
                                                                    in enumerate(view["final_scores"])]), lang),
                     style="bold")
    areas = Group(
        Columns([
            Panel(_workshops(board["workshops"], lang), title=tr(msg("Workshops"), lang), expand=False),
            Panel(_trade_harbor(board["trade"], board["harbor"], lang), title=tr(msg("Harbor | Trade"), lang),
                  expand=False),
        ]),
        Columns([
            Panel(_pyramid(board["nobles"], 0, D.area_start[2], lang), title=tr(msg("Citizens: nobles"), lang),
                  expand=False),
            Panel(_pyramid(board["commoners"], 1, D.area_start[3], lang),
                  title=tr(msg("Citizens: commoners"), lang), expand=False),
        ]),
        Columns([
            Panel(_sea(view["ships"], lang), title=tr(msg("Sea track (* = extra card)"), lang), expand=False),
            Panel(_bonus(view["bonus_spaces"], lang), title=tr(msg("Bonus-point spaces (end)"), lang), expand=False),
        ]),
    )
    return Panel(
        Group(
            status,
            Panel(_houses(board["houses"], view["houses_next"], lang), title=tr(msg("Houses (filled in order)"), lang)),
            areas,
            seats,
            cards,
        ),
        title="Mille Fiori",
    )
