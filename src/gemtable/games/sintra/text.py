"""Terminal rendering of a Sintra view (Rich): factories, centre, palaces."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

STYLE = {
    "white": "bold white",
    "yellow": "bold yellow",
    "orange": "bold dark_orange",
    "blue": "bold blue",
    "pink": "bold magenta",
    "joker": "grey50",
}
LETTER = {"white": "W", "yellow": "Y", "orange": "O", "blue": "B", "pink": "P", "joker": "J"}


def _pane(colour: str | None, text: str | None = None) -> Text:
    if colour is None:
        return Text(text or "·", style="dim")
    return Text(text or LETTER.get(colour, colour[:1].upper()), style=STYLE.get(colour, ""))


def _counts(counts: dict[str, int]) -> Text:
    if not counts:
        return Text("empty", style="dim")
    out = Text()
    for colour, n in counts.items():
        out.append_text(_pane(colour, LETTER.get(colour, "?") * n))
        out.append(" ")
    return out


def _palace(view: dict[str, Any], p: int, viewer: int | None) -> Panel:
    me = view["players"][p]
    table = Table.grid(padding=(0, 1))
    for _ in range(8):
        table.add_column(justify="center")
    table.add_row(*[Text("▼G", style="bold green") if me["glazier"] == i else Text("")
                    for i in range(8)])
    rows: list[list[Text]] = [[] for _ in range(5)]
    labels = []
    for strip in me["strips"]:
        if strip is None:
            labels.append(Text("(gone)", style="dim"))
            for r in range(5):
                rows[r].append(Text(" "))
            continue
        labels.append(Text(f"{strip['strip']}{strip['side']}", style="dim"))
        for r, sp in enumerate(strip["spaces"]):
            if sp["pane"] is not None:
                cell = _pane(sp["pane"], "■" + LETTER.get(sp["pane"], "?"))
            else:
                cell = Text("·" + LETTER[sp["space"]], style="dim " + STYLE[sp["space"]].replace("bold ", ""))
            rows[r].append(cell)
    table.add_row(*labels)
    for r in rows:
        table.add_row(*r)
    table.add_row(*[_pane(w["upper"], "▣" + LETTER[w["upper"]] if w["upper"] else "□") for w in me["windows"]])
    table.add_row(*[_pane(w["lower"], "▣" + LETTER[w["lower"]] if w["lower"] else "□") for w in me["windows"]])
    table.add_row(*[Text(f"{w['value']}", style="cyan") for w in me["windows"]])
    bg = me["broken_glass"]
    names = view.get("names")
    name = names[p] if names and p < len(names) else f"seat {p + 1}" + (" (you)" if viewer == p else "")
    title = f"{name}   (▼G = glazier)"
    info = (f"score {me['score']}  ·  broken glass {bg['value']} (space {bg['space'] + 1})  ·  "
            f"panes on strips {me['panes_on_strips']}" + ("  ·  start marker" if me["start_marker"] else ""))
    if me.get("final"):
        f = me["final"]
        info += f"  ·  final: +{f['leftover']} leftover, {f['broken_glass']} broken, +{f['side_bonus']} side"
    to_move = p in view["to_move"]
    return Panel(Group(Text(info), table), title=title,
                 border_style="green" if to_move else "white")


def render_text(view: dict[str, Any], player: int | None = None) -> Group:
    """A Rich renderable drawing the table as ``player`` sees it."""
    head = Text()
    if view["phase"] == "over":
        head.append("Game over", style="bold")
    else:
        head.append(f"Round {view['round']}/{view['rounds']}  ", style="bold")
        head.append("round colour ")
        head.append_text(_pane(view["round_colour"], view["round_colour"]))
    head.append(f"   palace side {view['palace_side']}   indicator ")
    head.append_text(_counts({}) if not view["round_indicator"] else Text(" ").join(
        _pane(c) for c in view["round_indicator"]))
    fac = Table.grid(padding=(0, 2))
    fac.add_column(style="dim")
    fac.add_column()
    for i, f in enumerate(view["factories"]):
        fac.add_row(f"factory {i + 1}", _counts(f))
    centre = _counts(view["centre"])
    if view["start_marker_in_centre"]:
        centre.append(" [start marker]", style="bold green")
    fac.add_row("centre", centre)
    fac.add_row("bag", _counts(view["bag"]))
    fac.add_row("tower", _counts(view["tower"]))
    parts: list[Any] = [head, fac]
    if view.get("pending"):
        pend = view["pending"]
        if "colour" in pend:
            parts.append(Text(f"in hand: {pend['count']} {pend['colour']}", style=STYLE[pend["colour"]]))
    for p in range(len(view["players"])):
        parts.append(_palace(view, p, player))
    return Group(*parts)
