"""A fixed-length numeric observation of River Valley Glassworks for learning adapters.

Everything is public except the order of the bag, so the observation uses the
bag's contents (counts by colour), never its order.  Seats are listed starting
with the observer and padded to five.  A piece is a code ``colour * NS + shape``
(NP = NC × NS codes); colours follow ``rules.COLOURS`` (NC), shapes ``rules.SHAPES`` (NS).
``LAYOUT`` names every index (``LAYOUT.describe()``).

Fast path: the observation is kept in absolute seat order (raw counts) and only
the parts whose source changed are rewritten (a seat's satchel, a changed column,
the river); one gather puts the seats in the observer's order and scales them.
"""

from __future__ import annotations

from functools import cache
from itertools import compress
from operator import ne

import numpy as np

from gemtable.core.observation import ObservationLayout, Scratch, seat_rotations

from .rules import (
    CAPACITY,
    COLOUR_OF,
    DATA,
    NC,
    NCOL,
    NROW,
    NS,
    OVER,
    STONES,
    GlassworksState,
    score_of,
)

MAX_SEATS = 5  # player counts are 2-5
NPHASES = 5
NP = NC * NS
_MAX_STONES = float(max(STONES))
_MAX_COLOUR = float(max(DATA.colour_counts))
_BAG_TOTAL = float(sum(DATA.colour_counts))
_MAX_ROUNDS = 30.0
_POINTS = 100.0
_PILE = 4.0  # rough scale for pieces of one colour on a tile

LAYOUT = L = ObservationLayout()
PHASE = L.add("phase", NPHASES, help="one-hot: main, gather, order, overflow, over")
TRIGGERED = L.add("end_triggered", 1)
TURNS_LEFT = L.add("turns_left_after_trigger", 1, help="turns left after the trigger / (2 × players)")
ROUND = L.add("round", 1, help="round / 30, clipped to 1")
PASSES = L.add("passes", 1, help="passes in a row / players")
OVERFLOW_OPTION = L.add("overflow_counts_option", 1)
RIVER = L.add("river", NS * (NS + 1 + NC), high=max(1.0, _MAX_COLOUR / _PILE),
              help="per river position, upstream first: tile shape one-hot (NS), stones / max, "
                   "pieces by colour / 4 (NC)")
PLACED = L.add("tile_placed_on", NS, help="one-hot")
GATHERED = L.add("tile_gathered", NS, help="one-hot")
PENDING = L.add("pending_colours", NC, high=max(1.0, _MAX_COLOUR / _PILE), help="new colours to order / 4")
LAKE = L.add("lake", NP, high=max(1.0, _MAX_COLOUR / 2.0), help="lake pieces by code / 2")
BAG = L.add("bag", NC, help="bag contents by colour / the largest colour count")
BAG_SIZE = L.add("bag_size", 1, help="bag size / all pieces")
GLOBAL = L.size
SEATS_AT = L.size
for _k in range(MAX_SEATS):
    L.add(f"seat{_k}.present", 1, help="(k = 0: the observer)")
    L.add(f"seat{_k}.to_move", 1)
    L.add(f"seat{_k}.satchel", NP, high=max(1.0, CAPACITY / 2.0), help="satchel pieces by code / 2")
    L.add(f"seat{_k}.satchel_size", 1, high=2.0, help="satchel size / capacity (above 1 while choosing overflow)")
    L.add(f"seat{_k}.columns", NCOL * (NC + 1), help="per column: colour one-hot (NC), height / rows")
    L.add(f"seat{_k}.overflow", 1, high=max(1.0, _MAX_COLOUR * NC / 10.0), help="overflow pieces / 10")
    L.add(f"seat{_k}.inventory", 1, high=4.0, help="end-trigger inventory count / (columns × rows)")
    L.add(f"seat{_k}.score", 1, low=-2.0, high=2.0, help="score / 100, clipped to [-2, 2]")
SEAT = (L.size - SEATS_AT) // MAX_SEATS
SIZE = L.size
L.check()

_RIVER_BLOCK = NS + 1 + NC
_SCALE = np.ones(SIZE, np.float32)
_SCALE[RIVER:RIVER + NS * _RIVER_BLOCK] = np.tile(
    np.array([1.0] * NS + [1.0 / _MAX_STONES] + [1.0 / _PILE] * NC, np.float32), NS)
_SCALE[PENDING:PENDING + NC] = 1.0 / _PILE
_SCALE[LAKE:LAKE + NP] = 0.5
_SCALE[BAG:BAG + NC] = 1.0 / _MAX_COLOUR
_SCALE[BAG_SIZE] = 1.0 / _BAG_TOTAL
for _k in range(MAX_SEATS):
    _b = SEATS_AT + _k * SEAT
    _SCALE[_b + 2:_b + 2 + NP] = 0.5
    _SCALE[_b + 2 + NP] = 1.0 / CAPACITY
    _c = _b + 3 + NP
    _SCALE[_c:_c + NCOL * (NC + 1)] = np.tile(np.array([1.0] * NC + [1.0 / NROW], np.float32), NCOL)
    _SCALE[_c + NCOL * (NC + 1)] = 0.1  # overflow
_RIVER_COLOUR = tuple(tuple(RIVER + pos * _RIVER_BLOCK + NS + 1 + COLOUR_OF[code] for code in range(NP))
                      for pos in range(NS))
_SCORES: dict[tuple, float] = {}


def _score(heights: tuple, ov: int) -> float:
    key = heights + (ov,)
    got = _SCORES.get(key)
    if got is None:
        if len(_SCORES) > 100_000:
            _SCORES.clear()
        got = _SCORES[key] = max(-2.0, min(2.0, score_of(heights, ov) / _POINTS))
    return got


_COLOUR_OF = np.array(COLOUR_OF, np.intp)  # piece code -> colour


_SATCHELS: dict = {}


def _satchel_block(sat: tuple) -> memoryview:
    """Satchel counts by piece code (raw), memoised: satchels are few small multisets."""
    got = _SATCHELS.get(sat)
    if got is None:
        if len(_SATCHELS) > 100_000:
            _SATCHELS.clear()
        block = np.zeros(NP, np.float32)
        for code in sat:
            block[code] += 1.0
        got = _SATCHELS[sat] = memoryview(block)
    return got


# -- incremental fill -------------------------------------------------------------------------
# Kept in absolute seat order in a Scratch buffer (raw counts); every source is re-encoded
# only when its content changed; one permutation per (players, observer) puts the seat blocks
# in the observer's order and one multiply scales everything.
_COLS = NCOL * (NC + 1)
_COLS_AT = 2 + NP + 1  # the columns within a seat's block


@cache
def _scratch(n: int) -> tuple:
    sc = Scratch(SIZE)
    for q in range(n):
        sc.buf[SEATS_AT + q * SEAT] = 1.0  # present
    perms = seat_rotations(SIZE, n, blocks=((SEATS_AT, SEAT),))
    return (sc, perms)


def _fill(s: GlassworksState, player: int, out: np.ndarray) -> None:
    n = s.num_players
    sc, perms = _scratch(n)
    buf, snap, hot = sc.buf, sc.snap, sc.hot
    m = sc.view
    ph = s.phase
    sc.onehot("phase", PHASE + ph)
    triggered = s.end_turn >= 0
    scalars = (s.end_turn - s.turn if triggered else None, s.turn // n, s.passes, s.overflow_counts)
    if hot.get("scalars") != scalars:
        hot["scalars"] = scalars
        buf[TRIGGERED:OVERFLOW_OPTION + 1] = (
            1.0 if triggered else 0.0,
            (s.end_turn - s.turn) / (2.0 * n) if triggered else 0.0,
            min(1.0, (s.turn // n) / _MAX_ROUNDS),
            s.passes / n,
            1.0 if s.overflow_counts else 0.0,
        )
    if hot.get("river") != s.river or snap.get("tiles") != s.tiles:
        hot["river"], snap["tiles"] = s.river, s.tiles[:]
        idx = []
        for pos, t in enumerate(s.river):
            base = RIVER + pos * _RIVER_BLOCK
            idx.append(base + t)
            idx += [base + NS] * STONES[t]
            col = _RIVER_COLOUR[pos]
            idx += [col[code] for code in s.tiles[t]]
        buf[RIVER:RIVER + NS * _RIVER_BLOCK] = np.bincount(idx, minlength=RIVER + NS * _RIVER_BLOCK)[RIVER:]
    sc.onehot("placed", PLACED + s.placed if s.placed >= 0 else -1)
    sc.onehot("gathered", GATHERED + s.gathered if s.gathered >= 0 else -1)
    if hot.get("pending") != s.pending:
        hot["pending"] = s.pending
        buf[PENDING:PENDING + NC] = np.bincount(s.pending, minlength=NC) if s.pending else 0.0
    if hot.get("lake") != s.lake:
        hot["lake"] = s.lake
        buf[LAKE:LAKE + NP] = np.bincount(s.lake, minlength=NP) if s.lake else 0.0
    bag = s.bag
    if snap.get("bag") != bag:  # contents only: the order is hidden
        snap["bag"] = bag[:]
        buf[BAG:BAG + NC] = np.bincount(_COLOUR_OF, np.bincount(bag, minlength=NP), NC) if bag else 0.0
        buf[BAG_SIZE] = len(bag)
    sc.onehot("current", SEATS_AT + s.current * SEAT + 1 if ph != OVER and s.current >= 0 else -1)
    # seats: every source list is compared in C and only what changed is rewritten (the
    # state's satchels and overflows are tuples, replaced when they change).  Seat q's block
    # starts at SEATS_AT + q * SEAT: present, to move, satchel (NP), satchel size, columns,
    # overflow, inventory, score.
    sats = s.satchels
    old = snap.get("sat")
    if old != sats:
        fresh = old is None or len(old) != len(sats)
        for q in range(n) if fresh else compress(range(n), map(ne, sats, old)):
            sat = sats[q]
            b = SEATS_AT + q * SEAT + 2
            m[b:b + NP] = _satchel_block(sat)
            m[b + NP] = len(sat)
        snap["sat"] = sats[:]
    colcol, colh, ovs = s.colcol, s.colh, s.overflow
    rescore = set()
    old_col, old_h = snap.get("colcol"), snap.get("colh")
    if old_col != colcol or old_h != colh:
        if old_col is None or len(old_col) != len(colcol) or len(old_h) != len(colh):
            cols = range(len(colcol))
            old_col = [-1] * len(colcol)
        else:
            cols = set(compress(range(len(colcol)), map(ne, colcol, old_col)))
            cols.update(compress(range(len(colh)), map(ne, colh, old_h)))
        for i in cols:  # i = q * NCOL + c
            q, c = divmod(i, NCOL)
            at = SEATS_AT + q * SEAT + _COLS_AT + c * (NC + 1)
            if old_col[i] >= 0:
                m[at + old_col[i]] = 0.0
            if colcol[i] >= 0:
                m[at + colcol[i]] = 1.0
            m[at + NC] = colh[i]
            rescore.add(q)
        snap["colcol"], snap["colh"] = colcol[:], colh[:]
    old = snap.get("ov")
    if old != ovs:
        fresh = old is None or len(old) != len(ovs)
        for q in range(n) if fresh else compress(range(n), map(ne, ovs, old)):
            m[SEATS_AT + q * SEAT + _COLS_AT + _COLS] = len(ovs[q])
            rescore.add(q)
        snap["ov"] = ovs[:]
    for q in rescore:
        lo = q * NCOL
        m[SEATS_AT + q * SEAT + _COLS_AT + _COLS + 2] = _score(tuple(colh[lo:lo + NCOL]), len(ovs[q]))
    inv = s.inventory
    old = snap.get("inv")
    if old != inv:
        fresh = old is None or len(old) != len(inv)
        for q in range(n) if fresh else compress(range(n), map(ne, inv, old)):
            m[SEATS_AT + q * SEAT + _COLS_AT + _COLS + 1] = min(4.0, inv[q] / (NCOL * NROW))
        snap["inv"] = inv[:]
    # into the observer's seat order, scaled (a plain gather is the fastest numpy form)
    np.multiply(buf.take(perms[player]), _SCALE, out=out)


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation


@LAYOUT.resetter
def _reset() -> None:
    _scratch.cache_clear()
    _SCORES.clear()
    _SATCHELS.clear()
