"""Terminal rendering of a Sintra view (Rich): factories, centre, palaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from gemtable.core.i18n import CORE_DOMAIN, SOURCE, Message, msg, msgp, render

from .rules import COLOUR_NAME

DOMAINS = (Path(__file__).resolve().parent / "locale", CORE_DOMAIN)


def tr(message: Message, lang: str) -> str:
    return render(message, lang, DOMAINS)

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


def _counts(counts: dict[str, int], lang: str = SOURCE) -> Text:
    if not counts:
        return Text(tr(msg("empty"), lang), style="dim")
    out = Text()
    for colour, n in counts.items():
        out.append_text(_pane(colour, LETTER.get(colour, "?") * n))
        out.append(" ")
    return out


def _palace(view: dict[str, Any], p: int, viewer: int | None, lang: str = SOURCE) -> Panel:
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
            labels.append(Text(tr(msg("(gone)"), lang), style="dim"))
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
    if names and p < len(names):
        name = names[p]
    else:
        name = tr(msg("seat {number} (you)", number=p + 1) if viewer == p else msg("seat {number}", number=p + 1),
                 lang)
    title = f"{name}   " + tr(msg("(▼G = glazier)"), lang)
    info = tr(msg("score {score}  ·  broken glass {value} (space {space})  ·  panes on strips {panes}",
                 score=me["score"], value=bg["value"], space=bg["space"] + 1, panes=me["panes_on_strips"]), lang)
    if me["start_marker"]:
        info += "  ·  " + tr(msg("start marker"), lang)
    if me.get("final"):
        f = me["final"]
        info += "  ·  " + tr(msg("final: +{leftover} leftover, {broken} broken, +{side} side",
                                leftover=f["leftover"], broken=f["broken_glass"], side=f["side_bonus"]), lang)
    to_move = p in view["to_move"]
    return Panel(Group(Text(info), table), title=title,
                 border_style="green" if to_move else "white")


def render_text(view: dict[str, Any], player: int | None = None, lang: str = SOURCE) -> Group:
    """A Rich renderable drawing the table as ``player`` sees it, its words in ``lang``."""
    head = Text()
    if view["phase"] == "over":
        head.append(tr(msg("Game over"), lang), style="bold")
    else:
        head.append(tr(msg("Round {round}/{rounds}", round=view["round"], rounds=view["rounds"]), lang) + "  ",
                    style="bold")
        head.append(tr(msg("round colour"), lang) + " ")
        rc = view["round_colour"]
        head.append_text(_pane(rc, tr(COLOUR_NAME[rc], lang) if rc in COLOUR_NAME else rc))
    head.append("   " + tr(msg("palace side {side}", side=view["palace_side"]), lang) + "   "
                + tr(msg("indicator"), lang) + " ")
    head.append_text(_counts({}, lang) if not view["round_indicator"] else Text(" ").join(
        _pane(c) for c in view["round_indicator"]))
    fac = Table.grid(padding=(0, 2))
    fac.add_column(style="dim")
    fac.add_column()
    for i, f in enumerate(view["factories"]):
        fac.add_row(tr(msg("factory {number}", number=i + 1), lang), _counts(f, lang))
    centre = _counts(view["centre"], lang)
    if view["start_marker_in_centre"]:
        centre.append(" [" + tr(msg("start marker"), lang) + "]", style="bold green")
    fac.add_row(tr(msgp("table area", "centre"), lang), centre)
    fac.add_row(tr(msg("bag"), lang), _counts(view["bag"], lang))
    fac.add_row(tr(msg("tower"), lang), _counts(view["tower"], lang))
    parts: list[Any] = [head, fac]
    if view.get("pending"):
        pend = view["pending"]
        if "colour" in pend:
            parts.append(Text(tr(msg("in hand: {count} {colour}", count=pend["count"],
                                    colour=COLOUR_NAME.get(pend["colour"], pend["colour"])), lang),
                              style=STYLE[pend["colour"]]))
    for p in range(len(view["players"])):
        parts.append(_palace(view, p, player, lang))
    return Group(*parts)
