"""render_text(view, player, lang): a Rich renderable of a River Valley Glassworks view.

Every word is a message of this game (``locale/<lang>.po``), rendered in ``lang``; the view's
``prompt`` is shown as it is, so a caller wanting another language than English puts the
prompt in that language there (``State.prompt(player, lang)``).  Soft hyphens a catalogue
marks for the web's narrow labels are dropped here.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from gemtable.core.i18n import SOURCE, msg, msgp, render

from . import labels as L

_STYLE = {
    "white": "bold white",
    "purple": "magenta",
    "light blue": "bright_cyan",
    "dark blue": "blue",
    "light green": "bright_green",
    "dark green": "green",
    "yellow": "yellow",
    "orange": "dark_orange",
    "black": "grey50",
}
# a column's colour in two letters under the glassworks
_ABBR = {
    "white": msgp("colour abbreviation", "W"), "purple": msgp("colour abbreviation", "P"),
    "light blue": msgp("colour abbreviation", "LB"), "dark blue": msgp("colour abbreviation", "DB"),
    "light green": msgp("colour abbreviation", "LG"), "dark green": msgp("colour abbreviation", "DG"),
    "yellow": msgp("colour abbreviation", "Y"), "orange": msgp("colour abbreviation", "O"),
    "black": msgp("colour abbreviation", "K"),
}


def _say(message: Any, lang: str) -> str:
    return render(message, lang, L.DOMAINS).replace("\u00ad", "")


def _piece(name: str, lang: str) -> Text:
    """A piece named in the view ("light green heart"), or a colour, in ``lang``, in its colour."""
    code = L.CODE_BY_NAME.get(name)
    if code is not None:
        text = _say(L.piece(code), lang)
    else:  # a colour alone (overflow holds colours)
        text = _say(L.COLOUR_BY_NAME.get(name, name), lang)
    for colour, style in _STYLE.items():
        if name.startswith(colour + " ") or name == colour:
            return Text(text, style=style)
    return Text(text)


def _pieces(names: list[str], lang: str) -> Text:
    if not names:
        return Text("—", style="dim")
    return Text(", ").join(_piece(n, lang) for n in names)


def render_text(view: dict[str, Any], player: int | None = None, lang: str = SOURCE) -> Group:
    def say(message: Any) -> str:
        return _say(message, lang)

    def shape(name: str) -> str:
        return say(L.SHAPE_BY_NAME.get(name, name))

    def colour(name: str) -> str:
        return say(L.COLOUR_BY_NAME.get(name, name))

    river = Table(title=say(msg("River (upstream → lake)")), show_lines=False, expand=False)
    river.add_column("#", justify="right")
    river.add_column(say(msgp("column header", "tile")))
    river.add_column(say(msgp("column header", "stones")), justify="center")
    river.add_column(say(msgp("column header", "glass")))
    for i, tile in enumerate(view["river"]):
        name = shape(tile["tile"])
        if view.get("placed_on") == tile["tile"]:
            name += say(msg(" ◀ placed"))
        river.add_row(str(i + 1), name, "●" * tile["stones"], _pieces(tile["pieces"], lang))
    river.add_row("", say(msgp("column header", "lake")), "", _pieces(view["lake"], lang))

    parts: list[Any] = [river]
    status = say(msg("Round {round}, bag: {n} pieces", round=view["round"], n=view["bag_size"]))
    if view["end_triggered"]:
        status += say(msg(" — end triggered: final rounds, the lake is closed"))
    parts.append(Text(status, style="italic"))
    known = set(view.get("row_track_known", range(len(view["row_track"]))))
    parts.append(Text(say(msg("Row track (cells filled from column 1 → points; * placeholder): "))
                      + ", ".join(f"{i}→{v}{'' if i in known else '*'}"
                                  for i, v in enumerate(view["row_track"]) if i), style="dim"))

    track = view["row_track"]
    for p, seat in enumerate(view["players"]):
        board = Table(show_header=True, box=None, pad_edge=False)
        for c, col in enumerate(seat["columns"]):
            board.add_column(say(msg("c{n}", n=c + 1)), justify="center")
        board.add_column(say(msgp("column header", "row")), justify="right")
        nrows = len(view["values"][0])
        runs = seat.get("row_runs", [0] * nrows)
        for h in range(nrows, 0, -1):
            cells = []
            for c, col in enumerate(seat["columns"]):
                if col["height"] >= h:
                    cells.append(Text("■", style=_STYLE.get(col["colour"], "")))
                else:
                    cells.append(Text(str(view["values"][c][h - 1]), style="dim"))
            points = track[runs[h - 1]]
            cells.append(Text(f"+{points}" if points else "·", style="bold" if points else "dim"))
            board.add_row(*cells)
        board.add_row(*[Text(say(_ABBR[col["colour"]]) if col["colour"] in _ABBR else (col["colour"] or "·")[:2],
                             style=_STYLE.get(col["colour"], "dim"))
                        for col in seat["columns"]], "")
        # the row track printed under the columns: points of a row filled up to that column
        board.add_row(*[Text(f"{track[c + 1]}{'' if c + 1 in known else '*'}", style="italic")
                        for c in range(len(seat["columns"]))], Text(say(msgp("row track", "track")), style="dim"))
        # the rarity chart printed beside the glassworks: pieces of each colour in the game
        chart = Table(title=say(msg("rarity")), box=None, show_header=False, pad_edge=False, title_style="dim")
        chart.add_column(say(msgp("column header", "colour")))
        chart.add_column(say(msgp("column header", "pieces")), justify="right")
        for entry in seat.get("rarity", []):
            chart.add_row(Text(f"■ {colour(entry['colour'])}", style=_STYLE.get(entry["colour"], "")),
                          str(entry["count"]))
        works = Table.grid(padding=(0, 3))
        works.add_row(board, chart)
        sp = seat["score_parts"]
        info = Text.assemble(
            say(msg("satchel: ")), _pieces(seat["satchel"], lang), "\n",
            say(msg("overflow: ")), _pieces(seat["overflow"], lang), "\n",
            say(msg("inventory {inventory}/{trigger}   score {score} ", inventory=seat["inventory"],
                    trigger=view["end_trigger"], score=seat["score"])),
            say(msg("(rows {rows}, columns {columns}, overflow {overflow})", rows=sp["rows"],
                    columns=sp["columns"], overflow=sp["overflow"])),
        )
        marker = " ▶" if p in view["to_move"] else ""
        you = say(msg(" (you)")) if player == p else ""
        parts.append(Panel(Group(works, info), title=say(msg("Seat {n}", n=p + 1)) + you + marker, expand=False))
    parts.append(Text(view["prompt"], style="bold"))
    return Group(*parts)
