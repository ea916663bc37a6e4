"""A fixed-length numeric observation of River Valley Glassworks for learning adapters.

Everything is public except the order of the bag, so the observation uses the
bag's contents (counts by colour), never its order.  Seats are listed starting
with the observer and padded to five.  A piece is a code ``colour * NS + shape``
(NP = NC × NS codes); colours follow ``rules.COLOURS`` (NC), shapes ``rules.SHAPES`` (NS).
``LAYOUT`` names every index (``LAYOUT.describe()``).

Fast path: every counted or one-hot entry is gathered as a destination index,
the whole vector is one ``bincount`` scaled by a precomputed per-index factor,
and the few real-valued entries are written afterwards.
"""

from __future__ import annotations

from functools import cache

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


# -- incremental fill -------------------------------------------------------------------------
# Kept in absolute seat order in a Scratch buffer (raw counts); every source is re-encoded
# only when its content changed; one permutation per (players, observer) puts the seat blocks
# in the observer's order and one multiply scales everything.
_COLS = NCOL * (NC + 1)


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
    ph = s.phase
    sc.onehot("phase", PHASE + ph)
    triggered = s.end_turn >= 0
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
        colours = [COLOUR_OF[code] for code in bag]
        buf[BAG:BAG + NC] = np.bincount(colours, minlength=NC) if colours else 0.0
        buf[BAG_SIZE] = len(bag)
    sc.onehot("current", SEATS_AT + s.current * SEAT + 1 if ph != OVER and s.current >= 0 else -1)
    # seats: each seat's block is re-encoded only when that seat's pieces changed
    last = snap.get("seats")
    if last is None:
        last = snap["seats"] = [None] * n
    colcol, colh = s.colcol, s.colh
    for q in range(n):
        lo = q * NCOL
        key = (s.satchels[q], colcol[lo:lo + NCOL], colh[lo:lo + NCOL], s.overflow[q], s.inventory[q])
        if last[q] == key:
            continue
        last[q] = key
        sat = s.satchels[q]
        b = SEATS_AT + q * SEAT + 2
        buf[b:b + NP] = np.bincount(sat, minlength=NP) if sat else 0.0
        buf[b + NP] = len(sat)
        block = [0.0] * (_COLS + 3)
        for c in range(NCOL):
            colour = colcol[lo + c]
            if colour >= 0:
                block[c * (NC + 1) + colour] = 1.0
            block[c * (NC + 1) + NC] = colh[lo + c]
        ov = len(s.overflow[q])
        block[_COLS] = ov
        block[_COLS + 1] = min(4.0, s.inventory[q] / (NCOL * NROW))
        block[_COLS + 2] = _score(tuple(colh[lo:lo + NCOL]), ov)
        buf[b + NP + 1:b + NP + 1 + _COLS + 3] = block
    # into the observer's seat order, scaled (a plain gather is the fastest numpy form)
    np.multiply(buf.take(perms[player]), _SCALE, out=out)


observe = LAYOUT.filler(_fill)
observation = LAYOUT.observation
