"""render_text(view, player, lang): a Rich renderable of a Diamonds Club view.

Every word is a message of this game (``locale/<lang>.po``), rendered in ``lang``; the view's
``prompt`` is shown as it is, so a caller wanting another language than English puts the
prompt in that language there (``State.prompt(player, lang)``).
"""

from __future__ import annotations

from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from gemtable.core.i18n import SOURCE, msg, render

from . import labels as L

TRACK_SHORT = {"forest": "F+", "tech": "T+", "money": "M+", "any": "?+"}
BUILDINGS = ("fountain", "orangery", "pavilion", "rose_garden")


def _say(message, lang: str) -> str:
    # soft hyphens mark where the web may break a long word; a terminal shows words whole
    return render(message, lang, L.DOMAINS).replace("\u00ad", "")


def short_goods(token: str, lang: str = SOURCE) -> str:
    """Short form of a market space's goods; several goods of one space are joined by "+"."""
    if "+" in token:
        return "+".join(short_goods(t, lang) for t in token.split("+"))
    kind, _, val = token.partition(":")
    if kind == "pit":
        return _say(msg("pit {colour}", colour=L.COLOUR[val]), lang)
    if kind == "mine":
        return _say(msg("mine{value}", value=val), lang)
    if kind == "ship":
        return _say(msg("ship{value}", value=val), lang)
    if kind == "hat":
        return "^" * int(val)
    if kind == "animal":
        return _say(L.ANIMAL_NAME[("pond", "deer", "aviary").index(val)], lang) if val in L.ANIMAL_SHORT else val
    return TRACK_SHORT.get(val, val)


def _cell(space: dict, lang: str) -> Text:
    label = short_goods(space["goods"], lang)
    if space["coins"]:
        return Text(f"{label} [{space['coins']}]", style="dim")
    return Text(f"{label} ·{space['price']}", style="bold")


def _warning(pl: dict, view: dict, lang: str) -> str:
    if lang == SOURCE:
        return pl["warning"]
    missing = [BUILDINGS.index(b) for b in pl["park"]["mandatory_missing"]]
    return _say(L.mandatory_warning(missing, view["phase"] == "over", view["ending"]), lang)


def _player_lines(i: int, pl: dict, view: dict, player, lang: str) -> Text:
    def say(message) -> str:
        return _say(message, lang)

    g = pl["gems"]
    eq = pl["equipment"]
    equip = ", ".join(
        [say(msg("{n}x pit {colour}", n=n, colour=L.COLOUR[c])) for c, n in eq["pits"].items()]
        + [say(msg("{n}x mine {value}", n=n, value=v)) for v, n in eq["mining_rights"].items()]
        + [say(msg("{n}x ship {value}", n=n, value=v)) for v, n in eq["ships"].items()]
    ) or say(msg("none"))
    park = pl["park"]
    t = pl["tracks"]
    mark = say(msg(" (you)")) if i == player else ""
    start = say(msg(" [start]")) if i == view["start_player"] else ""
    passed = say(msg(" passed")) if pl["passed"] else ""
    text = Text()
    text.append(f"P{i + 1}{mark}{start}{passed}", style="bold")
    text.append(say(msg(
        "  coins {coins}  gems b{blue} y{yellow} g{green} r{red} diamond {diamond}  {points}  start track {space}\n",
        coins=pl["coins"], blue=g["blue"], yellow=g["yellow"], green=g["green"], red=g["red"],
        diamond=g["diamond"], points=_points(pl, lang), space=pl["start_track"]["space"])))
    sc = pl["score"]
    text.append(say(msg("   points: buildings {buildings}, forests {forests}, animals {animals}, bonus {bonus}, "
                        "tracks {tracks}\n", **{k: sc[k] for k in ("buildings", "forests", "animals", "bonus",
                                                                     "tracks")})))
    text.append(say(msg("   equipment: {equipment}; tracks: forest {forest} ({vp} VP/forest), "
                        "tech {tech}, money {money} ({coins} coins)\n", equipment=equip, forest=t["forest"],
                        vp=pl["forest_value"], tech=t["tech"], money=t["money"], coins=pl["coins_next_round"])))
    b = park["buildings"]
    a = park["animals"]
    mand = ", ".join(
        say(msg("{building} built", building=L.TILE_BY_NAME[name]) if done
            else msg("{building} EMPTY", building=L.TILE_BY_NAME[name]))
        for name, done in zip(park["mandatory_spaces"], park["mandatory_covered"]))
    tiles = ", ".join(f"{say(L.TILE_BY_NAME[k])} {v}" for k, v in b.items())
    animals = ", ".join(f"{say(L.ANIMAL_SHORT[k])} {v}" for k, v in a.items())
    text.append(say(msg(
        "   park: {buildings}, forest {forests}; {animals}; light-green {light}/{light_spaces}, "
        "dark-green {dark}/{dark_spaces}; mandatory spaces: {mandatory}", buildings=tiles, forests=park["forests"],
        animals=animals, light=park["light_covered"], light_spaces=park["light_spaces"],
        dark=park["dark_covered"], dark_spaces=park["dark_spaces"], mandatory=mand)))
    if pl.get("warning"):
        text.append(f"\n   ! P{i + 1} {_warning(pl, view, lang)}", style="bold red")
    return text


def _points(pl: dict, lang: str) -> str:
    total = pl["score"]["total"]
    if pl.get("not_scored"):
        return _say(msg("0 points (not scored; {total} on the board)", total=total), lang)
    return _say(msg("{total} points", total=total), lang)


def render_text(view: dict, player: int | None = None, lang: str = SOURCE):
    def say(message) -> str:
        return _say(message, lang)

    head = say(msg("Diamonds Club · round {round} · phase: {phase}", round=view["round"],
                   phase=L.PHASE_NAME.get(view["phase"], view["phase"])))
    parts = [Text(head + (say(msg(" · last round")) if view["ending"] else ""), style="bold")]
    # a table title is read as Rich markup: escape the literal "[coins placed]"
    market = Table(title=escape(say(msg("Market (goods ·price, or [coins placed]; ^ = top hat)"))),
                   show_header=True, padding=(0, 1))
    market.add_column("")
    for k, s in enumerate(view["market_strips"]):
        market.add_column(say(msg("strip {strip} ({colour})", strip=k + 1, colour=L.COLOUR[s["colour"]])),
                          no_wrap=True)
    for r, row in enumerate(view["market"]):
        market.add_row(say(msg("row {row}", row=r + 1)), *[_cell(sp, lang) for sp in row])
    parts.append(market)
    boards = Text(say(msg("Price boards: ")))
    used = say(msg(" (used)"))
    boards.append("; ".join(
        f"{say(L.BOARD_NAME[b['name']])} {_cost(b, lang)}"
        + (f" +{len([p for p in b['pieces'] if p != player])}" if [p for p in b["pieces"] if p != player] else "")
        + (used if player in b["pieces"] else "")
        for b in view["boards"]))
    parts.append(boards)
    for i, pl in enumerate(view["players"]):
        parts.append(_player_lines(i, pl, view, player, lang))
    bc = view["bonus_cards"]
    parts.append(Text(say(msg(
        "Bonus cards: three of a kind: {three}; all four: {four}; five identical: {five}",
        three=", ".join(f"{say(L.TILE_BY_NAME[k])} {'-' if v is None else 'P%d' % (v + 1)}"
                        for k, v in bc["three_of_a_kind"].items()),
        four=", ".join(f"P{p + 1}" for p in bc["all_four"]) or "-",
        five=", ".join(f"P{p + 1}" for p in bc["five_identical"]) or "-"))))
    parts.append(Text(view["prompt"], style="italic"))
    return Group(*parts)


def _cost(board: dict, lang: str) -> str:
    if lang == SOURCE:
        return board["cost"]
    from .data import DATA

    index = next(b.index for b in DATA.boards if b.name == board["name"])
    return _say(L.board_cost(index), lang)
