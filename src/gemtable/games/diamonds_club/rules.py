"""Diamonds Club rules: the State (setup, the five phases, scoring, views).

Layout of the flat state (p = seat, n = number of players):

- ``coins[p]``; ``gems[p*5 + k]`` (k: 4 colours then diamonds);
- ``tr[p*3 + t]`` development track positions (forest, tech, money; 0 = top space);
- ``pits[p*4 + colour]``, ``mines[p*10 + value]``, ``ships[p*10 + value]`` (equipment counts);
- park: ``bld[p*4 + b]`` buildings, ``forests[p]``, ``ani[p*3 + a]``, ``mand[p]`` bitmask of
  covered mandatory spaces, ``gen[p]`` covered ordinary light-green spaces, ``dark[p]``;
- start track: ``pos[p]`` (0..last_space, last_space+1 = beyond) and ``seq[p]`` (stack
  height: the larger, the higher up in a stack);
- market: ``strips`` (per column [colour, strip, face]), ``market_goods`` (per space the
  tuple of its (kind, value) goods, derived from the strips; ``goods`` is the first good of
  each space), ``cm[space]`` coins lying on a space, ``sur[space]`` coins on the adjoining
  spaces (the surcharge), ``qleft`` ``?`` track steps of the bought space still to choose;
- price boards: ``bp[board]`` bitmask of seats with a piece there, ``used[p]`` pieces placed;
- ``fpile``: while a player chooses which building pile a new forest is turned from, the
  bitmask of the piles tied for most tiles (0 otherwise).
"""

from __future__ import annotations

from typing import Any

from gemtable.core import Action, ActionSpace, Rng, State
from gemtable.core.i18n import Message, msg, msgn, render

from . import labels as L
from .data import ANIMAL, ANY_TRACK, DATA, HAT, MINE, PIT, SHIP, TRACK, TRACKS, Data

GAME_ID = "diamonds_club"
D: Data = DATA

NC = 4  # gem colours
DIA = 4  # index of diamonds in a gem vector
NB = 4  # building types
FOREST = NB  # tile index for a forest
NA = 3  # animal types
NV = 10  # equipment values 0..9
ROWS = D.spaces_per_strip
MAX_COLS = 8
BUY, GEMS, BUILD, OVER = range(4)
PHASE_NAMES = ("buy", "purchase gems", "build", "over")
BEYOND = D.last_space + 1
GENMAX = D.light_spaces - len(D.mandatory)
MANDFULL = (1 << len(D.mandatory)) - 1
MAND_OF = tuple(
    tuple(i for i, m in enumerate(D.mandatory) if m == b) for b in range(NB)
)
FOREST_MAX = len(D.forest_vp) - 1
TRACK_MAX = (len(D.forest_vp) - 1, len(D.tech_gems) - 1, len(D.money_coins) - 1)
NBOARDS = len(D.boards)
BOARD_PIECES = D.board_pieces
TILE_NAMES = D.buildings + ("forest",)
# Display help, not a rule: the end counts as near (and players missing a mandatory space
# are warned) once some player has at most this many light-green spaces left to cover.
NEAR_END_LEFT = 5
COLOUR_NAMES = D.colours + ("diamond",)
ANIMAL_LABEL = {"deer": "deer park"}


def animal_label(a: int) -> str:
    name = D.animals[a]
    return ANIMAL_LABEL.get(name, name)


def _a(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def tile_label(t: int) -> str:
    return TILE_NAMES[t].replace("_", " ")


def goods_label(kind: int, val: int) -> str:
    if kind == PIT:
        return f"{D.colours[val]} pit"
    if kind == MINE:
        return f"mining rights {val}"
    if kind == SHIP:
        return f"ship {val}"
    if kind == HAT:
        return f"{val} top hat" + ("s" if val > 1 else "")
    if kind == ANIMAL:
        return animal_label(val)
    return ("forest", "technology", "money", "any")[val] + " track step"


def space_label(goods) -> str:
    """All goods of one market space, e.g. "red pit + mining rights 4"."""
    return " + ".join(goods_label(k, v) for k, v in goods)


def space_token(goods) -> str:
    """The data-file spelling of a market space: its goods tokens joined by "+"."""
    return "+".join(goods_token(k, v) for k, v in goods)


def goods_token(kind: int, val: int) -> str:
    if kind == PIT:
        return f"pit:{D.colours[val]}"
    if kind in (MINE, SHIP, HAT):
        return f"{('', 'mine', 'ship', 'hat')[kind]}:{val}"
    if kind == ANIMAL:
        return f"animal:{D.animals[val]}"
    return f"track:{(TRACKS + ('any',))[val]}"


# -- board requirements -----------------------------------------------------------
REQ_SPEC = tuple(b.gems for b in D.boards)
REQ_PAIR = tuple(b.pair for b in D.boards)
REQ_BASE = tuple(b.base_price for b in D.boards)
BOARD_TILES = tuple(
    (b.tile,) if b.kind == "building" else (tuple(range(NB)) + (FOREST,) if b.kind == "any_tile" else (FOREST,))
    for b in D.boards
)
MAXPAY = max(REQ_BASE) + 3


def board_label(b: int) -> str:
    """A price board's name as players read it, e.g. "rose garden", "forest 3"."""
    return D.boards[b].name.replace("_", " ")


def board_cost_text(b: int) -> str:
    parts = [f"{k} {D.colours[c]}" for c, k in enumerate(REQ_SPEC[b]) if k]
    if REQ_PAIR[b]:
        parts.append("2 of one colour")
    if D.boards[b].any:
        parts.append(f"{D.boards[b].any} any")
    return " + ".join(parts)


def _deficit(spec, h) -> int:
    d = 0
    for c in range(NC):
        x = spec[c] - h[c]
        if x > 0:
            d += x
    return d


def affordable(b: int, h, k: int) -> bool:
    """Can gems ``h`` (5-vector) pay board ``b`` with ``k`` extra gems of surcharge?"""
    if h[0] + h[1] + h[2] + h[3] + h[4] < REQ_BASE[b] + k:
        return False
    spec = REQ_SPEC[b]
    if REQ_PAIR[b]:
        for c in range(NC):
            s = list(spec)
            s[c] += 2
            if _deficit(s, h) <= h[DIA]:
                return True
        return False
    return _deficit(spec, h) <= h[DIA]


def payments(b: int, h, k: int) -> list[tuple[int, ...]]:
    """Every gem vector (b, y, g, r, diamonds) from ``h`` that pays board ``b`` + ``k``."""
    total = REQ_BASE[b] + k
    spec = REQ_SPEC[b]
    pair = REQ_PAIR[b]
    out = []
    h0, h1, h2, h3, h4 = h
    for x0 in range(min(h0, total) + 1):
        r0 = total - x0
        for x1 in range(min(h1, r0) + 1):
            r1 = r0 - x1
            for x2 in range(min(h2, r1) + 1):
                r2 = r1 - x2
                for x3 in range(min(h3, r2) + 1):
                    x4 = r2 - x3
                    if x4 > h4:
                        continue
                    v = (x0, x1, x2, x3, x4)
                    if pair:
                        ok = False
                        for c in range(NC):
                            s = list(spec)
                            s[c] += 2
                            if _deficit(s, v) <= x4:
                                ok = True
                                break
                    else:
                        ok = _deficit(spec, v) <= x4
                    if ok:
                        out.append(v)
    return out


# -- market geometry ------------------------------------------------------------
def _neighbours(cols: int) -> tuple[tuple[int, ...], ...]:
    out = []
    for i in range(ROWS * cols):
        r, c = divmod(i, cols)
        nb = []
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < ROWS and 0 <= cc < cols:
                nb.append(rr * cols + cc)
        out.append(tuple(nb))
    return tuple(out)


NEIGH = {cols: _neighbours(cols) for cols in range(2, MAX_COLS + 1, 2)}


def space_name(i: int, cols: int) -> str:
    r, c = divmod(i, cols)
    return f"strip {c + 1}, row {r + 1}"


# -- the action space -------------------------------------------------------------
ACTIONS = ActionSpace(GAME_ID)
PASS = ACTIONS.add("pass", "pass")
BUY_ACT = tuple(
    ACTIONS.add("buy", f"place coins on market space {i}", space=i) for i in range(ROWS * MAX_COLS)
)
TRACK_ACT = tuple(ACTIONS.add("track", f"advance on the {t} track", track=t) for t in TRACKS)
MINE_VALUES = sorted(
    {v for col in D.strips for s in col for f in s for sp in f for k, v in sp if k in (MINE, SHIP)} | {2, 3, 4, 5}
)
TRADE_ACT: dict[tuple[int, int, int], Action] = {}
for _c in range(NC):
    for _m in MINE_VALUES:
        for _s in MINE_VALUES:
            TRADE_ACT[(_c, _m, _s)] = ACTIONS.add(
                "trade",
                f"trade {D.colours[_c]} pit + mining rights {_m} + ship {_s}",
                pit=D.colours[_c], mine=_m, ship=_s,
            )
KEEP_ACT: dict[tuple[int, int, int], Action] = {}
for _c in range(-1, NC):
    for _m in [0] + MINE_VALUES:
        for _s in [0] + MINE_VALUES:
            tiles = (_c >= 0) + (_m > 0) + (_s > 0)
            if 1 <= tiles <= 2:
                parts = ([f"{D.colours[_c]} pit"] if _c >= 0 else []) + (
                    [f"mining rights {_m}"] if _m else []) + ([f"ship {_s}"] if _s else [])
                KEEP_ACT[(_c, _m, _s)] = ACTIONS.add(
                    "keep", "keep " + " and ".join(parts),
                    pit=D.colours[_c] if _c >= 0 else "", mine=_m, ship=_s,
                )
BUILD_ACT: dict[tuple[int, int], Action] = {}
for _b, _board in enumerate(D.boards):
    for _t in BOARD_TILES[_b]:
        BUILD_ACT[(_b, _t)] = ACTIONS.add(
            "build", f"build {_a(tile_label(_t))} from the {_board.name.replace('_', ' ')} price board",
            board=_board.name, tile=TILE_NAMES[_t],
        )
PAY_ACT: dict[tuple[int, ...], Action] = {}


def _pay_text(v) -> str:
    parts = [f"{v[k]} {COLOUR_NAMES[k]}{'s' if k == DIA and v[k] > 1 else ''}" for k in range(5) if v[k]]
    return "pay " + ", ".join(parts)


def _all_vectors(total: int):
    for a in range(total + 1):
        for b in range(total - a + 1):
            for c in range(total - a - b + 1):
                for d in range(total - a - b - c + 1):
                    yield (a, b, c, d, total - a - b - c - d)


for _t in range(1, MAXPAY + 1):
    for _v in _all_vectors(_t):
        PAY_ACT[_v] = ACTIONS.add("pay", _pay_text(_v), gems=_v)
# Added last so the ids of every earlier action stay as they were.
PILE_ACT = tuple(
    ACTIONS.add("forest_pile", f"turn over {_a(tile_label(_b))} tile for the forest", pile=D.buildings[_b])
    for _b in range(NB)
)
BOARD_INDEX = {b.name: b.index for b in D.boards}
# log lines by the kind of park space a tile covers (German words each its own way)
_BUILT_ON = {
    "mandatory space": msg("{player} builds {tile} from the {board} price board on its mandatory space ({payment})."),
    "light-green space": msg("{player} builds {tile} from the {board} price board on a light-green space "
                             "({payment})."),
    "dark-green space": msg("{player} builds {tile} from the {board} price board on a dark-green space ({payment})."),
}
_FOREST_ON = {
    "light-green space": msg("{player} builds a forest from the {board} price board on a light-green space "
                             "({payment})."),
    "dark-green space": msg("{player} builds a forest from the {board} price board on a dark-green space "
                            "({payment})."),
}
_ANIMAL_ON = {
    "light-green space": msg("{player} places {animal} on a light-green space."),
    "dark-green space": msg("{player} places {animal} on a dark-green space."),
}
_ADVANCE = (msg("{player} advances on the {track} track."), msg("{player} advances on the {track} track."),
            msg("{player} advances on the {track} track and takes a coin."))
COLOUR_INDEX = {c: i for i, c in enumerate(D.colours)}
TILE_INDEX = {t: i for i, t in enumerate(TILE_NAMES)}
PILE_INDEX = {b: i for i, b in enumerate(D.buildings)}
TRACK_INDEX = {t: i for i, t in enumerate(TRACKS)}

def action_message(action: Action) -> Message:
    """An action's plain text (``action.text``) as a message."""
    a = action.args
    t = action.type
    if t == "buy":
        return msg("place coins on market space {space}", space=a["space"])
    if t == "track":
        return msg("advance on the {track} track", track=L.TRACK_NAME[TRACK_INDEX[a["track"]]])
    if t == "trade":
        return msg("trade {pit} + mining rights {mine} + ship {ship}", pit=L.PIT_NAME[COLOUR_INDEX[a["pit"]]],
                   mine=a["mine"], ship=a["ship"])
    if t == "keep":
        return msg("keep {things}", things=L.chained(L.equipment(COLOUR_INDEX.get(a["pit"], -1), a["mine"],
                                                                  a["ship"])))
    if t == "build":
        return msg("build {tile} from the {board} price board", tile=L.A_TILE[TILE_INDEX[a["tile"]]],
                   board=L.BOARD_NAME[a["board"]])
    if t == "pay":
        return msg("pay {payment}", payment=L.payment(a["gems"]))
    if t == "forest_pile":
        return msg("turn over {tile} tile for the forest", tile=L.A_PILE[PILE_INDEX[a["pile"]]])
    return msg("pass")


_FIELDS = (
    "coins", "gems", "tr", "pits", "mines", "ships", "bld", "forests", "ani", "mand", "gen",
    "dark", "pos", "seq", "strips", "cm", "sur", "bp", "used", "tiles", "apile", "triple",
    "all4", "five",
)


def _popcount(x: int) -> int:
    return bin(x).count("1")


class DiamondsClubState(State):
    # explicit chance: starting seat, market strip numbers (shuffle), strip faces
    chance_outcomes_bound = max(4, len(D.strips[0]), len(D.strips[1]), 2)
    __slots__ = (
        "game", "num_players", "rng", "turn", "round", "phase", "start", "order", "oi", "passed",
        "pend", "ptile", "stage", "gdec", "ending", "seqc", "market_goods", "cols", "qleft", "fpile",
    ) + _FIELDS

    # -- construction -------------------------------------------------------------
    @classmethod
    def initial(cls, game, num_players: int, rng: Rng, options: dict[str, Any]) -> "DiamondsClubState":
        n = num_players
        s = cls.__new__(cls)
        s.game = game
        s.num_players = n
        s.rng = rng
        s.turn = 0
        s.round = 1
        s.phase = BUY
        s.coins = [D.start_coins] * n
        s.gems = []
        for _ in range(n):
            s.gems.extend(D.start_gems)
            s.gems.append(0)
        s.tr = [0] * (3 * n)
        s.pits = [0] * (NC * n)
        s.mines = [0] * (NV * n)
        s.ships = [0] * (NV * n)
        s.bld = [0] * (NB * n)
        s.forests = [0] * n
        s.ani = [0] * (NA * n)
        s.mand = [0] * n
        s.gen = [0] * n
        s.dark = [0] * n
        s.pos = [0] * n
        s.seq = [0] * n
        s.seqc = 0
        s.cols = 2 * n
        s.bp = [0] * NBOARDS
        s.used = [0] * n
        s.tiles = [D.tiles_per_building] * NB
        s.apile = [D.tiles_per_animal] * NA
        s.triple = [-1] * NB
        s.all4 = []
        s.five = []
        s.ending = False
        s.pend = -1
        s.ptile = -1
        s.stage = 0
        s.gdec = 0
        s.qleft = 0
        s.fpile = 0
        s.start = rng.below(n)  # drawing lots for the starting player
        s._new_round_setup(None)
        return s

    def _place_start_track(self) -> None:
        n = self.num_players
        for k in range(n):
            p = (self.start + k) % n
            self.pos[p] = k
            self.seqc += 1
            self.seq[p] = self.seqc

    def _new_round_setup(self, log) -> None:
        """Start track reset, phase 1 (market strips) and the start of phase 2."""
        n = self.num_players
        self._place_start_track()
        rng = self.rng
        strips = []
        for colour in (0, 1):
            idx = list(range(len(D.strips[colour])))
            rng.shuffle(idx)
            for i in idx[:n]:
                strips.append([colour, i, rng.below(2)])
        self.strips = strips
        self._derive_goods()
        self.cm = [0] * (ROWS * self.cols)
        self.sur = [0] * (ROWS * self.cols)
        self.phase = BUY
        self.order = tuple((self.start + k) % n for k in range(n))
        self.oi = 0
        self.passed = 0
        self.pend = -1
        if log is not None:
            log.append({
                "type": "round", "player": self.start, "round": self.round,
                "text": msg("Round {round}: new market set out; {player} starts buying.", round=self.round,
                            player=L.seat(self.start)),
            })

    def _derive_goods(self) -> None:
        cols = len(self.strips)
        self.cols = cols
        goods = [None] * (ROWS * cols)
        for c, (colour, i, face) in enumerate(self.strips):
            for r, g in enumerate(D.strips[colour][i][face]):
                goods[r * cols + c] = g
        self.market_goods = tuple(goods)

    @property
    def goods(self) -> tuple[tuple[int, int], ...]:
        """The first (kind, value) good of every market space (a space may show more: see
        ``market_goods``); kept for readers that encode one good per space."""
        return tuple(g[0] for g in self.market_goods)

    def clone(self) -> "DiamondsClubState":
        s = DiamondsClubState.__new__(DiamondsClubState)
        s.game = self.game
        s.num_players = self.num_players
        s.rng = self.rng.clone()
        s.turn = self.turn
        s.round = self.round
        s.phase = self.phase
        s.start = self.start
        s.order = self.order
        s.oi = self.oi
        s.passed = self.passed
        s.pend = self.pend
        s.ptile = self.ptile
        s.stage = self.stage
        s.gdec = self.gdec
        s.ending = self.ending
        s.seqc = self.seqc
        s.market_goods = self.market_goods
        s.cols = self.cols
        s.qleft = self.qleft
        s.fpile = self.fpile
        s.coins = self.coins[:]
        s.gems = self.gems[:]
        s.tr = self.tr[:]
        s.pits = self.pits[:]
        s.mines = self.mines[:]
        s.ships = self.ships[:]
        s.bld = self.bld[:]
        s.forests = self.forests[:]
        s.ani = self.ani[:]
        s.mand = self.mand[:]
        s.gen = self.gen[:]
        s.dark = self.dark[:]
        s.pos = self.pos[:]
        s.seq = self.seq[:]
        s.strips = self.strips  # replaced, never mutated
        s.cm = self.cm[:]
        s.sur = self.sur[:]
        s.bp = self.bp[:]
        s.used = self.used[:]
        s.tiles = self.tiles[:]
        s.apile = self.apile[:]
        s.triple = self.triple[:]
        s.all4 = self.all4[:]
        s.five = self.five[:]
        return s

    # -- JSON ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out = {f: list(getattr(self, f)) for f in _FIELDS}
        out["strips"] = [list(x) for x in self.strips]
        out.update(
            game=GAME_ID, players=self.num_players, rng=self.rng.s, turn=self.turn,
            round=self.round, phase=self.phase, start=self.start, order=list(self.order),
            oi=self.oi, passed=self.passed, pend=self.pend, ptile=self.ptile, stage=self.stage,
            gdec=self.gdec, ending=self.ending, seqc=self.seqc, qleft=self.qleft, fpile=self.fpile,
        )
        return out

    @classmethod
    def from_json(cls, game, data: dict[str, Any]) -> "DiamondsClubState":
        s = cls.__new__(cls)
        s.game = game
        s.num_players = int(data["players"])
        s.rng = Rng(int(data["rng"]))
        for f in _FIELDS:
            setattr(s, f, list(data[f]))
        s.strips = [list(x) for x in data["strips"]]
        for f in ("turn", "round", "phase", "start", "oi", "passed", "pend", "ptile", "stage", "gdec", "seqc"):
            setattr(s, f, int(data[f]))
        s.qleft = int(data.get("qleft", 0))  # absent in games saved before these choices existed
        s.fpile = int(data.get("fpile", 0))
        s.order = tuple(data["order"])
        s.ending = bool(data["ending"])
        s._derive_goods()
        return s

    # -- helpers ------------------------------------------------------------------
    def light_covered(self, p: int) -> int:
        return self.gen[p] + _popcount(self.mand[p])

    def park_complete(self, p: int) -> bool:
        return self.gen[p] == GENMAX and self.mand[p] == MANDFULL

    def can_place(self, p: int, t: int) -> bool:
        """Is there a pile tile and a park space for tile ``t`` (building index or FOREST)?"""
        tiles = self.tiles
        if t == FOREST:
            if not (tiles[0] or tiles[1] or tiles[2] or tiles[3]):
                return False
        else:
            if not tiles[t]:
                return False
            m = self.mand[p]
            for i in MAND_OF[t]:
                if not m >> i & 1:
                    return True
        if self.gen[p] < GENMAX:
            return True
        return self.mand[p] == MANDFULL and self.dark[p] < D.dark_spaces

    def price(self, b: int, p: int) -> int:
        """Gems board ``b`` costs ``p`` now: printed price + one per other player's piece."""
        return REQ_BASE[b] + _popcount(self.bp[b] & ~(1 << p))

    def equipment_sets(self, p: int) -> int:
        return min(
            sum(self.pits[p * NC:(p + 1) * NC]),
            sum(self.mines[p * NV:(p + 1) * NV]),
            sum(self.ships[p * NV:(p + 1) * NV]),
        )

    # -- turn flow ------------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        if self.phase == OVER:
            return ()
        return (self.order[self.oi],)

    def is_over(self) -> bool:
        return self.phase == OVER

    def legal_actions(self, player: int) -> list[Action]:
        phase = self.phase
        if phase == OVER or player != self.order[self.oi]:
            return []
        p = player
        if phase == BUY:
            if self.pend >= 0:
                tr = self.tr
                return [TRACK_ACT[t] for t in range(3) if tr[p * 3 + t] < TRACK_MAX[t]]
            c = self.coins[p]
            cm = self.cm
            sur = self.sur
            acts = [BUY_ACT[i] for i in range(len(cm)) if not cm[i] and sur[i] < c]
            acts.append(PASS)
            return acts
        if phase == BUILD:
            if self.fpile:
                f = self.fpile
                return [PILE_ACT[b] for b in range(NB) if f >> b & 1]
            g = self.gems
            h = (g[p * 5], g[p * 5 + 1], g[p * 5 + 2], g[p * 5 + 3], g[p * 5 + 4])
            if self.pend >= 0:
                b = self.pend
                return [PAY_ACT[v] for v in payments(b, h, self.price(b, p) - REQ_BASE[b])]
            acts = []
            if self.used[p] < BOARD_PIECES:
                bit = 1 << p
                bp = self.bp
                for b in range(NBOARDS):
                    x = bp[b]
                    if x & bit:
                        continue
                    if not affordable(b, h, _popcount(x)):
                        continue
                    for t in BOARD_TILES[b]:
                        if self.can_place(p, t):
                            acts.append(BUILD_ACT[(b, t)])
            acts.append(PASS)
            return acts
        # GEMS
        if self.stage == 0:
            return [TRADE_ACT[o] for o in self._trade_options(p)]
        return [KEEP_ACT[o] for o in self._keep_options(p)]

    def _trade_options(self, p: int) -> list[tuple[int, int, int]]:
        pits, mines, ships = self.pits, self.mines, self.ships
        cs = [c for c in range(NC) if pits[p * NC + c]]
        ms = [v for v in range(NV) if mines[p * NV + v]]
        ss = [v for v in range(NV) if ships[p * NV + v]]
        return [(c, m, s) for c in cs for m in ms for s in ss]

    def _keep_options(self, p: int) -> list[tuple[int, int, int]]:
        """Maximal keepable incomplete sets (keeping a tile never hurts: supply is unlimited)."""
        pits, mines, ships = self.pits, self.mines, self.ships
        cs = [c for c in range(NC) if pits[p * NC + c]] or [-1]
        ms = [v for v in range(NV) if mines[p * NV + v]] or [0]
        ss = [v for v in range(NV) if ships[p * NV + v]] or [0]
        return [(c, m, s) for c in cs for m in ms for s in ss if (c >= 0) + (m > 0) + (s > 0) >= 1]

    def action_text(self, player: int, action: Action, lang: str = "en") -> str:
        """The action's text naming what is on the market space / track / board it points at now."""
        return self.say(self.action_message(player, action), lang)

    def action_message(self, player: int, action: Action) -> Message:
        """:meth:`action_text` as a message."""
        t = action.type
        if t == "buy":
            i = action.args["space"]
            if i < len(self.cm) and not self.cm[i]:
                return msgn("place {n} coin on {where}: {goods}", "place {n} coins on {where}: {goods}",
                            n=1 + self.sur[i], where=L.space_name(i, self.cols), goods=L.goods(self.market_goods[i]))
        elif t == "track":
            k = TRACK_INDEX[action.args["track"]]
            at = self.tr[player * 3 + k]
            if at < TRACK_MAX[k]:
                return msg("advance on the {track} track (to space {space} of {last})", track=L.TRACK_NAME[k],
                           space=at + 2, last=TRACK_MAX[k] + 1)
        elif t == "build":
            b = BOARD_INDEX[action.args["board"]]
            price = self.price(b, player)
            return msg("build {tile} from the {board} price board for {price} gems ({cost})",
                       tile=L.A_TILE[TILE_INDEX[action.args["tile"]]], board=L.BOARD_NAME[action.args["board"]],
                       price=price, cost=L.board_cost(b, price - REQ_BASE[b]))
        elif t == "forest_pile":
            b = PILE_INDEX[action.args["pile"]]
            return msg("turn over {tile} tile for the forest (the {pile} pile has {count} tiles)",
                       tile=L.A_PILE[b], pile=L.TILE_NAME[b], count=self.tiles[b])
        return action_message(action)

    def prompt(self, player: int, lang: str = "en") -> str:
        return self.say(self.prompt_message(player), lang)

    def prompt_message(self, player: int | None) -> Message:
        """What ``player`` must decide now (None: a spectator's line), as a message."""
        if self.phase == OVER:
            return msg("The game is over.")
        if player is None:
            return msg("Seat {seat} is deciding.", seat=self.order[self.oi] + 1)
        if player != self.order[self.oi]:
            return msg("Wait: seat {seat} is deciding.", seat=self.order[self.oi] + 1)
        if self.phase == BUY:
            if self.pend >= 0:
                return msg("Choose the development track to advance on (the ? space).")
            return msg("Place coins on a vacant market space (you have {coins}) or pass for this round.",
                       coins=self.coins[player])
        if self.phase == GEMS:
            if self.stage == 0:
                return msg("Form a complete set (pit, mining rights, ship) to trade for gems.")
            return msg("Choose the equipment to keep for the next round: at most two tiles, never two of the same "
                       "kind; the rest goes back to the supply.")
        if self.fpile:
            return msg("Several building piles tie for the most tiles left: choose which one to turn over "
                       "for your forest ({piles}).", piles=self._tied_piles())
        if self.pend >= 0:
            return msg("Choose the gems to pay {price} for the {tile}.", price=self.price(self.pend, player),
                       tile=L.TILE_NAME[self.ptile])
        return msg("Build one landscape tile from a price board or pass for the rest of this phase.")

    def _tied_piles(self) -> Message:
        names = [L.TILE_NAME[b] for b in range(NB) if self.fpile >> b & 1]
        return msg("{first} or {second}", first=L.joined(names[:-1], ", "), second=names[-1])

    def why_illegal(self, player: int, action: Action, lang: str = "en") -> str:
        reason = self.why_illegal_message(player, action, lang)
        return reason if isinstance(reason, str) else self.say(reason, lang)

    def why_illegal_message(self, player: int, action: Action, lang: str = "en") -> Message | str:
        p = player
        t = action.type
        phase = self.phase
        # the English names a board as the programs do ("rose_garden"); other languages by its name
        board = (lambda name: name) if lang == "en" else (lambda name: L.BOARD_NAME[name])
        if t == "buy":
            if phase != BUY or self.pend >= 0:
                return msg("Coins go on the market only in phase 2 (Buy), once any ? track choice is made.")
            i = action["space"]
            if i >= len(self.cm):
                return msg("That market space does not exist with {players} players "
                           "(only {strips} strips are set out; the rest is closed market).",
                           players=self.num_players, strips=self.cols)
            where = L.space_name(i, self.cols)
            if self.cm[i]:
                return msg("The market space at {where} is already occupied: coins go on vacant spaces only.",
                           where=where)
            return msg("The market space at {where} costs {price} coins (1 plus one per coin on the adjoining "
                       "spaces) and you have {coins}.", where=where, price=1 + self.sur[i], coins=self.coins[p])
        if t == "track":
            if phase != BUY or self.pend < 0:
                return msg("A development track is chosen only after buying a ? space of the market.")
            return msg("You are already on the last space of the {track} track.",
                       track=L.TRACK_NAME[TRACK_INDEX[action["track"]]])
        if t == "trade":
            if phase != GEMS or self.stage != 0:
                return msg("Sets of equipment are traded for gems only in phase 4 (Purchase gems).")
            return msg("You do not hold that pit, mining rights and ship to form this set.")
        if t == "keep":
            if phase != GEMS or self.stage != 1:
                return msg("Equipment to keep is chosen in phase 4 after every complete set has been "
                           "traded: complete sets must always be traded.")
            return msg("You may keep only tiles you hold: at most two, never two of the same kind (for example a "
                       "pit and a ship); when you hold two kinds or more, keep two.")
        if t == "forest_pile":
            if phase != BUILD or not self.fpile:
                return msg("A building pile is chosen only when you build a forest and several piles tie for "
                           "the most tiles left (otherwise the fullest pile is turned over by itself).")
            return msg("A forest is turned over from a pile with the most tiles left ({most}): "
                       "{piles}, not the {pile} pile.", most=max(self.tiles), piles=self._tied_piles(),
                       pile=L.TILE_NAME[PILE_INDEX[action["pile"]]])
        if t == "build":
            if phase != BUILD or self.pend >= 0 or self.fpile:
                return msg("Landscape tiles are built only in phase 5 (Build), one at a time.")
            b = BOARD_INDEX[action["board"]]
            tile = TILE_INDEX[action["tile"]]
            if self.bp[b] >> p & 1:
                return msg("You have already used the {board} price board this round (once per round).",
                           board=board(action["board"]))
            if self.used[p] >= BOARD_PIECES:
                return msg("You have no piece left to mark a price board this round.")
            g = self.gems[p * 5:p * 5 + 5]
            if not affordable(b, g, _popcount(self.bp[b])):
                return msg("You cannot pay {price} gems for the {board} price board "
                           "(printed price plus one gem per other player's piece; diamonds are jokers).",
                           price=self.price(b, p), board=board(action["board"]))
            if tile != FOREST and not self.tiles[tile]:
                return msg("No {tile} tiles are left.", tile=L.TILE_NAME[tile])
            return msg("There is no park space for that tile: mandatory spaces take only their building, and the "
                       "dark-green spaces open only once all 14 light-green spaces are covered.")
        if t == "pay":
            if phase != BUILD or self.pend < 0:
                return msg("Gems are paid only for a building chosen in phase 5.")
            return msg("That payment does not match the price of {price} gems for the "
                       "{board} price board (diamonds replace any gem).", price=self.price(self.pend, p),
                       board=board(D.boards[self.pend].name))
        if t == "pass":
            return msg("You cannot pass now: {prompt}", prompt=self.prompt_message(p))
        return super().why_illegal(player, action, lang)

    # -- applying actions -------------------------------------------------------------
    def _apply(self, player: int, action: Action, log) -> None:
        p = player
        t = action.type
        if self.phase == BUY:
            if t == "buy":
                self._buy(p, action.args["space"], log)
            elif t == "track":
                self.pend = -1
                self._step_track(p, TRACK_INDEX[action.args["track"]], log)
                if self.qleft:
                    self._next_any(p, log)
                if self.pend < 0:
                    self._buy_next(log)
            else:  # pass
                self.passed |= 1 << p
                if log is not None:
                    log.append({"type": "pass", "player": p, "text": msg("{player} passes in the buy phase.",
                                                                          player=L.seat(p))})
                self._buy_next(log)
        elif self.phase == BUILD:
            if t == "forest_pile":
                self.fpile = 0
                self._turn_forest(p, PILE_INDEX[action.args["pile"]], log)
            elif t == "pay":
                self._build(p, self.pend, self.ptile, action.args["gems"], log)
            elif t == "build":
                b = BOARD_INDEX[action.args["board"]]
                tile = TILE_INDEX[action.args["tile"]]
                g = self.gems
                h = (g[p * 5], g[p * 5 + 1], g[p * 5 + 2], g[p * 5 + 3], g[p * 5 + 4])
                pays = payments(b, h, self.price(b, p) - REQ_BASE[b])
                if len(pays) == 1:
                    self._build(p, b, tile, pays[0], log)
                else:
                    self.pend = b
                    self.ptile = tile
            else:
                self.passed |= 1 << p
                if log is not None:
                    log.append({"type": "pass", "player": p, "text": msg("{player} passes in the build phase.",
                                                                          player=L.seat(p))})
                self._build_next(log)
        else:  # GEMS
            self.gdec = 1
            if t == "trade":
                a = action.args
                self._trade(p, COLOUR_INDEX[a["pit"]], a["mine"], a["ship"], log)
            else:
                a = action.args
                self._keep(p, COLOUR_INDEX.get(a["pit"], -1), a["mine"], a["ship"], log)
                self._gems_finish_player()
            self._gems_advance(log)

    def is_checkpoint(self, player: int, action: Action) -> bool:
        """Everything lies face up; only the next round's market strips are shuffled.  The round
        ends when the last player still building passes (a build never ends it: the builder
        builds again or passes), and no new market comes once the game is ending."""
        if self.phase != BUILD or action.type != "pass" or self.ending:
            return False
        return self.passed | 1 << player == (1 << self.num_players) - 1

    # phase 2 -----------------------------------------------------------------------
    def _buy(self, p: int, i: int, log) -> None:
        price = 1 + self.sur[i]
        self.coins[p] -= price
        self.cm[i] = price
        sur = self.sur
        for j in NEIGH[self.cols][i]:
            sur[j] += price
        goods = self.market_goods[i]
        if log is not None:
            log.append({
                "type": "buy", "player": p, "space": i, "coins": price,
                "goods": space_token(goods),
                "text": msgn("{player} pays {n} coin for {goods} ({where}).",
                             "{player} pays {n} coins for {goods} ({where}).", n=price, player=L.seat(p),
                             goods=L.goods(goods), where=L.space_name(i, self.cols)),
            })
        if len(goods) == 1:
            kind, val = goods[0]
            self._gain(p, kind, val, log)
        else:  # every good of the space; the ? track steps last, once the rest is known
            for kind, val in goods:
                if kind != TRACK or val != ANY_TRACK:
                    self._gain(p, kind, val, log)
            for kind, val in goods:
                if kind == TRACK and val == ANY_TRACK:
                    self.qleft += 1
            self._next_any(p, log)
        if self.pend < 0:
            self._buy_next(log)

    def _next_any(self, p: int, log) -> None:
        """Take the bought space's remaining ? steps until one needs the player's choice."""
        while self.qleft and self.pend < 0:
            self.qleft -= 1
            self._gain(p, TRACK, ANY_TRACK, log)

    def _gain(self, p: int, kind: int, val: int, log) -> None:
        if kind == PIT:
            self.pits[p * NC + val] += 1
        elif kind == MINE:
            self.mines[p * NV + val] += 1
        elif kind == SHIP:
            self.ships[p * NV + val] += 1
        elif kind == HAT:
            self.pos[p] = min(self.pos[p] + val, BEYOND)
            self.seqc += 1
            self.seq[p] = self.seqc  # on top of any pieces already there
        elif kind == ANIMAL:
            self._place_animal(p, val, log)
        elif val == ANY_TRACK:
            tr = self.tr
            opts = [t for t in range(3) if tr[p * 3 + t] < TRACK_MAX[t]]
            if len(opts) == 1:
                self._step_track(p, opts[0], log)
            elif opts:
                self.pend = ANY_TRACK
            elif log is not None:
                log.append({"type": "lost", "player": p, "text": msg(
                    "{player} is at the end of every track: the step is lost.", player=L.seat(p))})
        else:
            self._step_track(p, val, log)

    def _step_track(self, p: int, t: int, log) -> None:
        k = p * 3 + t
        if self.tr[k] >= TRACK_MAX[t]:
            if log is not None:
                log.append({"type": "lost", "player": p,
                            "text": msg("{player} is already at the end of the {track} track: the step is lost.",
                                        player=L.seat(p), track=L.TRACK_NAME[t])})
            return
        self.tr[k] += 1
        if t == 2:
            self.coins[p] += 1  # the money track pays a coin at once
        if log is not None:
            log.append({"type": "track", "player": p, "track": TRACKS[t], "space": self.tr[k],
                        "text": _ADVANCE[t] | {"p": {"player": L.seat(p), "track": L.TRACK_NAME[t]}}})

    def _place_animal(self, p: int, a: int, log) -> None:
        where = None
        if self.apile[a] <= 0:
            where = None
        elif self.gen[p] < GENMAX:
            self.gen[p] += 1
            where = "light-green space"
        elif self.mand[p] == MANDFULL and self.dark[p] < D.dark_spaces:
            self.dark[p] += 1
            where = "dark-green space"
        if where is None:
            if log is not None:
                if self.apile[a] <= 0:
                    text = msg("{player} gets no {animal}: none are left.", player=L.seat(p),
                               animal=L.ANIMAL_NAME[a])
                else:
                    text = msg("{player} gets no {animal}: there is no free space for it.", player=L.seat(p),
                               animal=L.ANIMAL_NAME[a])
                log.append({"type": "lost", "player": p, "text": text})
            return
        self.apile[a] -= 1
        self.ani[p * NA + a] += 1
        if log is not None:
            log.append({"type": "animal", "player": p, "animal": D.animals[a],
                        "text": _ANIMAL_ON[where] | {"p": {"player": L.seat(p), "animal": L.A_ANIMAL[a]}}})
        self._check_complete(p, log)

    def _check_complete(self, p: int, log) -> None:
        if not self.ending and self.gen[p] == GENMAX and self.mand[p] == MANDFULL:
            self.ending = True
            if log is not None:
                log.append({"type": "park_complete", "player": p,
                            "text": msg("{player} has covered all light-green spaces: the game ends after "
                                        "this round.", player=L.seat(p))})

    def _next_unpassed(self) -> bool:
        """Move ``oi`` to the next seat in ``order`` that has not passed; False if none."""
        n = self.num_players
        order = self.order
        passed = self.passed
        for k in range(1, n + 1):
            j = (self.oi + k) % n
            if not passed >> order[j] & 1:
                self.oi = j
                return True
        return False

    def _buy_next(self, log) -> None:
        self.turn += 1
        if not self._next_unpassed():
            self._assign_diamonds(log)

    # phase 3 --------------------------------------------------------------------------
    def _assign_diamonds(self, log) -> None:
        n = self.num_players
        gems = self.gems
        most = max(self.coins)
        if most > 0:
            for p in range(n):
                if self.coins[p] == most:
                    gems[p * 5 + DIA] += 1
                    if log is not None:
                        log.append({"type": "diamond", "player": p, "reason": "coins",
                                    "text": msg("{player} has the most unused coins ({most}) and takes a "
                                                "diamond.", player=L.seat(p), most=most)})
        far = max(self.pos)
        leaders = [p for p in range(n) if self.pos[p] == far]
        for p in leaders:
            gems[p * 5 + DIA] += 1
            if log is not None:
                log.append({"type": "diamond", "player": p, "reason": "start track",
                            "text": msg("{player} leads the starting player track and takes a diamond.",
                                        player=L.seat(p))})
        self.start = max(leaders, key=lambda q: self.seq[q])
        self.order = tuple(sorted(range(n), key=lambda q: (-self.pos[q], -self.seq[q])))
        if log is not None:
            log.append({"type": "start_player", "player": self.start,
                        "text": msg("{player} becomes the starting player.", player=L.seat(self.start))})
        self.phase = GEMS
        self.oi = 0
        self.stage = 0
        self.gdec = 0
        self._gems_advance(log)

    # phase 4 --------------------------------------------------------------------------
    def _trade(self, p: int, c: int, m: int, s: int, log) -> None:
        self.pits[p * NC + c] -= 1
        self.mines[p * NV + m] -= 1
        self.ships[p * NV + s] -= 1
        tech = self.tr[p * 3 + 1]
        count = min(m, s) + D.tech_gems[tech]
        dia = D.tech_diamonds[tech]
        self.gems[p * 5 + c] += count
        self.gems[p * 5 + DIA] += dia
        if log is not None:
            got = L.GEMS_OF[c] | {"p": {"count": count}}
            if dia:
                text = msgn("{player} trades {pit}, mining rights {mine} and ship {ship} for {gems} and {n} "
                            "diamond.", "{player} trades {pit}, mining rights {mine} and ship {ship} for {gems} "
                            "and {n} diamonds.", n=dia, player=L.seat(p), pit=L.A_PIT[c], mine=m, ship=s, gems=got)
            else:
                text = msg("{player} trades {pit}, mining rights {mine} and ship {ship} for {gems}.",
                           player=L.seat(p), pit=L.A_PIT[c], mine=m, ship=s, gems=got)
            log.append({"type": "trade", "player": p, "pit": D.colours[c], "mine": m, "ship": s,
                        "gems": count, "diamonds": dia, "text": text})

    def _keep(self, p: int, c: int, m: int, s: int, log) -> None:
        pits, mines, ships = self.pits, self.mines, self.ships
        for k in range(NC):
            pits[p * NC + k] = 1 if k == c else 0
        for v in range(NV):
            mines[p * NV + v] = 1 if m and v == m else 0
            ships[p * NV + v] = 1 if s and v == s else 0
        if log is not None:
            parts = L.equipment(c, m, s)
            text = (msg("{player} keeps {things} for the next round.", player=L.seat(p), things=L.chained(parts))
                    if parts else msg("{player} keeps no equipment for the next round.", player=L.seat(p)))
            log.append({"type": "keep", "player": p, "text": text})

    def _gems_advance(self, log) -> None:
        """Run phase 4 until a player has a real choice; then start phase 5."""
        n = self.num_players
        while self.oi < n:
            p = self.order[self.oi]
            if self.stage == 0:
                opts = self._trade_options(p)
                if len(opts) > 1:
                    return
                if opts:
                    self._trade(p, *opts[0], log)
                    continue
                self.stage = 1
            opts = self._keep_options(p)
            if len(opts) > 1:
                return
            if opts:
                self._keep(p, *opts[0], log)
            self._gems_finish_player()
        # phase 5
        self.phase = BUILD
        self.oi = 0
        self.passed = 0
        self.pend = -1
        if log is not None:
            log.append({"type": "phase", "player": self.order[0], "text": msg("Build phase.")})

    def _gems_finish_player(self) -> None:
        if self.gdec:
            self.turn += 1  # a phase-4 turn counts when the player had a choice
        self.gdec = 0
        self.stage = 0
        self.oi += 1

    # phase 5 --------------------------------------------------------------------------
    def _build(self, p: int, b: int, t: int, pay, log) -> None:
        g = self.gems
        for k in range(5):
            g[p * 5 + k] -= pay[k]
        self.pend = -1
        self.bp[b] |= 1 << p
        self.used[p] += 1
        tiles = self.tiles
        if t == FOREST:
            self.forests[p] += 1
            where = self._take_space(p, -1)
            most = max(tiles)
            tied = 0
            for x in range(NB):
                if tiles[x] == most:
                    tied |= 1 << x
            if log is not None:
                log.append({"type": "build", "player": p, "board": D.boards[b].name, "tile": TILE_NAMES[t],
                            "paid": list(pay),
                            "text": _FOREST_ON[where] | {"p": {
                                "player": L.seat(p), "board": L.BOARD_NAME[D.boards[b].name],
                                "payment": L.payment(pay)}}})
            if tied & (tied - 1):
                self.fpile = tied  # several fullest piles: the player chooses which to turn over
                return
            self._turn_forest(p, tied.bit_length() - 1, log)
            return
        tiles[t] -= 1
        self.bld[p * NB + t] += 1
        where = self._take_space(p, t)
        if log is not None:
            log.append({"type": "build", "player": p, "board": D.boards[b].name, "tile": TILE_NAMES[t],
                        "paid": list(pay),
                        "text": _BUILT_ON[where] | {"p": {
                            "player": L.seat(p), "tile": L.A_TILE[t], "board": L.BOARD_NAME[D.boards[b].name],
                            "payment": L.payment(pay)}}})
        self._bonus(p, t, log)
        self._check_complete(p, log)
        self._build_next(log)

    def _turn_forest(self, p: int, pile: int, log) -> None:
        """The forest just built is a tile of ``pile`` turned over; the build turn ends."""
        self.tiles[pile] -= 1
        if log is not None:
            log.append({"type": "forest_pile", "player": p, "pile": D.buildings[pile],
                        "text": msg("{player} turns over {tile} tile for the forest.", player=L.seat(p),
                                    tile=L.A_PILE[pile])})
        self._check_complete(p, log)
        self._build_next(log)

    def _take_space(self, p: int, t: int) -> str:
        if t >= 0:
            m = self.mand[p]
            for i in MAND_OF[t]:
                if not m >> i & 1:
                    self.mand[p] = m | 1 << i
                    return "mandatory space"
        if self.gen[p] < GENMAX:
            self.gen[p] += 1
            return "light-green space"
        self.dark[p] += 1
        return "dark-green space"

    def _bonus(self, p: int, t: int, log) -> None:
        counts = self.bld[p * NB:(p + 1) * NB]
        got = []
        if self.triple[t] < 0 and counts[t] >= 3:
            self.triple[t] = p
            got.append(L.THREE_OF[t] | {"p": {"vp": D.three_vp}})
        done = min(counts)
        while self.all4.count(p) < done and len(self.all4) < len(D.all_four_vp):
            got.append(msg("all four buildings ({vp})", vp=D.all_four_vp[len(self.all4)]))
            self.all4.append(p)
        done = sum(c // 5 for c in counts)
        while self.five.count(p) < done and len(self.five) < len(D.five_vp):
            got.append(msg("five identical buildings ({vp})", vp=D.five_vp[len(self.five)]))
            self.five.append(p)
        if got and log is not None:
            log.append({"type": "bonus", "player": p,
                        "text": msg("{player} takes the bonus card {cards}.", player=L.seat(p),
                                    cards=L.chained(got))})

    def _build_next(self, log) -> None:
        self.turn += 1
        if self._next_unpassed():
            return
        # end of round
        if self.ending:
            self.phase = OVER
            if log is not None:
                sc = self.scores()
                out = [p for p in range(self.num_players) if self.excluded(p)]
                log.append({"type": "game_over", "player": self.winners()[0],
                            "scores": sc, "not_scored": out, "text": L.joined(
                                [msg("The game is over: {scores}.", scores=L.joined(
                                    [f"{L.seat(p)} {sc[p]:g}" for p in range(self.num_players)], ", "))]
                                + [msg("{player} {warning} (not scored).", player=L.seat(p),
                                       warning=self.mandatory_warning_message(p)) for p in out], " ")})
            return
        n = self.num_players
        for p in range(n):
            self.coins[p] = D.money_coins[self.tr[p * 3 + 2]]
        self.bp = [0] * NBOARDS
        self.used = [0] * n
        self.round += 1
        self._new_round_setup(log)

    # -- scoring --------------------------------------------------------------------------
    def breakdown(self, p: int) -> dict[str, int]:
        """Victory points of ``p`` by category (the rulebook's scoring table)."""
        bld = self.bld[p * NB:(p + 1) * NB]
        ani = self.ani[p * NA:(p + 1) * NA]
        sets = min(ani)
        bonus = sum(D.three_vp for o in self.triple if o == p)
        bonus += sum(D.all_four_vp[i] for i, o in enumerate(self.all4) if o == p)
        bonus += sum(D.five_vp[i] for i, o in enumerate(self.five) if o == p)
        out = {
            "buildings": D.building_vp * sum(bld),
            "forests": D.forest_vp[self.tr[p * 3]] * self.forests[p],
            "animals": D.animal_set_vp * sets + D.single_animal_vp * (sum(ani) - 3 * sets),
            "bonus": bonus,
            "tracks": D.tech_vp[self.tr[p * 3 + 1]] + D.money_vp[self.tr[p * 3 + 2]],
        }
        out["total"] = sum(out.values())
        return out

    def excluded(self, p: int) -> bool:
        """At the end, a player who has not covered the mandatory spaces is not scored."""
        return self.phase == OVER and self.mand[p] != MANDFULL

    def missing_mandatory(self, p: int) -> list[int]:
        """The buildings whose mandatory park space ``p`` has not covered yet."""
        return [b for i, b in enumerate(D.mandatory) if not self.mand[p] >> i & 1]

    def end_near(self) -> bool:
        """Last round, or some player is close to covering every light-green space."""
        if self.ending or self.phase == OVER:
            return True
        return any(D.light_spaces - self.light_covered(q) <= NEAR_END_LEFT for q in range(self.num_players))

    def mandatory_warning(self, p: int) -> str | None:
        """Why ``p`` scores 0 (at the end) or will unless it builds (when the end is near)."""
        message = self.mandatory_warning_message(p)
        return None if message is None else render(message)

    def mandatory_warning_message(self, p: int) -> Message | None:
        """:meth:`mandatory_warning` as a message."""
        missing = self.missing_mandatory(p)
        if not missing or not self.end_near():
            return None
        return L.mandatory_warning(missing, self.phase == OVER, self.ending)

    def park_spaces(self, p: int) -> dict[str, list[str]]:
        """What covers the ordinary light-green and the dark-green spaces, in kind order.

        The engine counts tiles by kind, not by space (no park rule depends on where an ordinary
        space lies): buildings beyond the mandatory ones, then forests, then animals."""
        tiles = []
        for b in range(NB):
            on_mand = sum(1 for i in MAND_OF[b] if self.mand[p] >> i & 1)
            tiles += [D.buildings[b]] * (self.bld[p * NB + b] - on_mand)
        tiles += ["forest"] * self.forests[p]
        for a in range(NA):
            tiles += [D.animals[a]] * self.ani[p * NA + a]
        g = self.gen[p]
        return {"light": tiles[:g], "dark": tiles[g:g + self.dark[p]]}

    def scores(self) -> list[float]:
        return [0.0 if self.excluded(p) else float(self.breakdown(p)["total"]) for p in range(self.num_players)]

    def tiebreak(self, player: int) -> tuple:
        if self.excluded(player):
            return (-1,)
        return (sum(self.gems[player * 5:player * 5 + 5]),)

    def tiebreak_explained(self, lang: str = "en") -> str:
        return self.say(msg("Ties are broken by the most gems left (diamonds included); players still tied share "
                            "the place. Players who did not cover their mandatory spaces are not scored and rank "
                            "last."), lang)

    # -- information ----------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        n = self.num_players
        cols = self.cols
        market = []
        for r in range(ROWS):
            row = []
            for c in range(cols):
                i = r * cols + c
                goods = self.market_goods[i]
                row.append({"space": i, "goods": space_token(goods), "label": space_label(goods),
                            "items": [goods_token(k, v) for k, v in goods],
                            "coins": self.cm[i], "price": 1 + self.sur[i] if not self.cm[i] else None})
            market.append(row)
        players = []
        for p in range(n):
            g = self.gems[p * 5:p * 5 + 5]
            players.append({
                "coins": self.coins[p],
                "gems": {COLOUR_NAMES[k]: g[k] for k in range(5)},
                "tracks": {TRACKS[t]: self.tr[p * 3 + t] for t in range(3)},
                "coins_next_round": D.money_coins[self.tr[p * 3 + 2]],
                "forest_value": D.forest_vp[self.tr[p * 3]],
                "equipment": {
                    "pits": {D.colours[c]: self.pits[p * NC + c] for c in range(NC) if self.pits[p * NC + c]},
                    "mining_rights": {str(v): self.mines[p * NV + v] for v in range(NV) if self.mines[p * NV + v]},
                    "ships": {str(v): self.ships[p * NV + v] for v in range(NV) if self.ships[p * NV + v]},
                },
                "park": {
                    "buildings": {D.buildings[b]: self.bld[p * NB + b] for b in range(NB)},
                    "forests": self.forests[p],
                    "animals": {D.animals[a]: self.ani[p * NA + a] for a in range(NA)},
                    "mandatory_covered": [bool(self.mand[p] >> i & 1) for i in range(len(D.mandatory))],
                    "mandatory_spaces": [D.buildings[b] for b in D.mandatory],
                    "mandatory_missing": [D.buildings[b] for b in self.missing_mandatory(p)],
                    "light_spaces": D.light_spaces,
                    "dark_spaces": D.dark_spaces,
                    "ordinary_spaces": self.park_spaces(p),
                    "light_covered": self.light_covered(p),
                    "dark_covered": self.dark[p],
                },
                "start_track": {"space": self.pos[p], "height": self.seq[p]},
                "boards_used": [D.boards[b].name for b in range(NBOARDS) if self.bp[b] >> p & 1],
                "passed": bool(self.passed >> p & 1) and self.phase in (BUY, BUILD),
                "score": self.breakdown(p),
                "not_scored": self.excluded(p),
                "warning": self.mandatory_warning(p),
            })
        return {
            "game": GAME_ID,
            "viewer": player,
            "round": self.round,
            "phase": PHASE_NAMES[self.phase],
            "to_move": list(self.to_move()),
            "prompt": render(self.prompt_message(player)),
            "start_player": self.start,
            "order": list(self.order),
            "market": market,
            "market_strips": [{"colour": ("dark", "light")[c], "strip": i + 1, "face": "ab"[f]}
                              for c, i, f in self.strips],
            "closed_market": n < 4,
            "boards": [{"name": bd.name, "price": REQ_BASE[bd.index], "cost": board_cost_text(bd.index),
                        "tiles": [TILE_NAMES[t] for t in BOARD_TILES[bd.index]],
                        "pieces": [p for p in range(n) if self.bp[bd.index] >> p & 1]} for bd in D.boards],
            "tile_piles": {D.buildings[b]: self.tiles[b] for b in range(NB)},
            "animal_piles": {D.animals[a]: self.apile[a] for a in range(NA)},
            "bonus_cards": {
                "three_of_a_kind": {D.buildings[b]: (None if self.triple[b] < 0 else self.triple[b]) for b in range(NB)},
                "all_four": list(self.all4),
                "five_identical": list(self.five),
            },
            "pending": (
                {"choose": "forest_pile", "piles": [D.buildings[b] for b in range(NB) if self.fpile >> b & 1]}
                if self.fpile else None if self.pend < 0 else (
                    {"choose": "track"} if self.phase == BUY else
                    {"choose": "payment", "board": D.boards[self.pend].name, "tile": TILE_NAMES[self.ptile]})),
            "ending": self.ending,
            "end_near": self.end_near(),
            "players": players,
            "scores": self.scores(),
            "data_status": "reconstructed" if D.reconstructed else "complete",
        }

    def determinize(self, player: int | None, rng: Rng) -> "DiamondsClubState":
        # All components lie face up; only future market shuffles (the RNG) are unknown.
        s = self.clone()
        s.rng = rng.spawn()
        return s

    def component_counts(self) -> dict[str, int]:
        n = self.num_players
        out = {
            # while a forest's pile is being chosen, its tile is built but not yet taken
            "landscape_tiles": sum(self.tiles) + sum(self.bld) + sum(self.forests) - (1 if self.fpile else 0),
            "animal_tiles": sum(self.apile) + sum(self.ani),
            "bonus_cards_taken_or_left": sum(1 for o in self.triple if o >= 0) + len(self.all4) + len(self.five)
            + sum(1 for o in self.triple if o < 0) + (len(D.all_four_vp) - len(self.all4))
            + (len(D.five_vp) - len(self.five)),
        }
        for p in range(n):
            on_boards = sum(1 for b in range(NBOARDS) if self.bp[b] >> p & 1)
            out[f"pieces_{p}"] = 3 + 1 + on_boards + (D.pieces_per_player - 4 - self.used[p])
            out[f"park_spaces_{p}"] = (self.gen[p] + _popcount(self.mand[p]) + self.dark[p]
                                       - sum(self.bld[p * NB:(p + 1) * NB]) - self.forests[p]
                                       - sum(self.ani[p * NA:(p + 1) * NA]))
        return out
