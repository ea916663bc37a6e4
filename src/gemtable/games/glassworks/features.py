"""A fixed-length numeric observation of River Valley Glassworks for learning adapters.

Everything is public except the order of the bag, so the observation uses the
bag's contents (counts by colour), never its order.  Seats are listed starting
with the observer and padded to five.  A piece is a code ``colour * NS + shape``
(NP = NC × NS codes); colours follow ``rules.COLOURS`` (NC), shapes ``rules.SHAPES`` (NS).

Layout:
phase one-hot (5) | end triggered, turns left after the trigger, round, passes,
overflow-counts option (5) | river, upstream first, per position: tile shape
one-hot (NS), stones, pieces by colour (NC) | tile just placed on one-hot (NS) |
tile just gathered one-hot (NS) | pending new colours by colour (NC) | lake by
piece code (NP) | bag by colour (NC), bag size (1)
| per seat, observer first (5 ×): present, to move, satchel by piece code (NP),
satchel size, per column (NCOL): colour one-hot (NC) + height, overflow size,
inventory (the end-trigger count, scaled by the NCOL × NROW cells), score.
"""

from __future__ import annotations

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
RIVER = NS * (NS + 1 + NC)
GLOBAL = NPHASES + 5 + RIVER + 2 * NS + NC + NP + NC + 1
SEAT = 2 + NP + 1 + NCOL * (NC + 1) + 3
SEATS_AT = GLOBAL  # start of the per-seat blocks
SIZE = SEATS_AT + MAX_SEATS * SEAT

_MAX_STONES = float(max(STONES))
_MAX_COLOUR = float(max(DATA.colour_counts))
_BAG_TOTAL = float(sum(DATA.colour_counts))
_MAX_ROUNDS = 30.0
_POINTS = 100.0
_PILE = 4.0  # rough scale for pieces of one colour on a tile


def observation(state: GlassworksState, player: int) -> list[float]:
    n = state.num_players
    ph = state.phase
    out: list[float] = [0.0] * NPHASES
    out[ph] = 1.0
    triggered = state.end_turn >= 0
    out += [
        1.0 if triggered else 0.0,
        (state.end_turn - state.turn) / (2.0 * n) if triggered else 0.0,
        min(1.0, (state.turn // n) / _MAX_ROUNDS),
        state.passes / n,
        1.0 if state.overflow_counts else 0.0,
    ]
    tiles = state.tiles
    for t in state.river:
        block = [0.0] * (NS + 1 + NC)
        block[t] = 1.0
        block[NS] = STONES[t] / _MAX_STONES
        for code in tiles[t]:
            block[NS + 1 + COLOUR_OF[code]] += 1.0 / _PILE
        out += block
    placed = [0.0] * NS
    if state.placed >= 0:
        placed[state.placed] = 1.0
    out += placed
    gathered = [0.0] * NS
    if state.gathered >= 0:
        gathered[state.gathered] = 1.0
    out += gathered
    pending = [0.0] * NC
    for colour in state.pending:
        pending[colour] += 1.0 / _PILE
    out += pending
    lake = [0.0] * NP
    for code in state.lake:
        lake[code] += 1.0 / 2
    out += lake
    bag = [0.0] * NC
    for code in state.bag:  # contents only: the order is hidden
        bag[COLOUR_OF[code]] += 1.0
    out += [x / _MAX_COLOUR for x in bag]
    out.append(len(state.bag) / _BAG_TOTAL)

    current = state.current if ph != OVER else -1
    colcol, colh = state.colcol, state.colh
    for k in range(MAX_SEATS):
        if k >= n:
            out += [0.0] * SEAT
            continue
        p = (player + k) % n
        out += [1.0, 1.0 if p == current else 0.0]
        sat = [0.0] * NP
        for code in state.satchels[p]:
            sat[code] += 1.0 / 2
        out += sat
        out.append(len(state.satchels[p]) / CAPACITY)
        base = p * NCOL
        for c in range(NCOL):
            block = [0.0] * (NC + 1)
            colour = colcol[base + c]
            if colour >= 0:
                block[colour] = 1.0
            block[NC] = colh[base + c] / NROW
            out += block
        ov = len(state.overflow[p])
        out += [
            ov / 10.0,
            state.inventory[p] / (NCOL * NROW),
            score_of(colh[base:base + NCOL], ov) / _POINTS,
        ]
    return out
