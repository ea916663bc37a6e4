"""Heuristic for bots: an estimate of a seat's final score.

Starts from the current score (rows, two tallest columns, overflow penalty), completes the
decision in progress the obvious way (the best adjacent tile to gather, new colours into
columns by number of pieces, the excess of a full satchel into overflow), then adds a
small value for the glass in the satchel (each piece is a future placement, hence a future
gather) and for rows in progress.  Uses only public information.
"""

from __future__ import annotations

from .rules import (
    CAPACITY, COLOUR_OF, GATHER, NCOL, NROW, ORDER, OVER, OVERFLOW, ROW_TRACK,
    GlassworksState, row_runs, score_of,
)

SATCHEL_PIECE = 1.5  # a piece in the satchel: one more placement, hence one more gather
ROW_POTENTIAL = 0.25  # share of the next row-track step credited to a row in progress


def _add_colours(colcol: list[int], heights: list[int], colours) -> int:
    """Add gathered colours to a glassworks copy (new colours: most pieces first).

    Returns the number of pieces that overflow.
    """
    over = 0
    new: dict[int, int] = {}
    for colour in colours:
        if colour in colcol:
            c = colcol.index(colour)
            if heights[c] < NROW:
                heights[c] += 1
            else:
                over += 1
        else:
            new[colour] = new.get(colour, 0) + 1
    for colour, k in sorted(new.items(), key=lambda kv: (-kv[1], kv[0])):
        if -1 not in colcol:
            over += k
            continue
        c = colcol.index(-1)
        colcol[c] = colour
        heights[c] = min(k, NROW)
        over += k - heights[c]
    return over


def _glassworks_value(colcol: list[int], heights: list[int], overflow: int) -> float:
    value = float(score_of(heights, overflow))
    for h, run in enumerate(row_runs(heights), 1):
        if run < NCOL and (run > 0 or h == 1):
            value += ROW_POTENTIAL * (ROW_TRACK[run + 1] - ROW_TRACK[run])
    return value


def heuristic(state: GlassworksState, player: int) -> float:
    base = player * NCOL
    colcol = state.colcol[base:base + NCOL]
    heights = state.colh[base:base + NCOL]
    overflow = len(state.overflow[player])
    if state.phase == OVER:
        return float(score_of(heights, overflow))
    satchel = len(state.satchels[player])
    mine = state.current == player
    if mine and state.phase == GATHER:
        best = None
        for t in state.gather_options():
            cc, hh = colcol[:], heights[:]
            over = _add_colours(cc, hh, [COLOUR_OF[x] for x in state.tiles[t]])
            v = _glassworks_value(cc, hh, overflow + over)
            if best is None or v > best:
                best = v
        value = best
    elif mine and state.phase == ORDER:
        over = _add_colours(colcol, heights, state.pending)
        value = _glassworks_value(colcol, heights, overflow + over)
    elif mine and state.phase == OVERFLOW:
        value = _glassworks_value(colcol, heights, overflow + satchel - CAPACITY)
        satchel = CAPACITY
    else:
        value = _glassworks_value(colcol, heights, overflow)
    if state.end_turn >= 0:
        satchel = min(satchel, 2)  # only a couple of placements remain
    return value + SATCHEL_PIECE * satchel
