"""Heuristic for bots: an estimate of a seat's final score.

Starts from the current score (rows, two tallest columns, overflow penalty), completes the
decision in progress the obvious way (the best adjacent tile to gather, new colours into
columns by number of pieces, the excess of a full satchel into overflow), then adds a
small value for the glass in the satchel (each piece is a future placement, hence a future
gather) and for rows in progress.  Uses only public information.

``rollout_policy`` is the move the ``mcts`` bot's playouts make: the one this heuristic
values most one decision ahead for the seat itself (close to the greedy bot's choice),
computed without copying the state: a placement is worth the best tile next to it to
gather, less the satchel pieces it spends; a lake draw the pieces it adds to the satchel,
less those that overflow; ties are broken at random.
"""

from __future__ import annotations

from .rules import (
    CAPACITY,
    COLOUR_OF,
    COLUMN_ACT,
    GATHER,
    GATHER_ACT,
    INFO_T,
    K_LAKE,
    K_LAKE_ALL,
    K_PAIR,
    K_PLACE,
    LAKE_TAKE,
    MAIN,
    NC,
    NCOL,
    NROW,
    NS,
    ORDER,
    OVER,
    OVERFLOW,
    OVERFLOW_ACT,
    PENALTY,
    ROW_TRACK,
    SHAPE_OF,
    TRIGGER,
    GlassworksState,
    column_points,
    row_runs,
    score_of,
)

SATCHEL_PIECE = 1.5  # a piece in the satchel: one more placement, hence one more gather
ROW_POTENTIAL = 0.25  # share of the next row-track step credited to a row in progress


def _add_colours(colcol: list[int], heights: list[int], colours) -> int:
    """Add gathered colours to a glassworks copy (new colours: most pieces first).

    Returns the number of pieces that overflow.
    """
    over = 0
    new: dict[int, int] | None = None
    for colour in colours:
        if colour in colcol:
            c = colcol.index(colour)
            if heights[c] < NROW:
                heights[c] += 1
            else:
                over += 1
        elif new is None:
            new = {colour: 1}
        else:
            new[colour] = new.get(colour, 0) + 1
    if new is None:
        return over
    for colour, k in sorted(new.items(), key=lambda kv: (-kv[1], kv[0])) if len(new) > 1 else new.items():
        if -1 not in colcol:
            over += k
            continue
        c = colcol.index(-1)
        colcol[c] = colour
        heights[c] = min(k, NROW)
        over += k - heights[c]
    return over


# value of a glassworks by its column heights, before the overflow penalty (a pure
# function of the heights, memoised: playouts score the same few boards again and again)
_HEIGHTS_VALUE: dict[tuple[int, ...], float] = {}
_CACHE_LIMIT = 200_000


def _heights_value(heights: tuple[int, ...]) -> float:
    value = _HEIGHTS_VALUE.get(heights)
    if value is None:
        value = float(score_of(heights, 0))
        for h, run in enumerate(row_runs(heights), 1):
            if run < NCOL and (run > 0 or h == 1):
                value += ROW_POTENTIAL * (ROW_TRACK[run + 1] - ROW_TRACK[run])
        if len(_HEIGHTS_VALUE) > _CACHE_LIMIT:
            _HEIGHTS_VALUE.clear()
        _HEIGHTS_VALUE[heights] = value
    return value


def _glassworks_value(colcol: list[int], heights: list[int], overflow: int) -> float:
    return _heights_value(tuple(heights)) - PENALTY * overflow


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


def _satchel_value(state: GlassworksState, pieces: int) -> float:
    if state.end_turn >= 0:
        pieces = min(pieces, 2)  # as the heuristic: only a couple of placements remain
    return SATCHEL_PIECE * pieces


def gather_after(state: GlassworksState, player: int, tile: int) -> tuple[list[int], list[int], int]:
    """Column colours, column heights and overflow count of ``player`` once the pieces on
    ``tile`` are gathered (new colours open columns most pieces first), computed on small
    copies of the seat's columns: the state is not changed."""
    base = player * NCOL
    colcol = state.colcol[base:base + NCOL]
    heights = state.colh[base:base + NCOL]
    over = _add_colours(colcol, heights, [COLOUR_OF[x] for x in state.tiles[tile]])
    return colcol, heights, len(state.overflow[player]) + over


def gather_value(state: GlassworksState, player: int, tile: int) -> float:
    """The heuristic's glassworks value of ``player`` after gathering ``tile``."""
    return _glassworks_value(*gather_after(state, player, tile))


def _pick(best: list, rng):
    return best[rng.below(len(best))] if len(best) > 1 else best[0]


def rollout_policy(state: GlassworksState, player: int, rng) -> object:
    """A quick plausible move for search playouts: the decision the heuristic values most
    one step ahead (placement and its best gather, lake draw, gather, column, overflow);
    ties at random."""
    acts = state.legal_actions(player)
    if len(acts) == 1:
        return acts[0]
    phase = state.phase
    if phase == GATHER:
        best, choice = [], None
        for t in state.gather_options():
            v = gather_value(state, player, t)
            if choice is None or v > choice:
                best, choice = [GATHER_ACT[t]], v
            elif v == choice:
                best.append(GATHER_ACT[t])
        return _pick(best, rng)
    if phase == ORDER:
        counts: dict[int, int] = {}
        for colour in state.pending:
            counts[colour] = counts.get(colour, 0) + 1
        top = max(counts.values())
        return _pick([COLUMN_ACT[c] for c in sorted(counts) if counts[c] == top], rng)
    if phase == OVERFLOW:
        # every choice costs the same; keep the satchel's variety of shapes (more tiles to
        # place on): give up a piece of the shape it holds most of
        satchel = state.satchels[player]
        per_shape = [0] * NS
        for code in satchel:
            per_shape[SHAPE_OF[code]] += 1
        top = max(per_shape)
        return _pick([OVERFLOW_ACT[code] for code in sorted(set(satchel)) if per_shape[SHAPE_OF[code]] == top], rng)
    if phase != MAIN:
        raise ValueError("no move to make")
    best, choice = [], None
    for action, v in main_values(state, player, acts):
        if choice is None or v > choice:
            best, choice = [action], v
        elif v == choice:
            best.append(action)
    return _pick(best, rng)


def main_values(state: GlassworksState, player: int, acts=None) -> list[tuple[object, float]]:
    """Each start-of-turn action of ``player`` with the heuristic's value of the position
    it leads to (a placement: with the best tile next to it gathered; on the last turn of
    the game, the final score), computed on small copies of the seat's columns: the state
    is neither changed nor copied."""
    if acts is None:
        acts = state.legal_actions(player)
    last = 0 <= state.end_turn <= state.turn + 1  # the last turn: the final score counts
    river = state.river
    tiles = state.tiles
    base = player * NCOL
    colcol = state.colcol[base:base + NCOL]
    heights = state.colh[base:base + NCOL]
    overflow = len(state.overflow[player])
    # the glassworks as it is (an empty tile gathered, a lake draw without overflow)
    here = float(score_of(heights, overflow)) if last else _glassworks_value(colcol, heights, overflow)
    if last:
        single = pair = 0.0
    else:
        satchel = len(state.satchels[player])
        single = _satchel_value(state, satchel - 1)
        pair = _satchel_value(state, satchel - 2)
    gathered: dict[int, float] = {}  # tile -> the glassworks once it is gathered
    placed: dict[int, float] = {}  # tile placed on -> its best neighbour gathered
    out = []
    for action in acts:
        kind, a, _, c = INFO_T[action.id]
        if kind == K_PLACE or kind == K_PAIR:
            t = SHAPE_OF[a] if kind == K_PLACE else c
            v = placed.get(t)
            if v is None:
                i = river.index(t)
                for j in (i - 1, i + 1):
                    if 0 <= j < NS:
                        n = river[j]
                        g = gathered.get(n)
                        if g is None:
                            pieces = tiles[n]
                            if pieces:
                                cc, hh = colcol[:], heights[:]
                                over = overflow + _add_colours(cc, hh, [COLOUR_OF[x] for x in pieces])
                                g = float(score_of(hh, over)) if last else _glassworks_value(cc, hh, over)
                            else:
                                g = here
                            gathered[n] = g
                        if v is None or g > v:
                            v = g
                placed[t] = v
            v += single if kind == K_PLACE else pair
        elif kind == K_LAKE or kind == K_LAKE_ALL:
            after = satchel + min(LAKE_TAKE, len(state.lake))
            excess = max(0, after - CAPACITY)
            v = (_glassworks_value(colcol, heights, overflow + excess) if excess else here) \
                + _satchel_value(state, after - excess)
        else:  # pass: the position as it is
            v = heuristic(state, player)
        out.append((action, v))
    return out


# -- value features (learned evaluator) -------------------------------------------------
SCORE_SCALE = 50.0  # points: final scores of greedy play lie around 25-55
CELLS = NCOL * NROW

VALUE_FEATURE_NAMES = (
    "progress",  # the highest inventory count / the end trigger (1 once triggered)
    "turns_left",  # own turns left once the end is triggered / 2 (1 before the trigger)
    "wait",  # seats to play before this seat's next turn / (players - 1)
    "score",  # points now (rows + two tallest columns - overflow) / 50
    "score_margin",  # points now minus the best other seat's / 50
    "rows",  # row-track points / 50
    "rows_margin",  # row-track points minus the best other seat's / 50
    "columns",  # points of the two tallest columns / 50
    "columns_margin",  # the same minus the best other seat's / 50
    "overflow",  # overflow penalty (3 per piece) / 50
    "overflow_margin",  # the penalty minus the leading rival's / 50
    "satchel",  # satchel pieces still usable (after the trigger: at most one per turn left) / 5
    "satchel_margin",  # the same minus the leading rival's / 5
    "inventory",  # own inventory count / the end trigger
    "inventory_margin",  # own inventory minus the highest other seat's / the end trigger
    "free_columns",  # unused columns / 7: room for new colours before they overflow
    "full_columns",  # full columns / 7: their colour now overflows
    "row_potential",  # row-track points the next cell of each extendable row adds / 50
    "stray_cells",  # filled cells outside every row run (they score in no row) / 35
    "best_gather",  # the best glassworks gain among the tiles this seat can gather next / 50
    "river_waste",  # share of the glass on the river tiles that would overflow for this seat
)


# heights -> (row points, column points, row potential, stray cells, full columns), memoised
_SHAPE_PARTS: dict[tuple[int, ...], tuple[int, int, int, int, int]] = {}


def _shape_parts(heights: tuple[int, ...]) -> tuple[int, int, int, int, int]:
    parts = _SHAPE_PARTS.get(heights)
    if parts is None:
        runs = row_runs(heights)
        rows = sum(ROW_TRACK[run] for run in runs)
        potential = 0
        for h, run in enumerate(runs, 1):
            if run < NCOL and (run > 0 or h == 1):
                potential += ROW_TRACK[run + 1] - ROW_TRACK[run]
        cols = column_points(heights)
        stray = sum(heights) - sum(runs)
        full = sum(1 for h in heights if h >= NROW)
        parts = (rows, cols, potential, stray, full)
        if len(_SHAPE_PARTS) > _CACHE_LIMIT:
            _SHAPE_PARTS.clear()
        _SHAPE_PARTS[heights] = parts
    return parts


# (river, satchel, pair on its own tile) -> tiles within reach of a placement, memoised
_REACH: dict[tuple, tuple[int, ...]] = {}


def _reachable_tiles(state: GlassworksState, player: int) -> tuple[int, ...]:
    """River tiles ``player`` could gather on its next placement: in the gather decision the
    tiles next to the one placed on; otherwise the neighbours of every tile a satchel piece
    (or a pair of one shape) can be placed on."""
    if state.phase == GATHER and state.current == player:
        return tuple(state.gather_options())
    satchel = state.satchels[player]
    if not satchel:
        return ()
    key = (state.river, satchel, state.pair_own)
    out = _REACH.get(key)
    if out is not None:
        return out
    counts = [0] * NS
    for code in satchel:
        counts[SHAPE_OF[code]] += 1
    targets = [counts[t] > 0 for t in range(NS)]
    for s in range(NS):
        if counts[s] >= 2:  # a pair stands for any other shape (or its own, by option)
            for t in range(NS):
                if t != s or state.pair_own:
                    targets[t] = True
    river = state.river
    near = set()
    for i, t in enumerate(river):
        if targets[t]:
            if i > 0:
                near.add(river[i - 1])
            if i < NS - 1:
                near.add(river[i + 1])
    out = tuple(sorted(near))
    if len(_REACH) > _CACHE_LIMIT:
        _REACH.clear()
    _REACH[key] = out
    return out


# (column colours, heights, gathered pieces) -> gain of the glassworks value, memoised
_GATHER_GAIN: dict[tuple, float] = {}


def _gather_gain(colcol: tuple[int, ...], heights: tuple[int, ...], pieces: tuple[int, ...]) -> float:
    key = (colcol, heights, pieces)
    gain = _GATHER_GAIN.get(key)
    if gain is None:
        cc, hh = list(colcol), list(heights)
        over = _add_colours(cc, hh, [COLOUR_OF[x] for x in pieces])
        gain = _heights_value(tuple(hh)) - PENALTY * over - _heights_value(heights)
        if len(_GATHER_GAIN) > _CACHE_LIMIT:
            _GATHER_GAIN.clear()
        _GATHER_GAIN[key] = gain
    return gain


def _seat_stats(state: GlassworksState) -> list[tuple]:
    """Per seat: (heights, shape parts, score now, overflow pieces, usable satchel pieces)."""
    n = state.num_players
    colh = state.colh
    overflow = state.overflow
    satchels = state.satchels
    end_turn = state.end_turn
    turn = state.turn
    over = state.phase == OVER
    stats = []
    for q in range(n):
        heights = tuple(colh[q * NCOL:q * NCOL + NCOL])
        parts = _shape_parts(heights)
        spilled = len(overflow[q])
        usable = len(satchels[q])
        if end_turn >= 0:  # one placement per turn left: turns t in [turn, end_turn) with t % n == q
            first = turn + (q - turn) % n
            left = 0 if over or first >= end_turn else (end_turn - 1 - first) // n + 1
            usable = min(usable, left)
        stats.append((heights, parts, parts[0] + parts[1] - PENALTY * spilled, spilled, usable))
    return stats


def value_features(state: GlassworksState, player: int) -> list[float]:
    """The numbers a player weighs in River Valley Glassworks, for the learned evaluator's
    linear part (names in ``VALUE_FEATURE_NAMES``): progress toward the end, the score and
    its parts against the other seats, satchel tempo, room left in the glassworks and the
    glass within reach.  Reads the state it is given (a determinization in a search) and
    does not change it."""
    return _features(state, _seat_stats(state), player)


def value_features_all(state: GlassworksState) -> list[list[float]]:
    """Every seat's :func:`value_features`, the seats' scores computed once."""
    stats = _seat_stats(state)
    return [_features(state, stats, p) for p in range(state.num_players)]


def _features(state: GlassworksState, stats: list[tuple], player: int) -> list[float]:
    n = state.num_players
    inventory = state.inventory
    end_turn = state.end_turn
    triggered = end_turn >= 0
    over = state.phase == OVER

    best_score = best_rows = best_cols = best_inv = -1e9
    lead_score, lead = -1e9, player
    for q in range(n):
        if q == player:
            continue
        _, parts, score, _, _ = stats[q]
        if score > best_score:
            best_score = score
        if parts[0] > best_rows:
            best_rows = parts[0]
        if parts[1] > best_cols:
            best_cols = parts[1]
        if inventory[q] > best_inv:
            best_inv = inventory[q]
        if score > lead_score:
            lead_score, lead = score, q
    heights, (rows, cols, potential, stray, full), score, spilled, usable = stats[player]
    if lead == player:  # no other seat
        best_score, best_rows, best_cols, best_inv = score, rows, cols, inventory[player]
    # turns this seat still plays once the end is triggered
    turn = state.turn
    first = turn + (player - turn) % n
    mine_left = 0 if over or first >= end_turn else (end_turn - 1 - first) // n + 1

    # the best gather within reach, and how much of the river's glass would overflow here
    base = player * NCOL
    my_colcol = tuple(state.colcol[base:base + NCOL])
    free = my_colcol.count(-1)
    tiles = state.tiles
    best_gain = 0.0
    if not over:
        for t in _reachable_tiles(state, player):
            pieces = tiles[t]
            if pieces:
                gain = _gather_gain(my_colcol, heights, pieces)
                if gain > best_gain:
                    best_gain = gain
    # colours that would overflow here: full columns, and new colours once every column is used
    bad = [not free] * NC
    for c in range(NCOL):
        colour = my_colcol[c]
        if colour >= 0:
            bad[colour] = heights[c] >= NROW
    waste = total = 0
    for pieces in tiles:
        total += len(pieces)
        for code in pieces:
            if bad[COLOUR_OF[code]]:
                waste += 1

    s = SCORE_SCALE
    return [
        1.0 if triggered else min(1.0, max(inventory) / TRIGGER),
        mine_left / 2.0 if triggered else 1.0,
        ((player - state.current) % n) / max(1, n - 1),
        score / s,
        (score - best_score) / s,
        rows / s,
        (rows - best_rows) / s,
        cols / s,
        (cols - best_cols) / s,
        PENALTY * spilled / s,
        PENALTY * (spilled - stats[lead][3]) / s,
        usable / CAPACITY,
        (usable - stats[lead][4]) / CAPACITY,
        inventory[player] / TRIGGER,
        (inventory[player] - best_inv) / TRIGGER,
        free / NCOL,
        full / NCOL,
        potential / s,
        stray / CELLS,
        best_gain / s,
        waste / total if total else 0.0,
    ]
