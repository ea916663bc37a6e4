"""A fixed-length numeric observation of Diamonds Club for learning adapters.

Every component lies face up (only the RNG, i.e. future market strips, is
hidden), so the observation reads the state directly.  Seats are listed
starting with the observer and padded to four.  Market slot i is market space i
(the index of the ``buy`` action), padded to the 8-strip market.  ``LAYOUT``
names every index (``LAYOUT.describe()``).

A market space is 15 numbers: present, goods kinds (6, a count per kind, so a
space with several goods counts each), number (mining rights / ship / top hats,
summed) / 9, pit colour / animal / track (4; track 3 = any track), occupied,
coins on it / 10, current price if vacant / 10.

Fast path: the goods part of the market is cached per market (it changes only
when strips are turned); the market spaces whose coins or surcharge changed, the
seat counts that changed and the scores of the seats whose scoring sources
changed are rewritten; one gather puts the seats in the observer's order and
scales them.
"""

from __future__ import annotations

from functools import cache
from itertools import compress
from operator import ne

import numpy as np

from gemtable.core.observation import ObservationLayout, Scratch, seat_rotations

from .data import ANIMAL, HAT, MINE, PIT, SHIP, TRACK
from .rules import (
    BEYOND,
    BOARD_PIECES,
    BUILD,
    BUY,
    GEMS,
    GENMAX,
    MAX_COLS,
    NA,
    NB,
    NBOARDS,
    NC,
    NV,
    OVER,
    ROWS,
    TRACK_MAX,
    D,
    DiamondsClubState,
)

MAX_SEATS = 4
NPHASES = 4
SPACE = 15
NMAND = len(D.mandatory)
_MAX_ROUNDS = 15.0
_MAX_COINS = float(max(D.money_coins))
_POINTS = 100.0
_GOODS_MAX = 3.0  # bound for goods counted on one space

LAYOUT = L = ObservationLayout()
PHASE = L.add("phase", NPHASES, help="one-hot: buy, purchase gems, build, over")
ROUND = L.add("round", 1, help="round / 15, clipped to 1")
ENDING = L.add("ending", 1)
TRACK_CHOICE = L.add("track_choice_pending", 1, help="1 while the player to move picks a track to advance")
STAGE = L.add("gem_stage", 1, high=4.0, help="phase-4 stage (purchase gems phase only)")
PAY = L.add("pending_payment", NBOARDS + NB + 1,
            help="while paying for a building: price board one-hot, then tile one-hot")
ANY_TRACK_LEFT = L.add("track_steps_to_choose", 1, high=3.0,
                       help="'?' track steps of the bought space still to choose / 3")
FOREST_PILES = L.add("forest_pile_choice", NB,
                     help="while choosing the pile a new forest is turned from: the tied piles")
GLOBAL = L.size
MARKET_AT = L.add("market", ROWS * MAX_COLS * SPACE, high=_GOODS_MAX,
                  help="per market space (6 rows × 8 strips, slot = buy action): present, goods kinds (6), "
                       "number / 9, pit colour / animal / track (4), occupied, coins / 10, price if vacant / 10")
SHARED_AT = L.size
L.add("price_boards", NBOARDS * MAX_SEATS, help="per price board: a piece of each seat (relative)")
L.add("building_piles", NB, help="tiles left / tiles per building")
L.add("animal_piles", NA, help="tiles left / tiles per animal")
L.add("bonus_three_of_a_kind", NB * MAX_SEATS, help="per building: owner one-hot by relative seat")
L.add("bonus_all_four", len(D.all_four_vp) * MAX_SEATS, help="owner one-hot by relative seat")
L.add("bonus_five_identical", len(D.five_vp) * MAX_SEATS, help="owner one-hot by relative seat")
SHARED = L.size - SHARED_AT
SEATS_AT = L.size
for _k in range(MAX_SEATS):
    L.add(f"seat{_k}.flags", 4, help="present, to move, passed, starting player (k = 0: the observer)")
    L.add(f"seat{_k}.order", 1, help="place in the playing order / (players - 1)")
    L.add(f"seat{_k}.coins", 1, high=10.0, help="coins / the largest money-track income")
    L.add(f"seat{_k}.gems", 5, high=10.0, help="blue, yellow, green, red, diamond / 10")
    L.add(f"seat{_k}.tracks", 3, help="forest, tech, money track positions / their ends")
    L.add(f"seat{_k}.pits", NC, high=4.0, help="pits by colour / 3")
    L.add(f"seat{_k}.mining_rights", NV, high=4.0, help="by value / 3")
    L.add(f"seat{_k}.ships", NV, high=4.0, help="by value / 3")
    L.add(f"seat{_k}.buildings", NB, high=2.0, help="/ 10")
    L.add(f"seat{_k}.forests", 1, high=2.0, help="/ 10")
    L.add(f"seat{_k}.animals", NA, high=2.0, help="/ 5")
    L.add(f"seat{_k}.mandatory_covered", NMAND)
    L.add(f"seat{_k}.light_green_covered", 1)
    L.add(f"seat{_k}.dark_green_covered", 1)
    L.add(f"seat{_k}.start_track", 1, help="start-track space / (last + 1)")
    L.add(f"seat{_k}.pieces_beneath", 1, help="pieces beneath on that space / 3")
    L.add(f"seat{_k}.price_pieces_used", 1)
    L.add(f"seat{_k}.score", 1, high=5.0, help="current score / 100, clipped to 5")
SEAT = (L.size - SEATS_AT) // MAX_SEATS
SIZE = L.size
L.check()

# per-seat bulk counts: (offset in the seat block, scale) in the order of _raw()
_COUNT_LAYOUT = (
    [(5, 1 / _MAX_COINS)] + [(6 + i, 0.1) for i in range(5)]
    + [(11 + t, 1 / TRACK_MAX[t]) for t in range(3)]
    + [(14 + i, 1 / 3) for i in range(NC)]
    + [(14 + NC + i, 1 / 3) for i in range(NV)]
    + [(14 + NC + NV + i, 1 / 3) for i in range(NV)]
    + [(14 + NC + 2 * NV + i, 0.1) for i in range(NB)]
    + [(14 + NC + 2 * NV + NB, 0.1)]
    + [(15 + NC + 2 * NV + NB + i, 0.2) for i in range(NA)]
)
_MAND_AT = 15 + NC + 2 * NV + NB + NA
_GEN_AT = _MAND_AT + NMAND
_TAIL = [(_GEN_AT, 1 / GENMAX), (_GEN_AT + 1, 1 / D.dark_spaces), (_GEN_AT + 2, 1 / BEYOND),
         (_GEN_AT + 4, 1 / BOARD_PIECES)]  # gen, dark, pos, used
_KIND_NUMBERED = (MINE, SHIP, HAT)
_KIND_CATEGORY = (PIT, ANIMAL, TRACK)
_GOODS_CACHE: list = [None, None]


def _goods_block(market_goods) -> np.ndarray:
    """present, kinds, number, category for every market slot (cached per market)."""
    if _GOODS_CACHE[0] is not market_goods and _GOODS_CACHE[0] != market_goods:
        block = np.zeros((ROWS * MAX_COLS, SPACE), np.float32)
        for i, goods in enumerate(market_goods):
            if goods is None:
                continue
            row = block[i]
            row[0] = 1.0
            for kind, val in goods:
                row[1 + kind] += 1.0
                if kind in _KIND_NUMBERED:
                    row[7] += val / 9.0
                elif kind in _KIND_CATEGORY:
                    row[8 + val] += 1.0
        _GOODS_CACHE[0], _GOODS_CACHE[1] = market_goods, block.ravel()
    return _GOODS_CACHE[1]


_SCORE_CACHE: list = [None, None]  # the score sources as last seen, every seat's score


def _scores(s: DiamondsClubState) -> list[float]:
    """Every seat's current score / 100; a seat's score is recomputed only when its own
    buildings, animals, tracks or forests changed (all seats when a bonus changed hands)."""
    new = (s.bld, s.ani, s.tr, s.forests, s.triple, s.all4, s.five)
    c = _SCORE_CACHE
    old = c[0]
    n = s.num_players
    if old is not None and len(old[3]) == n and old[4:] == new[4:]:
        if old[:4] == new[:4]:
            return c[1]
        seats = set()
        for was, now, per in zip(old, new[:4], (NB, NA, 3, 1)):
            if was != now:
                seats.update(i // per for i in compress(range(len(now)), map(ne, now, was)))
        scores = c[1][:]
    else:
        seats = range(n)
        scores = [0.0] * n
    for p in seats:
        scores[p] = min(5.0, s.breakdown(p)["total"] / _POINTS)
    c[0] = tuple(x[:] for x in new)
    c[1] = scores
    return scores


# -- incremental fill -------------------------------------------------------------------------
# The observation is kept in absolute seat order (seat block q = seat q, owner one-hots by
# absolute seat) in a Scratch buffer; sources are re-encoded only when their content changed;
# one precomputed permutation per (players, observer) puts it in the observer's order.
_SEAT_SOURCES = (  # (state list, items per seat, offset in the seat block, scale), in _fill's order
    ("coins", 1, 5, 1 / _MAX_COINS), ("gems", 5, 6, 0.1),
    ("pits", NC, 14, 1 / 3), ("mines", NV, 14 + NC, 1 / 3), ("ships", NV, 14 + NC + NV, 1 / 3),
    ("bld", NB, 14 + NC + 2 * NV, 0.1), ("forests", 1, 14 + NC + 2 * NV + NB, 0.1),
    ("ani", NA, 15 + NC + 2 * NV + NB, 0.2),
    ("gen", 1, _GEN_AT, 1 / GENMAX), ("dark", 1, _GEN_AT + 1, 1 / D.dark_spaces),
    ("pos", 1, _GEN_AT + 2, 1 / BEYOND), ("used", 1, _GEN_AT + 4, 1 / BOARD_PIECES),
)
_BP_AT = SHARED_AT
_PILES_AT = _BP_AT + NBOARDS * MAX_SEATS
_APILES_AT = _PILES_AT + NB
_OWNERS_AT = _APILES_AT + NA  # triple, all-four, five-identical owner blocks
_NALL4, _NFIVE = len(D.all_four_vp), len(D.five_vp)
_NOWNER = NB + _NALL4 + _NFIVE
_NO_OWNER = [-1] * max(_NALL4, _NFIVE)
_SCALE = np.ones(SIZE, np.float32)
for _k in range(MAX_SEATS):
    _b = SEATS_AT + _k * SEAT
    for _name, _per, _off, _sc in _SEAT_SOURCES:
        _SCALE[_b + _off:_b + _off + _per] = _sc
    for _t in range(3):
        _SCALE[_b + 11 + _t] = 1 / TRACK_MAX[_t]
_SCALE[_PILES_AT:_PILES_AT + NB] = 1 / D.tiles_per_building
_SCALE[_APILES_AT:_APILES_AT + NA] = 1 / D.tiles_per_animal


@cache
def _scratch(n: int) -> tuple:
    sc = Scratch(SIZE)
    for q in range(n):
        sc.buf[SEATS_AT + q * SEAT] = 1.0  # present
    # per seat source list (each list whole, seat after seat): the destination of every entry
    dests = [[SEATS_AT + q * SEAT + off + i for q in range(n) for i in range(per)]
             for _, per, off, _ in _SEAT_SOURCES]  # _SEAT_SOURCES order, then the tracks
    dests.append([SEATS_AT + q * SEAT + 11 + t for q in range(n) for t in range(3)])
    perms = seat_rotations(SIZE, n, blocks=((SEATS_AT, SEAT),),
                           strided=(_BP_AT + np.arange(NBOARDS, dtype=np.intp) * MAX_SEATS,
                                    _OWNERS_AT + np.arange(_NOWNER, dtype=np.intp) * MAX_SEATS))
    return (sc, dests, perms)


def _fill(s: DiamondsClubState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    sc, dests, perms = _scratch(n)
    buf, snap, hot = sc.buf, sc.snap, sc.hot
    m = sc.view
    onehot = sc.onehot
    ph = s.phase
    # globals (small, rewritten every call, through the memoryview)
    onehot("phase", PHASE + ph)
    m[ROUND] = min(1.0, s.round / _MAX_ROUNDS)
    m[ENDING] = 1.0 if s.ending else 0.0
    m[TRACK_CHOICE] = 1.0 if ph == BUY and s.pend >= 0 else 0.0
    m[STAGE] = float(s.stage) if ph == GEMS else 0.0
    paying = ph == BUILD and s.pend >= 0
    onehot("pay_board", PAY + s.pend if paying else -1)
    onehot("pay_tile", PAY + NBOARDS + s.ptile if paying else -1)
    m[ANY_TRACK_LEFT] = s.qleft / 3.0
    if hot.get("fpile") != s.fpile:
        hot["fpile"] = s.fpile
        buf[FOREST_PILES:FOREST_PILES + NB] = [float(s.fpile >> b & 1) for b in range(NB)]
    # market: the goods part is cached per market; occupied / coins / price are rewritten
    # for the spaces whose coins or surcharge changed
    goods = _goods_block(s.market_goods)
    cm, sur = s.cm, s.sur
    old_cm, old_sur = snap.get("cm"), snap.get("sur")
    if hot.get("goods") is not goods or old_cm is None or len(old_cm) != len(cm) or len(old_sur) != len(sur):
        hot["goods"] = goods
        buf[MARKET_AT:MARKET_AT + ROWS * MAX_COLS * SPACE] = goods
        changed = range(len(cm))
    elif old_cm != cm or old_sur != sur:
        changed = set(compress(range(len(cm)), map(ne, cm, old_cm)))
        changed.update(compress(range(len(sur)), map(ne, sur, old_sur)))
    else:
        changed = ()
    if changed:
        for i in changed:
            at = MARKET_AT + i * SPACE + 12
            c = cm[i]
            m[at] = 1.0 if c > 0 else 0.0  # occupied
            m[at + 1] = _TENTHS[c]  # coins / 10
            m[at + 2] = 0.0 if c > 0 else _TENTHS[1 + sur[i]]  # price if vacant / 10
        snap["cm"], snap["sur"] = cm[:], sur[:]
    # shared: price boards and bonus owners by absolute seat, piles
    if snap.get("bp") != s.bp:
        snap["bp"] = s.bp[:]
        block = buf[_BP_AT:_BP_AT + NBOARDS * MAX_SEATS]
        block[:] = 0.0
        for b, x in enumerate(s.bp):
            for q in range(n):
                if x >> q & 1:
                    block[b * MAX_SEATS + q] = 1.0
    owners = s.triple + (s.all4 + _NO_OWNER)[:_NALL4] + (s.five + _NO_OWNER)[:_NFIVE]
    if snap.get("owners") != owners:
        snap["owners"] = owners
        block = buf[_OWNERS_AT:_OWNERS_AT + _NOWNER * MAX_SEATS]
        block[:] = 0.0
        for slot, o in enumerate(owners):
            if o >= 0:
                block[slot * MAX_SEATS + o] = 1.0
    sc.bytes_into("tiles", s.tiles, _TILES)
    sc.bytes_into("apile", s.apile, _APILES)
    # seats: each source list compared in C, only its changed entries rewritten (raw, scaled
    # at the end)
    lists = (s.coins, s.gems, s.pits, s.mines, s.ships, s.bld, s.forests, s.ani, s.gen, s.dark, s.pos,
             s.used, s.tr)  # _SEAT_SOURCES order, then the tracks
    olds = snap.get("seat_lists")
    if olds is None:
        olds = snap["seat_lists"] = [None] * len(lists)
    if olds != list(lists):
        for j, values in enumerate(lists):
            old = olds[j]
            if old == values:
                continue
            at = dests[j]
            if old is None or len(old) != len(values):
                for i, x in enumerate(values):
                    m[at[i]] = x
            else:
                for i in compress(range(len(values)), map(ne, values, old)):
                    m[at[i]] = values[i]
            olds[j] = values[:]
    onehot("mover", SEATS_AT + s.order[s.oi] * SEAT + 1 if ph != OVER else -1)
    passed = s.passed if ph == BUY or ph == BUILD else 0
    if hot.get("passed") != passed:
        hot["passed"] = passed
        for q in range(n):
            buf[SEATS_AT + q * SEAT + 2] = float(passed >> q & 1)
    onehot("start", SEATS_AT + s.start * SEAT + 3)
    if snap.get("mand") != s.mand:
        snap["mand"] = s.mand[:]
        for q in range(n):
            m = s.mand[q]
            at = SEATS_AT + q * SEAT + _MAND_AT
            buf[at:at + NMAND] = [float(m >> i & 1) for i in range(NMAND)]
    if hot.get("order") != s.order:
        hot["order"] = s.order
        for i, q in enumerate(s.order):
            buf[SEATS_AT + q * SEAT + 4] = i / (n - 1)
    if snap.get("pos") != s.pos or snap.get("seq") != s.seq:
        snap["pos"], snap["seq"] = s.pos[:], s.seq[:]
        pos, seq = s.pos, s.seq
        for q in range(n):
            below = sum(1 for r in range(n) if r != q and pos[r] == pos[q] and seq[r] < seq[q])
            buf[SEATS_AT + q * SEAT + _GEN_AT + 3] = below / 3.0
    scores = _scores(s)
    if hot.get("scores") is not scores:
        hot["scores"] = scores
        buf[_SCORE_AT[n]] = scores
    # into the observer's seat order, scaled (a plain gather is the fastest numpy form)
    np.multiply(buf.take(perms[player]), _SCALE, out=out)


_TENTHS = (np.arange(256, dtype=np.float32) * np.float32(0.1)).tolist()  # float32(k) * float32(0.1)
_TILES = np.arange(_PILES_AT, _PILES_AT + NB)
_APILES = np.arange(_APILES_AT, _APILES_AT + NA)
_SCORE_AT = {n: np.array([SEATS_AT + q * SEAT + SEAT - 1 for q in range(n)], np.intp)
             for n in range(1, MAX_SEATS + 1)}


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation


@LAYOUT.resetter
def _reset() -> None:
    _scratch.cache_clear()
    _GOODS_CACHE[:] = [None, None]
    _SCORE_CACHE[:] = [None, None]
