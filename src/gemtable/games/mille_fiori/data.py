"""Load and validate Mille Fiori's component data (data.toml).

The loader turns the file into flat tables indexed by board space and card
kind, and checks every property the rules rely on: one card per board space
(per area and per symbol), symmetric workshop adjacency, star triples that
partition the workshops, well-formed pyramids, tracks and deal arithmetic.
Any problem raises :class:`gemtable.core.DataError` naming the table.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemtable.core.data import load_toml, require
from gemtable.core.errors import DataError

DATA_PATH = Path(__file__).with_name("data.toml")

# Areas, in board-space order.
WORKSHOPS, HOUSES, NOBLES, COMMONERS, TRADE, HARBOR = range(6)
AREAS = ("workshops", "houses", "nobles", "commoners", "trade", "harbor")
AREA_TITLES = ("Workshops", "Houses", "Nobles", "Commoners", "Trade", "Harbor")
BONUS_AREAS = 5  # workshops, houses, nobles, commoners, trade have bonus-point spaces


@dataclass(frozen=True)
class Data:
    # setup
    personal_diamonds: int
    set_aside_diamonds: int
    hand_size: int
    display: dict[int, int]
    played_per_round: dict[int, int]
    empty_display_points: int
    # spaces (index = board space)
    num_spaces: int
    area_start: tuple[int, ...]  # first space of each area (+ total at the end)
    space_area: tuple[int, ...]
    space_symbol: tuple[int, ...]  # symbol index within the area (-1 for houses/harbor)
    space_name: tuple[str, ...]
    symbols: tuple[tuple[str, ...], ...]  # symbol names per area
    # workshops
    adjacency: tuple[tuple[int, ...], ...]  # workshop spaces only
    star_triple: tuple[tuple[int, ...], ...]  # per workshop space: its triple
    star_triples: tuple[tuple[int, ...], ...]
    doubled_symbol: int
    ws_rows: tuple[tuple[tuple[int, int], ...], ...]  # per row: (dc, space)
    # houses
    house_values: tuple[int, ...]
    house_value_bit: tuple[int, ...]  # per house index: bit of its value among distinct values
    house_distinct: tuple[int, ...]
    house_extra_at: tuple[int, ...]
    house_bonus_at: int
    # citizens (space-indexed; only citizen spaces are meaningful)
    level: tuple[int, ...]  # 0 base, 1 middle, 2 top
    level_points: tuple[int, ...]
    support: tuple[tuple[int, ...], ...]  # the two spaces beneath (empty for the base)
    beneath: tuple[tuple[tuple[int, int], ...], ...]  # (space, points to its owner)
    pyramid_rows: tuple[tuple[tuple[int, ...], ...], ...]  # per pyramid: (bot, mid, top) space tuples
    # trade and harbor
    trade_rows: int
    trade_columns: int
    harbor_rows: int
    harbor_per_row: int
    harbor_points: tuple[int, ...]
    # sea
    sea_points: tuple[int, ...]  # index = position 0..end
    sea_extra: tuple[bool, ...]
    sea_end: int
    # bonus-point spaces per bonus area
    bonus: tuple[tuple[int, ...], ...]
    # cards: kinds (area, symbol, wheel) and the multiset of kinds in the deck
    kind_area: tuple[int, ...]
    kind_symbol: tuple[int, ...]
    kind_wheel: tuple[int, ...]
    kind_name: tuple[str, ...]
    deck: tuple[int, ...]  # one entry (a kind) per card


def _int_list(value: Any, what: str, path: Path) -> list[int]:
    require(
        isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
        f"{what} must be a list of integers",
        path,
    )
    return list(value)


def _str_list(value: Any, what: str, path: Path) -> list[str]:
    require(isinstance(value, list) and all(isinstance(v, str) for v in value), f"{what} must be a list of names", path)
    return list(value)


def _table(raw: dict[str, Any], name: str, path: Path) -> dict[str, Any]:
    value = raw.get(name)
    require(isinstance(value, dict), f"missing table [{name}]", path)
    return value


def load(path: str | Path = DATA_PATH) -> Data:
    path = Path(path)
    raw = load_toml(path)
    try:
        return _build(raw, path)
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise DataError(f"{path.name}: malformed Mille Fiori data ({type(exc).__name__}: {exc})") from None


def _build(raw: dict[str, Any], path: Path) -> Data:
    setup = _table(raw, "setup", path)
    ws = _table(raw, "workshops", path)
    ho = _table(raw, "houses", path)
    ci = _table(raw, "citizens", path)
    tr = _table(raw, "trade", path)
    hb = _table(raw, "harbor", path)
    sea = _table(raw, "sea", path)

    space_area: list[int] = []
    space_symbol: list[int] = []
    space_name: list[str] = []
    area_start: list[int] = []

    # -- workshops ------------------------------------------------------------
    ws_symbols = _str_list(ws["symbols"], "workshops.symbols", path)
    letters = ws["letters"]
    require(isinstance(letters, dict) and sorted(letters.values()) == sorted(ws_symbols),
            "workshops.letters must name each workshop symbol once", path)
    require(ws["doubled"] in ws_symbols, "workshops.doubled must be one of workshops.symbols", path)
    area_start.append(0)
    ws_rows = []
    for r, row in enumerate(ws["rows"]):
        dcs = _int_list(row["dc"], f"workshops.rows[{r}].dc", path)
        syms = row["sym"]
        require(isinstance(syms, str) and len(syms) == len(dcs),
                f"workshops.rows[{r}]: sym must have one letter per dc", path)
        require(dcs == sorted(set(dcs)), f"workshops.rows[{r}].dc must be increasing", path)
        cells = []
        for dc, letter in zip(dcs, syms):
            require(letter in letters, f"workshops.rows[{r}]: unknown symbol letter {letter!r}", path)
            s = len(space_area)
            cells.append((dc, s))
            space_area.append(WORKSHOPS)
            space_symbol.append(ws_symbols.index(letters[letter]))
            space_name.append(f"workshop {s + 1} ({letters[letter]})")
        ws_rows.append(tuple(cells))
    n_ws = len(space_area)
    adjacency = ws["adjacency"]
    require(isinstance(adjacency, list) and len(adjacency) == n_ws,
            f"workshops.adjacency must list the neighbours of all {n_ws} workshop spaces", path)
    adj: list[tuple[int, ...]] = []
    for s, nbrs in enumerate(adjacency):
        nbrs = _int_list(nbrs, f"workshops.adjacency[{s}]", path)
        require(all(0 <= t < n_ws and t != s for t in nbrs) and len(set(nbrs)) == len(nbrs),
                f"workshops.adjacency[{s}] names a space that is not another workshop space", path)
        adj.append(tuple(sorted(nbrs)))
    for s, nbrs in enumerate(adj):
        for t in nbrs:
            require(s in adj[t], f"workshops.adjacency is not symmetric: {s} lists {t} but {t} does not list {s}", path)
    triples = [tuple(_int_list(t, "workshops.star_triples", path)) for t in ws["star_triples"]]
    flat = sorted(x for t in triples for x in t)
    require(all(len(t) == 3 for t in triples) and flat == list(range(n_ws)),
            "workshops.star_triples must partition the workshop spaces into triples", path)
    star_of: list[tuple[int, ...]] = [()] * n_ws
    for t in triples:
        for x in t:
            star_of[x] = t

    # -- houses ---------------------------------------------------------------
    area_start.append(len(space_area))
    house_values = _int_list(ho["values"], "houses.values", path)
    require(house_values and all(v > 0 for v in house_values), "houses.values must be positive", path)
    distinct = sorted(set(house_values))
    for i, v in enumerate(house_values):
        space_area.append(HOUSES)
        space_symbol.append(-1)
        space_name.append(f"house {i + 1} (value {v})")
    house_extra_at = tuple(_int_list(ho["extra_card_at_distinct_values"], "houses.extra_card_at_distinct_values", path))
    house_bonus_at = ho["bonus_at_distinct_values"]
    require(isinstance(house_bonus_at, int) and 0 < house_bonus_at <= len(distinct),
            "houses.bonus_at_distinct_values must be reachable", path)
    require(all(0 < x <= len(distinct) for x in house_extra_at),
            "houses.extra_card_at_distinct_values must be reachable", path)

    # -- citizens ---------------------------------------------------------------
    level_points = tuple(_int_list(ci["level_points"], "citizens.level_points", path))
    require(len(level_points) == 3, "citizens.level_points needs base, middle and top values", path)
    pyramids = []
    level: dict[int, int] = {}
    support: dict[int, tuple[int, ...]] = {}
    beneath: dict[int, tuple[tuple[int, int], ...]] = {}
    pyr_symbols = []
    for area, key in ((NOBLES, "nobles"), (COMMONERS, "commoners")):
        pyr = ci[key]
        syms = _str_list(pyr["symbols"], f"citizens.{key}.symbols", path)
        pyr_symbols.append(tuple(syms))
        bot = _str_list(pyr["bot"], f"citizens.{key}.bot", path)
        mid = _str_list(pyr["mid"], f"citizens.{key}.mid", path)
        top = _str_list(pyr["top"], f"citizens.{key}.top", path)
        require(len(mid) == len(bot) - 1 and len(top) == len(mid) - 1 and len(top) >= 1,
                f"citizens.{key}: each level must be one space shorter than the one below", path)
        for name in bot + mid + top:
            require(name in syms, f"citizens.{key}: unknown symbol {name!r}", path)
        area_start.append(len(space_area))
        rows = []
        for lv, names in enumerate((bot, mid, top)):
            ids = []
            for i, name in enumerate(names):
                s = len(space_area)
                ids.append(s)
                space_area.append(area)
                space_symbol.append(syms.index(name))
                space_name.append(f"{key} {('base', 'middle', 'top')[lv]} {i + 1} ({name})")
                level[s] = lv
            rows.append(tuple(ids))
        b, m, t = rows
        for i, s in enumerate(b):
            support[s] = ()
            beneath[s] = ()
        for j, s in enumerate(m):
            support[s] = (b[j], b[j + 1])
            beneath[s] = ((b[j], level_points[0]), (b[j + 1], level_points[0]))
        for i, s in enumerate(t):
            support[s] = (m[i], m[i + 1])
            beneath[s] = ((m[i], level_points[1]), (m[i + 1], level_points[1]),
                          (b[i], level_points[0]), (b[i + 1], level_points[0]), (b[i + 2], level_points[0]))
        pyramids.append(tuple(rows))

    # -- trade -------------------------------------------------------------------
    area_start.append(len(space_area))
    columns = _str_list(tr["columns"], "trade.columns", path)
    trade_rows = tr["rows"]
    require(isinstance(trade_rows, int) and trade_rows > 0, "trade.rows must be a positive integer", path)
    for r in range(trade_rows):
        for c, good in enumerate(columns):
            space_area.append(TRADE)
            space_symbol.append(c)
            space_name.append(f"trade row {r + 1} ({good})")

    # -- harbor ------------------------------------------------------------------
    area_start.append(len(space_area))
    hrows, per_row = hb["rows"], hb["spaces_per_row"]
    require(hrows == trade_rows, "harbor.rows must equal trade.rows (each fleet sits beside a trade row)", path)
    require(isinstance(per_row, int) and per_row > 0, "harbor.spaces_per_row must be a positive integer", path)
    harbor_points = tuple(_int_list(hb["points_by_goods"], "harbor.points_by_goods", path))
    require(len(harbor_points) == len(columns) + 1,
            "harbor.points_by_goods needs one value for 0..(number of goods) occupied goods", path)
    for r in range(hrows):
        for i in range(per_row):
            space_area.append(HARBOR)
            space_symbol.append(-1)
            space_name.append(f"fleet {r + 1} ship {i + 1}")
    area_start.append(len(space_area))

    # -- sea -----------------------------------------------------------------------
    sea_pts = _int_list(sea["points"], "sea.points", path)
    sea_end = len(sea_pts)
    extra_pos = _int_list(sea["extra_card_positions"], "sea.extra_card_positions", path)
    require(all(1 <= x <= sea_end for x in extra_pos), "sea.extra_card_positions must lie on the track", path)

    # -- bonus spaces ----------------------------------------------------------------
    bonus = []
    for key, tbl in (("workshops", ws), ("houses", ho), ("citizens.nobles", ci["nobles"]),
                     ("citizens.commoners", ci["commoners"]), ("trade", tr)):
        vals = _int_list(tbl["bonus"], f"{key}.bonus", path)
        require(vals == sorted(vals, reverse=True) and all(v > 0 for v in vals),
                f"{key}.bonus must list positive values from highest to lowest", path)
        bonus.append(tuple(vals))

    symbols = (tuple(ws_symbols), ("key",), pyr_symbols[0], pyr_symbols[1], tuple(columns), ("ship",))
    all_names = [name for group in symbols for name in group]
    require(len(set(all_names)) == len(all_names),
            "symbol names must be unique across areas (cards are named by symbol and wheel number)", path)

    # -- cards ----------------------------------------------------------------------------
    kinds: dict[tuple[int, int, int], int] = {}
    deck: list[int] = []
    per_symbol: Counter = Counter()
    cards = raw.get("cards")
    require(isinstance(cards, list) and cards, "missing [[cards]] entries", path)
    for entry in cards:
        area_name = entry["area"]
        require(area_name in AREAS, f"card area {area_name!r} is not one of {', '.join(AREAS)}", path)
        area = AREAS.index(area_name)
        require(entry["symbol"] in symbols[area],
                f"card symbol {entry['symbol']!r} does not belong to the {area_name} area", path)
        sym = symbols[area].index(entry["symbol"])
        wheels = _int_list(entry["wheels"], f"wheels of {area_name} {entry['symbol']}", path)
        require(all(1 <= w <= sea_end for w in wheels), f"wheel numbers of {area_name} {entry['symbol']} must be 1..{sea_end}", path)
        for w in wheels:
            key = (area, sym, w)
            if key not in kinds:
                kinds[key] = len(kinds)
            deck.append(kinds[key])
            per_symbol[(area, sym)] += 1

    # one card per board space: per area and per symbol
    n_spaces = len(space_area)
    spaces_per: Counter = Counter()
    for a, s in zip(space_area, space_symbol):
        spaces_per[(a, 0 if s < 0 else s)] += 1
    # citizens cards: the card's symbol counts against that pyramid's spaces of that symbol
    for key in sorted(set(spaces_per) | set(per_symbol)):
        a, s = key
        require(per_symbol[key] == spaces_per[key],
                f"{AREAS[a]} {symbols[a][s]}: {per_symbol[key]} cards but {spaces_per[key]} board spaces "
                "(there must be one card per space)", path)
    require(len(deck) == n_spaces, f"the deck has {len(deck)} location cards but the board has {n_spaces} spaces "
            "(there must be one card per space)", path)

    # setup arithmetic
    display = {int(k): v for k, v in setup["display"].items()}
    played = {int(k): v for k, v in setup["played_per_round"].items()}
    hand = setup["hand_size"]
    require(sorted(display) == sorted(played), "setup.display and setup.played_per_round must cover the same player counts", path)
    for n in display:
        require(0 < played[n] < hand, f"setup.played_per_round for {n} players must be below the hand size", path)
        rest = len(deck) - display[n]
        require(rest > 0 and rest % (n * hand) == 0,
                f"with {n} players the deck minus the display ({rest} cards) must deal out in whole rounds of {n * hand}", path)

    kind_list = sorted(kinds, key=kinds.get)
    return Data(
        personal_diamonds=setup["personal_diamonds"],
        set_aside_diamonds=setup["set_aside_diamonds"],
        hand_size=hand,
        display=display,
        played_per_round=played,
        empty_display_points=setup["empty_display_points"],
        num_spaces=n_spaces,
        area_start=tuple(area_start),
        space_area=tuple(space_area),
        space_symbol=tuple(space_symbol),
        space_name=tuple(space_name),
        symbols=symbols,
        adjacency=tuple(adj),
        star_triple=tuple(star_of),
        star_triples=tuple(triples),
        doubled_symbol=ws_symbols.index(ws["doubled"]),
        ws_rows=tuple(ws_rows),
        house_values=tuple(house_values),
        house_value_bit=tuple(1 << distinct.index(v) for v in house_values),
        house_distinct=tuple(distinct),
        house_extra_at=house_extra_at,
        house_bonus_at=house_bonus_at,
        level=tuple(level.get(s, -1) for s in range(n_spaces)),
        level_points=level_points,
        support=tuple(support.get(s, ()) for s in range(n_spaces)),
        beneath=tuple(beneath.get(s, ()) for s in range(n_spaces)),
        pyramid_rows=tuple(pyramids),
        trade_rows=trade_rows,
        trade_columns=len(columns),
        harbor_rows=hrows,
        harbor_per_row=per_row,
        harbor_points=harbor_points,
        sea_points=(0,) + tuple(sea_pts),
        sea_extra=tuple(p in extra_pos for p in range(sea_end + 1)),
        sea_end=sea_end,
        bonus=tuple(bonus),
        kind_area=tuple(k[0] for k in kind_list),
        kind_symbol=tuple(k[1] for k in kind_list),
        kind_wheel=tuple(k[2] for k in kind_list),
        kind_name=tuple(f"{AREAS[a]} {symbols[a][s]} ({w})" for a, s, w in kind_list),
        deck=tuple(deck),
    )
