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
    KAREA,
    KSYM,
    KWHEEL,
    LEVEL,
    LEVEL_PTS,
    NBP,
    PICK,
    PICKING,
    PLACE,
    SAIL,
    SEA_END,
    SEA_EXTRA,
    SEA_PTS,
    STAR,
    SYM,
    TRADE_COL,
    TRADE_ROW,
    USING,
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
