"""Mille Fiori evaluation for bots: an estimate of a seat's final score.

Counts what is certain (points on the track and bonus-point spaces already
claimed), then what is likely to come:
- the card the seat holds (its secret pick, or the card it is playing): the
  best immediate gain it can make with it (placement or sail, counting a
  bonus claimed and extra cards earned), computed for each use;
- extra cards waiting to be played;
- progress towards each bonus-point space still available (squared share of
  the symbols / distinct values needed, times the best free value).

``rollout_policy`` is the move the ``mcts`` bot's playouts make: the card (from the
hand or the display) with the best immediate gain, used in its best way.
"""

from __future__ import annotations

from .data import BONUS_AREAS, COMMONERS, HARBOR, HOUSES, NOBLES, TRADE, WORKSHOPS
from .rules import (
    ADJ,
    AREA,
    B0,
    BENEATH,
    BONUS,
    CHOOSING,
    DECLINE,
    EXTRA,
    EXTRA_CARD,
    FLEET,
    FULL_COVER,
    H0,
    HARBOR_PTS,
    HBIT,
    HBONUS,
    HEXTRA,
    HVAL,
    KAREA,
    KSYM,
    KWHEEL,
    LEVEL,
    LEVEL_PTS,
    N0,
    NBP,
    NH,
    NTC,
    NTR,
    OVER,
    PICK,
    PICKING,
    PLACE,
    SAIL,
    SEA_END,
    SEA_EXTRA,
    SEA_PTS,
    STAR,
    SYM,
    T0,
    TRADE_COL,
    TRADE_ROW,
    USING,
    W0,
    D,
    MilleFioriState,
    _bits,
    house_points,
    workshop_points,
)

EXTRA_CARD_VALUE = 4.0
BONUS_WEIGHT = 0.5
NEEDED = tuple(HBONUS if a == HOUSES else _bits(FULL_COVER[a]) for a in range(BONUS_AREAS))


def card_gain(state: MilleFioriState, player: int, kind: int) -> float:
    """Best immediate gain of ``player`` playing card ``kind`` now (placement or sail).

    The gain of each use is computed in place, without copying the state; the
    test suite checks it against actually applying the use to a copy.
    """
    sail = sail_gain(state, player, KWHEEL[kind])
    best = sail
    harbor = KAREA[kind] == HARBOR
    for space in state.use_spaces(player, kind):
        gain = place_gain(state, player, kind, space)
        if harbor:
            gain += sail
        if gain > best:
            best = gain
    return best


def sail_gain(state: MilleFioriState, player: int, wheel: int) -> float:
    """Points (and extra cards, valued) of sailing ``wheel`` spaces now."""
    pos = state.ship[player]
    if pos >= SEA_END:
        return 0.0
    pos = min(SEA_END, pos + wheel)
    return SEA_PTS[pos] + (EXTRA_CARD_VALUE if SEA_EXTRA[pos] else 0.0)


def place_gain(state: MilleFioriState, p: int, kind: int, s: int) -> float:
    """What placing a diamond on ``s`` with card ``kind`` earns ``p`` at once: points,
    a bonus-point space (if one is claimed) and extra cards (valued), as ``_place`` scores it."""
    owner = state.owner
    area = AREA[s]
    extras = 0
    cover = state.cover[5 * p + area] if area < BONUS_AREAS else 0
    if area == WORKSHOPS:
        pts = workshop_points(owner, p, s)
        new_cover = cover | 1 << SYM[s]
        full = new_cover == FULL_COVER[WORKSHOPS]
        a, b, c = STAR[s]
        if (a == s or owner[a] >= 0) and (b == s or owner[b] >= 0) and (c == s or owner[c] >= 0):
            extras += 1
    elif area == HOUSES:
        i = s - H0
        pts = house_points(owner, p, i)
        new_cover = cover | HBIT[i]
        full = False
        if new_cover != cover:  # a new distinct value
            cnt = _bits(new_cover)
            if cnt in HEXTRA:
                extras += 1
            full = cnt == HBONUS
    elif area == NOBLES or area == COMMONERS:
        pts = LEVEL_PTS[LEVEL[s]] * (2 if SYM[s] == KSYM[kind] else 1)
        for b, v in BENEATH[s]:
            if owner[b] == p:
                pts += v
        new_cover = cover | 1 << SYM[s]
        full = new_cover == FULL_COVER[area]
        if LEVEL[s] == 2:
            extras += 1
    elif area == TRADE:
        mine = 1
        value = 1
        others = [0] * state.num_players
        for x in TRADE_COL[SYM[s]]:
            o = owner[x]
            if o >= 0:
                value += 1
                if o == p:
                    mine += 1
                else:
                    others[o] += 1
        pts = value * mine
        new_cover = cover | 1 << SYM[s]
        full = new_cover == FULL_COVER[TRADE]
        if max(others) > mine:
            extras += 1
    else:  # harbor: the fleet departs when this fills its last ship
        r = (s - B0) // NBP
        fleet = FLEET[r]
        pts = 0
        if all(x == s or owner[x] >= 0 for x in fleet):
            per = HARBOR_PTS[sum(1 for x in TRADE_ROW[r] if owner[x] >= 0)]
            pts = per * sum(1 for x in fleet if x == s or owner[x] == p)
        full = False
    gain = pts + EXTRA_CARD_VALUE * extras
    # a bonus space needs a personal diamond left after this one
    if full and not state.got_bonus[p] >> area & 1 and state.personal[p] >= 2:
        bo = state.bonus_owner
        for i in range(4):
            if bo[area * 4 + i] < 0:
                gain += BONUS[area][i]
                break
    return gain


def bonus_potential(state: MilleFioriState, player: int) -> float:
    value = 0.0
    got = state.got_bonus[player]
    owners = state.bonus_owner
    cover = state.cover
    for area in range(BONUS_AREAS):
        if got >> area & 1:
            continue
        covered = cover[5 * player + area]
        if not covered:
            continue
        base = 4 * area
        for i in range(4):
            if owners[base + i] < 0:
                share = min(1.0, _bits(covered) / NEEDED[area])
                value += BONUS_WEIGHT * BONUS[area][i] * share * share
                break
    return value


def heuristic(state: MilleFioriState, player: int) -> float:
    value = float(state.points[player] + state.bonus_pts[player])
    if state.is_over():
        return value
    value += bonus_potential(state, player)
    held = state.picks[player]
    if held < 0 and state.phase == USING and state.cur == player:
        held = state.card
    if held >= 0:
        value += card_gain(state, player, held)
    if state.cur == player:
        value += EXTRA_CARD_VALUE * state.extras
    return value


def rollout_policy(state: MilleFioriState, player: int, rng) -> object:
    """A quick plausible move for search playouts: pick (or take from the display) the
    card with the best immediate gain, and use a card in its best way; ties at random."""
    ph = state.phase
    if ph == USING:
        kind = state.card
        sail = sail_gain(state, player, KWHEEL[kind])
        harbor = KAREA[kind] == HARBOR
        best, choice = [SAIL], sail
        for space in state.use_spaces(player, kind):
            gain = place_gain(state, player, kind, space)
            if harbor:
                gain += sail
            if gain > choice:
                best, choice = [PLACE[space]], gain
            elif gain == choice:
                best.append(PLACE[space])
        return best[rng.below(len(best))] if len(best) > 1 else best[0]
    if ph == PICKING or ph == CHOOSING:
        kinds, table = set(state.hands[player]), PICK
    elif ph == EXTRA_CARD:
        kinds, table = set(state.display), EXTRA
    else:
        raise ValueError("no move to make")
    best, choice = [], -1.0
    for kind in sorted(kinds):
        gain = card_gain(state, player, kind)
        if gain > choice:
            best, choice = [kind], gain
        elif gain == choice:
            best.append(kind)
    if not best:
        return DECLINE
    return table[best[rng.below(len(best))] if len(best) > 1 else best[0]]


# -- value features (learned evaluator) -------------------------------------------------
SCORE_SCALE = 200.0  # final scores of greedy play lie around 120-320
GAIN_SCALE = 20.0  # points of one card play, of a position's stake in an area

VALUE_FEATURE_NAMES = (
    "progress",  # share of the game's plays made (rounds by the deck)
    "supply_end",  # 1 - the smallest personal supply / 27 (1 once the end is under way)
    "order",  # this seat's place in the current pass (0 = plays first) / (players - 1)
    "score",  # points on the track + bonus-point spaces claimed / 200
    "score_margin",  # the same minus the best other seat's / 200
    "bonus_outlook",  # the heuristic's value of the bonus spaces in reach / 20
    "bonus_outlook_margin",  # the same minus the best other seat's / 20
    "diamonds_placed",  # diamonds gone from the personal supply / 27
    "diamonds_placed_margin",  # the same minus the most any other seat has placed / 27
    "ship",  # position on the sea track / 20
    "ship_margin",  # the same minus the best other seat's / 20
    "held_card",  # best immediate gain of the card picked or in play (and extra cards due) / 20
    "workshop_group",  # largest connected workshop group (a placement next to it scores it) / 10
    "house_chain",  # own house values just before the next free house (the next one adds them) / 20
    "trade_stake",  # diamonds times goods value, summed over unfinished trade columns / 20
    "trade_stake_margin",  # the same minus the best other seat's / 20
    "harbor_stake",  # fleet points waiting for own ships in fleets yet to depart / 20
    "pyramid_stake",  # support points owed to this seat by the free pyramid spaces above it / 20
    "display",  # cards in the display (extra cards to choose from) / 9, at most 1
)

_PYRAMID_SUPPORT = tuple((s, BENEATH[s]) for s in range(N0, T0) if BENEATH[s])
_TOTAL_PLAYS = {
    n: (len(D.deck) - D.display[n]) // (D.hand_size * n) * D.played_per_round[n] for n in D.display
}


def _bonus_outlooks(state: MilleFioriState) -> list[float]:
    """``bonus_potential`` of every seat in one pass (the free bonus space of each area is
    looked up once)."""
    owners = state.bonus_owner
    free = []
    for area in range(BONUS_AREAS):
        base = 4 * area
        value = 0
        for i in range(4):
            if owners[base + i] < 0:
                value = BONUS[area][i]
                break
        free.append(value)
    cover = state.cover
    out = []
    for p in range(state.num_players):
        got = state.got_bonus[p]
        value = 0.0
        for area in range(BONUS_AREAS):
            covered = cover[5 * p + area]
            if covered and free[area] and not got >> area & 1:
                share = min(1.0, covered.bit_count() / NEEDED[area])
                value += BONUS_WEIGHT * free[area] * share * share
        out.append(value)
    return out


def _largest_group(owner: list[int], p: int) -> int:
    best = 0
    seen = set()
    for s in range(W0, W0 + 30):
        if owner[s] != p or s in seen:
            continue
        seen.add(s)
        stack = [s]
        size = 0
        while stack:
            x = stack.pop()
            size += 1
            for y in ADJ[x]:
                if owner[y] == p and y not in seen:
                    seen.add(y)
                    stack.append(y)
        if size > best:
            best = size
    return best


def _seat_stats(state: MilleFioriState) -> list[tuple]:
    """Per seat: (score, bonus outlook, diamonds placed, ship, trade stake)."""
    n = state.num_players
    owner = state.owner
    points, bonus_pts, personal, ship = state.points, state.bonus_pts, state.personal, state.ship
    full = D.personal_diamonds
    # trade: every seat's diamonds per column, the column's occupied spaces
    stake = [0] * n
    trade = owner[T0:T0 + NTR * NTC]
    for c in range(NTC):
        column = trade[c::NTC]
        occupied = NTR - column.count(-1)
        if 0 < occupied < NTR:  # the next diamond in the column pays (occupied + 1) per diamond
            for q in range(n):
                k = column.count(q)
                if k:
                    stake[q] += k * (occupied + 1)
    outlooks = [0.0] * n if state.phase == OVER else _bonus_outlooks(state)
    return [(points[q] + bonus_pts[q], outlooks[q], full - personal[q], ship[q], stake[q]) for q in range(n)]


def value_features(state: MilleFioriState, player: int) -> list[float]:
    """The numbers a player weighs in Mille Fiori, for the learned evaluator's linear part
    (names in ``VALUE_FEATURE_NAMES``): how far the game and the diamond supplies have run,
    the score against the other seats, the bonus spaces, the sea track, the card in hand
    and what the board already owes this seat (workshop group, house chain, trade and harbor
    stakes, pyramid support).  Reads the state it is given (a determinization in a search,
    so the card read is that determinization's) and does not change it."""
    return _features(state, _seat_stats(state), player)


def value_features_all(state: MilleFioriState) -> list[list[float]]:
    """Every seat's :func:`value_features`, the seats' summaries computed once."""
    stats = _seat_stats(state)
    return [_features(state, stats, p) for p in range(state.num_players)]


def _features(state: MilleFioriState, stats: list[tuple], player: int) -> list[float]:
    n = state.num_players
    owner = state.owner
    over = state.phase == OVER
    full = D.personal_diamonds
    others = [stats[q] for q in range(n) if q != player] or [stats[player]]
    best_score, best_bonus, best_placed, best_ship, best_stake = (max(x[i] for x in others) for i in range(5))
    score, bonus, placed, ship, stake = stats[player]

    held_gain = 0.0
    if not over:
        held = state.picks[player]
        if held < 0 and state.phase == USING and state.cur == player:
            held = state.card
        if held >= 0:
            held_gain = card_gain(state, player, held)
        if state.cur == player:
            held_gain += EXTRA_CARD_VALUE * state.extras

    # houses: the run of own diamonds just before the next free house
    chain = 0
    if state.houses_next < NH:
        j = state.houses_next - 1
        while j >= 0 and owner[H0 + j] == player:
            chain += HVAL[j]
            j -= 1
    # harbor: own ships in fleets that have not departed, at the fleet's current rate
    harbor = 0
    for r in range(len(FLEET)):
        fleet = FLEET[r]
        mine = free = 0
        for x in fleet:
            o = owner[x]
            if o < 0:
                free += 1
            elif o == player:
                mine += 1
        if mine and free:
            harbor += mine * HARBOR_PTS[sum(1 for x in TRADE_ROW[r] if owner[x] >= 0)]
    # pyramids: support each free space would pay this seat once filled
    support = 0
    for s, beneath in _PYRAMID_SUPPORT:
        if owner[s] < 0:
            for b, v in beneath:
                if owner[b] == player:
                    support += v

    total = _TOTAL_PLAYS[n]
    done = state.round * D.played_per_round[n] + state.plays_done
    g = GAIN_SCALE
    return [
        1.0 if over else min(1.0, done / total),
        1.0 if over or state.ending else 1.0 - min(state.personal) / full,
        ((player - state.start) % n) / max(1, n - 1),
        score / SCORE_SCALE,
        (score - best_score) / SCORE_SCALE,
        bonus / g,
        (bonus - best_bonus) / g,
        placed / full,
        (placed - best_placed) / full,
        ship / SEA_END,
        (ship - best_ship) / SEA_END,
        held_gain / g,
        _largest_group(owner, player) / 10.0,
        chain / g,
        stake / g,
        (stake - best_stake) / g,
        harbor / g,
        support / g,
        min(1.0, len(state.display) / 9.0),
    ]
