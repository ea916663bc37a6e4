"""Terminal rendering of a River Valley Glassworks view (Rich)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

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
_ABBR = {
    "white": "W", "purple": "P", "light blue": "LB", "dark blue": "DB", "light green": "LG",
    "dark green": "DG", "yellow": "Y", "orange": "O", "black": "K",
}


def _piece(name: str) -> Text:
    for colour, style in _STYLE.items():
        if name.startswith(colour + " ") or name == colour:
            return Text(name, style=style)
    return Text(name)


def _pieces(names: list[str]) -> Text:
    if not names:
        return Text("—", style="dim")
    return Text(", ").join(_piece(n) for n in names)


def render_text(view: dict[str, Any], player: int | None = None) -> Group:
    river = Table(title="River (upstream → lake)", show_lines=False, expand=False)
    river.add_column("#", justify="right")
    river.add_column("tile")
    river.add_column("stones", justify="center")
    river.add_column("glass")
    for i, tile in enumerate(view["river"]):
        name = tile["tile"]
        if view.get("placed_on") == name:
            name += " ◀ placed"
        river.add_row(str(i + 1), name, "●" * tile["stones"], _pieces(tile["pieces"]))
    river.add_row("", "lake", "", _pieces(view["lake"]))

    parts: list[Any] = [river]
    status = f"Round {view['round']}, bag: {view['bag_size']} pieces"
    if view["end_triggered"]:
        status += " — end triggered: final rounds, the lake is closed"
    parts.append(Text(status, style="italic"))
    known = set(view.get("row_track_known", range(len(view["row_track"]))))
    parts.append(Text("Row track (cells filled from column 1 → points; * placeholder): "
                      + ", ".join(f"{i}→{v}{'' if i in known else '*'}"
                                  for i, v in enumerate(view["row_track"]) if i), style="dim"))

    track = view["row_track"]
    for p, seat in enumerate(view["players"]):
        board = Table(show_header=True, box=None, pad_edge=False)
        for c, col in enumerate(seat["columns"]):
            board.add_column(f"c{c + 1}", justify="center")
        board.add_column("row", justify="right")
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
        board.add_row(*[Text(_ABBR.get(col["colour"], (col["colour"] or "·")[:2]),
                             style=_STYLE.get(col["colour"], "dim"))
                        for col in seat["columns"]], "")
        # the row track printed under the columns: points of a row filled up to that column
        board.add_row(*[Text(f"{track[c + 1]}{'' if c + 1 in known else '*'}", style="italic")
                        for c in range(len(seat["columns"]))], Text("track", style="dim"))
        # the rarity chart printed beside the glassworks: pieces of each colour in the game
        chart = Table(title="rarity", box=None, show_header=False, pad_edge=False, title_style="dim")
        chart.add_column("colour")
        chart.add_column("pieces", justify="right")
        for entry in seat.get("rarity", []):
            chart.add_row(Text(f"■ {entry['colour']}", style=_STYLE.get(entry["colour"], "")),
                          str(entry["count"]))
        works = Table.grid(padding=(0, 3))
        works.add_row(board, chart)
        info = Text.assemble(
            "satchel: ", _pieces(seat["satchel"]), "\n",
            "overflow: ", _pieces(seat["overflow"]), "\n",
            f"inventory {seat['inventory']}/{view['end_trigger']}   score {seat['score']} ",
            (f"(rows {seat['score_parts']['rows']}, columns {seat['score_parts']['columns']}, "
             f"overflow {seat['score_parts']['overflow']})"),
        )
        marker = " ▶" if p in view["to_move"] else ""
        you = " (you)" if player == p else ""
        parts.append(Panel(Group(works, info), title=f"Seat {p + 1}{you}{marker}", expand=False))
    parts.append(Text(view["prompt"], style="bold"))
    return Group(*parts)
