"""render_text(view, player): a Rich renderable of a Diamonds Club view."""

from __future__ import annotations

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

TRACK_SHORT = {"forest": "F+", "tech": "T+", "money": "M+", "any": "?+"}


def short_goods(token: str) -> str:
    """Short form of a market space's goods; several goods of one space are joined by "+"."""
    if "+" in token:
        return "+".join(short_goods(t) for t in token.split("+"))
    kind, _, val = token.partition(":")
    if kind == "pit":
        return f"pit {val}"
    if kind == "mine":
        return f"mine{val}"
    if kind == "ship":
        return f"ship{val}"
    if kind == "hat":
        return "^" * int(val)
    if kind == "animal":
        return {"deer": "deer park"}.get(val, val)
    return TRACK_SHORT.get(val, val)


def _cell(space: dict) -> Text:
    label = short_goods(space["goods"])
    if space["coins"]:
        return Text(f"{label} [{space['coins']}]", style="dim")
    return Text(f"{label} ·{space['price']}", style="bold")


def _player_lines(i: int, pl: dict, view: dict, player) -> Text:
    g = pl["gems"]
    eq = pl["equipment"]
    equip = ", ".join(
        [f"{n}x pit {c}" for c, n in eq["pits"].items()]
        + [f"{n}x mine {v}" for v, n in eq["mining_rights"].items()]
        + [f"{n}x ship {v}" for v, n in eq["ships"].items()]
    ) or "none"
    park = pl["park"]
    t = pl["tracks"]
    mark = " (you)" if i == player else ""
    start = " [start]" if i == view["start_player"] else ""
    passed = " passed" if pl["passed"] else ""
    text = Text()
    text.append(f"P{i + 1}{mark}{start}{passed}", style="bold")
    text.append(
        f"  coins {pl['coins']}  gems b{g['blue']} y{g['yellow']} g{g['green']} r{g['red']} "
        f"diamond {g['diamond']}  {_points(pl)}  start track {pl['start_track']['space']}\n"
    )
    sc = pl["score"]
    text.append("   points: " + ", ".join(f"{k} {sc[k]}" for k in ("buildings", "forests", "animals", "bonus", "tracks"))
                + "\n")
    text.append(f"   equipment: {equip}; tracks: forest {t['forest']} ({pl['forest_value']} VP/forest), "
                f"tech {t['tech']}, money {t['money']} ({pl['coins_next_round']} coins)\n")
    b = park["buildings"]
    a = park["animals"]
    mand = ", ".join(
        f"{name.replace('_', ' ')} {'built' if done else 'EMPTY'}"
        for name, done in zip(park["mandatory_spaces"], park["mandatory_covered"]))
    text.append(
        "   park: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in b.items())
        + f", forest {park['forests']}; " + ", ".join(f"{k} {v}" for k, v in a.items())
        + f"; light-green {park['light_covered']}/{park['light_spaces']}, "
        f"dark-green {park['dark_covered']}/{park['dark_spaces']}; mandatory spaces: {mand}"
    )
    if pl.get("warning"):
        text.append(f"\n   ! P{i + 1} {pl['warning']}", style="bold red")
    return text


def _points(pl: dict) -> str:
    total = pl["score"]["total"]
    if pl.get("not_scored"):
        return f"0 points (not scored; {total} on the board)"
    return f"{total} points"


def render_text(view: dict, player: int | None = None):
    parts = [Text(f"Diamonds Club · round {view['round']} · phase: {view['phase']}"
                  + (" · last round" if view["ending"] else ""), style="bold")]
    # a table title is read as Rich markup: escape the literal "[coins placed]"
    market = Table(title=escape("Market (goods ·price, or [coins placed]; ^ = top hat)"), show_header=True,
                   padding=(0, 1))
    market.add_column("")
    for k, s in enumerate(view["market_strips"]):
        market.add_column(f"strip {k + 1} ({s['colour']})", no_wrap=True)
    for r, row in enumerate(view["market"]):
        market.add_row(f"row {r + 1}", *[_cell(sp) for sp in row])
    parts.append(market)
    boards = Text("Price boards: ")
    boards.append("; ".join(
        f"{b['name'].replace('_', ' ')} {b['cost']}"
        + (f" +{len([p for p in b['pieces'] if p != player])}" if [p for p in b["pieces"] if p != player] else "")
        + (" (used)" if player in b["pieces"] else "")
        for b in view["boards"]))
    parts.append(boards)
    for i, pl in enumerate(view["players"]):
        parts.append(_player_lines(i, pl, view, player))
    bc = view["bonus_cards"]
    parts.append(Text(
        "Bonus cards: three of a kind: "
        + ", ".join(f"{k.replace('_', ' ')} {'-' if v is None else 'P%d' % (v + 1)}"
                    for k, v in bc["three_of_a_kind"].items())
        + "; all four: " + (", ".join(f"P{p + 1}" for p in bc["all_four"]) or "-")
        + "; five identical: " + (", ".join(f"P{p + 1}" for p in bc["five_identical"]) or "-")
    ))
    parts.append(Text(view["prompt"], style="italic"))
    return Group(*parts)
